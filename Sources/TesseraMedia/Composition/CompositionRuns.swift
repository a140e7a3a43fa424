import CFFmpeg
import Foundation
import Synchronization
import TesseraAV
import TesseraCompute
import TesseraCore

/// A composition's timeline as runs: consecutive pieces of one asset whose source continues, and empty
/// ranges. A one-pass export gives them to the one `TranscodePipeline` as its video's and its sound's
/// runs; a segmented one (`CompositionExport.planSegments`) cuts each run's instants into segments.
enum CompositionRuns {
    /// A stretch of the timeline: one asset played continuously (its pieces), or nothing.
    struct Run {
        var asset: Int?
        var pieces: [TimeMap.Piece]
        var start: Rational
        var end: Rational
    }

    /// The timeline's runs, in order.
    static func runs(_ composition: Composition) -> [Run] {
        var runs: [Run] = []
        for segment in composition.segments {
            switch segment {
            case .empty(let start, let duration):
                runs.append(Run(asset: nil, pieces: [], start: start, end: start + duration))
            case .media(let p):
                if var last = runs.last, last.asset == p.asset, let previous = last.pieces.last,
                    previous.sourceEnd == p.sourceStart
                {
                    last.pieces.append(p)
                    last.end = p.outputEnd
                    runs[runs.count - 1] = last
                } else {
                    runs.append(Run(asset: p.asset, pieces: [p], start: p.outputStart, end: p.outputEnd))
                }
            }
        }
        return runs
    }

    /// Each asset's video packets, indexed once however many runs play it (a demux pass over the file each).
    struct PacketIndexes {
        private var byAsset: [Int: VideoPacketIndex] = [:]

        mutating func index(of asset: Int, path: String, videoID: Int) throws(MediaError) -> VideoPacketIndex {
            if let known = byAsset[asset] { return known }
            let index = try VideoPacketIndex.build(try InputFile(indexing: path), trackID: videoID)
            byAsset[asset] = index
            return index
        }
    }

    /// What a run reads of its asset: from the microsecond at or before its source, a little past its end
    /// (the frame after its last instant, for nearest and blend). The reader's start is the source time of
    /// its tick 0, so a farm's segments of the run (`CompositionExport.planSegments`) are planned on the same range.
    static func sourceRange(of run: Run, assetDuration assetEnd: MediaTime) -> TimeRange {
        let first = run.pieces[0], lastPiece = run.pieces[run.pieces.count - 1]
        let start = MediaTime(value: (first.sourceStart * Rational(1_000_000)).floor ?? 0, timescale: 1_000_000)
        var end = MediaTime(
            value: ((lastPiece.sourceEnd + Rational(1, 10)) * Rational(1_000_000)).ceiling ?? 0, timescale: 1_000_000)
        if end > assetEnd { end = assetEnd }
        if end <= start { end = start + MediaTime(value: 1, timescale: 1000) }
        return TimeRange(start: start, end: end)
    }

    /// How a run chooses its frames, as a segment of it carries it (`SegmentRetime`): the run's pieces
    /// (one asset, numbered 0), the composition's grid and selection, and where the reader's range starts
    /// (`origin` seconds at the source stream's tick `rangeStartTick`).
    static func segmentRetime(
        _ run: Run, plan: CompositionExport.Plan, origin: Rational, rangeStartTick: Int64
    ) -> SegmentRetime {
        SegmentRetime(
            map: TimeMap(
                pieces: run.pieces.map {
                    var p = $0
                    p.asset = 0
                    return p
                }), frameDuration: plan.frameDuration, selection: plan.selection, origin: origin,
            rangeStartTick: rangeStartTick)
    }

