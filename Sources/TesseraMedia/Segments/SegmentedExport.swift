import CFFmpeg
import Foundation
import TesseraAV
import TesseraCompute
import TesseraCore

/// The segmented path of an export: plan, cut, have an executor transcode, stitch.
///
/// ```
///  [demux thread] ─ work (in order) ─▶ SegmentExecutor (local threads | farm workers) ─ outputs ─┐
///  AssetReader audio ─▶ [audio thread] ─▶ audio input ─────────────────────────────────────────┼─▶ AssetWriter
///  calling thread: stitch outputs in segment order into the video input ◀──────────────────────┘
/// ```
///
/// The video is planned with `SegmentPlanner`, each segment transcoded independently, and the
/// packets concatenated; the audio is decoded and encoded once over the whole range.
final class SegmentedExport: @unchecked Sendable {
    struct Configuration {
        var settings: OutputSettings
        /// The tracks written; the video is the one segmented, the rest go through a `TranscodePipeline`.
        var tracks: ExportTracks
        var fileType: FileType
        var segmentSeconds: Double
        var parallel: Int
        var makeProcessor: SegmentRunner.MakeProcessor
        var backend: ProcessingBackend
        var verification: VerificationLevel
        var targetQuality: TargetQuality?
        var deinterlace: Deinterlace = .off
        /// nil runs the segments on `parallel` local threads.
        var makeExecutor: (@Sendable ([SegmentSpec]) throws(MediaError) -> any SegmentExecutor)?
        var phase: @Sendable (ExportPhase) -> Void
        /// Told the source's audio end gaps once planned, before any segment is sent.
        var audioEndGaps: @Sendable ([Int: MediaTime]) -> Void = { _ in }
        /// A retimed export: segments planned on its output timeline, each choosing its frames along the
        /// time map; the audio stretched once over the whole timeline.
        var retime: ExportRetime? = nil
        /// A streaming package instead of one file: segments planned on its media-segment grid, each
        /// encoded once per rendition.
        var package: Package? = nil
        /// Threads the audio encode may use: it runs beside the segments, and on a large farm it is the
        /// job's longest task.
        var audioThreads = 1
    }

    /// What a packaging export makes.
    struct Package {
        var request: PackageRequest
        var outputPath: String
        var overwrite: Bool
    }

    private let reader: AssetReader
    private let config: Configuration
    private let failure: PipelineFailure
    private(set) var segmentCount = 0
    private(set) var processorKind = ProcessorKind.none
    /// Which processor made each rendition's pictures (a package's), in the ladder's order.
    private(set) var renditionProcessors: [ProcessorKind] = []
    /// Each rendition's measured segments (with their rate factors and probes) and the whole, against its
    /// target (a package's ladder, in its order); nil where a segment was not measured.
    private(set) var renditionQuality: [QualityReport?] = []
    private(set) var renditionTargets: [TargetQuality?] = []
    private(set) var audioPlan: TranscodePipeline?
    /// The presentation time of every output frame, from the plan.
    private(set) var expectedTimes: [MediaTime] = []
    /// How much later each source audio track ends than the video in the range, from the plan's pass.
    private(set) var sourceAudioEndGaps: [Int: MediaTime] = [:]
    private var videoInput: AssetWriterInput?
    /// Audio packets a file's writer holds while it waits for the first segment (then the audio encode
    /// waits): on a 16-core coordinator a two-hour film's AAC at 128 kb/s is 115 MB, made in about 19 s.
    static let earlyPacketBytes = 64 << 20
    private var videoEnd: Double = 0
    private var quality: QualityReport?
    /// The deinterlacer the segments' frames went through, if any.
    private var deinterlaced: String?
    private var rotation = Rotation.none
    private var codec = VideoCodec.h264
    /// With a package: its writer once opened, and where each media segment starts.
    private(set) var packageWriter: PackageWriter?
    private(set) var segmentStarts: [MediaTime] = []

    init(reader: AssetReader, configuration: Configuration) {
        self.reader = reader
        config = configuration
        failure = reader.failure
    }

