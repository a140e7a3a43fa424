/// An exact rational number of seconds (or a rate): the currency of the retiming path.
///
/// `MediaTime` carries a 32-bit timescale, which a speed ramp's times outgrow (its source times have
/// denominators like 2·T·frameDuration²). `Rational` keeps numerator and denominator in 128 bits,
/// always reduced, denominator positive. No floating point touches a value.
///
/// Arithmetic never traps: a result that does not fit is `.invalid`, and every operation on an invalid
/// value gives `.invalid` (as NaN does), so a whole computation is checked once, at its end, with
/// `isValid`. Values from outside (a request, a file) are bounded long before that can happen; the
/// check is for the hostile case.
public struct Rational: Sendable, Hashable, CustomStringConvertible {
    public let numerator: Int128
    /// Positive in a valid value; 0 marks `.invalid`.
    public let denominator: Int128

    public static let zero = Rational(0)
    public static let one = Rational(1)
    public static let invalid = Rational(unchecked: 0, 0)

    public var isValid: Bool { denominator > 0 }

    private init(unchecked numerator: Int128, _ denominator: Int128) {
        self.numerator = numerator
        self.denominator = denominator
    }

    public init(_ integer: Int64) { self.init(unchecked: Int128(integer), 1) }

    /// `numerator / denominator`, reduced; `.invalid` when the denominator is 0.
    public init(numerator: Int128, denominator: Int128) {
        guard denominator != 0, numerator != .min, denominator != .min else {
            self = .invalid
            return
        }
        let sign: Int128 = denominator < 0 ? -1 : 1
        let g = Int128(ExactArithmetic.gcd(numerator.magnitude, denominator.magnitude))
        self.init(unchecked: sign * numerator / g, sign * denominator / g)
    }

    public init(_ numerator: Int64, _ denominator: Int64) {
        self.init(numerator: Int128(numerator), denominator: Int128(denominator))
    }

    /// A media time as a rational number of seconds; `.invalid` for a non-numeric time.
    public init(_ time: MediaTime) {
        guard time.isNumeric else {
            self = .invalid
            return
        }
        self.init(numerator: Int128(time.value), denominator: Int128(time.timescale))
    }

    public var description: String {
        guard isValid else { return "invalid" }
        return denominator == 1 ? "\(numerator)" : "\(numerator)/\(denominator)"
    }

    /// For people: display and logs only, never a timing decision.
    public var seconds: Double { isValid ? Double(numerator) / Double(denominator) : .nan }

    public var isNegative: Bool { numerator < 0 }
    public var isZero: Bool { numerator == 0 && isValid }

    // MARK: Arithmetic

    public static func + (a: Rational, b: Rational) -> Rational { combine(a, b, sign: 1) }
    public static func - (a: Rational, b: Rational) -> Rational { combine(a, b, sign: -1) }
    public static prefix func - (a: Rational) -> Rational {
        a.isValid ? Rational(unchecked: -a.numerator, a.denominator) : .invalid
    }

    public static func * (a: Rational, b: Rational) -> Rational {
        guard a.isValid, b.isValid else { return .invalid }
        // Cross-reduce first so that the products stay as small as the result allows.
        let g1 = Int128(ExactArithmetic.gcd(a.numerator.magnitude, b.denominator.magnitude))
        let g2 = Int128(ExactArithmetic.gcd(b.numerator.magnitude, a.denominator.magnitude))
        let (n1, d1) = (a.numerator / max(g1, 1), b.denominator / max(g1, 1))
        let (n2, d2) = (b.numerator / max(g2, 1), a.denominator / max(g2, 1))
        let (n, o1) = n1.multipliedReportingOverflow(by: n2)
        let (d, o2) = d2.multipliedReportingOverflow(by: d1)
        guard !o1, !o2 else { return .invalid }
        return Rational(numerator: n, denominator: d)
    }

    public static func / (a: Rational, b: Rational) -> Rational {
        guard b.isValid, b.numerator != 0 else { return .invalid }
        return a * Rational(numerator: b.denominator, denominator: b.numerator)
    }

    public static func += (a: inout Rational, b: Rational) { a = a + b }
    public static func -= (a: inout Rational, b: Rational) { a = a - b }

    private static func combine(_ a: Rational, _ b: Rational, sign: Int128) -> Rational {
        guard a.isValid, b.isValid else { return .invalid }
        let g = Int128(ExactArithmetic.gcd(a.denominator.magnitude, b.denominator.magnitude))
        let (da, db) = (a.denominator / g, b.denominator / g)
        let (x, o1) = a.numerator.multipliedReportingOverflow(by: db)
        let (y, o2) = b.numerator.multipliedReportingOverflow(by: da)
        let (n, o3) = x.addingReportingOverflow(sign * y)
        let (d, o4) = a.denominator.multipliedReportingOverflow(by: db)
        guard !o1, !o2, !o3, !o4 else { return .invalid }
        return Rational(numerator: n, denominator: d)
    }

    // MARK: Rounding

    /// The largest integer ≤ self (nil when invalid or beyond Int64).
    public var floor: Int64? { rounded(down: true) }
    /// The smallest integer ≥ self (nil when invalid or beyond Int64).
    public var ceiling: Int64? { rounded(down: false) }

    private func rounded(down: Bool) -> Int64? {
        guard isValid else { return nil }
        let (q, r) = numerator.quotientAndRemainder(dividingBy: denominator)
        let value = r == 0 ? q : (numerator < 0) == down ? q + (down ? -1 : 1) : q
        return Int64(exactly: value)
    }

    /// This time in whole ticks of `1 / timescale` s, rounded down (nil when it does not fit).
    public func ticks(timescale: Int64, roundingUp: Bool = false) -> Int64? {
        let scaled = self * Rational(timescale)
        return roundingUp ? scaled.ceiling : scaled.floor
    }
}

extension Rational: Comparable {
    /// Exact: a/b < c/d is a·d < c·b, formed in 256 bits (`multipliedFullWidth`). Invalid values sort last.
    public static func < (a: Rational, b: Rational) -> Bool {
        guard a.isValid, b.isValid else { return a.isValid && !b.isValid }
        let left = a.numerator.multipliedFullWidth(by: b.denominator)
        let right = b.numerator.multipliedFullWidth(by: a.denominator)
        return (left.high, left.low) < (right.high, right.low)
    }
}

extension Rational: Codable {
    private enum CodingKeys: String, CodingKey { case numerator, denominator }

    /// As `{"numerator": n, "denominator": d}`, each a 64-bit integer (the form time bases have always had in
    /// Tessera's JSON).
    public func encode(to encoder: any Encoder) throws {
        guard isValid, let n = Int64(exactly: numerator), let d = Int64(exactly: denominator) else {
            throw EncodingError.invalidValue(
                self, .init(codingPath: encoder.codingPath, debugDescription: "\(self) does not fit 64-bit terms"))
        }
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(n, forKey: .numerator)
        try c.encode(d, forKey: .denominator)
    }

    /// - Throws: `DecodingError.dataCorrupted` for a denominator ≤ 0.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = try c.decode(Int64.self, forKey: .denominator)
        guard d > 0 else {
            throw DecodingError.dataCorruptedError(forKey: .denominator, in: c, debugDescription: "must be positive")
        }
        self.init(try c.decode(Int64.self, forKey: .numerator), d)
    }
}
