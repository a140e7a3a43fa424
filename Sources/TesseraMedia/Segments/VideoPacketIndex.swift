import CFFmpeg
import TesseraAV

/// Every packet of one video track in decode order, with presentation times: what the segment planner
/// needs to name the packets each segment decodes. Built by reading packets, never decoding, in the
/// same pass that finds where every stream's last packet ends (for the source's audio/video end gap).
struct VideoPacketIndex: Sendable {
    struct Entry: Sendable, Hashable {
        let pts: Int64
        let dts: Int64
        let isKeyframe: Bool
    }

    let trackID: Int
    let timeBase: AVRational
    let entries: [Entry]
    /// For every stream with a timed packet: the latest presentation time plus packet duration, in the
    /// stream's time base (as `Asset.PacketScan.endPTS`).
    let streamEnds: [Int: Int64]

    /// - Throws: `.corrupt` when reading fails part-way; `.unsupported` when packets carry no presentation
    ///   time (raw elementary streams, AVI with B-frames), which frame-exact planning needs.
    static func build(_ input: InputFile, trackID: Int) throws(MediaError) -> VideoPacketIndex {
        let stream = input.streams[trackID]
        var entries: [Entry] = []
        var ends: [Int: Int64] = [:]
        let noValue = tessera_AV_NOPTS_VALUE()
        let packet = try Packet()
        while try input.read(into: packet) {
            defer { av_packet_unref(packet.pointer) }
            let p = packet.pointer.pointee
            guard packet.streamIndex == trackID else {
                if p.pts != noValue {
                    let (end, overflow) = p.pts.addingReportingOverflow(max(p.duration, 0))
                    if !overflow { ends[packet.streamIndex] = max(ends[packet.streamIndex] ?? end, end) }
                }
                continue
            }
            let pts = p.pts != noValue ? p.pts : p.dts
            guard pts != noValue else {
                throw MediaError(
                    .unsupported, path: input.path,
                    "video packets carry no timestamps; segmenting needs presentation times")
            }
            entries.append(Entry(pts: pts, dts: p.dts, isKeyframe: p.flags & AV_PKT_FLAG_KEY != 0))
            let (end, overflow) = pts.addingReportingOverflow(max(p.duration, 0))
            if !overflow { ends[trackID] = max(ends[trackID] ?? end, end) }
        }
        return VideoPacketIndex(
            trackID: trackID, timeBase: stream.pointee.time_base, entries: entries, streamEnds: ends)
    }
}
