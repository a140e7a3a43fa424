import Foundation

/// A subtitle track of a streaming package as WebVTT (W3C WebVTT; RFC 8216 §3.5): for HLS one file per
/// media segment, on the video's segment times, each holding every cue that shows during it (a cue that
/// spans a boundary is in both files, as the RFC asks), with a media playlist; for DASH the whole track
/// as one file.
public struct PackagedSubtitles: Sendable, Hashable {
    public struct Cue: Sendable, Hashable {
        /// Seconds on the package's timeline.
        public var start: Double
        public var end: Double
        /// WebVTT cue text (libavcodec's `webvtt` encoder's, which keeps italics and bold).
        public var text: String

        public init(start: Double, end: Double, text: String) {
            self.start = start
            self.end = end
            self.text = text
        }
    }

    public struct Span: Sendable, Hashable {
        public var start: Double
        public var duration: Double

        public init(start: Double, duration: Double) {
            self.start = start
            self.duration = duration
        }
    }

    /// The folder its files are in, relative to the package.
    public var name: String
    public var language: String?
    public var title: String?
    /// In presentation order, each within the video's duration.
    public var cues: [Cue]
    /// The media segments (the video's), in seconds.
    public var segments: [Span]

    /// - Parameter end: where the video ends: cues are cut there, and those starting after are dropped.
    public init(name: String, language: String?, title: String?, cues: [Cue], segments: [Span], end: Double) {
        self.name = name
        self.language = language
        self.title = title
        self.segments = segments
        self.cues = cues.compactMap { cue in
            let (start, stop) = (max(0, cue.start), min(end, cue.end))
            guard stop > start, !cue.text.isEmpty else { return nil }
            return Cue(start: start, end: stop, text: Self.cueText(cue.text))
        }.sorted { ($0.start, $0.end) < ($1.start, $1.end) }
    }

    public static let wholeName = "subtitles.vtt"
    /// The WebVTT file of media segment `n` (from 1).
    public static func segmentName(_ n: Int) -> String { PackagedTrack.segmentName(n, extension: "vtt") }

    /// Media segment `k`'s file (from 0): its cues, with the timestamp map that puts the cue times on the
    /// media's (LOCAL 0 is presentation time 0, which the CMAF tracks start at).
    public func segmentText(_ k: Int) -> String {
        let span = segments[k]
        let (from, to) = (span.start, span.start + span.duration)
        let showing = cues.filter { $0.start < to && $0.end > from }
        return "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000\n\n" + showing.map(Self.block).joined()
    }

    /// The whole track, for DASH.
    public var wholeText: String { "WEBVTT\n\n" + cues.map(Self.block).joined() }

    /// The HLS media playlist: one file per media segment, each as long as the video's.
    public var playlist: String {
        var lines = [
            "#EXTM3U", "#EXT-X-VERSION:7",
            "#EXT-X-TARGETDURATION:\(HLSPlaylists.targetDuration(segments.map(\.duration)))",
            "#EXT-X-PLAYLIST-TYPE:VOD",
        ]
        for (k, s) in segments.enumerated() {
            lines.append("#EXTINF:\(HLSPlaylists.decimal(s.duration, 6)),")
            lines.append(Self.segmentName(k + 1))
        }
        lines.append("#EXT-X-ENDLIST")
        return lines.joined(separator: "\n") + "\n"
    }

    static func block(_ cue: Cue) -> String { "\(timestamp(cue.start)) --> \(timestamp(cue.end))\n\(cue.text)\n\n" }

    /// `HH:MM:SS.mmm`, hours as many digits as they need.
    static func timestamp(_ seconds: Double) -> String {
        let ms = seconds.isFinite ? Int((min(max(0, seconds), 1e9) * 1000).rounded()) : 0
        let (h, m, s, f) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
        return String(format: "%02d:%02d:%02d.%03d", h, m, s, f)
    }

    /// Cue text as WebVTT allows it: no blank line (which would end the cue) and no "-->".
    static func cueText(_ text: String) -> String {
        text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "-->", with: "--&gt;")
            .split(separator: "\n", omittingEmptySubsequences: true).joined(separator: "\n")
    }
}
