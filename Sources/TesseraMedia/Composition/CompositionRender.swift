import CFFmpeg
import Foundation
import Synchronization
import TesseraAV
import TesseraCompute
import TesseraCore

/// The work of a `CompositionExport`: its writer's inputs, and the timeline's runs rendered in order.
/// On a farm (`CompositionExport.exportSegmented`) it renders the sound alone, the workers the pictures.
final class CompositionRender: @unchecked Sendable {
    /// A stretch of the timeline: one asset played continuously (its pieces), or nothing.
    struct Run {
        var asset: Int?
        var pieces: [TimeMap.Piece]
        var start: Rational
        var end: Rational
    }

    private let plan: CompositionExport.Plan
    private let paths: [String]
    private let video: AssetWriterInput?
    private let audio: AssetWriterInput?
    private let sampleRate: Int64
    private var layout = AVChannelLayout()
    private let framesWritten = Atomic<Int>(0)
    private let makeProcessor: SegmentRunner.MakeProcessor?
    /// Which processor made the layers' pictures (the last run's that used one).
    private let processorKind = Mutex(ProcessorKind.none)
    var hasAudio: Bool { audio != nil }

    private let isCancelled: @Sendable () -> Bool

    /// - Parameter renderVideo: what makes the layers' frame processors; nil renders the sound alone (a
    ///   farm's workers make the pictures).
    init(
        plan: CompositionExport.Plan, writer: AssetWriter, paths: [String],
        renderVideo: SegmentRunner.MakeProcessor?, isCancelled: @escaping @Sendable () -> Bool
    ) throws(MediaError) {
        self.isCancelled = isCancelled
        makeProcessor = renderVideo
        self.plan = plan
        self.paths = paths
        let vs = plan.settings.video!
        let input = try LayerRenderer.encoderInput(
            width: plan.renderWidth, height: plan.renderHeight, frameDuration: plan.frameDuration)
        video =
            renderVideo != nil
            ? try writer.addVideoInput(settings: vs, input: input, rotation: .none, tagsFrom: nil) : nil
        let anyAudio = plan.assets.contains { $0.firstAudioTrack != nil }
        if let a = plan.settings.audio, anyAudio {
            let rate = a.codec == .opus ? 48_000 : a.sampleRate ?? 48_000
            let channels = a.channelCount ?? 2
            sampleRate = Int64(rate)
            av_channel_layout_default(&layout, Int32(channels))
            audio = try writer.addAudioInput(settings: a, sampleRate: rate, channels: channels, tagsFrom: nil)
        } else {
            sampleRate = 48_000
            audio = nil
        }
    }

    deinit { av_channel_layout_uninit(&layout) }

