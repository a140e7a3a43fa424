import CZeroMQ
import Foundation

/// A socket option Tessera sets, with its libzmq name in the comment. Set with `ZMQSocket.set(_:)`;
/// most take effect only for connections made afterwards, so set them before `bind`/`connect`.
public enum ZMQSocketOption: Sendable, Hashable {
    /// ZMQ_LINGER: how long `close()` keeps unsent messages; −1 forever, 0 drops them at once.
    case linger(milliseconds: Int32)
    /// ZMQ_ROUTING_ID: the identity a ROUTER peer sees for this socket (1–255 bytes, first byte not 0).
    /// Tessera workers use their UTF-8 worker id.
    case routingID(Data)
    /// ZMQ_SNDHWM: messages queued per peer before sends block or fail (0 = no limit).
    case sendHighWaterMark(Int32)
    /// ZMQ_RCVHWM: messages queued on receive per peer (0 = no limit).
    case receiveHighWaterMark(Int32)
    /// ZMQ_MAXMSGSIZE: a peer that sends a larger frame is disconnected; −1 = no limit.
    case maxMessageSize(Int64)
    /// ZMQ_ROUTER_MANDATORY: sending to an unknown routing id fails (EHOSTUNREACH) instead of vanishing.
    case routerMandatory(Bool)
    /// ZMQ_ROUTER_HANDOVER: a new connection with a routing id already in use takes it over (a worker
    /// that reconnects before its old connection is noticed dead) instead of being refused.
    case routerHandover(Bool)
    /// ZMQ_RECONNECT_IVL: first wait before reconnecting a dropped connection.
    case reconnectInterval(milliseconds: Int32)
    /// ZMQ_RECONNECT_IVL_MAX: upper bound of the doubling reconnect wait (0 = no doubling).
    case reconnectIntervalMax(milliseconds: Int32)
    /// ZMQ_IMMEDIATE: queue messages only on completed connections.
    case immediate(Bool)
    /// ZMQ_HEARTBEAT_IVL / _TIMEOUT / _TTL: ZMTP-level PING/PONG that drops dead TCP connections;
    /// independent of the protocol's own Heartbeat messages.
    case heartbeat(intervalMilliseconds: Int32, timeoutMilliseconds: Int32, ttlMilliseconds: Int32)
    /// ZMQ_ZAP_DOMAIN: the domain this server socket asks the ZAP handler about.
    case zapDomain(String)
    /// ZMQ_HANDSHAKE_IVL: how long a connection may take to finish its (CURVE) handshake.
    case handshakeInterval(milliseconds: Int32)
}

extension ZMQSocket {
    /// Sets one option.
    /// - Throws: `.zmq(errno: EINVAL)` when libzmq refuses the value (e.g. a routing id of 0 or > 255
    ///   bytes), `.closed`.
    public func set(_ option: ZMQSocketOption) throws(WireError) {
        switch option {
        case .linger(let ms): try setInt(ZMQ_LINGER, ms, "linger")
        case .routingID(let id): try setBytes(ZMQ_ROUTING_ID, Array(id), "routing id")
        case .sendHighWaterMark(let n): try setInt(ZMQ_SNDHWM, n, "send high-water mark")
        case .receiveHighWaterMark(let n): try setInt(ZMQ_RCVHWM, n, "receive high-water mark")
        case .maxMessageSize(let bytes):
            var value = bytes
            try setRaw(ZMQ_MAXMSGSIZE, &value, MemoryLayout<Int64>.size, "max message size")
        case .routerMandatory(let on): try setInt(ZMQ_ROUTER_MANDATORY, on ? 1 : 0, "router mandatory")
        case .routerHandover(let on): try setInt(ZMQ_ROUTER_HANDOVER, on ? 1 : 0, "router handover")
        case .reconnectInterval(let ms): try setInt(ZMQ_RECONNECT_IVL, ms, "reconnect interval")
        case .reconnectIntervalMax(let ms): try setInt(ZMQ_RECONNECT_IVL_MAX, ms, "reconnect interval max")
        case .immediate(let on): try setInt(ZMQ_IMMEDIATE, on ? 1 : 0, "immediate")
        case .heartbeat(let interval, let timeout, let ttl):
            try setInt(ZMQ_HEARTBEAT_IVL, interval, "heartbeat interval")
            try setInt(ZMQ_HEARTBEAT_TIMEOUT, timeout, "heartbeat timeout")
            try setInt(ZMQ_HEARTBEAT_TTL, ttl, "heartbeat TTL")
        case .zapDomain(let domain): try setBytes(ZMQ_ZAP_DOMAIN, Array(domain.utf8), "ZAP domain")
        case .handshakeInterval(let ms): try setInt(ZMQ_HANDSHAKE_IVL, ms, "handshake interval")
        }
    }

    func setInt(_ name: Int32, _ value: Int32, _ what: String) throws(WireError) {
        var value = value
        try setRaw(name, &value, MemoryLayout<Int32>.size, what)
    }

    func setBytes(_ name: Int32, _ bytes: [UInt8], _ what: String) throws(WireError) {
        var bytes = bytes
        try setRaw(name, &bytes, bytes.count, what)
    }

    private func setRaw(_ name: Int32, _ value: UnsafeRawPointer, _ size: Int, _ what: String) throws(WireError) {
        let socket = try open()
        guard zmq_setsockopt(socket, name, value, size) == 0 else {
            throw WireError.zmqFailure("set \(what) on a \(type) socket")
        }
    }
}
