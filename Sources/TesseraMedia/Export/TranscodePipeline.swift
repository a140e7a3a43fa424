import CFFmpeg
import Foundation
import Synchronization
import TesseraAV
import TesseraCompute
import TesseraCore

/// The one one-pass pipeline, whatever the file is made from. Its video is a list of runs: a source is
/// one run of one asset; a composition (`CompositionRuns`) is a run per stretch of its timeline, one
/// asset's range or a gap, each picture placed on the render. Its audio tracks are lists of runs too.
///
/// ```
///  video, run after run:  frames ─▶ SourceFilter ─▶ FrameProcessor ─▶ FrameRetimer ─▶ LayerRenderer
///                               ─queue(2)─▶ encode thread: FrameDurations ─▶ video input
///  each audio track, run after run: frames ─▶ AudioRetimer ─▶ (a composition's: rate, layout, volume,
///                               exactly the run's samples) ─▶ audio input
///  each subtitle track: SubtitleLeg
/// ```
///
/// The segmented path (`SegmentEncodeLeg`) makes each segment's pictures in the same order of steps.
final class TranscodePipeline: ExportPipeline, @unchecked Sendable {
    /// A reader opened for one run (a composition's asset over the run's range), with the one track it reads.
    struct RunReader {
        let reader: AssetReader
        let output: AssetReaderTrackOutput
        /// How a composition's run chooses its frames, made once the stream's time base is known.
        var retimer: FrameRetimer? = nil
    }

    /// Where a run's frames come from.
    enum RunInput: @unchecked Sendable {
        /// An output of the export's own reader, started with the pipeline.
        case output(AssetReaderTrackOutput)
        /// A reader the run opens as it starts and stops as it ends; nil when the asset has no such track.
        case reader(@Sendable () throws(MediaError) -> RunReader?)
        /// Nothing plays: a composition's gap (the background, silence).
        case nothing
    }

    /// One stretch of the video.
    struct VideoRun: @unchecked Sendable {
        var input: RunInput
        /// How each decoded frame is converted (a source's size, format and turn); nil for a layer's frames,
        /// which its `LayerRenderer` converts.
        var processing: ProcessingSpec?
        /// What the decoded frames go through before they are processed (`SourceFilter`), if anything.
        var filters: String?
        /// Set for a retimed export or a composition's run: output frames are chosen along a time map.
        var retimer: FrameRetimer?
        /// Set for passthrough frame timing: every frame once, at the tick of 1/`timescale` s where the map
        /// reaches it.
        var mapped: (retime: ExportRetime, timescale: Int64)?
        /// A composition's layer: each chosen frame placed on the render at its instant.
        var layer: SegmentLayer?
        /// The layer's tone map (an HDR asset's).
        var toneMap: ToneMap?
        var rotation = Rotation.none
        /// The output frames the run must make (a composition's); nil, what its frames give.
        var instants: Range<Int64>?
        /// For messages: the file read, or what plays.
        var name: String
    }

    private struct VideoLeg: @unchecked Sendable {
        let input: AssetWriterInput
        let runs: [VideoRun]
        let codec: VideoCodec
        let settings: VideoSettings
        let rotation: Rotation
        /// The encoder's input ticks (the source's, or the output frame duration for a retimed export).
        let timeBase: AVRational
        /// The output's frame duration, for a layer's instants.
        let frameDuration: Rational
        /// Output frames end here (ticks of `timeBase`, range start = 0); nil = at the source's end.
        let endTick: Int64?
        /// The source's declared length and frame duration in seconds, to tell a truncated source; nil
        /// where the runs check their own frames (a composition's).
        let declared: (seconds: Double?, frame: Double)?
        /// The deinterlacer, by name.
        let deinterlacer: String?
    }

    /// One stretch of an audio track.
    struct AudioRun: @unchecked Sendable {
        var input: RunInput
        /// Stretches the audio along a time map (a retimed export, a composition's run).
        var retime: (map: TimeMap, origin: Rational, algorithm: TimePitchAlgorithm, end: Rational?)?
        /// The output samples the run writes, exactly, converted to the output's rate and layout (a
        /// composition's run); nil: the track's own samples, a gap in them filled with silence.
        var samples: Range<Int64>?
    }

