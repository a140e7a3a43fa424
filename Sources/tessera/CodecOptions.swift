import ArgumentParser
import TesseraCore

/// Encoder options shared by the commands that transcode.
struct CodecOptions: ParsableArguments {
    @Option(help: "Video codec: \(VideoCodec.allCases.map(\.rawValue).joined(separator: ", ")).")
    var videoCodec: VideoCodec?
    @Option(help: "Constant rate factor (lower is better).") var crf: Int?
    @Option(help: "Video bit rate instead of CRF, e.g. 4M or 2500k (with --target-quality: a cap).")
    var videoBitrate: String?
    @Option(
        help: ArgumentHelp(
            "Reach this quality in every segment with the fewest bits: ssim:0.97 or psnr:40.",
            discussion:
                "Each segment searches its CRF (a few measured encodes of its own frames, starting at --crf or the preset's); transcode without --segment-duration cuts segments of 4 s."
        ))
    var targetQuality: String?
    @Option(help: "The CRFs --target-quality may use, e.g. 18-40 (default: the encoder's whole range).")
    var crfRange: String?
    @Flag(
        inversion: .prefixedNo,
        help: ArgumentHelp(
            "With --target-quality, begin each segment's search with two encodes of a third of its frames (segments of 45 frames or more).",
            discussion:
                "The samples measure how quality follows the CRF; whole encodes then aim where it meets the target, and the report says how far the samples misjudged it (sampleError). --no-quality-samples searches with whole encodes only."
        ))
    var qualitySamples = true
    @Option(
        help: ArgumentHelp(
            "Deinterlace: auto (bwdif, when the source says it is interlaced), off, bwdif, yadif.",
            discussion:
                "One frame out per frame in: the frame rate is kept. For one frame per field, ask the field rate "
                + "(--frame-rate 50 for 25i, 60000/1001 for 29.97i): a retimed export chooses among fields."))
    var deinterlace: Deinterlace = .auto
    @Option(
        help: ArgumentHelp(
            "HDR (PQ, HLG) sources: auto (kept in a 10-bit output, tone-mapped to BT.709 SDR in an 8-bit one), keep, tonemap."
        ))
    var hdr: HDRHandling = .auto
    @Option(help: "Encoder speed preset in the encoder's terms (x264: ultrafast…veryslow; SVT-AV1: 0…13).")
    var speed: String?
    @Option(help: "Maximum frames between keyframes.") var gop: Int?
    @Option(help: "Encoded pixel format, e.g. yuv420p, yuv420p10le.") var pixelFormat: String?
    @Option(help: "Fit the picture inside WxH (aspect kept, never enlarged), e.g. 1280x720.") var size: String?
    @Option(help: "Audio codec: \(AudioCodec.allCases.map(\.rawValue).joined(separator: ", ")).")
    var audioCodec: AudioCodec?
    @Option(help: "Audio bit rate, e.g. 128k.") var audioBitrate: String?
    @Flag(help: "Drop the audio.") var noAudio = false
    @Option(
        help:
            "Transcode only this audio track (its number in `tessera probe`); repeat for more. Every audio track is transcoded by default."
    )
    var audioTrack: [Int] = []
    @Option(help: "Transcode only the audio tracks in this language (e.g. eng, fra); repeat for more.")
    var audioLanguage: [String] = []
    @Flag(help: "Put the index (moov) first so playback starts before the download ends.")
    var fastStart = false

    /// The preset's settings (or `OutputSettings.standard`) with these options applied.
    func settings(preset: ExportPreset?) -> OutputSettings {
        var settings = preset?.settings ?? .standard
        apply(to: &settings)
        return settings
    }

    /// The checks every command that takes `--preset` and `--time-range` makes.
    static func validate(preset: String?, timeRange: String?) throws {
        if let preset, ExportPreset(name: preset) == nil {
            throw ValidationError("unknown preset '\(preset)'; run `tessera presets` for the list")
        }
        if let timeRange, TimeRange(string: timeRange) == nil {
            throw ValidationError("cannot read time range '\(timeRange)'; write it as START-END, e.g. 1s-4s")
        }
    }

