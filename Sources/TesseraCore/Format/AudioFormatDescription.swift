/// What an audio track holds, as CMAudioFormatDescription.
public struct AudioFormatDescription: Sendable, Hashable, Codable {
    public var codec: String
    public var profile: String?
    public var sampleRate: Int
    public var channelCount: Int
    /// FFmpeg's channel-layout description, e.g. `stereo`, `5.1(side)`.
    public var channelLayout: String
    public var sampleFormat: String
    public var bitRate: Int?
    /// Samples per coded frame (1024 for AAC, 960 for Opus at 48 kHz), 0 when variable or unknown.
    public var frameSize: Int

    public init(
        codec: String, profile: String? = nil, sampleRate: Int, channelCount: Int, channelLayout: String,
        sampleFormat: String, bitRate: Int? = nil, frameSize: Int = 0
    ) {
        self.codec = codec
        self.profile = profile
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.channelLayout = channelLayout
        self.sampleFormat = sampleFormat
        self.bitRate = bitRate
        self.frameSize = frameSize
    }
}