    private struct AudioLeg: @unchecked Sendable {
        let input: AssetWriterInput
        let settings: AudioSettings
        let sampleRate: Int
        let channels: Int
        let runs: [AudioRun]
        /// The source track it reads (a source's); nil for a composition's mix.
        let source: StreamDescription?
        let trackID: Int?
        /// A composition's volume over output time.
        let volume: [CompositionSpec.RampSpan]
    }

    private let video: VideoLeg?
    private let audio: [AudioLeg]
    private let subtitles: [SubtitleLeg]
    private let makeProcessor: SegmentRunner.MakeProcessor
    private let videoProgress = ProgressCounter()
    private let audioProgress = ProgressCounter()
    private let processorKind = Mutex(ProcessorKind.none)
    /// End of the last video frame and of the audio, in seconds of output time.
    private let videoEnd = Mutex(0.0)
    private let audioEnd = Mutex(0.0)
    /// Measured as encoded (`measureVideo`): the whole video's figures, per GOP.
    private let quality = Mutex<QualityReport?>(nil)
    /// What the output could not show, for the report.
    private let notes = Mutex<[String]>([])

    private init(
        video: VideoLeg?, audio: [AudioLeg], subtitles: [SubtitleLeg],
        makeProcessor: @escaping SegmentRunner.MakeProcessor
    ) {
        self.video = video
        self.audio = audio
        self.subtitles = subtitles
        self.makeProcessor = makeProcessor
    }

    /// A source's pipeline: the reader outputs and writer inputs for `tracks` (the video, each audio
    /// track, and the subtitles, attachments and chapters carried), each track one run.
    /// - Throws: `.invalidArgument` when the source has none of the tracks the settings want;
    ///   `.unsupported` for an encoder/pixel-format combination this build cannot do.
    /// - Parameter videoElsewhere: the video is written by someone else (the segmented path's stitcher):
    ///   a pipeline with only subtitles, or nothing, is fine.
    /// - Parameter measureVideo: decode the video as it is encoded, check it yields every frame, and
    ///   measure it against the frames given to the encoder (`EncodedOutputCheck`).
    /// - Parameter audioWriter: where each audio track is written, when not `writer` (a package's own file
    ///   per track).
    /// - Parameter audioThreads: threads each audio track's encode may use (`AssetWriter.addAudioInput`).
    static func make(
        reader: AssetReader, writer: AssetWriter, settings: OutputSettings, tracks: ExportTracks,
        videoElsewhere: Bool = false, retime: ExportRetime? = nil, measureVideo: Bool = false,
        deinterlace: Deinterlace = .off,
        audioWriter: ((StreamDescription) throws(MediaError) -> AssetWriter)? = nil, audioThreads: Int = 1,
        _ makeProcessor: @escaping SegmentRunner.MakeProcessor
    )
        throws(MediaError) -> TranscodePipeline
    {
        var video: VideoLeg? = nil
        var audio: [AudioLeg] = []
        if let vs = settings.video, let id = tracks.video {
            let source = StreamDescription(stream: reader.input.streams[id])
            let output = try reader.addOutput(trackID: id)
            video = try makeVideoLeg(
                vs, source: source, output: output, writer: writer, retime: retime, hdr: tracks.hdr,
                deinterlace: deinterlace, toneMap: tracks.toneMap, name: reader.path)
            if measureVideo, let leg = video { try leg.input.checkAsEncoded() }
        }
        if let settingsA = settings.audio {
            for id in tracks.audio {
                let source = StreamDescription(stream: reader.input.streams[id])
                let output = try reader.addOutput(trackID: id)
                let p = source.parameters
                let rate = settingsA.codec == .opus ? 48_000 : (settingsA.sampleRate ?? Int(p.sample_rate))
                let channels = settingsA.channelCount ?? Int(max(1, p.ch_layout.nb_channels))
                let input = try (audioWriter?(source) ?? writer).addAudioInput(
                    settings: settingsA, sampleRate: rate, channels: channels,
                    tagsFrom: source.stream, threads: audioThreads)
                let run = AudioRun(
                    input: .output(output),
                    retime: retime.map { ($0.map, $0.origin, $0.timePitch, $0.videoEnd) }, samples: nil)
                audio.append(
                    AudioLeg(
                        input: input, settings: settingsA, sampleRate: rate, channels: channels, runs: [run],
                        source: source, trackID: id, volume: []))
            }
        }
        guard video != nil || !audio.isEmpty || videoElsewhere else {
            throw MediaError(
                .invalidArgument, path: reader.path,
                "has no \(settings.video != nil && writer.fileType != .m4a ? "video or audio" : "audio") track to export"
            )
        }
        let carried = try tracks.addCarried(reader: reader, writer: writer, retime: retime)
        return TranscodePipeline(video: video, audio: audio, subtitles: carried, makeProcessor: makeProcessor)
    }