    /// Plans, transcodes and stitches; `makeWriter` is called once the first segment shows the codec
    /// parameters. Returns the writer, finished (nil for a package: `packageWriter`, to finish).
    func run(
        makeWriter: () throws(MediaError) -> AssetWriter,
        progress: (ExportProgress) -> Void, total: Double, started: Date
    ) throws(MediaError) -> AssetWriter? {
        guard let vs = config.settings.video, let videoID = config.tracks.video else {
            throw MediaError(.invalidArgument, path: reader.path, "segmenting needs a video track to cut")
        }
        codec = vs.codec
        config.phase(.planning)
        let stream = reader.input.streams[videoID]
        let source = StreamDescription(stream: stream)
        rotation = source.rotation
        // Refuses impossible settings before any work is sent.
        _ = try VideoEncoding(vs, source: source, toneMap: config.tracks.toneMap)
        let tb = source.timeBase
        // A package's media segment is made as farm segments of at most the keyframe interval: its
        // keyframes fall there anyway, and shorter pieces share out among the workers.
        let pieces = config.package.map(\.request.farmSegmentsPerMediaSegment)
        let video = try reader.planVideo(
            segmentSeconds: config.segmentSeconds, parallel: config.parallel, retime: config.retime,
            gridPieces: pieces)
        let range = video.range
        var plan = video.planned.segments
        expectedTimes = video.outputTimes
        // A retimed export's audio is stretched to end with its video, whatever the source's gap.
        sourceAudioEndGaps = config.retime == nil ? video.audioEndGaps : [:]
        config.audioEndGaps(video.audioEndGaps)
        guard !plan.isEmpty else {
            throw MediaError(.invalidArgument, path: reader.path, "the range holds no video frame")
        }
        segmentCount = plan.count
        // Where media segments start: the first farm segment at or after each multiple of the length (in
        // source ticks; for a retimed export, in whole output frames, as its grid was cut).
        if config.package != nil {
            let length: Int64
            if let r = config.retime {
                length = max(1, (try AssetReader.outputSeconds(config.segmentSeconds) / r.frameDuration).floor ?? 1)
            } else {
                length = try SegmentPlanner.targetTicks(seconds: config.segmentSeconds, timeBase: tb)
            }
            let starts = SegmentPlanner.mediaSegmentStarts(
                plan.map {
                    (
                        config.retime == nil
                            ? $0.presentationRange.lowerBound &- range.start : Int64($0.outputFrames.lowerBound),
                        $0.outputFrames.lowerBound
                    )
                }, length: length)
            segmentStarts = starts.map { expectedTimes[$0] }
        }
        let ladder = try config.package.map { (p) throws(MediaError) in
            // A retimed export's keyframes are counted in its output frames.
            let outputTB = video.outputTimeBase
            let rate = config.retime == nil ? source.frameRate : AVRational(num: outputTB.den, den: outputTB.num)
            return try Self.renditionSettings(
                p.request, base: vs, display: source.displaySize, frameRate: rate, path: reader.path)
        }
        let lastEnd: Int64? = range.end == Int64.max ? nil : range.end - range.start
        var template = SegmentWork(
            spec: plan[0], source: try CodecParameters(copying: stream.pointee.codecpar).configuration,
            timeBase: Rational(tb), frameRate: Rational(source.frameRate), rotation: rotation,
            packets: [], settings: ladder?.first?.settings ?? vs, endTick: nil, sourceName: reader.path,
            backend: config.backend, checkDecodes: config.verification.decodesSegments,
            retime: config.retime?.segmentRetime(rangeStartTick: range.start), hdr: config.tracks.hdr,
            targetQuality: ladder?.first?.target ?? config.targetQuality, deinterlace: config.deinterlace,
            toneMap: config.tracks.toneMap, renditions: (ladder ?? []).dropFirst().map(\.settings))
        if let ladder, ladder.dropFirst().contains(where: { $0.target != nil }) {
            template.renditionTargets = ladder.dropFirst().map(\.target)
        }
        template.sourceStream = videoID
        deinterlaced = template.deinterlace.filterName(for: FieldOrder(libavValue: template.source.fieldOrder))
        if deinterlaced != nil { plan = SegmentPlanner.withNeighbours(plan, index: video.index) }
        let engine = try SegmentedEngine(
            runs: [.init(specs: plan, template: template, source: (reader.path, videoID), lastEnd: lastEnd)],
            failure: failure, parallel: config.parallel, makeExecutor: config.makeExecutor,
            makeProcessor: config.makeProcessor)
        config.phase(.running)
        // A retimed export's packets count frames of the output frame duration.
        let outputTB = video.outputTimeBase
        var writer: AssetWriter?
        let frameRate = config.retime == nil ? source.frameRate : AVRational(num: outputTB.den, den: outputTB.num)
        let result = try engine.run(
            prepare: { () throws(MediaError) -> [StageThread] in
                guard config.package == nil else { return [] }
                // The file's other tracks (audio, subtitles) start as soon as planning ends, not with the
                // first segment: on a large farm the audio encode is a long serial job. Their packets wait
                // in the writer until segment 0 shows the video's parameters and the header is written.
                let made = try makeWriter()
                writer = made
                made.earlyPacketBytes = Self.earlyPacketBytes
                // A failure before the header wakes an audio stage waiting for it, whose write then throws.
                failure.watchCancel { [weak made] in made?.abandonBeforeHeader() }
                videoInput = try made.addPassthroughInput(
                    timeBase: outputTB, frameRate: frameRate, sideDataFrom: stream)
                var otherSettings = config.settings
                otherSettings.video = nil
                var otherTracks = config.tracks
                otherTracks.video = nil
                audioPlan = try TranscodePipeline.make(
                    reader: reader, writer: made, settings: otherSettings, tracks: otherTracks,
                    videoElsewhere: true, retime: config.retime, audioThreads: config.audioThreads,
                    config.makeProcessor)
                try reader.startReading()
                return audioPlan?.start(failure: failure) ?? []
            },
            open: { (first) throws(MediaError) in
                if let package = config.package, let ladder {
                    return try openPackage(
                        package, ladder: ladder, first: first, outputTB: outputTB, source: source, stream: stream)
                }
                guard let made = writer, let input = videoInput else {
                    throw MediaError(.internal, "the writer was not prepared before the first segment")
                }
                let reference = try CodecParameters(first.parameters)
                try made.describe(input, parameters: reference.pointer, ownEncode: true)
                try made.startWriting()
                return .init(input: input, timeBase: outputTB, stages: [], path: made.outputPath)
            },
            progress: { frames, seconds in
                progress(
                    ExportProgress(
                        frames: frames, seconds: seconds, totalSeconds: total,
                        elapsedSeconds: Date().timeIntervalSince(started)))
            })
        processorKind = result.processor
        renditionProcessors = [result.processor] + result.renditionProcessors
        renditionTargets = [result.target] + template.renditionTargets
        renditionQuality = result.renditionQuality(segments: segmentCount, targets: renditionTargets)
        videoEnd = result.endSeconds
        quality = QualityReport(segments: result.quality, target: result.target)
        if config.package != nil { return nil }
        guard let writer else { throw MediaError(.internal, "the segments were stitched without a writer") }
        return writer
    }

