/// Printing and parsing as `start–end`.
///
/// `description` prints the two ends as `MediaTime.description` does, joined by an en dash
/// (`1001/30000–2002/30000`), so negative times stay readable. Parsing accepts an en dash or a hyphen
/// between any two forms `MediaTime(string:)` reads: `1s-4s`, `00:00:01-00:00:04.5`,
/// `1001/30000-2002/30000`, `-1s–+inf`. The result is `TimeRange(start:end:)`, so an end before the start
/// parses to an invalid range. Text that is not two times is rejected, and so is a range whose end a
/// start-and-duration range cannot hold: from `-inf` to a finite end needs a duration of +∞, and
/// −∞ + +∞ is invalid, not the end that was written.
extension TimeRange: CustomStringConvertible, LosslessStringConvertible {
    /// `start–end`, with an en dash: `1001/30000–2002/30000`.
    public var description: String { "\(start)\u{2013}\(end)" }

    /// Parses `start-end` or `start–end`; nil unless both sides are times.
    public init?(string: String) {
        // A hyphen may also be a sign, so try each dash in turn (never the first character) as the
        // separator. No time form has a dash after its first character, so at most one split succeeds.
        for index in string.indices.dropFirst() where string[index] == "-" || string[index] == "\u{2013}" {
            if let start = MediaTime(string: String(string[..<index])),
                let end = MediaTime(string: String(string[string.index(after: index)...]))
            {
                self.init(start: start, end: end)
                guard self.end == end else { return nil }
                return
            }
        }
        return nil
    }

    /// `init?(string:)`, for `LosslessStringConvertible`.
    public init?(_ description: String) {
        self.init(string: description)
    }
}
