import Foundation

/// Whether a secret (a CURVE secret key, an API token) is kept where only its owner can change it, as
/// ssh judges private keys: a file anyone may write is refused (someone could swap in their own key or
/// token); one anyone may read is accepted with a warning.
public enum SecretFilePermissions {
    /// - Returns: a warning to log when others may read the file; nil when only its owner (and group) can.
    /// - Throws: `.keys` when the file is missing, not a regular file, or writable by others.
    public static func check(_ path: String, what: String) throws(WireError) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw WireError(.keys, "\(what) \(path): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else { throw WireError(.keys, "\(what) \(path) is not a regular file") }
        let mode = info.st_mode & 0o777
        try refuseWritableByAnyone(path, mode: mode, what: what, fix: "chmod 600 \(path)")
        if mode & 0o004 != 0 {
            return "\(what) \(path) is readable by anyone (mode \(String(mode, radix: 8))); chmod 600 \(path)"
        }
        return nil
    }

    /// Refuses a file or folder whose contents decide who is trusted (a public key, the allow-list folder)
    /// when anyone may write it, as sshd's StrictModes refuses such an `authorized_keys`: anyone on the
    /// machine could add their own worker key, or swap the coordinator's.
    /// - Throws: `.keys` naming the path, its mode and the fix.
    public static func checkTrusted(_ path: String, what: String) throws(WireError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw WireError(.keys, "\(what) \(path): \(String(cString: strerror(errno)))")
        }
        let folder = info.st_mode & S_IFMT == S_IFDIR
        try refuseWritableByAnyone(
            path, mode: info.st_mode & 0o7777, what: what, fix: "chmod \(folder ? "755" : "644") \(path)")
    }

    private static func refuseWritableByAnyone(
        _ path: String, mode: mode_t, what: String, fix: String
    )
        throws(WireError)
    {
        guard mode & 0o002 != 0 else { return }
        throw WireError(
            .keys, "\(what) \(path) is writable by anyone (mode \(String(mode, radix: 8))); refusing it: \(fix)")
    }
}