    private static func makeVideoLeg(
        _ vs: VideoSettings, source: StreamDescription, output: AssetReaderTrackOutput,
        writer: AssetWriter, retime: ExportRetime?, hdr: HDRMetadata?, deinterlace: Deinterlace,
        toneMap: ToneMap?,
        name: String
    ) throws(MediaError) -> VideoLeg {
        let encoding = try VideoEncoding(vs, source: source, hdr: hdr, toneMap: toneMap)
        let order = FieldOrder(source.parameters.field_order)
        var encoderInput = encoding.encoderInput
        var retimer: FrameRetimer? = nil
        var mapped: (retime: ExportRetime, timescale: Int64)? = nil
        if let retime, retime.frameTiming == .passthrough {
            // Every frame at its mapped time, in ticks fine enough to keep the source's rate.
            let scale = ExportRetime.timescale(for: source.timeBase)
            encoderInput.timeBase = AVRational(num: 1, den: Int32(clamping: scale))
            mapped = (retime, scale)
        } else if let retime {
            // Constant frame rate: the encoder counts in frames of the output's frame duration.
            let d = retime.frameDuration
            encoderInput.timeBase = try AVRational(d, "the frame duration")
            encoderInput.frameRate = encoderInput.timeBase.inverse
            retimer = FrameRetimer(
                map: retime.map, frameDuration: d, selection: retime.selection, timeBase: source.timeBase,
                origin: retime.origin)
        }
        let input = try writer.addVideoInput(
            settings: vs, input: encoderInput, rotation: encoding.rotation,
            tagsFrom: source.stream)
        let endTick: Int64? =
            retimer.map(\.frameCount)
            ?? mapped.map { ($0.retime.map.outputDuration * Rational($0.timescale)).ceiling ?? 0 }
            ?? (output.range.end == Int64.max ? nil : output.range.end - output.range.start)
        let run = VideoRun(
            input: .output(output), processing: encoding.processing,
            filters: deinterlace.filter(for: order, fields: retimer != nil),
            retimer: retimer, mapped: mapped, name: name)
        return VideoLeg(
            input: input, runs: [run], codec: vs.codec, settings: vs, rotation: encoding.rotation,
            timeBase: retimer == nil && mapped == nil ? source.timeBase : input.timeBase,
            frameDuration: Rational(input.timeBase), endTick: endTick,
            declared: (source.durationSeconds, 1 / max(1, av_q2d(source.frameRate))),
            deinterlacer: deinterlace.filterName(for: order))
    }

    /// A composition's pipeline (`CompositionRuns` makes its runs): the render's video, when given its
    /// writer input, and the sound mixed into one track, when given its input.
    static func composition(
        video: (
            input: AssetWriterInput, runs: [VideoRun], settings: VideoSettings, frameDuration: Rational,
            frames: Int64
        )?,
        audio: (
            input: AssetWriterInput, settings: AudioSettings, sampleRate: Int, channels: Int, runs: [AudioRun],
            volume: [CompositionSpec.RampSpan]
        )?,
        makeProcessor: @escaping SegmentRunner.MakeProcessor
    ) -> TranscodePipeline {
        TranscodePipeline(
            video: video.map {
                VideoLeg(
                    input: $0.input, runs: $0.runs, codec: $0.settings.codec, settings: $0.settings, rotation: .none,
                    timeBase: $0.input.timeBase, frameDuration: $0.frameDuration, endTick: $0.frames, declared: nil,
                    deinterlacer: nil)
            },
            audio: audio.map {
                [
                    AudioLeg(
                        input: $0.input, settings: $0.settings, sampleRate: $0.sampleRate, channels: $0.channels,
                        runs: $0.runs, source: nil, trackID: nil, volume: $0.volume)
                ]
            } ?? [], subtitles: [], makeProcessor: makeProcessor)
    }

