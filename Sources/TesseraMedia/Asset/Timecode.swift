import CFFmpeg
import TesseraCore

/// SMPTE timecode as the source states it (`HH:MM:SS:FF`, `;` before the frames for drop-frame), read
/// and counted with libavutil's timecode functions.
enum Timecode {
    /// The timecode `frames` frames after `start`, at `rate`; nil when `start` is not a timecode libavutil
    /// reads at that rate, or the count does not fit.
    static func advanced(_ start: String, byFrames frames: Int64, rate: AVRational) -> String? {
        guard rate.num > 0, rate.den > 0, let count = Int32(exactly: frames), count >= 0 else { return nil }
        var tc = AVTimecode()
        guard av_timecode_init_from_string(&tc, rate, start, nil) >= 0 else { return nil }
        var text = [CChar](repeating: 0, count: Int(AV_TIMECODE_STR_SIZE))
        guard let made = av_timecode_make_string(&tc, &text, count) else { return nil }
        return String(cString: made)
    }

    /// What an export's output starts at: the source's timecode advanced to the first frame it keeps (the
    /// time range's start, in frames of the video's nominal frame duration).
    static func start(_ timecode: String, range: TimeRange?, frameDuration: Rational?) -> String? {
        guard let range, range.start.isNumeric, range.start > .zero else { return timecode }
        guard let d = frameDuration, d.isValid, d > .zero, let rate = AVRational(exactly: Rational.one / d),
            let frames = (Rational(range.start) / d).floor
        else { return nil }
        return advanced(timecode, byFrames: frames, rate: rate)
    }
}
