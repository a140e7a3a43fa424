/// A job request field outside its stated bounds: the field's JSON path (or the command-line flag that
/// set it, such as `--scale`) and what is wrong with it.
public struct JobRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The JSON path of the field, e.g. `settings.video.gopLength`.
    public var field: String
    public var message: String

    public init(field: String, _ message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { "\(field): \(message)" }

    public static func range<T>(_ r: ClosedRange<T>) -> String { "\(r.lowerBound)…\(r.upperBound)" }

    /// A value from a request, shortened and quoted for an error message.
    public static func quoted(_ text: String) -> String { "'" + text.logSafe(limit: JobRequestLimits.textBytes) + "'" }
}

/// The bounds a job request is checked against at submission (and again when a stored job resumes),
/// so no value from a request reaches a narrowing conversion or an encoder that would refuse it
/// minutes later. Protocols/openapi.yaml states the same bounds.
public enum JobRequestLimits {
    public static let segmentDuration: ClosedRange<Double> = 0.001...3600
    public static let parallelism: ClosedRange<Int> = 1...4096
    public static let priority: ClosedRange<Int> = -1000...1000
    public static let pictureSide: ClosedRange<Int> = 16...16384
    public static let gopLength: ClosedRange<Int> = 1...10_000
    public static let videoBitRate: ClosedRange<Int> = 10_000...1_000_000_000
    public static let audioBitRate: ClosedRange<Int> = 6_000...1_024_000
    public static let channelCount: ClosedRange<Int> = 1...8
    /// The sample rates AAC can be encoded at (Opus output is always 48 kHz).
    public static let sampleRates: [Int] = [
        8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 64000,
        88200, 96000,
    ]
    /// Longest output path segment, in UTF-8 bytes (a Linux file name holds 255; the temporary name
    /// written beside the output adds a suffix).
    public static let outputNameBytes = 200
    public static let outputPathBytes = 1024
    public static let textBytes = 64
    /// The longest start or duration of a time range: 115 days, far past any media, far inside Int64 ticks.
    public static let timeRangeSeconds: Int64 = 10_000_000

    /// The most segments one job may be cut into and the most frames it may make. A request of a few
    /// hundred bytes (a 2,000 s gap at 1,000 fps in 1 ms segments) would otherwise become millions of
    /// stored segments and gigabytes of coordinator memory. 3,000,000 frames is 27 hours at 30 fps.
    public static let segmentsPerJob = 50_000
    public static let framesPerJob = 3_000_000

    /// Checks what a job will make, once its output's duration and frame duration are known (after
    /// probing its source or its composition's assets), against `segmentsPerJob` and `framesPerJob`.
    /// - Parameters:
    ///   - field: the field a refusal for too many frames names (the retiming, the spec, the source).
    /// - Throws: `JobRequestError` naming `segmentDuration` for too many segments, `field` for too many
    ///   frames, each with the figures that led to it.
    public static func checkWorkload(
        duration: Rational, frameDuration: Rational, segmentDuration: Double, field: String
    ) throws(JobRequestError) {
        // A source whose header states no duration is planned from its packets: nothing to estimate here.
        let seconds = duration.seconds
        guard seconds.isFinite, seconds >= 0 else { return }
        // A rate the header does not state is left to the planner, which counts the packets.
        if frameDuration.isValid, frameDuration > .zero {
            let frames = (duration / frameDuration).ceiling
            guard let frames, frames <= Int64(framesPerJob) else {
                throw JobRequestError(
                    field: field,
                    "the output would be \(rounded(seconds)) s at \(rounded(1 / frameDuration.seconds)) fps, "
                        + "\(frames.map { "\($0) frames" } ?? "too many frames"); a job makes at most "
                        + "\(framesPerJob): split it into several jobs")
            }
        }
        // Within a part in 10^9 of a whole count, that count (2000.1 s / 0.001 s is 2,000,100, not one more).
        let segments = (seconds / segmentDuration * (1 - 1e-9)).rounded(.up)
        guard segments <= Double(segmentsPerJob) else {
            throw JobRequestError(
                field: "segmentDuration",
                "\(rounded(seconds)) s in segments of \(segmentDuration) s is \(rounded(segments)) segments; "
                    + "a job is cut into at most \(segmentsPerJob): give longer segments")
        }
    }

    private static func rounded(_ x: Double) -> String {
        guard x.isFinite else { return "\(x)" }
        let r = (x * 1000).rounded() / 1000
        return r == r.rounded() && abs(r) < 1e15 ? String(Int64(r)) : "\(r)"
    }