    func start(failure: PipelineFailure) -> [StageThread] {
        var stages: [StageThread] = []
        if let video {
            let processed = BoundedQueue<Frame>(capacity: BoundedQueue<Frame>.frameCapacity)
            failure.watch(processed)
            stages.append(
                StageThread("tessera.process", failure: failure) { [self] () throws(MediaError) in
                    defer { processed.close() }
                    for run in video.runs {
                        guard try runVideo(run, video, into: processed, failure: failure) else { return }
                    }
                })
            stages.append(
                StageThread("tessera.encode.video", failure: failure) { [self] () throws(MediaError) in
                    try runVideoEncode(video, from: processed, failure: failure)
                })
        }
        for (i, leg) in audio.enumerated() {
            stages.append(
                StageThread("tessera.encode.audio.\(i)", failure: failure) { [self] () throws(MediaError) in
                    try runAudio(leg, first: i == 0, failure: failure)
                })
        }
        stages += subtitles.map { leg in
            StageThread("tessera.subtitle.\(leg.trackID)", failure: failure) { () throws(MediaError) in try leg.run() }
        }
        return stages
    }

    /// Runs `body` over the run's track output: the export's own, or a reader opened for the run and
    /// stopped after it (also when the pipeline fails); nil input, a run with nothing to read.
    private static func reading<T>(
        _ input: RunInput, failure: PipelineFailure,
        _ body: (AssetReaderTrackOutput?, FrameRetimer?) throws(MediaError) -> T
    ) throws(MediaError) -> T {
        switch input {
        case .nothing: return try body(nil, nil)
        case .output(let output): return try body(output, nil)
        case .reader(let open):
            guard let opened = try open() else { return try body(nil, nil) }
            let reader = opened.reader
            failure.watchCancel { [weak reader] in reader?.cancelReading() }
            let result: T
            do throws(MediaError) {
                result = try body(opened.output, opened.retimer)
            } catch {
                reader.cancelReading()
                reader.waitUntilFinished()
                throw error
            }
            reader.cancelReading()
            reader.waitUntilFinished()
            // `.cancelled` is how a finished run stops its reader; the export's own cancel is the
            // pipeline's failure, which the stages report.
            if let error = reader.failure.error, error.kind != .cancelled { throw error }
            try failure.check()
            return result
        }
    }

