import CZeroMQ
import Foundation

extension ZMQSocket {
    /// Sends one multipart message (all frames arrive together or not at all).
    ///
    /// Each frame is copied once into a libzmq message; libzmq then owns it.
    /// - Parameter dontWait: return `false` instead of blocking when the peer's queue is full
    ///   (or, on DEALER/PUSH, when no peer is connected).
    /// - Returns: `true` once queued; `false` when it would block with `dontWait`, or when a ROUTER with
    ///   `.routerMandatory(true)` has no peer with the first frame's routing id (EHOSTUNREACH).
    /// - Throws: `.zmq(errno: EINVAL)` for an empty frame list, `.closed`, other `.zmq(errno:)` failures.
    @discardableResult
    public func send(_ frames: [Data], dontWait: Bool = false) throws(WireError) -> Bool {
        guard !frames.isEmpty else { throw WireError(.zmq(errno: EINVAL), "send: a message needs a frame") }
        for (i, frame) in frames.enumerated() {
            let message = frame.withUnsafeBytes { ZMQOutgoingMessage(copying: $0) }
            guard try send(message, more: i < frames.count - 1, dontWait: dontWait) else { return false }
        }
        return true
    }

    /// Hands one frame to libzmq without copying it.
    /// - Returns: false when the frame was refused (EAGAIN with `dontWait`, EHOSTUNREACH); libzmq accepts
    ///   the rest of a message once its first frame is in, so only a first frame can be refused.
    func send(_ message: ZMQOutgoingMessage, more: Bool, dontWait: Bool) throws(WireError) -> Bool {
        let socket = try open()
        guard message.storage.allocated else {
            throw WireError(.zmq(errno: ENOMEM), "allocate a \(message.count)-byte frame")
        }
        let flags = (more ? ZMQ_SNDMORE : 0) | (dontWait ? ZMQ_DONTWAIT : 0)
        while zmq_msg_send(message.storage.message, socket, flags) < 0 {
            let code = zmq_errno()
            if code == tessera_zmq_EINTR() { continue }
            if code == tessera_zmq_EAGAIN() || code == tessera_zmq_EHOSTUNREACH() { return false }
            throw WireError.zmqFailure("send on a \(type) socket")
        }
        return true
    }

    /// Receives one multipart message, waiting at most `timeoutMilliseconds` (nil: until one arrives).
    ///
    /// Frames of 64 KiB and more are handed over without copying: the `Data` keeps libzmq's buffer
    /// and releases it when the last copy of the `Data` goes away.
    /// - Returns: the frames, or nil when the time ran out (or a signal interrupted the wait).
    /// - Throws: `.closed` when the socket is closed or the context shut down; other `.zmq(errno:)`.
    public func receive(timeoutMilliseconds: Int32? = nil) throws(WireError) -> [Data]? {
        try receive(timeoutMilliseconds: timeoutMilliseconds, property: nil)?.frames
    }

    /// `receive`, also reading a metadata property of the connection the message came on (libzmq's
    /// `zmq_msg_gets`), e.g. "User-Id": the CURVE public key the ZAP handler accepted.
    public func receive(
        timeoutMilliseconds: Int32? = nil, property: String?
    ) throws(WireError)
        -> (frames: [Data], property: String?)?
    {
        let socket = try open()
        var flags: Int32 = 0
        if let timeoutMilliseconds {
            let ready = try ZMQPoller([self]).poll(timeoutMilliseconds: timeoutMilliseconds)
            guard ready[0] else { return nil }
            flags = ZMQ_DONTWAIT
        }
        var frames: [Data] = []
        var value: String?
        while true {
            // A ROUTER makes the routing-id frame itself: the connection's metadata is on the frames after it.
            guard
                let (frame, more) = try receiveFrame(
                    socket, flags: frames.isEmpty ? flags : 0,
                    property: property, value: &value)
            else {
                return nil
            }
            frames.append(frame)
            if !more { return (frames, value) }
        }
    }

    /// One frame and whether more follow; nil when nothing is there with ZMQ_DONTWAIT. Reads `property`
    /// of the frame into `value` when asked.
    private func receiveFrame(
        _ socket: UnsafeMutableRawPointer, flags: Int32, property: String? = nil,
        value: inout String?
    ) throws(WireError) -> (Data, Bool)? {
        let message = UnsafeMutablePointer<zmq_msg_t>.allocate(capacity: 1)
        zmq_msg_init(message)
        while zmq_msg_recv(message, socket, flags) < 0 {
            let code = zmq_errno()
            if code == tessera_zmq_EINTR() && flags == 0 { continue }
            zmq_msg_close(message)
            message.deallocate()
            if code == tessera_zmq_EAGAIN() || code == tessera_zmq_EINTR() { return nil }
            throw WireError.zmqFailure("receive on a \(type) socket")
        }
        let more = zmq_msg_more(message) != 0
        if let property, let text = zmq_msg_gets(message, property) { value = String(cString: text) }
        let size = zmq_msg_size(message)
        guard size >= Self.zeroCopyThreshold else {
            let data = Data(bytes: zmq_msg_data(message), count: size)
            zmq_msg_close(message)
            message.deallocate()
            return (data, more)
        }
        // The message lives on the heap so its data pointer stays put until the Data lets go of it.
        let address = UInt(bitPattern: message)
        let data = Data(
            bytesNoCopy: zmq_msg_data(message), count: size,
            deallocator: .custom { _, _ in
                let message = UnsafeMutablePointer<zmq_msg_t>(bitPattern: address)!
                zmq_msg_close(message)
                message.deallocate()
            })
        return (data, more)
    }

    /// Below this size a copy is cheaper than keeping the libzmq message alive.
    static var zeroCopyThreshold: Int { 64 << 10 }
}
