/// One rung of an adaptive-streaming ladder: the box its pictures fit in, its average bit rate and codec.
/// Its encode is capped VBR (`VideoSettings.maxBitRate`), so no segment's rate runs far past the average.
public struct Rendition: Sendable, Hashable, Codable {
    /// The box the picture is fitted into (aspect kept), as `VideoSettings.maxWidth`/`maxHeight`.
    public var width: Int
    public var height: Int
    /// Average bits per second of the video.
    public var bitRate: Int
    public var codec: VideoCodec
    /// A quality this rendition's segments aim at (capped CRF): each segment searches its rate factor as a
    /// job's `--target-quality` does, within the peak `maxBitRate`; nil encodes at `bitRate` (capped VBR).
    public var targetQuality: TargetQuality?

    public init(
        width: Int, height: Int, bitRate: Int, codec: VideoCodec = .h264, targetQuality: TargetQuality? = nil
    ) {
        self.width = width
        self.height = height
        self.bitRate = bitRate
        self.codec = codec
        self.targetQuality = targetQuality
    }

    private enum CodingKeys: String, CodingKey { case size, bitRate, codec, targetQuality }

    /// JSON: `{"size": "1280x720", "bitRate": 3000000, "codec": "hevc"}` (codec optional, h264).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let text = try c.decode(String.self, forKey: .size)
        guard let size = MediaText.size(text) else {
            throw DecodingError.dataCorruptedError(
                forKey: .size, in: c, debugDescription: "'\(text.logSafe())' is not WxH")
        }
        self.init(
            width: size.width, height: size.height, bitRate: try c.decode(Int.self, forKey: .bitRate),
            codec: try c.decodeIfPresent(VideoCodec.self, forKey: .codec) ?? .h264,
            targetQuality: try c.decodeIfPresent(TargetQuality.self, forKey: .targetQuality))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode("\(width)x\(height)", forKey: .size)
        try c.encode(bitRate, forKey: .bitRate)
        try c.encode(codec, forKey: .codec)
        try c.encodeIfPresent(targetQuality, forKey: .targetQuality)
    }

    /// The peak the encoder's buffer allows, over one second: 150 % of the average. A 6 s segment's rate
    /// then stays under 175 % (Apple's rule: peak ≤ 200 % of average).
    public var maxBitRate: Int { bitRate / 2 * 3 }

    /// "1280x720:3M", "1280x720:3M:hevc", "1280x720:3M:ssim=0.97" or "1280x720:3M:hevc:psnr=40" (a target
    /// quality, its rate the peak's base).
    /// - Throws: `JobRequestError` naming `field`.
    public init(parsing text: String, field: String) throws(JobRequestError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard (2...4).contains(parts.count), let size = MediaText.size(parts[0]),
            let rate = MediaText.bitRate(parts[1])
        else {
            throw JobRequestError(
                field: field,
                "\(JobRequestError.quoted(text)) is not WxH:RATE[:CODEC][:METRIC=VALUE], e.g. 1280x720:3M, "
                    + "1280x720:3M:hevc or 1280x720:3M:ssim=0.97")
        }
        var codec: VideoCodec?
        var target: TargetQuality?
        for part in parts.dropFirst(2) {
            if part.contains("=") {
                guard target == nil, let t = TargetQuality(parsing: part.replacingOccurrences(of: "=", with: ":"))
                else {
                    throw JobRequestError(
                        field: field, "\(JobRequestError.quoted(part)) is not a target quality (ssim=0.97, psnr=40)")
                }
                target = t
            } else {
                guard codec == nil, target == nil, let c = VideoCodec(rawValue: part.lowercased()) else {
                    throw JobRequestError(
                        field: field, "\(JobRequestError.quoted(part)) is not a codec (h264, hevc, av1, vp9)")
                }
                codec = c
            }
        }
        self.init(width: size.width, height: size.height, bitRate: rate, codec: codec ?? .h264, targetQuality: target)
    }

    /// "1280x720:3M" (":hevc" added for a codec other than H.264, ":ssim=0.97" for a target).
    public var text: String {
        "\(width)x\(height):\(bitRate / 1000)k" + (codec == .h264 ? "" : ":\(codec.rawValue)")
            + (targetQuality.map { ":" + $0.description.replacingOccurrences(of: ":", with: "=") } ?? "")
    }

    /// The target its segments search for, capped at this rendition's peak rate.
    public var cappedTarget: TargetQuality? {
        targetQuality.map {
            var t = $0
            t.maxBitRate = maxBitRate
            return t
        }
    }

    /// Apple's ladder for H.264 at up to 30 fps (HLS Authoring Specification for Apple Devices, 2.5), one
    /// rung per size, capped at the source's picture: rungs larger than `sourceWidth`×`sourceHeight` (as
    /// displayed) are left out; a source smaller than the smallest rung gets that rung fitted to it. A
    /// portrait source's boxes are turned upright.
    public static func appleLadder(sourceWidth: Int, sourceHeight: Int, codec: VideoCodec = .h264) -> [Rendition] {
        let rungs = [
            Rendition(width: 1920, height: 1080, bitRate: 6_000_000, codec: codec),
            Rendition(width: 1280, height: 720, bitRate: 3_000_000, codec: codec),
            Rendition(width: 960, height: 540, bitRate: 2_000_000, codec: codec),
            Rendition(width: 768, height: 432, bitRate: 1_100_000, codec: codec),
            Rendition(width: 640, height: 360, bitRate: 730_000, codec: codec),
            Rendition(width: 416, height: 234, bitRate: 145_000, codec: codec),
        ]
        // A portrait source gets portrait boxes (1080x1920 …).
        let oriented =
            sourceHeight > sourceWidth
            ? rungs.map { Rendition(width: $0.height, height: $0.width, bitRate: $0.bitRate, codec: codec) } : rungs
        let fitting = oriented.filter { $0.width <= sourceWidth && $0.height <= sourceHeight }
        return fitting.isEmpty ? [oriented.last!] : fitting
    }
}
