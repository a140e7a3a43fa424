/// 128-bit integer helpers behind `MediaTime`'s exact arithmetic.
///
/// Every timing operation reduces to "this exact fraction, expressed at that timescale". The products
/// involved (an Int64 value times an Int32 timescale, or times an Int64 factor) need up to 127 bits, so
/// they are formed in `Int128` and only the final value is narrowed back to Int64. No floating point.
enum ExactArithmetic {
    /// Greatest common divisor (Euclid); `gcd(0, 0) == 0`.
    static func gcd(_ a: UInt128, _ b: UInt128) -> UInt128 {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }

    /// Greatest common divisor of two 64-bit magnitudes; `gcd(0, 0) == 0`.
    static func gcd(_ a: UInt64, _ b: UInt64) -> UInt64 {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }

    /// `numerator / denominator` rounded to an integer as `method` says.
    ///
    /// - Parameters:
    ///   - denominator: Must be positive.
    ///   - losesPrecision: Whether the division converts to a coarser timescale; only `.quickTime` reads it.
    ///     QuickTime's "never round a negative time to zero" rule is not applied here, because callers
    ///     divide only the fractional part of a larger value; `MediaTime.exactly` applies it to the total.
    static func divide(
        _ numerator: Int128, by denominator: Int128, rounding method: RoundingMethod,
        losesPrecision: Bool
    ) -> (quotient: Int128, isExact: Bool) {
        precondition(denominator > 0, "denominator must be positive")
        let (truncated, remainder) = numerator.quotientAndRemainder(dividingBy: denominator)
        guard remainder != 0 else { return (truncated, true) }
        // The remainder has the numerator's sign, so "away from zero" is one more step in that sign.
        let away = truncated + (numerator < 0 ? -1 : 1)
        switch method {
        case .roundTowardZero:
            return (truncated, false)
        case .roundAwayFromZero:
            return (away, false)
        case .roundTowardPositiveInfinity:
            return (numerator > 0 ? away : truncated, false)
        case .roundTowardNegativeInfinity:
            return (numerator < 0 ? away : truncated, false)
        case .roundHalfAwayFromZero:
            // |r| ≥ d − |r| is |r| / d ≥ ½ without forming 2·|r|, which could overflow.
            return (remainder.magnitude >= denominator.magnitude - remainder.magnitude ? away : truncated, false)
        case .quickTime:
            return (losesPrecision ? truncated : away, false)
        }
    }
}