    /// The timeline's runs: consecutive pieces of one asset whose source continues, and empty ranges.
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
            let index = try VideoPacketIndex.build(try InputFile(path: path), trackID: videoID)
            byAsset[asset] = index
            return index
        }
    }

    /// The runs' assets' packet indexes (runs are rendered one after another on the calling thread).
    private var indexes = PacketIndexes()

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

    /// Renders every run in order.
    func run() throws(MediaError) {
        let runs = Self.runs(plan.composition)
        let fd = plan.frameDuration
        for (i, run) in runs.enumerated() {
            let last = i == runs.count - 1
            let first = (run.start / fd).ceiling ?? 0
            let frames = first..<max(first, last ? plan.frameCount : (run.end / fd).ceiling ?? 0)
            let samples =
                Self.sample(run.start, sampleRate)..<Self.sample(last ? plan.videoEnd : run.end, sampleRate)
            guard let asset = run.asset else {
                if video != nil {
                    var gap = try LayerRenderer(
                        layer: plan.layer(asset: nil), rotation: .none, frameDuration: fd, makeProcessor: makeProcessor!
                    )
                    for k in frames { try place(try gap.render(nil, k: k)) }
                }
                try silence(samples)
                continue
            }
            try render(run, asset: asset, frames: frames, samples: samples)
        }
        try video?.markAsFinished()
        try audio?.markAsFinished()
        if let check = video?.check { quality = try check.finishReport(rateControl: plan.settings.video!.rateControl) }
    }

    /// The video's quality, measured as it was encoded when `measureVideo` asked (once `run` returns).
    private(set) var quality: QualityReport?

    /// Decodes and measures the video as it is encoded (a one-pass render that verifies).
    func measureVideo() throws(MediaError) { try video?.checkAsEncoded() }

    private func render(_ run: Run, asset: Int, frames: Range<Int64>, samples: Range<Int64>) throws(MediaError) {
        let range = Self.sourceRange(of: run, assetDuration: plan.assets[asset].duration)
        let start = range.start
        let reader = try AssetReader(path: paths[asset], timeRange: range)
        guard let videoID = reader.videoTrackID else {
            throw MediaError(.invalidArgument, path: paths[asset], "has no video track")
        }
        if video != nil {
            // The decoder skips the source frames no instant of the run shows (and no frame refers to).
            let stream = reader.input.streams[videoID]
            let tb = stream.pointee.time_base
            let index = try indexes.index(of: asset, path: paths[asset], videoID: videoID)
            reader.shownVideoFrames = Self.segmentRetime(
                run, plan: plan, origin: Rational(start), rangeStartTick: reader.ticks(for: stream).start
            ).framesShown(
                ticks: index.entries.map(\.pts), timeBase: Rational(tb), instants: frames)
        }
        let videoOutput = try video != nil ? reader.addOutput(trackID: videoID) : nil
        let audioOutput =
            try audio != nil
            ? reader.audioTrackID.map { id throws(MediaError) in try reader.addOutput(trackID: id) } : nil
        let origin = Rational(start)
        let failure = reader.failure
        try reader.startReading()
        let timeBase = reader.input.streams[videoID].pointee.time_base
        let rotation = plan.assets[asset].firstVideoTrack?.video?.rotation ?? .none
        var stages: [StageThread] = []
        if let videoOutput {
            stages.append(
                StageThread("tessera.composition.video", failure: failure) { [self] () throws(MediaError) in
                    var retimer = FrameRetimer(
                        map: TimeMap(pieces: run.pieces), frameDuration: plan.frameDuration,
                        selection: plan.selection, timeBase: timeBase, origin: origin, instants: frames)
                    var layer = try LayerRenderer(
                        layer: plan.layer(asset: asset), rotation: rotation, frameDuration: plan.frameDuration,
                        makeProcessor: makeProcessor!)
                    defer { if layer.kind != .none { processorKind.withLock { $0 = layer.kind } } }
                    var made = frames.lowerBound
                    func show(_ frame: Frame) throws(MediaError) {
                        try place(try layer.render(frame, k: frame.pts))
                        made = frame.pts + 1
                    }
                    while let frame = try videoOutput.copyNextFrame() {
                        for shown in try retimer.push(frame) { try show(shown) }
                    }
                    for shown in try retimer.finish() { try show(shown) }
                    guard made == frames.upperBound else {
                        throw MediaError(
                            .corrupt, path: paths[asset], "gave frames up to \(made) of the run's \(frames)")
                    }
                })
        }
        if let audioOutput {
            stages.append(
                StageThread("tessera.composition.audio", failure: failure) { [self] () throws(MediaError) in
                    try renderAudio(run, output: audioOutput, origin: origin, samples: samples)
                })
        }
        for stage in stages { stage.wait() }
        reader.cancelReading()
        reader.waitUntilFinished()
        // A stage's `.cancelled` is how a finished run stops its reader; the export's own cancel is not
        // that, and the run must not be taken as done (the partial file went on to be verified: exit 70).
        if isCancelled() { throw MediaError(.cancelled, "export cancelled") }
        if let error = failure.error, error.kind != .cancelled { throw error }
        if audioOutput == nil { try silence(samples) }
    }

    /// Stretches a run's audio along its pieces (rebased to the run's start), converts it to the output's
    /// rate and layout, applies the volume ramps, and writes exactly the run's samples.
    private func renderAudio(
        _ run: Run, output: AssetReaderTrackOutput, origin: Rational, samples: Range<Int64>
    ) throws(MediaError) {
        let pieces = run.pieces.map { p in
            var q = p
            q.outputStart = p.outputStart - run.start
            return q
        }
        let retimer = AudioRetimer(
            map: TimeMap(pieces: pieces), origin: origin, sampleRate: Int(output.timeBase.den),
            algorithm: plan.timePitch, end: Rational(Int64(samples.count), sampleRate))
        var convert: FilterGraph?
        var next = samples.lowerBound
        func write(_ frame: Frame) throws(MediaError) {
            let room = samples.upperBound - next
            guard room > 0 else { return }
            if Int64(frame.sampleCount) > room { frame.pointer.pointee.nb_samples = Int32(room) }
            applyVolume(frame, from: next)
            frame.pts = next
            next += Int64(frame.sampleCount)
            try audio!.append(frame)
        }
        try retimer.run(
            next: { () throws(MediaError) in try output.copyNextFrame() },
            emit: { [self] (frame: Frame) throws(MediaError) in
                if convert == nil {
                    var source = frame.pointer.pointee.ch_layout
                    var description = [CChar](repeating: 0, count: 64)
                    av_channel_layout_describe(&layout, &description, description.count)
                    convert = try FilterGraph(
                        video: false,
                        source: FilterGraph.audioSource(
                            sampleRate: Int64(frame.pointer.pointee.sample_rate),
                            format: AVSampleFormat(rawValue: frame.pointer.pointee.format), layout: &source),
                        description: "aresample=\(sampleRate),aformat=sample_fmts=fltp:channel_layouts="
                            + String(cString: description),
                        what: "the audio conversion")
                }
                try convert!.push(frame, write)
            })
        try convert?.finish(write)
        if next < samples.upperBound { try silence(next..<samples.upperBound) }
    }

    /// Multiplies a planar float frame starting at output sample `start` by the volume ramps' gain.
    private func applyVolume(_ frame: Frame, from start: Int64) {
        guard !plan.volume.isEmpty else { return }
        let f = frame.pointer.pointee
        let count = Int(f.nb_samples)
        let gains = (0..<count).map {
            CompositionSpec.RampSpan.value(at: Rational(start + Int64($0), sampleRate), in: plan.volume)
        }
        for c in 0..<Int(f.ch_layout.nb_channels) {
            guard let plane = f.extended_data[c] else { continue }
            plane.withMemoryRebound(to: Float.self, capacity: count) { p in
                for i in 0..<count { p[i] *= Float(gains[i]) }
            }
        }
    }

    /// Writes silence over output samples `range`.
    private func silence(_ range: Range<Int64>) throws(MediaError) {
        guard let audio else { return }
        var at = range.lowerBound
        while at < range.upperBound {
            let count = Int32(min(1024, range.upperBound - at))
            let frame = try Frame.audio(
                samples: count, format: AV_SAMPLE_FMT_FLTP, sampleRate: Int32(sampleRate), layout: &layout, silent: true
            )
            frame.pts = at
            at += Int64(count)
            try audio.append(frame)
        }
    }

    /// Writes an output frame the layer made.
    private func place(_ frame: Frame) throws(MediaError) {
        if isCancelled() { throw MediaError(.cancelled, "export cancelled") }
        try video?.append(frame)
        framesWritten.add(1, ordering: .relaxed)
    }

    private static func sample(_ t: Rational, _ rate: Int64) -> Int64 { (t * Rational(rate)).floor ?? 0 }

    var videoReport: ExportReport.Video {
        ExportReport.Video(
            codec: plan.settings.video!.codec.rawValue, width: plan.renderWidth, height: plan.renderHeight,
            pixelFormat: "yuv420p", frames: framesWritten.load(ordering: .relaxed), rotation: 0,
            processor: processorKind.withLock { $0 }.rawValue)
    }

    var audioReport: ExportReport.Audio? {
        guard let audio, let a = plan.settings.audio else { return nil }
        return ExportReport.Audio(
            codec: a.codec.rawValue, sampleRate: Int(sampleRate), channels: Int(layout.nb_channels),
            packets: audio.packetCount)
    }
}
