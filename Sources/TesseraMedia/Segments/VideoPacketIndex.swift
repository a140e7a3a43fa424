import CFFmpeg
import TesseraAV

/// Every packet of one video track in decode order, with presentation times: what the segment planner
/// needs to name the packets each segment decodes. Built from the file's one packet scan
/// (`InputFile.scanPackets`), which also finds where every stream's last packet ends (for the source's
/// audio/video end gap).
struct VideoPacketIndex: Sendable {
    typealias Entry = PacketTiming

    let trackID: Int
    let timeBase: AVRational
    /// Every packet, its presentation time filled in from its decode time where it has none.
    let entries: [Entry]
    /// For every stream with a timed packet: the latest presentation time plus packet duration, in the
    /// stream's time base (as `Asset.PacketScan.endPTS`; for this track from `entries`).
    let streamEnds: [Int: Int64]

    /// - Throws: `.corrupt` when reading fails part-way; `.unsupported` when packets carry no presentation
    ///   time (raw elementary streams, AVI with B-frames), which frame-exact planning needs.
    static func build(_ input: InputFile, trackID: Int) throws(MediaError) -> VideoPacketIndex {
        let stream = input.streams[trackID]
        let scans = try input.scanPackets(recordingPacketsOf: trackID)
        var ends: [Int: Int64] = [:]
        for (track, scan) in scans where track != trackID {
            if let end = scan.endPTS { ends[track] = end }
        }
        let noValue = tessera_AV_NOPTS_VALUE()
        var entries: [Entry] = []
        for var p in scans[trackID]?.packets ?? [] {
            if p.pts == noValue { p.pts = p.dts }
            guard p.pts != noValue else {
                throw MediaError(
                    .unsupported, path: input.path,
                    "video packets carry no timestamps; segmenting needs presentation times")
            }
            entries.append(p)
            let (end, overflow) = p.pts.addingReportingOverflow(max(p.duration, 0))
            if !overflow { ends[trackID] = max(ends[trackID] ?? end, end) }
        }
        return VideoPacketIndex(
            trackID: trackID, timeBase: stream.pointee.time_base, entries: entries, streamEnds: ends)
    }
}
