import TesseraCore

/// One stream of an asset, as AVFoundation's `AVAssetTrack`: what it holds, where it sits on the source
/// timeline, and (for video and audio) its format description.
public struct AssetTrack: Sendable, Codable {
    /// The stream index in the container (what `AVPacket.stream_index` names).
    public let trackID: Int
    public let mediaType: MediaType
    /// FFmpeg's codec name (`avcodec_get_name`), e.g. `h264`, `aac`.
    public let codec: String
    /// The stream's time base: one tick of its timestamps is `numerator / denominator` seconds.
    public let timeBase: Rational
    /// Start and duration on the source timeline, in the stream's time base.
    public let timeRange: TimeRange
    /// Packets counted by the packet scan, else the container's frame count; nil when neither is known.
    public let frameCount: Int?
    public let bitRate: Int?
    /// ISO 639 language code from the container; nil when absent or `und` (undetermined).
    public let language: String?
    /// The container marks this track as the one to play by default.
    public let isDefault: Bool
    public let metadata: [String: String]
    /// Nil unless `mediaType == .video`.
    public let video: VideoFormatDescription?
    /// Nil unless `mediaType == .audio`.
    public let audio: AudioFormatDescription?
    /// Where the track's last frame (or audio packet) ends: the latest presentation time plus its
    /// duration, as the packet scan read it. It can differ from `timeRange.end`, which an edit list or
    /// stream header states (a clip cut with `-c copy` may declare an end before its last frame's).
    /// Nil without a packet scan.
    public var presentationEnd: MediaTime?

    public init(
        trackID: Int, mediaType: MediaType, codec: String, timeBase: Rational, timeRange: TimeRange,
        frameCount: Int?, bitRate: Int?, language: String?, isDefault: Bool, metadata: [String: String],
        video: VideoFormatDescription?, audio: AudioFormatDescription?
    ) {
        self.trackID = trackID
        self.mediaType = mediaType
        self.codec = codec
        self.timeBase = timeBase
        self.timeRange = timeRange
        self.frameCount = frameCount
        self.bitRate = bitRate
        self.language = language
        self.isDefault = isDefault
        self.metadata = metadata
        self.video = video
        self.audio = audio
    }
}
