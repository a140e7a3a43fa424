/// What a streaming package holds, as measured after it was written: each track's folder, codecs,
/// measured rates and segments (the figures the manifests declare).
public struct PackageReport: Sendable, Hashable, Codable {
    public struct Track: Sendable, Hashable, Codable {
        public var name: String
        public var codecs: String
        public var width: Int?
        public var height: Int?
        public var language: String?
        /// Bits per second: the largest segment's and the whole track's (video with its audio in HLS's
        /// BANDWIDTH and AVERAGE-BANDWIDTH; here the track alone).
        public var peakBitRate: Int
        public var averageBitRate: Int
        public var segments: Int
        /// Seconds the segments add up to.
        public var duration: Double
        /// Where the first presented sample and the last end, in seconds of the package's timeline.
        public var start: Double
        public var end: Double
        /// A video rendition's frame processor (`vulkan`, `cpu`, `none` when the source's pictures fit as
        /// they are).
        public var processor: String? = nil
        /// A video rendition's quality against the frames its encoder was given, over the whole package (mean
        /// PSNR in dB, mean SSIM), measured as each segment was made; nil when unmeasured (verification timing).
        public var psnr: Double? = nil
        public var ssim: Double? = nil
        /// The quality a rendition's segments searched for (capped CRF), and its worst segment's mean SSIM
        /// and PSNR: each segment meets the target within the metric's tolerance, or the report says short.
        public var target: TargetQuality? = nil
        public var worstSegmentSsim: Double? = nil
        public var worstSegmentPsnr: Double? = nil
        /// A video rendition's measured segments, as a single file's `quality` reports them: each segment's
        /// figures, and with a target its rate factor and every probe of its search.
        public var quality: QualityReport? = nil

        public init(
            name: String, codecs: String, width: Int?, height: Int?, language: String?, peakBitRate: Int,
            averageBitRate: Int, segments: Int, duration: Double, start: Double, end: Double
        ) {
            self.name = name
            self.codecs = codecs
            self.width = width
            self.height = height
            self.language = language
            self.peakBitRate = peakBitRate
            self.averageBitRate = averageBitRate
            self.segments = segments
            self.duration = duration
            self.start = start
            self.end = end
        }
    }

    /// The entry points written, relative to the package: `master.m3u8`, `manifest.mpd`.
    public var manifests: [String]
    public var segmentDuration: Double
    public var video: [Track]
    public var audio: [Track]
    /// WebVTT subtitle tracks: folder, language and cue count.
    public var subtitles: [Subtitles] = []

    public struct Subtitles: Sendable, Hashable, Codable {
        public var name: String
        public var language: String?
        public var cues: Int

        public init(name: String, language: String?, cues: Int) {
            self.name = name
            self.language = language
            self.cues = cues
        }
    }

    public init(manifests: [String], segmentDuration: Double, video: [Track], audio: [Track]) {
        self.manifests = manifests
        self.segmentDuration = segmentDuration
        self.video = video
        self.audio = audio
    }
}