    /// Makes one run's output frames into `queue`; false when the queue was closed (a stage failed).
    private func runVideo(
        _ run: VideoRun, _ leg: VideoLeg, into queue: BoundedQueue<Frame>, failure: PipelineFailure
    ) throws(MediaError) -> Bool {
        var layer = try run.layer.map { (l) throws(MediaError) in
            try LayerRenderer(
                layer: l, rotation: run.rotation, frameDuration: leg.frameDuration, toneMap: run.toneMap,
                makeProcessor: makeProcessor)
        }
        defer { if let kind = layer?.kind, kind != .none { processorKind.withLock { $0 = kind } } }
        var made = run.instants?.lowerBound ?? 0
        var sharedTicks = 0
        func show(_ frame: Frame) throws(MediaError) -> Bool {
            made = frame.pts + 1
            return queue.push(try layer?.render(frame, k: frame.pts) ?? frame)
        }
        let complete = try Self.reading(run.input, failure: failure) { (output, opened) throws(MediaError) -> Bool in
            guard let output else {
                // A gap: the background at each of its instants.
                for k in run.instants ?? 0..<0 {
                    guard queue.push(try layer!.render(nil, k: k)) else { return false }
                    made = k + 1
                }
                return true
            }
            var processor: (any FrameProcessor)? = nil
            var retimer = opened ?? run.retimer
            var lastTick = Int64.min
            let filters = run.filters.map { SourceFilter(filter: $0, timeBase: output.timeBase) }
            func process(_ frame: Frame) throws(MediaError) -> Bool {
                var out = frame
                if let spec = run.processing {
                    if processor == nil {
                        processor = try makeProcessor(spec, frame)
                        processorKind.withLock { $0 = processor!.kind }
                    }
                    out = try processor!.process(frame)
                }
                if let mapped = run.mapped {
                    guard
                        let tick = mapped.retime.outputTick(
                            relative: max(0, out.pts), tb: output.timeBase, timescale: mapped.timescale)
                    else {
                        throw MediaError(.invalidArgument, path: run.name, "a frame time does not fit the time map")
                    }
                    // A fast range can bring two frames to one tick: the later one cannot be shown.
                    guard tick > lastTick else {
                        sharedTicks += 1
                        return true
                    }
                    lastTick = tick
                    out.pts = tick
                    return try show(out)
                }
                // Each source frame is processed once; a retimed run then shows it as often as the map says.
                for shown in try retimer?.push(out) ?? [out] { guard try show(shown) else { return false } }
                return true
            }
            while let frame = try output.copyNextFrame() {
                for filtered in try filters?.push(frame) ?? [frame] {
                    guard try process(filtered) else { return false }
                }
            }
            for filtered in try filters?.finish() ?? [] { guard try process(filtered) else { return false } }
            for shown in try retimer?.finish() ?? [] { guard try show(shown) else { return false } }
            return true
        }
        if sharedTicks > 0 {
            let count = sharedTicks
            notes.withLock {
                $0.append(
                    "\(count) source frames fell on the output tick of the frame before (a range sped past the "
                        + "output's time resolution) and are not shown")
            }
        }
        if complete, let instants = run.instants, made != instants.upperBound {
            throw MediaError(.corrupt, path: run.name, "gave frames up to \(made) of the run's \(instants)")
        }
        return complete
    }

    /// Encodes frames with their durations (see `FrameDurations`); the last runs to the range end.
    private func runVideoEncode(
        _ leg: VideoLeg, from queue: BoundedQueue<Frame>,
        failure: PipelineFailure
    ) throws(MediaError) {
        let tb = leg.timeBase
        let seconds = { (t: Int64) in Double(t) * Double(tb.num) / Double(tb.den) }
        var durations = FrameDurations()
        while let frame = queue.pop() {
            if let previous = durations.push(frame) {
                try leg.input.append(previous)
                videoProgress.advance(to: seconds(previous.pts))
            }
        }
        if let last = durations.finish(endTick: leg.endTick) {
            try leg.input.append(last)
            videoProgress.advance(to: seconds(last.pts))
            let end = seconds(try TickRange.end(last.pts, plus: max(0, last.pointer.pointee.pkt_duration)))
            videoEnd.withLock { $0 = end }
        }
        // The queue also ends when another stage failed: then there is nothing worth flushing.
        try failure.check()
        try leg.input.markAsFinished()
        if let check = leg.input.check {
            let report = try check.finishReport(rateControl: leg.settings.rateControl)
            quality.withLock { $0 = report }
        }
    }

    /// Encodes one audio track, run after run; the first track's progress stands for the audio's.
    private func runAudio(_ leg: AudioLeg, first: Bool, failure: PipelineFailure) throws(MediaError) {
        var end = 0.0
        for run in leg.runs {
            end = try Self.reading(run.input, failure: failure) { (output, _) throws(MediaError) -> Double in
                if let samples = run.samples {
                    try runMix(run, output: output, samples: samples, leg, first: first)
                    return Double(samples.upperBound) / Double(leg.sampleRate)
                }
                guard let output else { return end }
                return try runTrack(run, output: output, leg, first: first)
            }
            try failure.check()
        }
        if first { audioEnd.withLock { $0 = end } }
        try failure.check()
        try leg.input.markAsFinished()
    }

