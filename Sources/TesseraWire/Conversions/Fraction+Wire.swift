import TesseraCore

extension Tessera_V1_Rational {
    public init(_ fraction: Fraction) {
        self.init()
        num = Int64(fraction.numerator)
        den = Int64(fraction.denominator)
    }

    /// What a time base, frame rate or ratio on the wire may hold.
    enum Rule {
        /// Both terms positive (time bases, rates of time).
        case positive
        /// Numerator ≥ 0, denominator > 0 (0/1 is "unknown" for frame rates and aspect ratios).
        case nonNegative
    }

    /// - Throws: `.malformed` naming `field` for a denominator ≤ 0, a numerator the rule forbids, or a
    ///   term past 32 bits (every Rational on the wire becomes an `AVRational` of two Int32s).
    func validate(_ field: String, _ rule: Rule) throws(WireError) {
        guard den > 0 else {
            throw WireValue.malformed(field, "is \(num)/\(den): zero or negative denominator")
        }
        guard Int32(exactly: num) != nil, Int32(exactly: den) != nil else {
            throw WireValue.malformed(field, "is \(num)/\(den): a term does not fit 32 bits")
        }
        switch rule {
        case .positive where num <= 0: throw WireValue.malformed(field, "is \(num)/\(den): must be positive")
        case .nonNegative where num < 0: throw WireValue.malformed(field, "is \(num)/\(den): must not be negative")
        default: break
        }
    }
}

extension Fraction {
    /// - Throws: `.malformed` naming `field` for a denominator ≤ 0 (the wire's one rule for every
    ///   Rational; time bases and rates must also be positive, which the messages holding them check).
    public init(wire: Tessera_V1_Rational, field: String = "rational") throws(WireError) {
        guard wire.den > 0 else {
            throw WireValue.malformed(field, "is \(wire.num)/\(wire.den): zero or negative denominator")
        }
        self.init(unchecked: wire)
    }

    /// For callers that validated the message the Rational sits in.
    init(unchecked wire: Tessera_V1_Rational) {
        self.init(Int(wire.num), Int(wire.den))
    }
}
