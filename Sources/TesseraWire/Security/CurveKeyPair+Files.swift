import Foundation

/// Key files, in the layout of ZeroMQ's certificates (czmq `zcert`, pyzmq `zmq.auth`) so other tools can
/// read them:
///
/// ```
/// PREFIX.key  (mode 0600)            PREFIX.pub
/// # ZeroMQ CURVE **Secret** ...       # ZeroMQ CURVE public key ...
/// curve                               <40-character Z85 public key>
///     public-key = "<Z85>"
///     secret-key = "<Z85>"
/// ```
///
/// `PREFIX.pub` holds only the public key, one per line, so an allow-list is a directory of `.pub` files
/// or one file with a key per line.
extension CurveKeyPair {
    /// Writes `PREFIX.key` (both keys, mode 0600, refusing to overwrite an existing one) and `PREFIX.pub`.
    /// - Returns: the two paths written.
    /// - Throws: `.keys` naming the file when it exists or cannot be written.
    @discardableResult
    public func save(prefix: String) throws(WireError) -> (secretFile: String, publicFile: String) {
        let (secretFile, publicFile) = (prefix + ".key", prefix + ".pub")
        let secretText = """
            #   ZeroMQ CURVE **Secret** Certificate (Tessera)
            #   Keep this file private: it must stay readable by its owner only.
            curve
                public-key = "\(publicKey)"
                secret-key = "\(secretKey)"

            """
        try Self.writeFile(secretText, to: secretFile, mode: 0o600, exclusive: true)
        try Self.writeFile(
            "# ZeroMQ CURVE public key (Tessera)\n\(publicKey)\n", to: publicFile, mode: 0o644,
            exclusive: false)
        return (secretFile, publicFile)
    }

    /// Reads a key pair from a `.key` file written by `save(prefix:)` (or czmq/pyzmq).
    /// - Throws: `.keys` naming the file and what is wrong with it.
    public static func load(secretFile path: String) throws(WireError) -> CurveKeyPair {
        var found: [String: String] = [:]
        for (number, line) in try lines(of: path).enumerated() {
            let parts = line.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let name = parts[0].trimmingCharacters(in: .whitespaces)
            guard name == "public-key" || name == "secret-key" else { continue }
            let value = parts[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: .init(charactersIn: "\""))
            guard isValidKey(value) else {
                throw WireError(.keys, "\(path):\(number + 1): \(name) is not a 40-character Z85 CURVE key")
            }
            found[name] = value
        }
        guard let publicKey = found["public-key"], let secretKey = found["secret-key"] else {
            throw WireError(.keys, "\(path) holds no \(found["secret-key"] == nil ? "secret-key" : "public-key")")
        }
        do {
            return try CurveKeyPair(publicKey: publicKey, secretKey: secretKey)
        } catch {
            throw WireError(.keys, "\(path): \(error.message)")
        }
    }

    /// The public keys in `path`: a file with one Z85 key per line, or a directory whose `*.pub` files
    /// are such files. Blank lines and lines starting with `#` are ignored.
    /// - Throws: `.keys` for an unreadable path, a malformed key (naming file and line), no key at all, or a
    ///   file or folder anyone may write (`SecretFilePermissions.checkTrusted`).
    public static func loadPublicKeys(_ path: String) throws(WireError) -> Set<String> {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw WireError(.keys, "public key file or directory \(path) does not exist")
        }
        try SecretFilePermissions.checkTrusted(
            path, what: isDirectory.boolValue ? "the public key folder" : "the public key file")
        var files = [path]
        if isDirectory.boolValue {
            let names: [String]
            do { names = try FileManager.default.contentsOfDirectory(atPath: path) } catch {
                throw WireError(.keys, "cannot list \(path): \(error.localizedDescription)")
            }
            files = names.filter { $0.hasSuffix(".pub") }.sorted().map { path + "/" + $0 }
        }
        var keys: Set<String> = []
        for file in files {
            if isDirectory.boolValue { try SecretFilePermissions.checkTrusted(file, what: "the public key file") }
            for (number, raw) in try lines(of: file).enumerated() {
                let line = raw.trimmingCharacters(in: .whitespaces)
                if line.isEmpty || line.hasPrefix("#") { continue }
                guard isValidKey(line) else {
                    throw WireError(
                        .keys,
                        "\(file):\(number + 1): \"\(line.prefix(48))\" is not a "
                            + "40-character Z85 CURVE public key")
                }
                keys.insert(line)
            }
        }
        guard !keys.isEmpty else {
            throw WireError(
                .keys,
                isDirectory.boolValue
                    ? "no public key in any *.pub file in \(path)"
                    : "no public key in \(path)")
        }
        return keys
    }

    private static func lines(of path: String) throws(WireError) -> [Substring] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw WireError(.keys, "cannot read \(path)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw WireError(.keys, "\(path) is not UTF-8 text")
        }
        // "\r\n" is one Character in Swift, and a newline like "\n".
        return text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
    }

    private static func writeFile(_ text: String, to path: String, mode: mode_t, exclusive: Bool) throws(WireError) {
        let flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | (exclusive ? O_EXCL : 0)
        let fd = open(path, flags, mode)
        guard fd >= 0 else {
            let reason = errno == EEXIST ? "it already exists; remove it first" : String(cString: strerror(errno))
            throw WireError(.keys, "cannot write \(path): \(reason)")
        }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        // The mode passed to open() is narrowed by the umask; the secret file must end up exactly 0600.
        guard fchmod(fd, mode) == 0, write(fd, bytes, bytes.count) == bytes.count, fsync(fd) == 0 else {
            throw WireError(.keys, "cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }
}
