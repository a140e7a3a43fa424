import CZeroMQ

/// Everything that can go wrong on Tessera's wire: sockets, keys, and the bytes of a message.
///
/// `kind` is for code to branch on; `message` says what happened in words a person can act on
/// (which socket call, which file and line, which message field).
public struct WireError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// Bytes that do not parse as an `Envelope`, an envelope without a body, or a value that breaks the
        /// protocol's rules (the message names the field).
        case malformed
        /// A message larger than the receiver's limit.
        case tooLarge
        /// An envelope of a protocol version this side does not speak.
        case unsupportedVersion
        /// A Swift value the wire cannot carry (a negative count, a width beyond Int32).
        case unrepresentable
        /// A libzmq call failed with this errno.
        case zmq(errno: Int32)
        /// The socket was closed or its context shut down.
        case closed
        /// A CURVE key or key file is missing, unreadable or malformed, or libzmq lacks CURVE.
        case keys
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String {
        switch kind {
        case .malformed: "malformed message: \(message)"
        case .tooLarge: "message too large: \(message)"
        case .unsupportedVersion: "unsupported protocol version: \(message)"
        case .unrepresentable: "cannot put on the wire: \(message)"
        case .zmq(let errno): "ZeroMQ error \(errno): \(message)"
        case .closed: "closed: \(message)"
        case .keys: "CURVE keys: \(message)"
        }
    }

    /// The error of the libzmq call that just failed: `.closed` when the context is shutting down or the
    /// socket is gone, `.zmq(errno:)` with libzmq's explanation otherwise.
    static func zmqFailure(_ operation: String) -> WireError {
        let code = zmq_errno()
        if code == tessera_zmq_ETERM() || code == tessera_zmq_ENOTSOCK() {
            return WireError(.closed, operation)
        }
        return WireError(.zmq(errno: code), "\(operation): \(String(cString: zmq_strerror(code)))")
    }
}