    /// The one-pass pipeline of a composition: the render, when `makeProcessor` is given (nil: the sound
    /// alone, a farm's workers make the pictures), and the assets' first audio tracks mixed into one.
    ///
    /// Output frame k, at k·frameDuration, shows the frame the selection chooses at the composition's
    /// source time for k, placed by its asset's layer; a gap shows the background. The sound is stretched
    /// along the same pieces, silent in freezes and gaps, and ends with the video.
    static func pipeline(
        _ plan: CompositionExport.Plan, writer: AssetWriter, paths: [String],
        makeProcessor: SegmentRunner.MakeProcessor?, measureVideo: Bool
    ) throws(MediaError) -> TranscodePipeline {
        let runs = runs(plan.composition)
        let fd = plan.frameDuration
        let indexes = Mutex(PacketIndexes())
        // Each run's output frames and samples; the last runs to the video's end.
        let spans = runs.enumerated().map { i, run in
            let last = i == runs.count - 1
            let first = (run.start / fd).ceiling ?? 0
            return (
                frames: first..<max(first, last ? plan.frameCount : (run.end / fd).ceiling ?? 0),
                end: last ? plan.videoEnd : run.end
            )
        }
        var video: (AssetWriterInput, [TranscodePipeline.VideoRun], VideoSettings, Rational, Int64)?
        if makeProcessor != nil {
            let vs = plan.settings.video!
            let input = try writer.addVideoInput(
                settings: vs,
                input: try LayerRenderer.encoderInput(
                    width: plan.renderWidth, height: plan.renderHeight, frameDuration: fd),
                rotation: .none, tagsFrom: nil)
            if measureVideo { try input.checkAsEncoded() }
            let videoRuns = zip(runs, spans).map { run, span in
                var r = TranscodePipeline.VideoRun(
                    input: .nothing, filters: run.asset.flatMap { plan.preparation[$0].filter },
                    layer: plan.layer(asset: run.asset), instants: span.frames,
                    name: run.asset.map { paths[$0] } ?? "the gap at \(run.start.seconds) s")
                if let asset = run.asset {
                    r.rotation = plan.assets[asset].firstVideoTrack?.video?.rotation ?? .none
                    r.toneMap = plan.preparation[asset].toneMap
                    r.input = .reader { () throws(MediaError) in
                        try openVideo(run, asset: asset, frames: span.frames, plan: plan, path: paths[asset]) {
                            (videoID) throws(MediaError) in
                            try indexes.withLock { (i) throws(MediaError) in
                                try i.index(of: asset, path: paths[asset], videoID: videoID)
                            }
                        }
                    }
                }
                return r
            }
            video = (input, videoRuns, vs, fd, plan.frameCount)
        }
        var audio:
            (AssetWriterInput, AudioSettings, Int, Int, [TranscodePipeline.AudioRun], [CompositionSpec.RampSpan])?
        if let a = plan.settings.audio, plan.assets.contains(where: { $0.firstAudioTrack != nil }) {
            let rate = a.codec == .opus ? 48_000 : a.sampleRate ?? 48_000
            let channels = a.channelCount ?? 2
            let input = try writer.addAudioInput(settings: a, sampleRate: rate, channels: channels, tagsFrom: nil)
            let audioRuns = zip(runs, spans).map { run, span in
                let samples = sample(run.start, Int64(rate))..<sample(span.end, Int64(rate))
                guard let asset = run.asset else {
                    return TranscodePipeline.AudioRun(input: .nothing, samples: samples)
                }
                let range = sourceRange(of: run, assetDuration: plan.assets[asset].duration)
                // The pieces rebased to the run's start: the retimer makes the run's sound from 0.
                let pieces = run.pieces.map { p in
                    var q = p
                    q.outputStart = p.outputStart - run.start
                    return q
                }
                return TranscodePipeline.AudioRun(
                    input: .reader { () throws(MediaError) in
                        let reader = try AssetReader(path: paths[asset], timeRange: range)
                        guard let id = reader.audioTrackID else { return nil }
                        let output = try reader.addOutput(trackID: id)
                        try reader.startReading()
                        return .init(reader: reader, output: output)
                    }, retime: (TimeMap(pieces: pieces), Rational(range.start), plan.timePitch, nil), samples: samples)
            }
            audio = (input, a, rate, channels, audioRuns, plan.volume)
        }
        var factory: SegmentRunner.MakeProcessor = { (_, _) throws(MediaError) in
            throw MediaError(.internal, "a render of the sound alone was asked for a picture")
        }
        if let makeProcessor { factory = makeProcessor }
        return .composition(
            video: video.map { (input: $0.0, runs: $0.1, settings: $0.2, frameDuration: $0.3, frames: $0.4) },
            audio: audio.map {
                (input: $0.0, settings: $0.1, sampleRate: $0.2, channels: $0.3, runs: $0.4, volume: $0.5)
            },
            makeProcessor: factory)
    }

    /// Opens asset `asset` over `run`'s range for its video: the decoder skipping the source frames no
    /// instant of the run shows (and no frame refers to; a deinterlacer reads them all), the run's frames
    /// chosen on the stream's ticks.
    private static func openVideo(
        _ run: Run, asset: Int, frames: Range<Int64>, plan: CompositionExport.Plan, path: String,
        index: (Int) throws(MediaError) -> VideoPacketIndex
    ) throws(MediaError) -> TranscodePipeline.RunReader {
        let range = sourceRange(of: run, assetDuration: plan.assets[asset].duration)
        let reader = try AssetReader(path: path, timeRange: range)
        guard let videoID = reader.videoTrackID else {
            throw MediaError(.invalidArgument, path: path, "has no video track")
        }
        let stream = reader.input.streams[videoID]
        let tb = stream.pointee.time_base
        let origin = Rational(range.start)
        if plan.preparation[asset].deinterlacer == nil {
            reader.shownVideoFrames = segmentRetime(
                run, plan: plan, origin: origin, rangeStartTick: reader.ticks(for: stream).start
            ).framesShown(ticks: try index(videoID).entries.map(\.pts), timeBase: Rational(tb), instants: frames)
        }
        let output = try reader.addOutput(trackID: videoID)
        try reader.startReading()
        return .init(
            reader: reader, output: output,
            retimer: FrameRetimer(
                map: TimeMap(pieces: run.pieces), frameDuration: plan.frameDuration, selection: plan.selection,
                timeBase: tb, origin: origin, instants: frames))
    }

    private static func sample(_ t: Rational, _ rate: Int64) -> Int64 { (t * Rational(rate)).floor ?? 0 }
}
