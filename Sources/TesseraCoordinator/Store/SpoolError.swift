import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Why a `SegmentSpool` call failed: the call, the path and the system's reason.
public struct SpoolError: Error, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }

    /// A failed system call, with `errno`'s text.
    static func posix(_ call: String, _ path: String, code: Int32 = errno) -> SpoolError {
        SpoolError("spool: \(call) \(path) failed: \(String(cString: strerror(code))) (errno \(code))")
    }
}
