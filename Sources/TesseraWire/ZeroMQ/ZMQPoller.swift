import CZeroMQ

/// Waits until one of several sockets has a message to receive (`zmq_poll`), so that one dedicated
/// thread can serve, say, the coordinator's ROUTER socket and a `ZMQWakeUp` that other threads signal
/// when they have something for it to send.
///
/// ```
/// let poller = ZMQPoller([router, wakeUp.socket])
/// while running {
///     let ready = try poller.poll(timeoutMilliseconds: 100)
///     if ready[0] { handle(try router.receive(timeoutMilliseconds: 0)) }
///     if ready[1] { wakeUp.drain(); sendQueued() }
/// }
/// ```
///
/// Like the sockets it holds, a poller belongs to one thread at a time.
public struct ZMQPoller {
    public let sockets: [ZMQSocket]

    public init(_ sockets: [ZMQSocket]) {
        self.sockets = sockets
    }

    /// Waits at most `timeoutMilliseconds` (nil: until something is ready) and returns, for each socket
    /// in order, whether a message can be received without blocking. All false means the time ran out
    /// or a signal interrupted the wait.
    /// - Throws: `.closed` when a socket is closed or the context shut down; other `.zmq(errno:)`.
    public func poll(timeoutMilliseconds: Int32?) throws(WireError) -> [Bool] {
        var items: [zmq_pollitem_t] = []
        items.reserveCapacity(sockets.count)
        for socket in sockets {
            items.append(zmq_pollitem_t(socket: try socket.open(), fd: 0, events: Int16(ZMQ_POLLIN), revents: 0))
        }
        let count = zmq_poll(&items, Int32(items.count), Int(timeoutMilliseconds ?? -1))
        if count < 0 {
            if zmq_errno() == tessera_zmq_EINTR() { return Array(repeating: false, count: items.count) }
            throw WireError.zmqFailure("poll \(items.count) sockets")
        }
        return items.map { $0.revents & Int16(ZMQ_POLLIN) != 0 }
    }
}