    /// A rendition's settings and its folder's name.
    struct Rung {
        var settings: VideoSettings
        var name: String
        /// The quality its segments search for (capped CRF), when the rendition asks one.
        var target: TargetQuality? = nil
    }

    /// Each rendition's encoder settings: the job's codec speed and pixel format, the rendition's box, codec
    /// and capped rate, keyframes at least every `PackageRequest.keyframeSeconds`.
    /// - Parameter display: the picture's size as shown (a source's after its turn, a composition's render).
    static func renditionSettings(
        _ request: PackageRequest, base: VideoSettings, display: (width: Int, height: Int), frameRate: AVRational,
        path: String
    ) throws(MediaError) -> [Rung] {
        let resolved: [(rendition: Rendition, width: Int, height: Int)]
        do throws(JobRequestError) {
            resolved = try request.resolved(sourceWidth: display.width, sourceHeight: display.height, field: "package")
        } catch {
            throw MediaError(.invalidArgument, path: path, error.description)
        }
        let fps = frameRate.num > 0 && frameRate.den > 0 ? Double(frameRate.num) / Double(frameRate.den) : 30
        let keyframes = max(1, Int((fps * PackageRequest.keyframeSeconds).rounded(.down)))
        return resolved.map { r in
            var v = base
            if r.rendition.codec != base.codec {
                (v.speed, v.profile, v.level) = (nil, nil, nil)
            }
            v.codec = r.rendition.codec
            (v.maxWidth, v.maxHeight) = (r.rendition.width, r.rendition.height)
            if r.rendition.targetQuality != nil {
                // Capped CRF: the search starts at the job's factor (or the codec's default), the rendition's
                // peak caps it.
                if case .crf = base.rateControl, r.rendition.codec == base.codec {
                } else {
                    v.rateControl = VideoSettings(codec: r.rendition.codec).rateControl
                }
                v.maxBitRate = nil
            } else {
                v.rateControl = .bitRate(r.rendition.bitRate)
                v.maxBitRate = r.rendition.maxBitRate
            }
            v.gopLength = min(base.gopLength ?? keyframes, keyframes)
            let name = "\(r.width)x\(r.height)" + (r.rendition.codec == .h264 ? "" : "-\(r.rendition.codec.rawValue)")
            return Rung(settings: v, name: name, target: r.rendition.cappedTarget)
        }
    }

