import ArgumentParser
import Foundation
import TesseraAV
import TesseraCompute
import TesseraCore
import TesseraMedia

/// `tessera transcode SRC -o OUT`: one file to another on this machine.
struct TranscodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transcode",
        abstract: "Transcode a file with a preset or custom settings.",
        discussion: """
            Without --preset: H.264 CRF 23 at the source size with AAC 128 kb/s. Codec options override \
            the preset's. The output is written under a temporary name and renamed when complete; on any \
            error nothing is left at OUT.

            \(ExitStatus.helpText)
            """)

    @Argument(help: "The source media file.") var source: String
    @Option(name: .shortAndLong, help: "The output file; its extension picks the container.") var output: String
    @Option(help: "An export preset (see `tessera presets`).") var preset: String?
    @Option(help: "Only this part of the source, e.g. 1s-4s, 00:00:01.5-00:00:03, 30f@30-90f@30.")
    var timeRange: String?
    @OptionGroup var codec: CodecOptions
    @Option(help: "Colour/scale backend: auto (calibrate both on the first frame, keep the faster), vulkan, cpu.")
    var backend: ProcessingBackend = .auto
    @Option(help: ArgumentHelp("Cut the video into segments about this many seconds long at keyframes, "
                               + "transcode them in parallel and stitch them (the farm's path on this machine)."))
    var segmentDuration: Double?
    @Option(help: "Segments transcoded at once with --segment-duration.") var parallel = 2
    @Flag(help: ArgumentHelp("Verify the output (frames, timing, A/V, decodable) before putting it in place; "
                             + "segmented transcodes always are.")) var verify = false
    @Flag(help: "Replace OUT if it exists.") var overwrite = false
    @Flag(help: "Print a JSON report on stdout when done.") var json = false
    @Flag(name: .shortAndLong, help: "No progress output.") var quiet = false

    func validate() throws {
        if let preset, ExportPreset(name: preset) == nil {
            throw ValidationError("unknown preset '\(preset)'; run `tessera presets` for the list")
        }
        if let timeRange, TimeRange(string: timeRange) == nil {
            throw ValidationError("cannot read time range '\(timeRange)'; write it as START-END, e.g. 1s-4s")
        }
        try codec.validate()
        if let s = segmentDuration, !(s > 0) { throw ValidationError("--segment-duration must be positive") }
        if parallel < 1 { throw ValidationError("--parallel must be at least 1") }
    }

    func run() throws {
        let base = preset.flatMap(ExportPreset.init(name:))
        var settings = base?.settings ?? OutputSettings(
            video: VideoSettings(codec: .h264, rateControl: .crf(23)), audio: AudioSettings(codec: .aac))
        codec.apply(to: &settings)
        let session = ExportSession(sourcePath: source, outputPath: output, settings: settings)
        session.presetName = base?.rawValue
        session.timeRange = timeRange.flatMap(TimeRange.init(string:))
        session.overwrite = overwrite
        session.backend = backend
        session.segmentDuration = segmentDuration
        session.parallel = parallel
        session.verifyOutput = verify
        let reporter = ProgressPrinter(enabled: !quiet)
        session.progressHandler = { reporter.show($0) }

        let interrupt = InterruptHandler { session.cancel() }
        defer { interrupt.remove() }
        let report: ExportReport
        do {
            report = try session.export()
        } catch {
            reporter.finish()
            FileHandle.standardError.write(Data("tessera: \(error)\n".utf8))
            throw ExitCode(ExitStatus(error).rawValue)
        }
        reporter.finish()
        if json {
            print(try ReportJSON.encode(report))
        } else if !quiet {
            print(Self.summary(report))
        }
    }

    static func summary(_ r: ExportReport) -> String {
        var parts = ["wrote \(r.output)", String(format: "%.3fs", r.duration.seconds)]
        if let v = r.video { parts.append("\(v.codec) \(v.width)x\(v.height) \(v.frames) frames") }
        if let a = r.audio { parts.append("\(a.codec) \(a.sampleRate) Hz \(a.channels) ch") }
        parts.append(String(format: "%.1f fps, %.2fs", r.framesPerSecond, r.wallSeconds))
        return parts.joined(separator: ", ")
    }
}

