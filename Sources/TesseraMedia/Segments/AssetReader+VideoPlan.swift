import CFFmpeg
import TesseraAV
import TesseraCore

/// The one planning preamble (`tessera plan`, the segmented export, a one-pass export's verification):
/// index the video packets of the reader's file (one pass, which also finds where each audio track
/// ends), turn the wished segment length into ticks, plan over the reader's range.
extension AssetReader {
    struct VideoPlan {
        let trackID: Int
        let timeBase: AVRational
        let index: VideoPacketIndex
        let planned: SegmentPlanner.Cut
        /// The range in the video stream's ticks (`ticks(for:)`).
        let range: TickRange
        /// The output frames' time base: the stream's, or one tick per frame of a retimed export.
        let outputTimeBase: AVRational
        /// Every output frame's presentation time.
        var outputTimes: [MediaTime] { planned.outputTimes.map { TickMath.time($0, outputTimeBase) } }
        /// For each audio track of the source (by track number), how much later it ends than the video
        /// in the reader's range (`OutputVerifier.audioEndGaps`, from this plan's one pass over the file).
        let audioEndGaps: [Int: MediaTime]
    }

    /// Reads every packet of a fresh `InputFile` of the reader's source (the reader's own input may be
    /// demuxing already) and plans the video track.
    /// - Parameters:
    ///   - segmentSeconds: the wished segment length; nil plans one segment (a one-pass export's frames).
    ///   - parallel: segments expected to run at once (the tail is re-cut for them).
    ///   - retime: for a retimed export, how to make it from this reader's range (whose tick of the
    ///     range start it is given here): segments are then planned on its output timeline.
    ///   - gridPieces: cut every `segmentSeconds` exactly, keyframe or not, each in this many pieces (a
    ///     streaming package's media segments, made as shorter farm segments).
    /// - Throws: `.invalidArgument` without a video track or with a length that does not fit the time
    ///   base; the `InputFile` and `VideoPacketIndex` errors.
    func planVideo(
        segmentSeconds: Double?, parallel: Int = 1, retime: ExportRetime? = nil, gridPieces: Int? = nil
    ) throws(MediaError)
        -> VideoPlan
    {
        guard let id = videoTrackID else { throw MediaError(.invalidArgument, path: path, "has no video track") }
        let stream = input.streams[id]
        let tb = stream.pointee.time_base
        let range = ticks(for: stream)
        let target =
            try segmentSeconds.map { s throws(MediaError) in try SegmentPlanner.targetTicks(seconds: s, timeBase: tb) }
            ?? Int64.max
        let index = try VideoPacketIndex.build(try InputFile(indexing: path), trackID: id)
        let planned: SegmentPlanner.Cut
        var outputTimeBase = tb
        if let retime {
            let timing = retime.segmentRetime(rangeStartTick: range.start)
            guard let outputTB = AVRational(exactly: timing.frameDuration) else {
                throw MediaError(.invalidArgument, path: path, "frame duration \(retime.frameDuration) does not fit")
            }
            outputTimeBase = outputTB
            let target = try segmentSeconds.map { s throws(MediaError) in try Self.outputSeconds(s) }
            // A package's media segments: whole output frames each, cut exactly.
            if let pieces = gridPieces, let target, let frames = (target / timing.frameDuration).floor {
                planned = SegmentPlanner.cut(
                    index, start: range.start, end: range.end,
                    .retimedGrid(timing, frames: Int(clamping: max(1, frames)), pieces: pieces))
            } else {
                planned = SegmentPlanner.cut(
                    index, start: range.start, end: range.end, .retimed(timing, targetSeconds: target))
            }
        } else {
            planned = SegmentPlanner.cut(
                index, start: range.start, end: range.end,
                gridPieces.map { .grid(targetTicks: target, pieces: $0) }
                    ?? .asIs(targetTicks: target, parallel: parallel))
        }
        let t = input.context.pointee.start_time  // as `Asset.startTime`, which `audioEndGaps(of:)` uses
        let start = t != tessera_AV_NOPTS_VALUE() ? MediaTime(value: t, timescale: AV_TIME_BASE) : .zero
        let videoEnd = index.streamEnds[id].map { Asset.time($0, in: tb) }
        var gaps: [Int: MediaTime] = [:]
        for (track, stream) in input.streams.enumerated()
        where stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO {
            guard let end = index.streamEnds[track] else { continue }
            gaps[track] = OutputVerifier.endGap(
                video: videoEnd, audio: Asset.time(end, in: stream.pointee.time_base), start: start, range: timeRange)
        }
        return VideoPlan(
            trackID: id, timeBase: tb, index: index, planned: planned, range: range, outputTimeBase: outputTimeBase,
            audioEndGaps: gaps)
    }

    /// A wished segment length in output seconds, exact to the millisecond.
    static func outputSeconds(_ seconds: Double) throws(MediaError) -> Rational {
        guard seconds.isFinite, seconds > 0, let ms = Int64(exactly: (seconds * 1000).rounded(.down)), ms < 1 << 40
        else { throw MediaError(.invalidArgument, "segment duration \(seconds) s is out of range") }
        return Rational(max(ms, 1), 1000)
    }
}