    /// Opens a package's writer: a track file per rendition and per audio track, the audio encoded once
    /// over the whole timeline into its own.
    private func openPackage(
        _ package: Package, ladder: [Rung], first: SegmentOutput, outputTB: AVRational, source: StreamDescription,
        stream: UnsafeMutablePointer<AVStream>
    ) throws(MediaError) -> SegmentedEngine.Opened {
        let writer = try PackageWriter(
            outputPath: package.outputPath, formats: package.request.formats,
            boundaries: Array(segmentStarts.dropFirst()), segmentDuration: package.request.segmentDuration,
            overwrite: package.overwrite)
        packageWriter = writer
        let frameRate =
            config.retime == nil ? source.frameRate : AVRational(num: outputTB.den, den: outputTB.num)
        var inputs: [AssetWriterInput] = []
        for (rung, output) in zip(ladder, [first] + first.renditions) {
            let track = try writer.addVideo(name: rung.name, frameRate: Rational(frameRate))
            let reference = try CodecParameters(output.parameters)
            inputs.append(
                try track.addPassthroughInput(
                    parameters: reference.pointer, timeBase: outputTB, frameRate: frameRate, sideDataFrom: stream,
                    ownEncode: true))
        }
        videoInput = inputs.first
        var otherSettings = config.settings
        otherSettings.video = nil
        var otherTracks = config.tracks
        otherTracks.video = nil
        otherTracks.subtitles = []  // each its own WebVTT track, below
        var audioNumber = 0
        let gaps = sourceAudioEndGaps
        audioPlan = try TranscodePipeline.make(
            reader: reader, writer: writer.video[0].writer, settings: otherSettings, tracks: otherTracks,
            videoElsewhere: true, retime: config.retime,
            audioWriter: { (source) throws(MediaError) in
                let language = source.language
                defer { audioNumber += 1 }
                let suffix = language.map(Self.folderSafe).flatMap { $0.isEmpty ? nil : "-" + $0 } ?? ""
                return try writer.addAudio(
                    name: "audio\(audioNumber)" + suffix, language: language, title: source.title,
                    endGap: gaps[Int(source.stream.pointee.index)] ?? .zero)
            }, audioThreads: config.audioThreads, config.makeProcessor)
        // Text subtitles become WebVTT cues, on the same timeline (and through the same time map) as a
        // single file's would be.
        var subtitleStages: [StageThread] = []
        for (k, subtitle) in config.tracks.subtitles.enumerated() {
            let stream = reader.input.streams[subtitle.trackID]
            let language = ExportTracks.tag(stream, "language")
            let suffix = language.map(Self.folderSafe).flatMap { $0.isEmpty ? nil : "-" + $0 } ?? ""
            let cues = try writer.addSubtitles(
                name: "subtitles\(k)" + suffix, language: language, title: ExportTracks.tag(stream, "title"))
            let leg = try SubtitleLeg(reader: reader, writer: nil, track: subtitle, retime: config.retime, cues: cues)
            subtitleStages.append(
                StageThread("tessera.package.subtitles", failure: failure) { () throws(MediaError) in try leg.run() })
        }
        try writer.startWriting()
        try reader.startReading()
        return .init(
            input: inputs[0], renditionInputs: Array(inputs.dropFirst()), timeBase: outputTB,
            stages: (audioPlan?.start(failure: failure) ?? []) + subtitleStages, path: package.outputPath)
    }

    /// A name for a folder: letters and digits of `text` (a language code from a file), at most 16.
    static func folderSafe(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.filter { $0.isASCII && CharacterSet.alphanumerics.contains($0) }.prefix(16)))
    }

    /// Where the stitched video ends, on the output's timeline.
    var videoEndTime: MediaTime { MediaTime(seconds: videoEnd, preferredTimescale: 1_000_000) }

    var report: ExportReport {
        var r =
            audioPlan?.report
            ?? ExportReport(
                source: "", output: "", fileType: "", preset: nil, passthrough: false,
                timeRange: nil, duration: .zero, video: nil, audio: nil, bytes: 0,
                wallSeconds: 0, framesPerSecond: 0)
        if let input = videoInput {
            let c = input.stream.pointee.codecpar.pointee
            r.video = .init(
                codec: codec.rawValue, width: Int(c.width), height: Int(c.height),
                pixelFormat: PixelFormat(AVPixelFormat(rawValue: c.format)).rawValue,
                frames: input.packetCount, rotation: rotation.degrees, processor: processorKind.rawValue)
        }
        r.video?.deinterlaced = deinterlaced
        r.duration = MediaTime(seconds: videoEnd, preferredTimescale: 1_000_000)
        r.segments = segmentCount
        r.quality = quality
        return r
    }
}