/// Encoder options shared by the commands that transcode.
struct CodecOptions: ParsableArguments {
    @Option(help: "Video codec: \(VideoCodec.allCases.map(\.rawValue).joined(separator: ", ")).")
    var videoCodec: VideoCodec?
    @Option(help: "Constant rate factor (lower is better).") var crf: Int?
    @Option(help: "Video bit rate instead of CRF, e.g. 4M or 2500k.") var videoBitrate: String?
    @Option(help: "Encoder speed preset in the encoder's terms (x264: ultrafast…veryslow; SVT-AV1: 0…13).")
    var speed: String?
    @Option(help: "Maximum frames between keyframes.") var gop: Int?
    @Option(help: "Encoded pixel format, e.g. yuv420p, yuv420p10le.") var pixelFormat: String?
    @Option(help: "Fit the picture inside WxH (aspect kept, never enlarged), e.g. 1280x720.") var size: String?
    @Option(help: "Audio codec: \(AudioCodec.allCases.map(\.rawValue).joined(separator: ", ")).")
    var audioCodec: AudioCodec?
    @Option(help: "Audio bit rate, e.g. 128k.") var audioBitrate: String?
    @Flag(help: "Drop the audio.") var noAudio = false
    @Flag(help: "Put the index (moov) first so playback starts before the download ends.")
    var fastStart = false

    func validate() throws {
        if let crf, !(0...63).contains(crf) { throw ValidationError("--crf must be 0…63") }
        if let b = videoBitrate, Self.bitRate(b) == nil { throw ValidationError("cannot read --video-bitrate '\(b)'") }
        if let b = audioBitrate, Self.bitRate(b) == nil { throw ValidationError("cannot read --audio-bitrate '\(b)'") }
        if let gop, gop < 1 { throw ValidationError("--gop must be at least 1") }
        if let size, Self.box(size) == nil { throw ValidationError("cannot read --size '\(size)'; write WxH") }
    }

    func apply(to settings: inout OutputSettings) {
        if settings.passthrough && (videoCodec != nil || audioCodec != nil || crf != nil || size != nil) {
            settings.passthrough = false
            settings.video = VideoSettings(codec: .h264)
            settings.audio = AudioSettings(codec: .aac)
        }
        if var v = settings.video ?? (videoCodec.map { VideoSettings(codec: $0) }) {
            if let videoCodec { v.codec = videoCodec }
            if let crf { v.rateControl = .crf(crf) }
            if let b = videoBitrate.flatMap(Self.bitRate) { v.rateControl = .bitRate(b) }
            if let speed { v.speed = speed }
            if let gop { v.gopLength = gop }
            if let pixelFormat { v.pixelFormat = PixelFormat(rawValue: pixelFormat) }
            if let box = size.flatMap(Self.box) { (v.maxWidth, v.maxHeight) = (box.0, box.1) }
            settings.video = v
        }
        if noAudio {
            settings.audio = nil
        } else if var a = settings.audio ?? (audioCodec.map { AudioSettings(codec: $0) }) {
            if let audioCodec { a.codec = audioCodec }
            if let b = audioBitrate.flatMap(Self.bitRate) { a.bitRate = b }
            settings.audio = a
        }
        if fastStart { settings.optimizeForNetworkUse = true }
    }

    /// "4M", "2500k", "128000" → bits per second.
    static func bitRate(_ text: String) -> Int? {
        let lower = text.lowercased()
        let scale = lower.hasSuffix("m") ? 1_000_000 : lower.hasSuffix("k") ? 1000 : 1
        guard let n = Double(scale == 1 ? lower : String(lower.dropLast())), n > 0 else { return nil }
        return Int(n * Double(scale))
    }

    static func box(_ text: String) -> (Int, Int)? {
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w >= 2, h >= 2 else { return nil }
        return (w, h)
    }
}

extension VideoCodec: ExpressibleByArgument {}
extension ProcessingBackend: ExpressibleByArgument {}
extension AudioCodec: ExpressibleByArgument {}
