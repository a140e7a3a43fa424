import Foundation
import TesseraCore

extension Tessera_V1_Packet {
    /// Copies the packet's bytes once.
    /// - Throws: `.unrepresentable` for a negative duration.
    public init(_ packet: EncodedPacket, field: String = "packet") throws(WireError) {
        self.init()
        data = Data(packet.data)
        pts = packet.pts
        dts = packet.dts
        duration = packet.duration
        keyframe = packet.isKeyframe
        try WireValue.checkOutgoing { () throws(WireError) in try validate(field) }
    }

    /// - Throws: `.malformed` for a negative duration.
    func validate(_ field: String) throws(WireError) {
        guard duration >= 0 else { throw WireValue.malformed("\(field).duration", "is negative (\(duration))") }
    }

    /// The packet of a task by reference: its timestamps and size, without its data.
    init(reference packet: EncodedPacket) {
        self.init()
        pts = packet.pts
        dts = packet.dts
        duration = packet.duration
        keyframe = packet.isKeyframe
        size = UInt32(clamping: packet.data.count)
        if let p = packet.position { position = p }
    }
}

extension EncodedPacket {
    /// Copies the packet's bytes once.
    /// - Throws: `.malformed` for a negative duration.
    public init(wire: Tessera_V1_Packet, field: String = "packet") throws(WireError) {
        try wire.validate(field)
        self.init(
            data: [UInt8](wire.data), pts: wire.pts, dts: wire.dts, duration: wire.duration,
            isKeyframe: wire.keyframe)
    }
}
