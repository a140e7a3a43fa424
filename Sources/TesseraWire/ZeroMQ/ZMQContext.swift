import CZeroMQ

/// A libzmq context: the I/O threads and the `inproc://` namespace that sockets share.
///
/// libzmq contexts are thread-safe, hence `@unchecked Sendable`. Every `ZMQSocket` keeps its context
/// alive, so `deinit` (which calls `zmq_ctx_term`) runs only after all of its sockets are closed.
/// Call `shutdown()` to make calls blocked in other threads return with `WireError.Kind.closed`.
public final class ZMQContext: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer

    /// Creates a context with libzmq's defaults (one I/O thread).
    public init() {
        // zmq_ctx_new fails only when the process is out of memory or file descriptors; there is no
        // way on from there.
        guard let handle = zmq_ctx_new() else { preconditionFailure("zmq_ctx_new: out of resources") }
        self.handle = handle
    }

    /// Makes every blocking call on this context's sockets return (`WireError.Kind.closed`) and every
    /// later one fail; sockets must still be closed before the context goes away. Safe from any thread.
    public func shutdown() {
        zmq_ctx_shutdown(handle)
    }

    deinit {
        while zmq_ctx_term(handle) != 0 && zmq_errno() == tessera_zmq_EINTR() {}
    }
}
