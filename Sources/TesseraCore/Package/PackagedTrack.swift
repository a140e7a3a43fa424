/// One track of a finished streaming package, as its manifests list it: a CMAF track file cut into an
/// initialization segment (`init.mp4`) and media segments (`seg_00001.m4s` …) in the folder `name`.
public struct PackagedTrack: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case video(width: Int, height: Int, frameRate: Rational)
        case audio(language: String?, title: String?, channels: Int, sampleRate: Int)
    }

    /// One media segment: where it starts and how long it lasts (presentation, in `timescale` ticks from the
    /// track's start), its size, and for video the bytes from its start through its keyframe's data.
    public struct Segment: Sendable, Hashable {
        public var start: Int64
        public var duration: Int64
        public var bytes: Int
        public var keyframeBytes: Int?

        public init(start: Int64, duration: Int64, bytes: Int, keyframeBytes: Int? = nil) {
            self.start = start
            self.duration = duration
            self.bytes = bytes
            self.keyframeBytes = keyframeBytes
        }
    }

    /// The folder the track's files are in, relative to the package.
    public var name: String
    public var kind: Kind
    /// RFC 6381, from the encoded stream (`avc1.64001f`, `mp4a.40.2`).
    public var codecs: String
    /// Ticks per second of `segments`' times.
    public var timescale: Int64
    public var segments: [Segment]

    public init(name: String, kind: Kind, codecs: String, timescale: Int64, segments: [Segment]) {
        self.name = name
        self.kind = kind
        self.codecs = codecs
        self.timescale = timescale
        self.segments = segments
    }

    public static let initName = "init.mp4"
    /// The media segment numbered `n` (from 1).
    public static func segmentName(_ n: Int, extension ext: String = "m4s") -> String {
        let digits = String(n)
        return "seg_" + String(repeating: "0", count: max(0, 5 - digits.count)) + digits + "." + ext
    }

    public var isVideo: Bool {
        if case .video = kind { return true }
        return false
    }

    /// Seconds of `ticks` on this track's clock.
    public func seconds(_ ticks: Int64) -> Double { Double(ticks) / Double(max(1, timescale)) }

    /// Seconds the segments cover.
    public var duration: Double { seconds(segments.reduce(0) { $0 + $1.duration }) }
    public var bytes: Int { segments.reduce(0) { $0 + $1.bytes } }

    /// The measured bit rates of this track with `audio` played beside it, as Apple defines them: the peak
    /// is the largest segment's (its bytes and the same-numbered audio segment's, over its duration), the
    /// average the whole media's.
    public func bandwidth(with audio: PackagedTrack?) -> (peak: Int, average: Int) {
        var peak = 0.0
        for (k, s) in segments.enumerated() where s.duration > 0 {
            let a = audio.flatMap { k < $0.segments.count ? $0.segments[k].bytes : nil } ?? 0
            peak = max(peak, Double(s.bytes + a) * 8 / seconds(s.duration))
        }
        let total = Double(bytes + (audio?.bytes ?? 0)) * 8 / max(duration, 1e-9)
        return (Int(min(peak, 1e15).rounded(.up)), Int(min(total, 1e15).rounded(.up)))
    }
}
