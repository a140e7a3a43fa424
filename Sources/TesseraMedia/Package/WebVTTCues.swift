import CFFmpeg
import TesseraAV
import TesseraCore

/// Where a package's subtitle track goes: each event a `SubtitleLeg` converted to WebVTT (libavcodec's
/// `webvtt` encoder: the cue text), kept with its time for `PackagedSubtitles` to cut into segments.
final class WebVTTCues: SubtitleSink, @unchecked Sendable {
    let name: String
    let language: String?
    let title: String?
    /// The time base of the events' pts and durations (the leg's output time base).
    var timeBase = AVRational(num: 1, den: 1000)
    private(set) var cues: [PackagedSubtitles.Cue] = []
    /// An event with no duration shows until the next one starts, at most this long.
    static let untimedSeconds = 5.0

    init(name: String, language: String?, title: String?) {
        self.name = name
        self.language = language
        self.title = title
    }

    func append(_ packet: Packet) throws(MediaError) {
        let p = packet.pointer.pointee
        guard let data = p.data, p.size > 0 else { return }
        let text = String(decoding: UnsafeBufferPointer(start: data, count: Int(p.size)), as: UTF8.self)
        let seconds = { (ticks: Int64) in Double(ticks) * Double(self.timeBase.num) / Double(max(1, self.timeBase.den))
        }
        let start = seconds(p.pts)
        if let last = cues.last, last.end == .infinity {
            cues[cues.count - 1].end = min(start, last.start + Self.untimedSeconds)
        }
        cues.append(.init(start: start, end: p.duration > 0 ? start + seconds(p.duration) : .infinity, text: text))
    }

    /// The cues, an untimed last one given its few seconds.
    var finished: [PackagedSubtitles.Cue] {
        cues.map { c in
            var c = c
            if c.end == .infinity { c.end = c.start + Self.untimedSeconds }
            return c
        }
    }
}
