/// What a video track holds, as CMVideoFormatDescription: codec, size, pixels, colour, timing.
public struct VideoFormatDescription: Sendable, Hashable, Codable {
    /// FFmpeg codec name, e.g. `h264`, `hevc`, `av1`, `vp9`.
    public var codec: String
    public var profile: String?
    public var level: Int?
    /// Coded size in pixels (before the preferred transform).
    public var width: Int
    public var height: Int
    public var pixelFormat: PixelFormat
    public var color: ColorDescription
    public var rotation: Rotation
    /// Sample aspect ratio numerator/denominator, 1:1 when unknown.
    public var sampleAspectRatio: Fraction
    /// The stream's declared frame duration (1 / r_frame_rate).
    public var nominalFrameDuration: MediaTime
    /// Duration over frame count (1 / avg_frame_rate).
    public var averageFrameDuration: MediaTime
    /// The smallest PTS step seen while indexing; equals nominal for constant-rate material.
    public var minFrameDuration: MediaTime
    public var isVariableFrameRate: Bool
    public var bitRate: Int?
    public var hasBFrames: Bool
    /// How the fields are stored; nil when the stream does not say.
    public var fieldOrder: FieldOrder?
    /// For a stream that does not say it is interlaced, what a full probe's look at the first frames'
    /// fields finds (libavfilter's idet).
    public var fieldScan: FieldScan?
    /// Mastering display, content light level and dynamic HDR metadata; nil when none is stated.
    public var hdr: HDRMetadata?
    /// CEA-608/708 closed captions carried in the pictures (ATSC A/53 user data), found in the first
    /// frames by a full probe.
    public var closedCaptions = false

    public init(
        codec: String, profile: String? = nil, level: Int? = nil, width: Int, height: Int,
        pixelFormat: PixelFormat, color: ColorDescription = .init(), rotation: Rotation = .none,
        sampleAspectRatio: Fraction = .init(1, 1), nominalFrameDuration: MediaTime,
        averageFrameDuration: MediaTime, minFrameDuration: MediaTime, isVariableFrameRate: Bool = false,
        bitRate: Int? = nil, hasBFrames: Bool = false
    ) {
        self.codec = codec
        self.profile = profile
        self.level = level
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.color = color
        self.rotation = rotation
        self.sampleAspectRatio = sampleAspectRatio
        self.nominalFrameDuration = nominalFrameDuration
        self.averageFrameDuration = averageFrameDuration
        self.minFrameDuration = minFrameDuration
        self.isVariableFrameRate = isVariableFrameRate
        self.bitRate = bitRate
        self.hasBFrames = hasBFrames
    }

    /// Size as displayed, after the preferred transform.
    public var displaySize: (width: Int, height: Int) {
        rotation.swapsDimensions ? (height, width) : (width, height)
    }
    /// Nominal frames per second, for display and encoder levels only.
    public var nominalFrameRate: Double {
        nominalFrameDuration.isNumeric && nominalFrameDuration.value != 0 ? 1 / nominalFrameDuration.seconds : 0
    }
}
