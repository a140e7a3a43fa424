import Foundation
import TesseraCompute
import TesseraCore

/// What an export wrote and how long it took (`--json` prints this).
public struct ExportReport: Sendable, Codable {
    public struct Video: Sendable, Codable {
        public var codec: String
        public var width: Int
        public var height: Int
        public var pixelFormat: String
        public var frames: Int
        public var rotation: Int
        /// `swscale`, `vulkan`, or `none` when no conversion was needed.
        public var processor: String
        /// Why that backend was chosen (auto calibration figures), when one was needed.
        public var processorChoice: String? = nil
        /// The deinterlacer the frames went through (`bwdif`, `yadif`), when they were deinterlaced.
        public var deinterlaced: String? = nil
    }
    public struct Audio: Sendable, Codable {
        public var codec: String
        public var sampleRate: Int
        public var channels: Int
        public var packets: Int
        /// The source track it was made from, and its language.
        public var sourceTrack: Int? = nil
        public var language: String? = nil
    }
    public struct Subtitle: Sendable, Codable {
        /// The source track carried.
        public var sourceTrack: Int
        /// Events written.
        public var events: Int
        /// Converted to the container's text format rather than copied.
        public var converted: Bool
    }

    public var source: String
    public var output: String
    public var fileType: String
    public var preset: String?
    public var passthrough: Bool
    /// Segments the video was cut into (nil for a one-pass export).
    public var segments: Int? = nil
    /// The check of the finished file (every segmented job is verified before it is put in place).
    public var verification: VerificationReport? = nil
    /// How close the output came to the frames given to the encoder, per segment and as a whole (nil when
    /// the segments were not decoded: verification level `timing`).
    public var quality: QualityReport? = nil
    /// A streaming package's tracks and measured rates (the output is then its folder).
    public var package: PackageReport? = nil
    /// The range exported, on the source's timeline.
    public var timeRange: TimeRange?
    /// Output duration (the video's when there is video); JSON `{"seconds", "exact"}`.
    @SecondsAndExact public var duration: MediaTime
    public var video: Video?
    /// The first audio track (as `audioTracks[0]`).
    public var audio: Audio?
    /// Every audio track written, in output order.
    public var audioTracks: [Audio] = []
    /// Every subtitle track carried.
    public var subtitleTracks: [Subtitle] = []
    /// Attachments and chapters carried.
    public var attachments = 0
    public var chapters = 0
    /// What the source holds that the output does not (other audio tracks, subtitles, attachments,
    /// chapters), one line each; every line is also a warning.
    public var notCarried: [String] = []
    public var bytes: Int
    public var wallSeconds: Double
    /// Video frames encoded per second of wall time.
    public var framesPerSecond: Double
}

/// Where an export has got to, handed to the progress handler a few times a second.
public struct ExportProgress: Sendable {
    /// Video frames (or, for audio-only exports, audio packets) written so far.
    public var frames: Int
    /// Output time reached.
    public var seconds: Double
    /// Output duration expected.
    public var totalSeconds: Double
    public var elapsedSeconds: Double

    public init(frames: Int, seconds: Double, totalSeconds: Double, elapsedSeconds: Double) {
        self.frames = frames
        self.seconds = seconds
        self.totalSeconds = totalSeconds
        self.elapsedSeconds = elapsedSeconds
    }

    public var fraction: Double { totalSeconds > 0 ? min(1, seconds / totalSeconds) : 0 }
    public var framesPerSecond: Double { elapsedSeconds > 0 ? Double(frames) / elapsedSeconds : 0 }
    /// Estimated seconds left at the current rate; nil until there is a rate.
    public var remainingSeconds: Double? {
        guard seconds > 0, elapsedSeconds > 0.2 else { return nil }
        return elapsedSeconds * (totalSeconds - seconds) / seconds
    }
}

extension ExportReport {
    /// Sets a package's report, with what the segments made of each rendition (in the ladder's order): its
    /// processor, its measured segments and whole (with their rate factors and probes), and its target.
    mutating func add(
        _ package: PackageReport, processors: [ProcessorKind], quality: [QualityReport?], targets: [TargetQuality?]
    ) {
        var made = package
        for i in made.video.indices {
            if i < processors.count { made.video[i].processor = processors[i].rawValue }
            if i < targets.count { made.video[i].target = targets[i] }
            guard i < quality.count, let q = quality[i] else { continue }
            made.video[i].quality = q
            made.video[i].psnr = q.psnr
            made.video[i].ssim = q.ssim
            made.video[i].worstSegmentSsim = q.segments.map(\.ssim).min()?.rounded(places: 6)
            made.video[i].worstSegmentPsnr = q.segments.map(\.psnr).min()?.rounded(places: 4)
        }
        self.package = made
    }

    /// Bytes of the files under a folder (a package).
    static func bytes(under folder: String) -> Int {
        let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
        return files.reduce(0) {
            $0 + ((try? FileManager.default.attributesOfItem(atPath: folder + "/" + $1)[.size] as? Int) ?? 0)
        }
    }
}
