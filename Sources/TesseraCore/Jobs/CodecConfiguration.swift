/// A stream's decoder configuration as plain values (libavcodec's AVCodecParameters, video fields), so
/// segment tasks and results can cross threads, processes and the wire. Enumerations keep libavutil's
/// numeric values (ITU-T H.273 for colour).
public struct CodecConfiguration: Sendable, Hashable, Codable {
    /// libavcodec codec name: "h264", "hevc", "vp9", "av1", …
    public var codec: String
    public var codecTag: UInt32
    public var width: Int
    public var height: Int
    /// libavutil pixel format name: "yuv420p", "yuv420p10le", …
    public var pixelFormat: String
    public var profile: Int
    public var level: Int
    public var extradata: [UInt8]
    public var colorRange: Int
    public var colorPrimaries: Int
    public var colorTransfer: Int
    public var colorSpace: Int
    public var chromaLocation: Int
    public var fieldOrder: Int
    public var sampleAspectRatio: Fraction
    public var bitsPerRawSample: Int
    public var videoDelay: Int
    public var bitRate: Int64

    public init(
        codec: String, codecTag: UInt32 = 0, width: Int, height: Int, pixelFormat: String, profile: Int = -99,
        level: Int = -99, extradata: [UInt8] = [], colorRange: Int = 0, colorPrimaries: Int = 2,
        colorTransfer: Int = 2, colorSpace: Int = 2, chromaLocation: Int = 0, fieldOrder: Int = 0,
        sampleAspectRatio: Fraction = Fraction(0, 1), bitsPerRawSample: Int = 0, videoDelay: Int = 0,
        bitRate: Int64 = 0
    ) {
        self.codec = codec
        self.codecTag = codecTag
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.profile = profile
        self.level = level
        self.extradata = extradata
        self.colorRange = colorRange
        self.colorPrimaries = colorPrimaries
        self.colorTransfer = colorTransfer
        self.colorSpace = colorSpace
        self.chromaLocation = chromaLocation
        self.fieldOrder = fieldOrder
        self.sampleAspectRatio = sampleAspectRatio
        self.bitsPerRawSample = bitsPerRawSample
        self.videoDelay = videoDelay
        self.bitRate = bitRate
    }
}

extension CodecConfiguration {
    /// Why two segments' streams cannot be joined at packet level (one decoder configuration must
    /// decode both), or nil when they can.
    public func mismatch(with other: CodecConfiguration) -> String? {
        if codec != other.codec { return "codec \(codec) vs \(other.codec)" }
        if width != other.width || height != other.height {
            return "size \(width)x\(height) vs \(other.width)x\(other.height)"
        }
        if pixelFormat != other.pixelFormat { return "pixel format \(pixelFormat) vs \(other.pixelFormat)" }
        if profile != other.profile { return "profile \(profile) vs \(other.profile)" }
        if extradata != other.extradata { return "decoder configuration (extradata) differs" }
        return nil
    }
}