    /// A source's audio track as it is: retimed along the map, or with a gap in it kept as silence on the
    /// source's timeline. Returns where it ended, in seconds.
    private func runTrack(
        _ run: AudioRun, output: AssetReaderTrackOutput, _ leg: AudioLeg, first: Bool
    ) throws(MediaError) -> Double {
        let rate = Double(output.timeBase.den)
        var samples: Int64 = 0
        let append = { [self] (frame: Frame) throws(MediaError) in
            try leg.input.append(frame)
            samples = try TickRange.end(frame.pts, plus: Int64(frame.sampleCount))
            if first { audioProgress.advance(to: Double(samples) / rate) }
        }
        if let retime = run.retime {
            let retimer = AudioRetimer(
                map: retime.map, origin: retime.origin, sampleRate: Int(output.timeBase.den),
                algorithm: retime.algorithm, end: retime.end)
            try retimer.run(next: { () throws(MediaError) in try output.copyNextFrame() }, emit: append)
            return Double(samples) / rate
        }
        while let frame = try output.copyNextFrame() {
            // A gap in the source's audio (its start after the video's, a skip in a fragmented file) is
            // kept as silence on the source's timeline: the writer counts samples, so it is written.
            if frame.pts > samples {
                // A jump of more than a minute is damage, not a pause: refused rather than filled.
                let (gap, overflow) = frame.pts.subtractingReportingOverflow(samples)
                guard !overflow, gap <= 60 * Int64(rate) else {
                    throw MediaError(
                        .corrupt,
                        String(
                            format: "audio track %d jumps from %.3f s to %.3f s: a gap over a minute is not filled",
                            output.trackID, Double(samples) / rate, Double(frame.pts) / rate))
                }
                let f = frame.pointer
                try Self.silence(
                    samples..<frame.pts, format: AVSampleFormat(rawValue: f.pointee.format),
                    sampleRate: f.pointee.sample_rate, layout: &f.pointee.ch_layout, append)
            }
            try append(frame)
        }
        return Double(samples) / rate
    }

    /// A composition's run of sound: stretched along its pieces, converted to the output's rate and
    /// layout, the volume ramps applied, exactly `samples` of the output written (silence where the run
    /// has no sound).
    private func runMix(
        _ run: AudioRun, output: AssetReaderTrackOutput?, samples: Range<Int64>, _ leg: AudioLeg, first: Bool
    ) throws(MediaError) {
        let sampleRate = Int64(leg.sampleRate)
        var layout = AVChannelLayout()
        av_channel_layout_default(&layout, Int32(clamping: leg.channels))
        defer { av_channel_layout_uninit(&layout) }
        var next = samples.lowerBound
        func write(_ frame: Frame) throws(MediaError) {
            let room = samples.upperBound - next
            guard room > 0 else { return }
            if Int64(frame.sampleCount) > room { frame.pointer.pointee.nb_samples = Int32(room) }
            Self.applyVolume(leg.volume, to: frame, from: next, sampleRate: sampleRate)
            frame.pts = next
            next += Int64(frame.sampleCount)
            try leg.input.append(frame)
            if first { audioProgress.advance(to: Double(next) / Double(sampleRate)) }
        }
        if let output, let retime = run.retime {
            let retimer = AudioRetimer(
                map: retime.map, origin: retime.origin, sampleRate: Int(output.timeBase.den),
                algorithm: retime.algorithm, end: Rational(Int64(samples.count), sampleRate))
            var convert: FilterGraph?
            var description = [CChar](repeating: 0, count: 64)
            av_channel_layout_describe(&layout, &description, description.count)
            let target = String(cString: description)
            try retimer.run(
                next: { () throws(MediaError) in try output.copyNextFrame() },
                emit: { (frame: Frame) throws(MediaError) in
                    if convert == nil {
                        var source = frame.pointer.pointee.ch_layout
                        convert = try FilterGraph(
                            video: false,
                            source: FilterGraph.audioSource(
                                sampleRate: Int64(frame.pointer.pointee.sample_rate),
                                format: AVSampleFormat(rawValue: frame.pointer.pointee.format), layout: &source),
                            description: "aresample=\(sampleRate),aformat=sample_fmts=fltp:channel_layouts=\(target)",
                            what: "the audio conversion")
                    }
                    try convert!.push(frame, write)
                })
            try convert?.finish(write)
        }
        if next < samples.upperBound {
            try Self.silence(
                next..<samples.upperBound, format: AV_SAMPLE_FMT_FLTP, sampleRate: Int32(clamping: sampleRate),
                layout: &layout, write)
        }
    }

