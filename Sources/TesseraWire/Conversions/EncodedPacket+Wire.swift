import Foundation
import TesseraCore

extension Tessera_V1_Packet {
    /// Copies the packet's bytes once.
    /// - Throws: `.unrepresentable` for a negative duration, or a packet whose bytes were not read
    ///   (`EncodedPacket.indexedSize`: it goes by reference, or is loaded first).
    public init(_ packet: EncodedPacket, field: String = "packet") throws(WireError) {
        self.init()
        guard packet.isLoaded else {
            throw WireError(.unrepresentable, "\(field) holds no data: its \(packet.size) bytes were not read")
        }
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
        size = UInt32(clamping: packet.size)
        if let p = packet.position { position = p }
    }
}

extension EncodedPacket {
    /// Copies the packet's bytes once; a packet of a task by reference (`reference`) is the index entry
    /// it lists, its size and place, for `SourcePacketReader.load`.
    /// - Throws: `.malformed` for a negative duration.
    public init(wire: Tessera_V1_Packet, reference: Bool = false, field: String = "packet") throws(WireError) {
        try wire.validate(field)
        if reference {
            self = .indexed(
                pts: wire.pts, dts: wire.dts, duration: wire.duration, isKeyframe: wire.keyframe,
                position: wire.hasPosition ? wire.position : nil, size: Int(clamping: wire.size))
        } else {
            self.init(
                data: [UInt8](wire.data), pts: wire.pts, dts: wire.dts, duration: wire.duration,
                isKeyframe: wire.keyframe)
        }
    }
}
