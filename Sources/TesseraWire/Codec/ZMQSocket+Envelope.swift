import Foundation

extension ZMQSocket {
    /// Serializes `envelope` straight into a libzmq message and sends it: one frame from a DEALER, or
    /// `[routingID][envelope]` from a ROUTER. Fills in `version` when it is 0, like `WireCodec.encode`.
    ///
    /// This is the fast path for large tasks and results: the serialized bytes are written once, into the
    /// buffer libzmq sends from.
    /// - Returns: the envelope's bytes sent; nil when it would block with `dontWait`, or the ROUTER has
    ///   no peer `routingID` (with `.routerMandatory(true)`).
    /// - Throws: `.unrepresentable` when the envelope is 2 GiB or more; socket errors as `send(_:dontWait:)`.
    @discardableResult
    public func send(
        _ envelope: Tessera_V1_Envelope, to routingID: Data? = nil,
        dontWait: Bool = false
    ) throws(WireError) -> Int? {
        var envelope = envelope
        if envelope.version == 0 { envelope.version = WireCodec.version }
        let message: ZMQOutgoingMessage
        do {
            message = try envelope.serializedBytes()
        } catch {
            throw WireError(.unrepresentable, "\(envelope.kindName) envelope cannot be serialized: \(error)")
        }
        let bytes = message.count
        if let routingID {
            guard try send(ZMQOutgoingMessage(routingID), more: true, dontWait: dontWait) else { return nil }
        }
        return try send(message, more: false, dontWait: dontWait) ? bytes : nil
    }
}