    /// Multiplies a planar float frame starting at output sample `start` by the volume ramps' gain.
    private static func applyVolume(
        _ volume: [CompositionSpec.RampSpan], to frame: Frame, from start: Int64, sampleRate: Int64
    ) {
        guard !volume.isEmpty else { return }
        let f = frame.pointer.pointee
        let count = Int(f.nb_samples)
        let gains = (0..<count).map {
            CompositionSpec.RampSpan.value(at: Rational(start + Int64($0), sampleRate), in: volume)
        }
        for c in 0..<Int(f.ch_layout.nb_channels) {
            guard let plane = f.extended_data[c] else { continue }
            plane.withMemoryRebound(to: Float.self, capacity: count) { p in
                for i in 0..<count { p[i] *= Float(gains[i]) }
            }
        }
    }

    /// Silence over samples `range` in the given format, rate and layout, 1024 samples a frame.
    private static func silence(
        _ range: Range<Int64>, format: AVSampleFormat, sampleRate: Int32, layout: inout AVChannelLayout,
        _ append: (Frame) throws(MediaError) -> Void
    ) throws(MediaError) {
        var at = range.lowerBound
        while at < range.upperBound {
            let count = Int32(min(1024, range.upperBound - at))
            let silent = try Frame.audio(
                samples: count, format: format, sampleRate: sampleRate, layout: &layout, silent: true)
            silent.pts = at
            at += Int64(count)
            try append(silent)
        }
    }

    func progress(total: Double, elapsed: Double) -> ExportProgress {
        let v = video != nil ? videoProgress.snapshot : audioProgress.snapshot
        return ExportProgress(frames: v.frames, seconds: v.seconds, totalSeconds: total, elapsedSeconds: elapsed)
    }

    func checkComplete(expectedSeconds: Double, source: String) throws(MediaError) {
        if let video {
            guard let declared = video.declared else { return }
            try Self.check(
                "video", reached: videoEnd.withLock { $0 },
                declared: min(expectedSeconds, declared.seconds ?? expectedSeconds),
                frame: declared.frame, source: source)
        } else if let audio = audio.first, let track = audio.source {
            let declared = min(expectedSeconds, track.durationSeconds ?? expectedSeconds)
            try Self.check("audio", reached: audioEnd.withLock { $0 }, declared: declared, frame: 0.1, source: source)
        }
    }

    private static func check(
        _ what: String, reached: Double, declared: Double, frame: Double,
        source: String
    ) throws(MediaError) {
        let slack = max(0.5, 2 * frame)
        if declared > 0 && reached + slack < declared {
            throw MediaError(
                .corrupt, path: source,
                String(
                    format: "%@ ends at %.3fs but the file declares %.3fs (truncated?)", what, reached, declared))
        }
    }

    var report: ExportReport {
        var r = ExportReport(
            source: "", output: "", fileType: "", preset: nil, passthrough: false, timeRange: nil,
            duration: .zero, video: nil, audio: nil, bytes: 0, wallSeconds: 0, framesPerSecond: 0)
        if let video {
            let c = video.input.stream.pointee.codecpar.pointee
            r.video = .init(
                codec: video.codec.rawValue, width: Int(c.width), height: Int(c.height),
                pixelFormat: PixelFormat(AVPixelFormat(rawValue: c.format)).rawValue,
                frames: video.input.packetCount, rotation: video.rotation.degrees,
                processor: processorKind.withLock { $0 }.rawValue)
            r.video?.deinterlaced = video.deinterlacer
            r.duration = MediaTime(seconds: videoEnd.withLock { $0 }, preferredTimescale: 1_000_000)
        }
        r.audioTracks = audio.map {
            .init(
                codec: $0.settings.codec.rawValue, sampleRate: $0.sampleRate, channels: $0.channels,
                packets: $0.input.packetCount, sourceTrack: $0.trackID,
                language: $0.source?.language)
        }
        r.audio = r.audioTracks.first
        if video == nil && !audio.isEmpty {
            r.duration = MediaTime(seconds: audioEnd.withLock { $0 }, preferredTimescale: 1_000_000)
        }
        r.quality = quality.withLock { $0 }
        r.notCarried = notes.withLock { $0 }
        r.subtitleTracks = subtitles.map {
            .init(sourceTrack: $0.trackID, events: $0.events, converted: $0.isConverted)
        }
        return r
    }
}
