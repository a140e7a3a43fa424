import CFFmpeg
import TesseraAV
import TesseraCore

/// The one planning preamble (`tessera plan`, the segmented export, a one-pass export's verification):
/// index the video packets of the reader's file, turn the wished segment length into ticks, plan over
/// the reader's range.
extension AssetReader {
    struct VideoPlan {
        let trackID: Int
        let timeBase: AVRational
        let index: VideoPacketIndex
        let planned: SegmentPlanner.Plan
        /// The range in the video stream's ticks (`ticks(for:)`).
        let range: TickRange
        /// Every output frame's presentation time.
        var outputTimes: [MediaTime] { planned.outputTimes.map { TickMath.time($0, timeBase) } }
    }

    /// Reads every packet of a fresh `InputFile` of the reader's source (the reader's own input may be
    /// demuxing already) and plans the video track.
    /// - Parameters:
    ///   - segmentSeconds: the wished segment length; nil plans one segment (a one-pass export's frames).
    ///   - parallel: segments expected to run at once (the tail is re-cut for them).
    /// - Throws: `.invalidArgument` without a video track or with a length that does not fit the time
    ///   base; the `InputFile` and `VideoPacketIndex` errors.
    func planVideo(segmentSeconds: Double?, parallel: Int = 1) throws(MediaError) -> VideoPlan {
        guard let id = videoTrackID else { throw MediaError(.invalidArgument, path: path, "has no video track") }
        let stream = input.streams[id]
        let tb = stream.pointee.time_base
        let range = ticks(for: stream)
        let target =
            try segmentSeconds.map { s throws(MediaError) in try SegmentPlanner.targetTicks(seconds: s, timeBase: tb) }
            ?? Int64.max
        let index = try VideoPacketIndex.build(try InputFile(path: path), trackID: id)
        let planned = SegmentPlanner.plan(
            index, start: range.start, end: range.end, targetTicks: target, parallel: parallel)
        return VideoPlan(trackID: id, timeBase: tb, index: index, planned: planned, range: range)
    }
}
