import CFFmpeg
import Foundation
import Synchronization
import TesseraAV
import TesseraCompute
import TesseraCore

/// Decode → process → encode for the video track, decode → resample → encode for the audio track.
final class TranscodePipeline: ExportPipeline, @unchecked Sendable {
    private struct VideoLeg: @unchecked Sendable {
        let output: AssetReaderTrackOutput
        let input: AssetWriterInput
        let spec: ProcessingSpec?
        let source: StreamDescription
        let codec: VideoCodec
        let settings: VideoSettings
        let rotation: Rotation
        /// Output frames end here (ticks of the stream time base, range start = 0); nil = at the source's end.
        /// For a retimed leg: the output frame count, in ticks of the output frame duration.
        let endTick: Int64?
        /// Set for a retimed export: output frames are chosen from the processed source frames.
        let retimer: FrameRetimer?
        /// What the decoded frames go through before they are processed (`SourceFilter`), if anything.
        let filters: String?
        /// The deinterlacer among them, by name.
        let deinterlacer: String?
    }
    private struct AudioLeg: @unchecked Sendable {
        let output: AssetReaderTrackOutput
        let input: AssetWriterInput
        let settings: AudioSettings
        let sampleRate: Int
        let channels: Int
        let source: StreamDescription
        /// Set for a retimed export: the audio is stretched along the same map.
        let retime: ExportRetime?
    }

    private let video: VideoLeg?
    private let audio: [AudioLeg]
    private let subtitles: [SubtitleLeg]
    private let makeProcessor: @Sendable (ProcessingSpec, Frame) throws(MediaError) -> any FrameProcessor
    private let videoProgress = ProgressCounter()
    private let audioProgress = ProgressCounter()
    private let processorKind = Mutex(ProcessorKind.none)
    /// End of the last video frame and of the audio, in seconds of output time.
    private let videoEnd = Mutex(0.0)
    private let audioEnd = Mutex(0.0)
    /// Measured as encoded (`measureVideo`): the whole video's figures, per GOP.
    private let quality = Mutex<QualityReport?>(nil)

    private init(
        video: VideoLeg?, audio: [AudioLeg], subtitles: [SubtitleLeg],
        makeProcessor: @escaping @Sendable (ProcessingSpec, Frame) throws(MediaError) -> any FrameProcessor
    ) {
        self.video = video
        self.audio = audio
        self.subtitles = subtitles
        self.makeProcessor = makeProcessor
    }

