import Foundation

/// A doorbell for the thread that owns a socket: any thread calls `signal()`; the owning thread polls
/// `socket` beside its real sockets and calls `drain()` when it is readable.
///
/// Built from a pair of `inproc://` PAIR sockets. The sending end is guarded by a lock, which is what
/// makes `signal()` safe from any thread (hence `@unchecked Sendable`); the receiving end belongs to the
/// polling thread.
public final class ZMQWakeUp: @unchecked Sendable {
    /// The receiving end, to poll; read it only with `drain()`, on the polling thread.
    public let socket: ZMQSocket
    private let sender: ZMQSocket
    private let lock = NSLock()

    /// - Throws: `.closed` when the context is shut down.
    public init(context: ZMQContext) throws(WireError) {
        let endpoint = "inproc://tessera-wakeup-\(UUID().uuidString)"
        socket = try ZMQSocket(context, .pair)
        try socket.bind(endpoint)
        sender = try ZMQSocket(context, .pair)
        try sender.connect(endpoint)
    }

    /// Rings the bell. Never blocks: when earlier rings are still waiting, this one is redundant.
    public func signal() {
        lock.lock()
        defer { lock.unlock() }
        _ = try? sender.send([Data()], dontWait: true)
    }

    /// Consumes every pending ring (on the polling thread).
    public func drain() {
        while (try? socket.receive(timeoutMilliseconds: 0)) != nil {}
    }

    /// Closes both ends.
    public func close() {
        lock.lock()
        sender.close()
        lock.unlock()
        socket.close()
    }
}
