/// Addition, subtraction, negation and scaling, following `CMTimeAdd`, `CMTimeSubtract`,
/// `CMTimeMultiply` and `CMTimeMultiplyByRatio`.
///
/// Non-numeric operands:
///
/// - invalid with anything gives invalid;
/// - one infinity gives that infinity; +∞ + +∞ = +∞, −∞ + −∞ = −∞, and +∞ + −∞ = invalid
///   (subtraction adds the negated right operand, so +∞ − +∞ = invalid and +∞ − −∞ = +∞);
/// - otherwise indefinite with anything gives indefinite.
///
/// Epochs of numeric operands: epoch 0 is a duration and combines with any epoch, keeping the other one;
/// two times in the same epoch give a result in epoch 0 (for subtraction, the duration between them);
/// different non-zero epochs give invalid, since an epoch's length is unknown. A duration minus a time in a
/// non-zero epoch is also invalid.
extension MediaTime {
    /// The sum, as `CMTimeAdd`.
    ///
    /// The result timescale is the operands' timescale when they agree, else their least common multiple
    /// when it fits in Int32 (the sum is then exact), else the larger of the two, with the sum rounded
    /// half away from zero and `.hasBeenRounded` set. If the value overflows Int64 the timescale is halved
    /// until it fits, and at timescale 1 the result is ±∞. `.hasBeenRounded` is also inherited from either
    /// operand.
    public static func + (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        combine(lhs, rhs, subtracting: false)
    }

    /// The difference, as `CMTimeSubtract`; timescale and rounding as for `+`.
    public static func - (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        combine(lhs, rhs, subtracting: true)
    }

    /// `lhs = lhs + rhs`.
    public static func += (lhs: inout MediaTime, rhs: MediaTime) { lhs = lhs + rhs }

    /// `lhs = lhs - rhs`.
    public static func -= (lhs: inout MediaTime, rhs: MediaTime) { lhs = lhs - rhs }

    /// The negated time: ±∞ swap, indefinite and invalid stay. The timescale is kept, except for a value of
    /// `Int64.min`, whose negation only fits at a coarser timescale (rounded, as `+` would).
    public static prefix func - (time: MediaTime) -> MediaTime {
        switch time.kind {
        case .invalid, .indefinite:
            return time
        case .positiveInfinity:
            return .negativeInfinity
        case .negativeInfinity:
            return .positiveInfinity
        case .numeric:
            if time.value != .min {
                var negated = time
                negated.value = -time.value
                return negated
            }
            return .exactly(
                -Int128(time.value), over: Int128(time.timescale), atTimescale: time.timescale,
                rounding: .default, coarsenOnOverflow: true, inheriting: time.flags, epoch: time.epoch)
        }
    }

    /// The magnitude of this time, as `CMTimeAbsoluteValue`: −∞ becomes +∞, and a negative numeric time is
    /// negated; anything else is returned unchanged.
    public var absolute: MediaTime {
        switch kind {
        case .negativeInfinity: return .positiveInfinity
        case .numeric where value < 0: return -self
        default: return self
        }
    }

    /// This time multiplied by an integer, as `CMTimeMultiply`.
    ///
    /// The timescale is kept; if the value overflows Int64 the timescale is halved until it fits (rounding
    /// half away from zero, setting `.hasBeenRounded`), and at timescale 1 the result is ±∞. An infinity
    /// keeps or swaps its sign with the factor's; ∞ · 0 is invalid. Indefinite and invalid are kept.
    public func multiplied(by factor: Int64) -> MediaTime {
        guard let scaled = scaledNonNumeric(sign: factor.signum()) else {
            return .exactly(
                Int128(value) * Int128(factor), over: Int128(timescale), atTimescale: timescale,
                rounding: .default, coarsenOnOverflow: true, inheriting: flags, epoch: epoch)
        }
        return scaled
    }