    /// The constant rate factors each encoder takes.
    public static func crf(_ codec: VideoCodec) -> ClosedRange<Int> {
        switch codec {
        case .h264, .hevc: 0...51
        case .av1, .vp9: 0...63
        }
    }

    /// The speed presets each encoder takes, in its own vocabulary.
    public static func speeds(_ codec: VideoCodec) -> [String] {
        switch codec {
        case .h264, .hevc:
            ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]
        case .av1: (0...13).map(String.init)
        case .vp9: (0...8).map(String.init) + ["good", "realtime", "best"]
        }
    }

    /// The profiles each encoder takes; nil where Tessera passes none.
    public static func profiles(_ codec: VideoCodec) -> [String]? {
        switch codec {
        case .h264: ["baseline", "main", "high", "high10", "high422", "high444"]
        case .hevc: ["main", "main10", "main12", "mainstillpicture", "main422-10", "main444-8", "main444-10"]
        case .av1, .vp9: nil
        }
    }

    /// Levels ×10 as the standards define them; nil where the encoder takes no level.
    public static func levels(_ codec: VideoCodec) -> [Int]? {
        switch codec {
        case .h264: [9, 10, 11, 12, 13, 20, 21, 22, 30, 31, 32, 40, 41, 42, 50, 51, 52, 60, 61, 62]
        case .hevc: [10, 20, 21, 30, 31, 40, 41, 50, 51, 52, 60, 61, 62]
        case .av1, .vp9: nil
        }
    }
}

extension JobRequest {
    /// Checks every field that can be checked without the source file or an encoder.
    ///
    /// - Throws: `JobRequestError` naming the first field outside `JobRequestLimits`.
    public func validate() throws(JobRequestError) {
        if let s = source, s.utf8.count > JobRequestLimits.outputPathBytes {
            throw JobRequestError(field: "source", "is longer than \(JobRequestLimits.outputPathBytes) bytes")
        }
        if let id = uploadID, id.utf8.count > JobRequestLimits.textBytes {
            throw JobRequestError(field: "uploadID", "is longer than \(JobRequestLimits.textBytes) bytes")
        }
        if let output { try Self.validate(output: output) }
        if let preset, settings == nil, ExportPreset(name: preset) == nil {
            throw JobRequestError(
                field: "preset", "unknown preset \(JobRequestError.quoted(preset)); `tessera presets` lists them")
        }
        if let seconds = segmentDuration, !JobRequestLimits.segmentDuration.contains(seconds) {
            throw JobRequestError(
                field: "segmentDuration",
                "must be \(JobRequestError.range(JobRequestLimits.segmentDuration)) seconds, not \(seconds)")
        }
        if let n = parallelism, !JobRequestLimits.parallelism.contains(n) {
            throw JobRequestError(
                field: "parallelism", "must be \(JobRequestError.range(JobRequestLimits.parallelism)), not \(n)")
        }
        if let package {
            try package.check(field: "package")
            if targetQuality != nil {
                throw JobRequestError(field: "package", "each rendition has its own rate: no targetQuality with it")
            }
        }
        if let targetQuality {
            let settings = settings ?? preset.flatMap(ExportPreset.init(name:))?.settings ?? .standard
            try targetQuality.check(against: settings, field: "targetQuality")
        }
        if let r = try retiming?.retiming(naming: .json(prefix: "retiming")) {
            if settings?.passthrough ?? (preset.flatMap(ExportPreset.init(name:)) == .passthrough) {
                throw JobRequestError(
                    field: "retiming", "passthrough retiming keeps every frame in one pass: use tessera transcode")
            }
        }
        if !JobRequestLimits.priority.contains(priority) {
            throw JobRequestError(
                field: "priority", "must be \(JobRequestError.range(JobRequestLimits.priority)), not \(priority)")
        }
        if let range = timeRange {
            guard range.start.isNumeric, range.duration.isNumeric, range.start >= .zero, range.duration > .zero else {
                throw JobRequestError(field: "timeRange", "needs a numeric start ≥ 0 and a positive duration")
            }
            let longest = MediaTime(value: JobRequestLimits.timeRangeSeconds, timescale: 1)
            guard range.start <= longest, range.duration <= longest else {
                throw JobRequestError(
                    field: "timeRange",
                    "start and duration must be at most "
                        + "\(JobRequestLimits.timeRangeSeconds) s")
            }
        }
        if let settings { try settings.validate(field: "settings") }
        if let spec { try Self.validate(spec: spec, alongside: self) }
    }

