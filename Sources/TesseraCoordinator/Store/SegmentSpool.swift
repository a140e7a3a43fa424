import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Finished segments on disk, made durable before the coordinator acknowledges them.
///
/// ```
/// root/JOB/SEGMENT-aATTEMPT.part ──write, fsync──▶ link to root/JOB/SEGMENT.seg ──▶ unlink .part, fsync JOB/
/// ```
///
/// One final file per segment, and the first writer wins: the final name is made with `link(2)`, which
/// fails with `EEXIST` instead of replacing (unlike `rename(2)`), so a second result for the same
/// segment (a late older attempt, a redelivered result) can never clobber the first; `write` then
/// returns the existing file. Any attempt's result is valid content, so whichever landed first is the
/// segment. A `.part` left by a crash is never read, and the next write of that segment deletes it.
///
/// `@unchecked Sendable`: the only mutable state is the file system; one lock serialises writes so a
/// write's clean-up of stale `.part` files never races another write in this process.
public final class SegmentSpool: @unchecked Sendable {
    public let root: URL
    private let lock = NSLock()

    /// Opens the spool at `root`, creating the folder if needed.
    /// - Throws: `SpoolError` when the folder cannot be created.
    public init(root: URL) throws(SpoolError) {
        do {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        } catch {
            throw SpoolError("spool: cannot create \(root.path): \(error.localizedDescription)")
        }
        self.root = root
    }

    /// Durably stores one segment's result and returns the segment's final file, which holds `data`
    /// unless an earlier write for this segment got there first (then its file is returned unchanged).
    /// - Throws: `SpoolError` for a job id that is not a plain file name, a negative segment, an attempt
    ///   below 1, or a failed open, write, fsync or link (the disk is full, the folder is not writable).
    public func write(jobID: String, segment: Int, attempt: Int, data: Data) throws(SpoolError) -> URL {
        let folder = try jobFolder(jobID)
        guard segment >= 0, attempt >= 1 else {
            throw SpoolError("spool: segment \(segment) attempt \(attempt) of \(jobID) is out of range")
        }
        lock.lock()
        defer { lock.unlock() }
        try makeFolder(folder)
        let final = folder.appendingPathComponent("\(segment).seg")
        try removeParts(of: segment, in: folder)
        if FileManager.default.fileExists(atPath: final.path) { return final }
        let part = folder.appendingPathComponent("\(segment)-a\(attempt).part")
        try writeSynced(data, to: part.path)
        if link(part.path, final.path) != 0, errno != EEXIST {
            throw .posix("link to \(final.lastPathComponent)", part.path)
        }
        unlink(part.path)
        try syncFolder(folder.path)
        return final
    }

    /// Whether segment `segment` of the job has its file in the spool.
    public func contains(jobID: String, segment: Int) -> Bool {
        guard let folder = try? jobFolder(jobID) else { return false }
        return lock.withLock {
            FileManager.default.fileExists(atPath: folder.appendingPathComponent("\(segment).seg").path)
        }
    }

    /// The bytes of a spooled file.
    /// - Throws: `SpoolError` when it cannot be read.
    public func read(_ url: URL) throws(SpoolError) -> Data {
        do { return try Data(contentsOf: url) } catch {
            throw SpoolError("spool: cannot read \(url.path): \(error.localizedDescription)")
        }
    }

    /// Deletes a job's spooled segments (after stitching, or when the job is dropped). No folder is fine.
    /// - Throws: `SpoolError` for a bad job id or a folder that cannot be removed.
    public func remove(jobID: String) throws(SpoolError) {
        let folder = try jobFolder(jobID)
        lock.lock()
        defer { lock.unlock() }
        guard FileManager.default.fileExists(atPath: folder.path) else { return }
        do { try FileManager.default.removeItem(at: folder) } catch {
            throw SpoolError("spool: cannot remove \(folder.path): \(error.localizedDescription)")
        }
    }

    /// Job ids become folder names, so they must be one plain path component.
    private func jobFolder(_ jobID: String) throws(SpoolError) -> URL {
        guard !jobID.isEmpty, jobID != ".", jobID != "..", !jobID.contains("/"), !jobID.contains("\0") else {
            throw SpoolError("spool: '\(jobID)' is not a valid job id")
        }
        return root.appendingPathComponent(jobID, isDirectory: true)
    }

    /// Creates the job's folder and makes its entry in `root` durable.
    private func makeFolder(_ folder: URL) throws(SpoolError) {
        if mkdir(folder.path, 0o755) == 0 {
            try syncFolder(root.path)
        } else if errno != EEXIST {
            throw .posix("mkdir", folder.path)
        }
    }

    /// Deletes `.part` files of `segment` (left by a crash).
    private func removeParts(of segment: Int, in folder: URL) throws(SpoolError) {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: folder.path) } catch {
            throw SpoolError("spool: cannot list \(folder.path): \(error.localizedDescription)")
        }
        for name in names where name.hasPrefix("\(segment)-a") && name.hasSuffix(".part") {
            let path = folder.appendingPathComponent(name).path
            if unlink(path) != 0, errno != ENOENT { throw .posix("unlink", path) }
        }
    }

    /// Writes `data` to a new file at `path` and fsyncs it.
    private func writeSynced(_ data: Data, to path: String) throws(SpoolError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .posix("open", path) }
        defer { close(fd) }
        let failure: Int32? = data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return nil }
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fd, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        if let failure { throw .posix("write", path, code: failure) }
        guard fsync(fd) == 0 else { throw .posix("fsync", path) }
    }

    /// fsyncs a folder so the names made in it survive a power cut.
    private func syncFolder(_ path: String) throws(SpoolError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .posix("open folder", path) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw .posix("fsync folder", path) }
    }
}
