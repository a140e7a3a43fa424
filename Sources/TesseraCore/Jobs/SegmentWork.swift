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

    public init(codec: String, codecTag: UInt32 = 0, width: Int, height: Int, pixelFormat: String, profile: Int = -99,
                level: Int = -99, extradata: [UInt8] = [], colorRange: Int = 0, colorPrimaries: Int = 2,
                colorTransfer: Int = 2, colorSpace: Int = 2, chromaLocation: Int = 0, fieldOrder: Int = 0,
                sampleAspectRatio: Fraction = Fraction(0, 1), bitsPerRawSample: Int = 0, videoDelay: Int = 0,
                bitRate: Int64 = 0) {
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

/// A compressed packet as plain data with its timestamps (in its stream's time base).
public struct EncodedPacket: Sendable, Hashable {
    public var data: [UInt8]
    public var pts: Int64
    public var dts: Int64
    public var duration: Int64
    public var isKeyframe: Bool

    public init(data: [UInt8], pts: Int64, dts: Int64, duration: Int64, isKeyframe: Bool) {
        self.data = data
        self.pts = pts
        self.dts = dts
        self.duration = duration
        self.isKeyframe = isKeyframe
    }
}

/// Everything a worker needs to produce one segment, with no file access: what `SegmentTask` on the
/// wire carries (Protocols/tessera.proto).
public struct SegmentWork: Sendable, Hashable {
    public var spec: SegmentSpec
    /// The source video stream's decoder configuration.
    public var source: CodecConfiguration
    /// The source stream's time base (`spec` ticks); the output uses the same.
    public var timeBase: Fraction
    /// The declared source frame rate.
    public var frameRate: Fraction
    public var rotation: Rotation
    /// `spec.decodePackets`, in decode order.
    public var packets: [EncodedPacket]
    public var settings: VideoSettings
    /// Output tick where the segment's last frame ends; nil keeps that frame's own duration.
    public var endTick: Int64?
    /// For error messages.
    public var sourceName: String
    /// "auto", "cpu" or "vulkan".
    public var backend: ProcessingBackend
    /// Decode the encoded segment before returning it (`VerificationLevel.decode`).
    public var checkDecodes: Bool

    public init(spec: SegmentSpec, source: CodecConfiguration, timeBase: Fraction, frameRate: Fraction,
                rotation: Rotation, packets: [EncodedPacket], settings: VideoSettings, endTick: Int64?,
                sourceName: String, backend: ProcessingBackend, checkDecodes: Bool = true) {
        self.spec = spec
        self.source = source
        self.timeBase = timeBase
        self.frameRate = frameRate
        self.rotation = rotation
        self.packets = packets
        self.settings = settings
        self.endTick = endTick
        self.sourceName = sourceName
        self.backend = backend
        self.checkDecodes = checkDecodes
    }

    /// Bytes of compressed source data.
    public var payloadBytes: Int { packets.reduce(0) { $0 + $1.data.count } }
}

/// A finished segment: encoded packets on the output timeline (in the task's time base).
public struct SegmentOutput: Sendable, Hashable {
    public var index: Int
    /// The encoder's output configuration; every segment of a job must have the same.
    public var parameters: CodecConfiguration
    /// Decode order.
    public var packets: [EncodedPacket]
    public var frames: Int
    /// Seconds the worker spent on it (informative).
    public var seconds: Double
    /// Which frame processor ran ("none" when no conversion was needed).
    public var processor: String

    public init(index: Int, parameters: CodecConfiguration, packets: [EncodedPacket], frames: Int, seconds: Double,
                processor: String) {
        self.index = index
        self.parameters = parameters
        self.packets = packets
        self.frames = frames
        self.seconds = seconds
        self.processor = processor
    }

    public var payloadBytes: Int { packets.reduce(0) { $0 + $1.data.count } }
}

extension CodecConfiguration {
    /// Why two segments' streams cannot be joined at packet level (one decoder configuration must
    /// decode both), or nil when they can.
    public func mismatch(with other: CodecConfiguration) -> String? {
        if codec != other.codec { return "codec \(codec) vs \(other.codec)" }
        if width != other.width || height != other.height { return "size \(width)x\(height) vs \(other.width)x\(other.height)" }
        if pixelFormat != other.pixelFormat { return "pixel format \(pixelFormat) vs \(other.pixelFormat)" }
        if profile != other.profile { return "profile \(profile) vs \(other.profile)" }
        if extradata != other.extradata { return "decoder configuration (extradata) differs" }
        return nil
    }
}
