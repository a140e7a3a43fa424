/// How the encoder spends bits. In JSON as a person writes it: `{"crf": 23}` or `{"bitRate": 4000000}`.
public enum RateControl: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Constant rate factor (x264/x265/SVT-AV1/VP9 constrained quality scale).
    case crf(Int)
    /// Average bit rate in bits per second.
    case bitRate(Int)

    public var description: String {
        switch self {
        case .crf(let q): "crf \(q)"
        case .bitRate(let b): "\(b / 1000) kb/s"
        }
    }

    private enum CodingKeys: String, CodingKey { case crf, bitRate }
    /// Swift's synthesized enum coding (`{"crf": {"_0": 23}}`), which earlier releases wrote: jobs stored
    /// by them still decode.
    private enum LegacyKeys: String, CodingKey { case _0 }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .crf(let q): try c.encode(q, forKey: .crf)
        case .bitRate(let b): try c.encode(b, forKey: .bitRate)
        }
    }

    /// Exactly one of `crf` and `bitRate`, each a number (or the legacy `{"_0": number}`).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        guard c.allKeys.count == 1, let key = c.allKeys.first else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: c.codingPath,
                    debugDescription: "rateControl needs exactly one of crf and bitRate"))
        }
        let value: Int
        if let plain = try? c.decode(Int.self, forKey: key) {
            value = plain
        } else {
            value = try c.nestedContainer(keyedBy: LegacyKeys.self, forKey: key).decode(Int.self, forKey: ._0)
        }
        self = key == .crf ? .crf(value) : .bitRate(value)
    }
}

/// Video encoder settings, as an AVAssetWriterInput's video output settings.
public struct VideoSettings: Sendable, Hashable, Codable {
    public var codec: VideoCodec
    /// The box the picture is fitted into (aspect kept, never upscaled); nil keeps the source size.
    public var maxWidth: Int?
    public var maxHeight: Int?
    public var rateControl: RateControl
    /// Encoder speed preset in the encoder's vocabulary (`veryfast`, `8`, …); nil = codec default.
    public var speed: String?
    /// Maximum distance between keyframes in frames; nil = about two seconds.
    public var gopLength: Int?
    /// Encoded pixel format; nil = yuv420p (or yuv420p10le for a 10-bit HEVC/AV1 source).
    public var pixelFormat: PixelFormat?
    public var profile: String?
    /// H.264/HEVC level ×10 (e.g. 42 for 4.2); nil lets the encoder choose.
    public var level: Int?
    /// With a bit rate: the peak over a one-second buffer (capped VBR, as a streaming ladder's rungs are
    /// encoded); nil leaves the rate uncapped.
    public var maxBitRate: Int?

    public init(
        codec: VideoCodec, maxWidth: Int? = nil, maxHeight: Int? = nil, rateControl: RateControl = .crf(23),
        speed: String? = nil, gopLength: Int? = nil, pixelFormat: PixelFormat? = nil,
        profile: String? = nil, level: Int? = nil, maxBitRate: Int? = nil
    ) {
        self.maxBitRate = maxBitRate
        self.codec = codec
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        self.rateControl = rateControl
        self.speed = speed
        self.gopLength = gopLength
        self.pixelFormat = pixelFormat
        self.profile = profile
        self.level = level
    }

    /// The output size for a source displayed at `width`×`height`: fitted into the box with the
    /// aspect ratio kept, never enlarged, and rounded to even numbers for 4:2:0 chroma.
    public func outputSize(forDisplayWidth width: Int, height: Int) -> (width: Int, height: Int) {
        var w = width, h = height
        if let mw = maxWidth, let mh = maxHeight, w > mw || h > mh {
            // Compare mw/w with mh/h exactly in integers.
            if mw * h <= mh * w {
                h = max(2, (h * mw + w / 2) / w)
                w = mw
            } else {
                w = max(2, (w * mh + h / 2) / h)
                h = mh
            }
        }
        return (w & ~1 == 0 ? 2 : w & ~1, h & ~1 == 0 ? 2 : h & ~1)
    }
}

/// Audio encoder settings.
public struct AudioSettings: Sendable, Hashable, Codable {
    public var codec: AudioCodec
    /// Bits per second.
    public var bitRate: Int
    /// nil keeps the source rate (Opus is always 48 kHz).
    public var sampleRate: Int?
    /// nil keeps the source channel count.
    public var channelCount: Int?

    public init(codec: AudioCodec, bitRate: Int = 128_000, sampleRate: Int? = nil, channelCount: Int? = nil) {
        self.codec = codec
        self.bitRate = bitRate
        self.sampleRate = sampleRate
        self.channelCount = channelCount
    }
}

/// Everything an export writes: which streams, how each is encoded, in which container.
public struct OutputSettings: Sendable, Hashable, Codable {
    /// nil drops video.
    public var video: VideoSettings?
    /// nil drops audio.
    public var audio: AudioSettings?
    /// Which audio tracks are transcoded (each with `audio`); nil transcodes every one.
    public var audioTracks: AudioTrackSelection?
    /// Copy compressed samples unchanged instead of re-encoding (the Passthrough preset).
    public var passthrough: Bool
    /// nil infers the container from the output file's extension.
    public var fileType: FileType?
    /// Put the moov atom first so playback can start before the download ends.
    public var optimizeForNetworkUse: Bool

    /// What a transcode or a farm job encodes when asked for no preset or settings: H.264 CRF 23 at
    /// the source size with AAC 128 kb/s.
    public static let standard = OutputSettings(
        video: VideoSettings(codec: .h264, rateControl: .crf(23)),
        audio: AudioSettings(codec: .aac))

    public init(
        video: VideoSettings?, audio: AudioSettings?, passthrough: Bool = false, fileType: FileType? = nil,
        optimizeForNetworkUse: Bool = false, audioTracks: AudioTrackSelection? = nil
    ) {
        self.video = video
        self.audio = audio
        self.audioTracks = audioTracks
        self.passthrough = passthrough
        self.fileType = fileType
        self.optimizeForNetworkUse = optimizeForNetworkUse
    }
}
