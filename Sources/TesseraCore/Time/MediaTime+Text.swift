/// Printing and parsing, for job specs, the CLI and logs.
///
/// Accepted forms (surrounding whitespace is ignored):
///
/// | Text                         | Meaning                                  | Result                |
/// |------------------------------|------------------------------------------|-----------------------|
/// | `1001/30000`, `-3/2`         | value / timescale                        | 1001/30000, −3/2      |
/// | `2.5s`, `2.5`, `-0.25`, `3s` | decimal seconds, exact                   | 25/10, 25/10, −25/100, 3/1 |
/// | `00:01:02.500`, `1:02.5`     | clock: [H:]MM:SS[.fff] or M:SS[.f]       | 62500/1000, 625/10    |
/// | `90f@30`, `90f@30000/1001`   | frame count at an integer or rational rate | 90/30, 90090/30000  |
/// | `+inf`, `-inf`, `indefinite`, `invalid` | the special times (`inf`, `infinity` also) | |
///
/// Decimal and clock seconds use the smallest power-of-ten timescale that holds them exactly (`2.50s` is
/// 25/10, `2s` is 2/1); text needing more than nine decimal places is rejected rather than rounded. Parsing
/// rejects anything else: garbage, a zero, negative or over-Int32 timescale or frame rate, a value that
/// overflows Int64, and clock fields of 60 or more (other than the leading one).
///
/// `description` prints numeric times as `value/timescale`, which parses back to the same value and
/// timescale; the epoch is not printed, so only epoch-0 times round-trip through text (the Codable keyed
/// form keeps it).
extension MediaTime: CustomStringConvertible, LosslessStringConvertible {
    /// `value/timescale` for numeric times (`1001/30000`), otherwise `+inf`, `-inf`, `indefinite` or
    /// `invalid`.
    public var description: String {
        switch kind {
        case .numeric: return "\(value)/\(timescale)"
        case .positiveInfinity: return "+inf"
        case .negativeInfinity: return "-inf"
        case .indefinite: return "indefinite"
        case .invalid: return "invalid"
        }
    }

    /// `HH:MM:SS.mmm` (`00:01:02.500`, `-00:00:00.033`, `100:00:00.000`), truncated toward zero to whole
    /// milliseconds, for people; hours take as many digits as they need. Non-numeric times print as in
    /// `description`.
    public var clockString: String {
        guard kind == .numeric else { return description }
        let milliseconds = (Int128(value) * 1000 / Int128(timescale)).magnitude
        let (totalSeconds, millis) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let (totalMinutes, seconds) = totalSeconds.quotientAndRemainder(dividingBy: 60)
        let (hours, minutes) = totalMinutes.quotientAndRemainder(dividingBy: 60)
        let sign = value < 0 && milliseconds != 0 ? "-" : ""
        return "\(sign)\(Self.padded(hours, 2)):\(Self.padded(minutes, 2)):\(Self.padded(seconds, 2))."
            + Self.padded(millis, 3)
    }

    /// Parses any of the forms listed on this extension; nil for anything else.
    public init?(string: String) {
        guard let time = Self.parse(Self.trimmingWhitespace(Array(string.utf8)[...])) else { return nil }
        self = time
    }

    /// `init?(string:)`, for `LosslessStringConvertible`.
    public init?(_ description: String) {
        self.init(string: description)
    }

