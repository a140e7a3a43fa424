/// One edit of a source's timing, every time in source time (what `--scale`, `--ramp` and `--freeze`
/// say): the flags of `transcode`, `run` and `submit`, and a spec's single-asset edits.
public enum RetimeEdit: Sendable, Hashable {
    /// The source range plays for `toDuration` of output (AVFoundation's `scaleTimeRange(_:toDuration:)`).
    case scale(TimeRange, toDuration: MediaTime)
    /// The source range plays at a speed changing linearly in output time from `from` to `to`.
    case ramp(TimeRange, from: Rational, to: Rational)
    /// When source time `at` is reached, the frame on screen is held for `duration` of output (silent),
    /// and playback goes on.
    case freeze(at: MediaTime, duration: MediaTime)

    /// The slowest and fastest speeds an edit may ask for (AVFoundation's scale factors span the same).
    public static let slowest = Rational(1, 32)
    public static let fastest = Rational(32)
    /// The longest freeze.
    public static let longestFreeze = Rational(3600)

    /// The flag that writes this edit, for messages.
    public var flag: String {
        switch self {
        case .scale: "--scale"
        case .ramp: "--ramp"
        case .freeze: "--freeze"
        }
    }

    // MARK: Text

    /// `2s-4s:16s`: the source range 2–4 s lasts 16 s of output.
    public static func scale(parsing text: String) throws(JobRequestError) -> RetimeEdit {
        let (range, duration) = try split(text, flag: "--scale", example: "2s-4s:16s")
        guard let range = TimeRange(string: range), let to = MediaTime(string: duration) else {
            throw JobRequestError(
                field: "--scale", "'\(text.logSafe(limit: 80))' is not RANGE:DURATION, e.g. 2s-4s:16s")
        }
        return .scale(range, toDuration: to)
    }

    /// `4s-6s:1-0.25`: speed 1 → 0.25 over source 4–6 s.
    public static func ramp(parsing text: String) throws(JobRequestError) -> RetimeEdit {
        let (range, speeds) = try split(text, flag: "--ramp", example: "4s-6s:1-0.25")
        // FROM and TO part at the first '-' after FROM's first character, so a sign stays with its number
        // (`-1-1` is from -1 to 1, refused as a speed, never read as 1 → 1).
        let dash = speeds.indices.dropFirst().first { speeds[$0] == "-" }
        guard let range = TimeRange(string: range), let dash,
            let from = MediaTime(string: String(speeds[..<dash])),
            let to = MediaTime(string: String(speeds[speeds.index(after: dash)...]))
        else {
            throw JobRequestError(
                field: "--ramp", "'\(text.logSafe(limit: 80))' is not RANGE:FROM-TO, e.g. 4s-6s:1-0.25")
        }
        return .ramp(range, from: Rational(from), to: Rational(to))
    }

    /// `5s:2s`: at source time 5 s, hold the frame on screen for 2 s.
    public static func freeze(parsing text: String) throws(JobRequestError) -> RetimeEdit {
        let (at, duration) = try split(text, flag: "--freeze", example: "5s:2s")
        guard let at = MediaTime(string: at), let duration = MediaTime(string: duration) else {
            throw JobRequestError(field: "--freeze", "'\(text.logSafe(limit: 80))' is not TIME:DURATION, e.g. 5s:2s")
        }
        return .freeze(at: at, duration: duration)
    }

    private static func split(_ text: String, flag: String, example: String) throws(JobRequestError) -> (String, String)
    {
        // The last colon: a clock time (1:02.5) may hold colons of its own.
        guard let colon = text.lastIndex(of: ":") else {
            throw JobRequestError(field: flag, "'\(text.logSafe(limit: 80))' has no ':'; write it as \(example)")
        }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }
}