    /// Adds the reader outputs and writer inputs for `tracks`: the video, each audio track, and the
    /// subtitles, attachments and chapters carried.
    /// - Throws: `.invalidArgument` when the source has none of the tracks the settings want;
    ///   `.unsupported` for an encoder/pixel-format combination this build cannot do.
    /// - Parameter videoElsewhere: the video is written by someone else (the segmented path's stitcher):
    ///   a pipeline with only subtitles, or nothing, is fine.
    /// - Parameter measureVideo: decode the video as it is encoded, check it yields every frame, and
    ///   measure it against the frames given to the encoder (`EncodedOutputCheck`).
    /// - Parameter audioWriter: where each audio track is written, when not `writer` (a package's own file
    ///   per track).
    static func make(
        reader: AssetReader, writer: AssetWriter, settings: OutputSettings, tracks: ExportTracks,
        videoElsewhere: Bool = false, retime: ExportRetime? = nil, measureVideo: Bool = false,
        deinterlace: Deinterlace = .off,
        audioWriter: ((StreamDescription) throws(MediaError) -> AssetWriter)? = nil,
        _ makeProcessor: @escaping @Sendable (ProcessingSpec, Frame) throws(MediaError) -> any FrameProcessor
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
                deinterlace: deinterlace, toneMapTo: tracks.toneMapTo)
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
                    tagsFrom: source.stream)
                audio.append(
                    AudioLeg(
                        output: output, input: input, settings: settingsA, sampleRate: rate,
                        channels: channels, source: source, retime: retime))
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
        writer: AssetWriter, retime: ExportRetime?, hdr: HDRMetadata?, deinterlace: Deinterlace, toneMapTo: PixelFormat?
    ) throws(MediaError) -> VideoLeg {
        let encoding = try VideoEncoding(vs, source: source, hdr: hdr, toneMapped: toneMapTo != nil)
        let order = FieldOrder(source.parameters.field_order)
        var encoderInput = encoding.encoderInput
        var retimer: FrameRetimer? = nil
        if let retime {
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
            ?? (output.range.end == Int64.max ? nil : output.range.end - output.range.start)
        return VideoLeg(
            output: output, input: input, spec: encoding.processing, source: source, codec: vs.codec, settings: vs,
            rotation: encoding.rotation, endTick: endTick, retimer: retimer,
            filters: SourceFilter.description(deinterlace: deinterlace.filter(for: order), toneMapTo: toneMapTo),
            deinterlacer: deinterlace.filterName(for: order))
    }

    func start(failure: PipelineFailure) -> [StageThread] {
        var stages: [StageThread] = []
        if let video {
            let processed = BoundedQueue<Frame>(capacity: BoundedQueue<Frame>.frameCapacity)
            failure.watch(processed)
            stages.append(
                StageThread("tessera.process", failure: failure) { [self] () throws(MediaError) in
                    defer { processed.close() }
                    try runProcess(video, into: processed)
                })
            stages.append(
                StageThread("tessera.encode.video", failure: failure) { [self] () throws(MediaError) in
                    try runVideoEncode(video, from: processed, failure: failure)
                })
        }
        for (i, leg) in audio.enumerated() {
            stages.append(
                StageThread("tessera.encode.audio.\(leg.output.trackID)", failure: failure) {
                    [self] () throws(MediaError) in
                    try runAudio(leg, first: i == 0, failure: failure)
                })
        }
        stages += subtitles.map { leg in
            StageThread("tessera.subtitle.\(leg.trackID)", failure: failure) { () throws(MediaError) in try leg.run() }
        }
        return stages
    }

    private func runProcess(_ leg: VideoLeg, into queue: BoundedQueue<Frame>) throws(MediaError) {
        var processor: (any FrameProcessor)? = nil
        var retimer = leg.retimer
        let filters = leg.filters.map { SourceFilter(filter: $0, timeBase: leg.output.timeBase) }
        func process(_ frame: Frame) throws(MediaError) -> Bool {
            var out = frame
            if let spec = leg.spec {
                if processor == nil {
                    processor = try makeProcessor(spec, frame)
                    processorKind.withLock { $0 = processor!.kind }
                }
                out = try processor!.process(frame)
            }
            // Each source frame is processed once; a retimed export then shows it as often as the map says.
            for shown in try retimer?.push(out) ?? [out] { guard queue.push(shown) else { return false } }
            return true
        }
        while let frame = try leg.output.copyNextFrame() {
            for filtered in try filters?.push(frame) ?? [frame] { guard try process(filtered) else { return } }
        }
        for filtered in try filters?.finish() ?? [] { guard try process(filtered) else { return } }
        for shown in try retimer?.finish() ?? [] { guard queue.push(shown) else { return } }
    }

    /// Encodes frames with their durations (see `FrameDurations`); the last runs to the range end.
    private func runVideoEncode(
        _ leg: VideoLeg, from queue: BoundedQueue<Frame>,
        failure: PipelineFailure
    ) throws(MediaError) {
        let tb = leg.retimer == nil ? leg.source.timeBase : leg.input.timeBase
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

    /// Encodes one audio track; the first one's progress stands for the audio's.
    private func runAudio(_ leg: AudioLeg, first: Bool, failure: PipelineFailure) throws(MediaError) {
        let rate = Double(leg.output.timeBase.den)
        var samples: Int64 = 0
        let append = { [self] (frame: Frame) throws(MediaError) in
            try leg.input.append(frame)
            samples = try TickRange.end(frame.pts, plus: Int64(frame.sampleCount))
            if first { audioProgress.advance(to: Double(samples) / rate) }
        }
        if let retime = leg.retime {
            let retimer = AudioRetimer(
                map: retime.map, origin: retime.origin, sampleRate: Int(leg.output.timeBase.den),
                algorithm: retime.timePitch, end: retime.videoEnd)
            try retimer.run(next: { () throws(MediaError) in try leg.output.copyNextFrame() }, emit: append)
        } else {
            while let frame = try leg.output.copyNextFrame() {
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
                                leg.output.trackID, Double(samples) / rate, Double(frame.pts) / rate))
                    }
                    try Self.silence(samples..<frame.pts, like: frame, append)
                }
                try append(frame)
            }
        }
        if first { audioEnd.withLock { $0 = Double(samples) / rate } }
        try failure.check()
        try leg.input.markAsFinished()
    }

    /// Silence over samples `range`, in `frame`'s format, rate and layout, 1024 samples a frame.
    private static func silence(
        _ range: Range<Int64>, like frame: Frame, _ append: (Frame) throws(MediaError) -> Void
    ) throws(MediaError) {
        let f = frame.pointer
        var at = range.lowerBound
        while at < range.upperBound {
            let count = Int32(min(1024, range.upperBound - at))
            let silent = try Frame.audio(
                samples: count, format: AVSampleFormat(rawValue: f.pointee.format), sampleRate: f.pointee.sample_rate,
                layout: &f.pointee.ch_layout, silent: true)
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
            let declared = min(expectedSeconds, video.source.durationSeconds ?? expectedSeconds)
            try Self.check(
                "video", reached: videoEnd.withLock { $0 }, declared: declared,
                frame: 1 / max(1, av_q2d(video.source.frameRate)), source: source)
        } else if let audio = audio.first {
            let declared = min(expectedSeconds, audio.source.durationSeconds ?? expectedSeconds)
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
                packets: $0.input.packetCount, sourceTrack: $0.output.trackID, language: $0.source.language)
        }
        r.audio = r.audioTracks.first
        if video == nil && !audio.isEmpty {
            r.duration = MediaTime(seconds: audioEnd.withLock { $0 }, preferredTimescale: 1_000_000)
        }
        r.quality = quality.withLock { $0 }
        r.subtitleTracks = subtitles.map {
            .init(sourceTrack: $0.trackID, events: $0.events, converted: $0.isConverted)
        }
        return r
    }
}