    private static func padded(_ number: UInt128, _ width: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    // MARK: Parsing, on UTF-8 bytes: every accepted character is ASCII.

    private typealias Bytes = ArraySlice<UInt8>

    private static func parse(_ text: Bytes) -> MediaTime? {
        switch String(decoding: text, as: UTF8.self).lowercased() {
        case "+inf", "inf", "+infinity", "infinity": return .positiveInfinity
        case "-inf", "-infinity": return .negativeInfinity
        case "indefinite": return .indefinite
        case "invalid": return .invalid
        default: break
        }
        if let at = text.firstIndex(of: UInt8(ascii: "@")) {
            return parseFrames(text[..<at], rate: text[(at + 1)...])
        }
        if text.contains(UInt8(ascii: ":")) { return parseClock(text) }
        if let slash = text.firstIndex(of: UInt8(ascii: "/")) {
            guard let value = signedInteger(text[..<slash]), let timescale = timescale(text[(slash + 1)...]) else {
                return nil
            }
            return MediaTime(value: value, timescale: timescale)
        }
        var seconds = text
        if seconds.last == UInt8(ascii: "s") { seconds = seconds.dropLast() }
        let (negative, unsigned) = splitSign(seconds)
        guard let decimal = decimal(unsigned) else { return nil }
        return make(
            negative: negative, wholeSeconds: decimal.whole, fraction: decimal.fraction,
            digits: decimal.digits)
    }

    /// `Nf@R` or `Nf@R/D`: N frames at R (or R/D) frames per second, which is N·D / R seconds.
    private static func parseFrames(_ count: Bytes, rate: Bytes) -> MediaTime? {
        guard count.last == UInt8(ascii: "f"), let frames = signedInteger(count.dropLast()) else { return nil }
        var frameDuration: Int64 = 1
        var rateNumerator = rate
        if let slash = rate.firstIndex(of: UInt8(ascii: "/")) {
            guard let denominator = unsigned(rate[(slash + 1)...]), denominator > 0,
                let fits = Int64(exactly: denominator)
            else { return nil }
            frameDuration = fits
            rateNumerator = rate[..<slash]
        }
        guard let timescale = timescale(rateNumerator) else { return nil }
        let (value, overflow) = frames.multipliedReportingOverflow(by: frameDuration)
        return overflow ? nil : MediaTime(value: value, timescale: timescale)
    }

    /// `[±]H:MM:SS[.f…]` or `[±]M:SS[.f…]`: the leading field may have any number of digits, the others
    /// exactly two and below 60.
    private static func parseClock(_ text: Bytes) -> MediaTime? {
        let (negative, body) = splitSign(text)
        let fields = body.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        guard fields.count == 2 || fields.count == 3, let secondsField = fields.last,
            secondsField.prefix(while: isDigit).count == 2,
            let seconds = decimal(secondsField), seconds.whole < 60,
            var whole = unsigned(fields[0])
        else { return nil }
        if fields.count == 3 {
            guard fields[1].count == 2, let minutes = unsigned(fields[1]), minutes < 60,
                let hoursAndMinutes = sixtyfold(whole, plus: minutes)
            else { return nil }
            whole = hoursAndMinutes
        }
        guard let total = sixtyfold(whole, plus: seconds.whole) else { return nil }
        return make(negative: negative, wholeSeconds: total, fraction: seconds.fraction, digits: seconds.digits)
    }

    /// `larger · 60 + smaller`, nil on overflow.
    private static func sixtyfold(_ larger: UInt64, plus smaller: UInt64) -> UInt64? {
        let (scaled, scaleOverflow) = larger.multipliedReportingOverflow(by: 60)
        let (sum, sumOverflow) = scaled.addingReportingOverflow(smaller)
        return scaleOverflow || sumOverflow ? nil : sum
    }

    /// `(whole · 10^digits + fraction) / 10^digits` seconds, negated when asked; nil on Int64 overflow.
    private static func make(negative: Bool, wholeSeconds: UInt64, fraction: UInt64, digits: Int) -> MediaTime? {
        var scale: UInt64 = 1
        for _ in 0..<digits { scale *= 10 }
        let (scaled, scaleOverflow) = wholeSeconds.multipliedReportingOverflow(by: scale)
        let (magnitude, sumOverflow) = scaled.addingReportingOverflow(fraction)
        guard !scaleOverflow, !sumOverflow else { return nil }
        let value: Int64
        if negative {
            guard magnitude <= Int64.min.magnitude else { return nil }
            value = Int64(truncatingIfNeeded: 0 &- magnitude)
        } else {
            guard let fits = Int64(exactly: magnitude) else { return nil }
            value = fits
        }
        return MediaTime(value: value, timescale: Int32(scale))
    }

    /// Digits, optionally followed by `.` and at least one digit; trailing fraction zeros are dropped, and
    /// at most nine significant fraction digits are accepted (10⁹ is the largest power of ten in Int32).
    private static func decimal(_ text: Bytes) -> (whole: UInt64, fraction: UInt64, digits: Int)? {
        var integerPart = text
        var fractionPart: Bytes = []
        if let dot = text.firstIndex(of: UInt8(ascii: ".")) {
            integerPart = text[..<dot]
            fractionPart = text[(dot + 1)...]
            guard !fractionPart.isEmpty else { return nil }
            guard fractionPart.allSatisfy(isDigit) else { return nil }
            while fractionPart.last == UInt8(ascii: "0") { fractionPart = fractionPart.dropLast() }
            guard fractionPart.count <= 9 else { return nil }
        }
        guard let whole = unsigned(integerPart) else { return nil }
        let fraction = fractionPart.isEmpty ? 0 : unsigned(fractionPart)!
        return (whole, fraction, fractionPart.count)
    }

    /// A timescale or frame rate: digits, 1 through Int32.max.
    private static func timescale(_ text: Bytes) -> Int32? {
        guard let number = unsigned(text), number > 0, let timescale = Int32(exactly: number) else { return nil }
        return timescale
    }

    /// `[±]digits` as Int64, nil on overflow.
    private static func signedInteger(_ text: Bytes) -> Int64? {
        let (negative, digits) = splitSign(text)
        guard let magnitude = unsigned(digits) else { return nil }
        if negative {
            guard magnitude <= Int64.min.magnitude else { return nil }
            return Int64(truncatingIfNeeded: 0 &- magnitude)
        }
        return Int64(exactly: magnitude)
    }

    /// One or more ASCII digits as UInt64, nil on overflow or any other character.
    private static func unsigned(_ text: Bytes) -> UInt64? {
        guard !text.isEmpty else { return nil }
        var number: UInt64 = 0
        for byte in text {
            guard isDigit(byte) else { return nil }
            let (shifted, shiftOverflow) = number.multipliedReportingOverflow(by: 10)
            let (next, addOverflow) = shifted.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !shiftOverflow, !addOverflow else { return nil }
            number = next
        }
        return number
    }

    private static func splitSign(_ text: Bytes) -> (negative: Bool, rest: Bytes) {
        switch text.first {
        case UInt8(ascii: "-"): return (true, text.dropFirst())
        case UInt8(ascii: "+"): return (false, text.dropFirst())
        default: return (false, text)
        }
    }

    private static func trimmingWhitespace(_ text: Bytes) -> Bytes {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) })
        else { return [] }
        return text[first...last]
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
}
