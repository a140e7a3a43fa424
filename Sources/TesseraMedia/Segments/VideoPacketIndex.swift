import CFFmpeg
import TesseraAV

/// Every packet of one video track in decode order, with presentation times: what the segment planner
/// needs to name the packets each segment decodes. Built by reading packets, never decoding.
struct VideoPacketIndex: Sendable {
    struct Entry: Sendable, Hashable {
        let pts: Int64
        let dts: Int64
        let isKeyframe: Bool
    }

    let trackID: Int
    let timeBase: AVRational
    let entries: [Entry]

    /// - Throws: `.corrupt` when reading fails part-way; `.unsupported` when packets carry no presentation
    ///   time (raw elementary streams, AVI with B-frames), which frame-exact planning needs.
    static func build(_ input: InputFile, trackID: Int) throws(MediaError) -> VideoPacketIndex {
        let stream = input.streams[trackID]
        var entries: [Entry] = []
        let noValue = tessera_AV_NOPTS_VALUE()
        let packet = try Packet()
        while try input.read(into: packet) {
            defer { av_packet_unref(packet.pointer) }
            guard packet.streamIndex == trackID else { continue }
            let p = packet.pointer.pointee
            let pts = p.pts != noValue ? p.pts : p.dts
            guard pts != noValue else {
                throw MediaError(
                    .unsupported, path: input.path,
                    "video packets carry no timestamps; segmenting needs presentation times")
            }
            entries.append(Entry(pts: pts, dts: p.dts, isKeyframe: p.flags & AV_PKT_FLAG_KEY != 0))
        }
        return VideoPacketIndex(trackID: trackID, timeBase: stream.pointee.time_base, entries: entries)
    }
}