    /// A composition's request: the spec instead of a source, time range and retiming; every asset an
    /// absolute path of bounded length; the spec's own bounds (counts, transforms, ramps).
    static func validate(spec: CompositionSpec, alongside request: JobRequest) throws(JobRequestError) {
        let refused = [
            (request.source != nil, "source"), (request.uploadID != nil, "uploadID"),
            (request.timeRange != nil, "timeRange"), (request.retiming != nil, "retiming"),
        ]
        if let (_, name) = refused.first(where: { $0.0 }) {
            throw JobRequestError(field: name, "cannot go with spec: the spec names its assets and edits")
        }
        guard (1...CompositionSpec.maxAssets).contains(spec.assets.count) else {
            throw JobRequestError(field: "spec.assets", "holds 1 to \(CompositionSpec.maxAssets) assets")
        }
        guard spec.edits.count <= CompositionSpec.maxEdits else {
            throw JobRequestError(field: "spec.edits", "holds at most \(CompositionSpec.maxEdits) edits")
        }
        for (i, asset) in spec.assets.enumerated() {
            guard asset.path.hasPrefix("/"), asset.path.utf8.count <= JobRequestLimits.outputPathBytes else {
                throw JobRequestError(
                    field: "spec.assets[\(i)].path",
                    "\(JobRequestError.quoted(asset.path)) is not an absolute path of at most "
                        + "\(JobRequestLimits.outputPathBytes) bytes on the coordinator's machine")
            }
        }
        do throws(JobRequestError) { _ = try spec.layerTransforms() } catch {
            throw JobRequestError(field: "spec.\(error.field)", error.message)
        }
        if let settings = spec.settings { try settings.validate(field: "spec.settings") }
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// A relative output path: no empty, `.` or `..` component, a file name (not a folder), bounded.
    static func validate(output: String) throws(JobRequestError) {
        guard !output.isEmpty else { return }
        guard output.utf8.count <= JobRequestLimits.outputPathBytes else {
            throw JobRequestError(field: "output", "is longer than \(JobRequestLimits.outputPathBytes) bytes")
        }
        guard !output.hasSuffix("/") else {
            throw JobRequestError(field: "output", "\(JobRequestError.quoted(output)) names a folder; give a file name")
        }
        if let control = output.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            // A newline or escape in a file name splits log lines and hides what was written.
            throw JobRequestError(
                field: "output",
                "contains the control character U+\(hex(control.value)); file names here have none")
        }
        let parts = output.split(separator: "/", omittingEmptySubsequences: true)
        for part in parts {
            if part == "." || part == ".." {
                throw JobRequestError(field: "output", "\(JobRequestError.quoted(output)) has a '\(part)' component")
            }
            if part.utf8.count > JobRequestLimits.outputNameBytes {
                throw JobRequestError(
                    field: "output",
                    "a path component is longer than \(JobRequestLimits.outputNameBytes) bytes")
            }
        }
    }
}

extension OutputSettings {
    /// - Throws: `JobRequestError` naming the first field (under `field`) outside `JobRequestLimits`.
    public func validate(field: String) throws(JobRequestError) {
        if let fileType, let why = containerProblem(fileType) {
            throw JobRequestError(field: "\(field).fileType", why)
        }
        if let video { try video.validate(field: "\(field).video") }
        if let audio { try audio.validate(field: "\(field).audio") }
        if let audioTracks { try audioTracks.validate(field: "\(field).audioTracks") }
    }

    /// Why `fileType` cannot hold these settings' codecs; nil when it can.
    public func containerProblem(_ fileType: FileType) -> String? {
        if let video, !fileType.canHold(video.codec) {
            return "\(fileType.rawValue) cannot hold \(video.codec.rawValue) video"
        }
        if let audio, !fileType.canHold(audio.codec) {
            return "\(fileType.rawValue) cannot hold \(audio.codec.rawValue) audio"
        }
        return nil
    }
}

