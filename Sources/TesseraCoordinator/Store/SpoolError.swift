import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Why a `SegmentSpool` call failed: the call, the path and the system's reason.
public struct SpoolError: Error, Sendable, CustomStringConvertible {
    public var message: String
    /// The system's `errno` when a system call failed.
    public var code: Int32?

    public init(_ message: String, code: Int32? = nil) {
        self.message = message
        self.code = code
    }

    public var description: String { message }

    /// The file system holding the spool is full (or the user's quota is).
    public var isOutOfSpace: Bool { code == ENOSPC || code == EDQUOT }

    /// A failed system call, with `errno`'s text.
    static func posix(_ call: String, _ path: String, code: Int32 = errno) -> SpoolError {
        SpoolError("spool: \(call) \(path) failed: \(String(cString: strerror(code))) (errno \(code))", code: code)
    }
}
