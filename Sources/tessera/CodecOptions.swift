import ArgumentParser
import TesseraCore

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
        if let b = videoBitrate, Self.bitRate(b) == nil { throw ValidationError("cannot read --video-bitrate '\(b)'") }
        if let b = audioBitrate, Self.bitRate(b) == nil { throw ValidationError("cannot read --audio-bitrate '\(b)'") }
        if let gop, gop < 1 { throw ValidationError("--gop must be at least 1") }
        if let size, Self.box(size) == nil { throw ValidationError("cannot read --size '\(size)'; write WxH") }
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
        if !audioTrack.isEmpty || !audioLanguage.isEmpty {
            settings.audioTracks = AudioTrackSelection(tracks: audioTrack, languages: audioLanguage)
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
extension AudioCodec: ExpressibleByArgument {}
