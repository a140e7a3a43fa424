import CFFmpeg
import TesseraAV
import TesseraCore

/// Between libav packets and the plain `EncodedPacket` values tasks and results carry.
extension EncodedPacket {
    /// - Parameters:
    ///   - verbatim: the packet's data lies at its `pos` in the file as it is (`InputFile.storesPacketsVerbatim`).
    ///   - indexed: the packet comes from an input that skips the samples' bytes (`InputFile.skipsSampleBytes`):
    ///     its place and size are kept, not its data.
    init(_ packet: Packet, verbatim: Bool = false, indexed: Bool = false) {
        let p = packet.pointer.pointee
        guard !indexed else {
            self = .indexed(
                pts: p.pts, dts: p.dts, duration: p.duration, isKeyframe: p.flags & AV_PKT_FLAG_KEY != 0,
                position: p.pos >= 0 ? p.pos : nil, size: Int(clamping: p.size))
            return
        }
        self.init(
            data: p.data.map { Array(UnsafeBufferPointer(start: $0, count: Int(p.size))) } ?? [],
            pts: p.pts, dts: p.dts, duration: p.duration, isKeyframe: p.flags & AV_PKT_FLAG_KEY != 0,
            position: verbatim && p.pos >= 0 ? p.pos : nil)
    }

    /// A libav packet holding a copy of the data.
    func makePacket() throws(MediaError) -> Packet {
        let packet = try Packet()
        try ff(av_new_packet(packet.pointer, Int32(data.count)), "allocate packet")
        data.withUnsafeBufferPointer { packet.pointer.pointee.data.update(from: $0.baseAddress!, count: data.count) }
        packet.pointer.pointee.pts = pts
        packet.pointer.pointee.dts = dts
        packet.pointer.pointee.duration = duration
        if isKeyframe { packet.pointer.pointee.flags |= AV_PKT_FLAG_KEY }
        return packet
    }
}
