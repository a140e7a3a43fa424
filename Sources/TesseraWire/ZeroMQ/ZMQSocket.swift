import CZeroMQ

/// One libzmq socket, owned: closed by `close()` or on `deinit`.
///
/// Threading: a libzmq socket is not thread-safe. Use each `ZMQSocket` from one thread at a time; it may
/// be created on one thread and handed to another (a thread start or a lock gives the memory barrier
/// libzmq asks for), which is why it is `@unchecked Sendable`. The normal shape is one dedicated thread
/// per socket, looping on `receive(timeoutMilliseconds:)` or a `ZMQPoller`; never block Swift's
/// cooperative thread pool with it.
///
/// The socket keeps its `ZMQContext` alive. It starts with linger 0 (libzmq's default, wait forever,
/// would make the context's teardown hang on an unreachable peer); set `.linger` for a graceful close.
public final class ZMQSocket: @unchecked Sendable {
    public let context: ZMQContext
    public let type: ZMQSocketType
    private(set) var handle: UnsafeMutableRawPointer?

    /// Creates a socket of `type` in `context`.
    /// - Throws: `.closed` when the context has been shut down, `.zmq(errno: EMFILE)` at the socket limit.
    public init(_ context: ZMQContext, _ type: ZMQSocketType) throws(WireError) {
        guard let handle = zmq_socket(context.handle, type.rawValue) else {
            throw WireError.zmqFailure("create \(type) socket")
        }
        self.context = context
        self.type = type
        self.handle = handle
        try set(.linger(milliseconds: 0))
    }

    deinit { close() }

    /// Closes the socket; later calls on it throw `.closed`. Closing twice does nothing.
    public func close() {
        if let handle {
            zmq_close(handle)
            self.handle = nil
        }
    }

    /// Binds to `endpoint` (`tcp://127.0.0.1:*`, `tcp://*:5555`, `inproc://name`) and returns the endpoint
    /// actually bound, with the port the system chose for `*`.
    /// - Throws: `.zmq(errno: EADDRINUSE)`, `.zmq(errno: EINVAL)` for a malformed endpoint, `.closed`.
    @discardableResult
    public func bind(_ endpoint: String) throws(WireError) -> String {
        let socket = try open()
        guard zmq_bind(socket, endpoint) == 0 else { throw WireError.zmqFailure("bind \(endpoint)") }
        var buffer = [CChar](repeating: 0, count: 1024)
        var size = buffer.count
        guard zmq_getsockopt(socket, ZMQ_LAST_ENDPOINT, &buffer, &size) == 0 else {
            throw WireError.zmqFailure("read the endpoint bound for \(endpoint)")
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Connects to `endpoint`. libzmq connects in the background and reconnects on its own after a
    /// connection drops (see `.reconnectInterval`); messages sent meanwhile wait in the queue unless
    /// `.immediate(true)` is set.
    /// - Throws: `.zmq(errno: EINVAL)` for a malformed endpoint, `.closed`.
    public func connect(_ endpoint: String) throws(WireError) {
        let socket = try open()
        guard zmq_connect(socket, endpoint) == 0 else { throw WireError.zmqFailure("connect \(endpoint)") }
    }

    /// The libzmq handle, or `.closed` once the socket is closed.
    func open() throws(WireError) -> UnsafeMutableRawPointer {
        guard let handle else { throw WireError(.closed, "the \(type) socket is closed") }
        return handle
    }
}