    func validate() throws {
        if let crf, !(0...63).contains(crf) { throw ValidationError("--crf must be 0…63") }
        if let t = targetQuality, TargetQuality(parsing: t) == nil {
            throw ValidationError(
                "cannot read --target-quality '\(t)'; write METRIC:VALUE with a metric of "
                    + QualityMetric.allCases.map(\.rawValue).joined(separator: ", ") + ", e.g. ssim:0.97")
        }
        if !qualitySamples && targetQuality == nil {
            throw ValidationError("--no-quality-samples goes with --target-quality")
        }
        if let r = crfRange {
            guard targetQuality != nil else { throw ValidationError("--crf-range goes with --target-quality") }
            guard Self.crfs(r) != nil else { throw ValidationError("cannot read --crf-range '\(r)'; write LOW-HIGH") }
        }
        if let b = videoBitrate, MediaText.bitRate(b) == nil {
            throw ValidationError("cannot read --video-bitrate '\(b)'")
        }
        if let b = audioBitrate, MediaText.bitRate(b) == nil {
            throw ValidationError("cannot read --audio-bitrate '\(b)'")
        }
        if let gop, gop < 1 { throw ValidationError("--gop must be at least 1") }
        if let size, MediaText.size(size) == nil { throw ValidationError("cannot read --size '\(size)'; write WxH") }
        if noAudio && !(audioTrack.isEmpty && audioLanguage.isEmpty) {
            throw ValidationError("--no-audio drops every audio track; leave out --audio-track and --audio-language")
        }
        do {
            try AudioTrackSelection(tracks: audioTrack, languages: audioLanguage).validate(
                field: "audio track selection")
        } catch {
            throw ValidationError(error.message)
        }
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
            // With a target quality the bit rate is the search's cap (`target`), not the rate control.
            if targetQuality == nil, let b = videoBitrate.flatMap(MediaText.bitRate) { v.rateControl = .bitRate(b) }
            if let speed { v.speed = speed }
            if let gop { v.gopLength = gop }
            if let pixelFormat { v.pixelFormat = PixelFormat(rawValue: pixelFormat) }
            if let box = size.flatMap(MediaText.size) { (v.maxWidth, v.maxHeight) = (box.0, box.1) }
            settings.video = v
        }
        if noAudio {
            settings.audio = nil
        } else if var a = settings.audio ?? (audioCodec.map { AudioSettings(codec: $0) }) {
            if let audioCodec { a.codec = audioCodec }
            if let b = audioBitrate.flatMap(MediaText.bitRate) { a.bitRate = b }
            settings.audio = a
        }
        if !audioTrack.isEmpty || !audioLanguage.isEmpty {
            settings.audioTracks = AudioTrackSelection(tracks: audioTrack, languages: audioLanguage)
        }
        if fastStart { settings.optimizeForNetworkUse = true }
    }

    /// `--target-quality` with its `--crf-range` and, from `--video-bitrate`, its cap.
    var target: TargetQuality? {
        guard var t = targetQuality.flatMap(TargetQuality.init(parsing:)) else { return nil }
        t.crfRange = crfRange.flatMap(Self.crfs)
        t.maxBitRate = videoBitrate.flatMap(MediaText.bitRate)
        if !qualitySamples { t.samples = false }
        return t
    }

    /// "18-40" → 18...40.
    static func crfs(_ text: String) -> ClosedRange<Int>? {
        let parts = text.split(separator: "-")
        guard parts.count == 2, let low = Int(parts[0]), let high = Int(parts[1]), low <= high else { return nil }
        return low...high
    }
}

extension VideoCodec: ExpressibleByArgument {}
extension Deinterlace: ExpressibleByArgument {}
extension HDRHandling: ExpressibleByArgument {}
extension AudioCodec: ExpressibleByArgument {}