extension VideoSettings {
    /// - Throws: `JobRequestError` naming the first field (under `field`) outside `JobRequestLimits`.
    public func validate(field: String) throws(JobRequestError) {
        typealias L = JobRequestLimits
        for (name, value) in [("maxWidth", maxWidth), ("maxHeight", maxHeight)] {
            if let value, !L.pictureSide.contains(value) {
                throw JobRequestError(
                    field: "\(field).\(name)", "must be \(JobRequestError.range(L.pictureSide)), not \(value)")
            }
        }
        if (maxWidth == nil) != (maxHeight == nil) {
            throw JobRequestError(
                field: "\(field).\(maxWidth == nil ? "maxWidth" : "maxHeight")",
                "give maxWidth and maxHeight together")
        }
        switch rateControl {
        case .crf(let q) where !L.crf(codec).contains(q):
            throw JobRequestError(
                field: "\(field).rateControl.crf",
                "\(codec.encoderName) takes crf \(JobRequestError.range(L.crf(codec))), not \(q)")
        case .bitRate(let b) where !L.videoBitRate.contains(b):
            throw JobRequestError(
                field: "\(field).rateControl.bitRate",
                "must be \(JobRequestError.range(L.videoBitRate)) bits per second, not \(b)")
        default:
            break
        }
        if let speed, !L.speeds(codec).contains(speed) {
            throw JobRequestError(
                field: "\(field).speed",
                "\(codec.encoderName) has no speed \(JobRequestError.quoted(speed)); "
                    + "it takes \(L.speeds(codec).joined(separator: ", "))")
        }
        if let gopLength, !L.gopLength.contains(gopLength) {
            throw JobRequestError(
                field: "\(field).gopLength", "must be \(JobRequestError.range(L.gopLength)), not \(gopLength)")
        }
        if let maxBitRate, !L.videoBitRate.contains(maxBitRate) {
            throw JobRequestError(
                field: "\(field).maxBitRate",
                "must be \(JobRequestError.range(L.videoBitRate)) bits per second, not \(maxBitRate)")
        }
        if let profile {
            guard let known = L.profiles(codec) else {
                throw JobRequestError(field: "\(field).profile", "\(codec.encoderName) takes no profile here")
            }
            guard known.contains(profile) else {
                throw JobRequestError(
                    field: "\(field).profile",
                    "\(codec.encoderName) has no profile "
                        + "\(JobRequestError.quoted(profile)); it takes \(known.joined(separator: ", "))")
            }
        }
        if let level {
            guard let known = L.levels(codec) else {
                throw JobRequestError(field: "\(field).level", "\(codec.encoderName) takes no level")
            }
            guard known.contains(level) else {
                throw JobRequestError(
                    field: "\(field).level",
                    "\(level) is not a \(codec.rawValue) level ×10; "
                        + "it takes \(known.map(String.init).joined(separator: ", "))")
            }
        }
    }
}

extension AudioSettings {
    /// - Throws: `JobRequestError` naming the first field (under `field`) outside `JobRequestLimits`.
    public func validate(field: String) throws(JobRequestError) {
        typealias L = JobRequestLimits
        if !L.audioBitRate.contains(bitRate) {
            throw JobRequestError(
                field: "\(field).bitRate",
                "must be \(JobRequestError.range(L.audioBitRate)) bits per second, not \(bitRate)")
        }
        if let rate = sampleRate, !L.sampleRates.contains(rate) {
            throw JobRequestError(
                field: "\(field).sampleRate",
                "must be one of "
                    + "\(L.sampleRates.map(String.init).joined(separator: ", ")) Hz, not \(rate)")
        }
        if let n = channelCount, !L.channelCount.contains(n) {
            throw JobRequestError(
                field: "\(field).channelCount", "must be \(JobRequestError.range(L.channelCount)), not \(n)")
        }
    }
}

extension AudioTrackSelection {
    /// - Throws: `JobRequestError` for a track number outside 0…1023, a language that is not 2 to 8
    ///   ASCII letters, or more than 64 entries.
    public func validate(field: String) throws(JobRequestError) {
        guard tracks.count + languages.count <= 64 else {
            throw JobRequestError(field: field, "lists more than 64 tracks and languages")
        }
        if let bad = tracks.first(where: { !(0...1023).contains($0) }) {
            throw JobRequestError(field: "\(field).tracks", "track numbers are 0…1023, not \(bad)")
        }
        if let bad = languages.first(where: { !(2...8).contains($0.utf8.count) || !$0.utf8.allSatisfy(Self.isLetter) })
        {
            throw JobRequestError(
                field: "\(field).languages",
                "\(JobRequestError.quoted(bad)) is not a language code (2 to 8 letters, e.g. eng)")
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (65...90).contains(byte) || (97...122).contains(byte) }
}