    /// This time multiplied by the fraction `numerator / denominator`, as `CMTimeMultiplyByRatio`: for
    /// mapping times through a rate, such as a scaled edit's source/target duration.
    ///
    /// The exact product is kept whenever a `MediaTime` can hold it: at this time's timescale when that is
    /// enough, else at the least common multiple of this timescale and the product's reduced denominator
    /// when that fits in Int32. Only when it does not is the product rounded by `rounding` to this time's
    /// timescale (halving the timescale further on Int64 overflow, then ±∞), with `.hasBeenRounded` set.
    ///
    /// - Returns: `.invalid` when `denominator` is zero or for ∞ · 0. An infinity's sign follows the
    ///   fraction's; indefinite and invalid are kept.
    public func multiplied(
        by numerator: Int64, dividedBy denominator: Int64,
        rounding: RoundingMethod = .default
    ) -> MediaTime {
        guard denominator != 0 else { return .invalid }
        guard let scaled = scaledNonNumeric(sign: numerator.signum() * denominator.signum()) else {
            var top = Int128(value) * Int128(numerator)  // < 2¹²⁶
            var bottom = Int128(timescale) * Int128(denominator)  // < 2⁹⁴, so within `exactly`'s bound
            if bottom < 0 { (top, bottom) = (-top, -bottom) }
            let divisor = Int128(ExactArithmetic.gcd(top.magnitude, bottom.magnitude))
            (top, bottom) = (top / divisor, bottom / divisor)
            // lcm(timescale, bottom) is a multiple of both, so the product is exact there.
            let common =
                Int128(timescale) / Int128(ExactArithmetic.gcd(UInt128(timescale), bottom.magnitude))
                * bottom
            let target = common <= Int128(Int32.max) ? Int32(common) : timescale
            return .exactly(
                top, over: bottom, atTimescale: target, rounding: rounding, coarsenOnOverflow: true,
                inheriting: flags, epoch: epoch)
        }
        return scaled
    }

    /// `lhs.multiplied(by: rhs)`.
    public static func * (lhs: MediaTime, rhs: Int64) -> MediaTime { lhs.multiplied(by: rhs) }

    /// The result of scaling a non-numeric time by a factor of the given sign, or nil for a numeric time.
    private func scaledNonNumeric(sign: Int64) -> MediaTime? {
        switch kind {
        case .numeric:
            return nil
        case .invalid, .indefinite:
            return self
        case .positiveInfinity, .negativeInfinity:
            if sign == 0 { return .invalid }
            return sign > 0 ? self : -self
        }
    }

    /// Sum or difference of two times, with the rules in this extension's comment.
    private static func combine(_ lhs: MediaTime, _ rhs: MediaTime, subtracting: Bool) -> MediaTime {
        let lhsKind = lhs.kind
        // Subtraction adds the negation, which for non-numeric kinds only swaps the infinities.
        var rhsKind = rhs.kind
        if subtracting && rhsKind == .positiveInfinity {
            rhsKind = .negativeInfinity
        } else if subtracting && rhsKind == .negativeInfinity {
            rhsKind = .positiveInfinity
        }
        switch (lhsKind, rhsKind) {
        case (.invalid, _), (_, .invalid),
            (.positiveInfinity, .negativeInfinity), (.negativeInfinity, .positiveInfinity):
            return .invalid
        case (.positiveInfinity, _), (_, .positiveInfinity):
            return .positiveInfinity
        case (.negativeInfinity, _), (_, .negativeInfinity):
            return .negativeInfinity
        case (.indefinite, _), (_, .indefinite):
            return .indefinite
        case (.numeric, .numeric):
            break
        }

        guard let epoch = resultEpoch(lhs.epoch, rhs.epoch, subtracting: subtracting) else { return .invalid }
        let inherited = lhs.flags.union(rhs.flags)
        let rhsSign: Int128 = subtracting ? -1 : 1
        if lhs.timescale == rhs.timescale {
            let sum = Int128(lhs.value) + rhsSign * Int128(rhs.value)
            return .exactly(
                sum, over: Int128(lhs.timescale), atTimescale: lhs.timescale, rounding: .default,
                coarsenOnOverflow: true, inheriting: inherited, epoch: epoch)
        }
        // Both timescales are below 2³¹, so their lcm is below 2⁶² and each scaled value below 2⁹⁴.
        let common =
            Int64(lhs.timescale) / Int64(ExactArithmetic.gcd(UInt64(lhs.timescale), UInt64(rhs.timescale)))
            * Int64(rhs.timescale)
        let sum =
            Int128(lhs.value) * Int128(common / Int64(lhs.timescale))
            + rhsSign * Int128(rhs.value) * Int128(common / Int64(rhs.timescale))
        let target = common <= Int64(Int32.max) ? Int32(common) : max(lhs.timescale, rhs.timescale)
        return .exactly(
            sum, over: Int128(common), atTimescale: target, rounding: .default, coarsenOnOverflow: true,
            inheriting: inherited, epoch: epoch)
    }

    /// The epoch of a sum or difference, or nil when the operands' epochs cannot be combined.
    private static func resultEpoch(_ lhs: Int64, _ rhs: Int64, subtracting: Bool) -> Int64? {
        if lhs == rhs { return 0 }
        if rhs == 0 { return lhs }
        if lhs == 0 && !subtracting { return rhs }
        return nil
    }
}
