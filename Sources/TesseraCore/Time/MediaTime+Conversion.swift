/// Timescale conversion with explicit rounding, and the bridge to and from floating-point seconds.
extension MediaTime {
    /// This time expressed at `newTimescale`, as `CMTimeConvertScale`.
    ///
    /// The new value is `value · newTimescale / timescale`, computed exactly in 128 bits and then rounded
    /// by `method`; `.hasBeenRounded` is set when rounding changed it (or was already set). The epoch is kept.
    ///
    /// - Returns: `.invalid` when `newTimescale` is not positive. A non-numeric time unchanged.
    ///   ±∞ (with `.hasBeenRounded`) when the value does not fit in Int64 at the new timescale: the caller
    ///   asked for that timescale, so the result does not silently move to a coarser one.
    public func convertScale(_ newTimescale: Int32, method: RoundingMethod = .default) -> MediaTime {
        guard newTimescale > 0 else { return .invalid }
        guard kind == .numeric else { return self }
        if newTimescale == timescale { return self }
        return .exactly(
            Int128(value), over: Int128(timescale), atTimescale: newTimescale, rounding: method,
            coarsenOnOverflow: false, inheriting: flags, epoch: epoch)
    }

    /// A time near `seconds`, for UI input only, as `CMTimeMakeWithSeconds`.
    ///
    /// The value is `seconds · preferredTimescale` rounded half away from zero (in floating point). If that
    /// overflows Int64 the timescale is halved until it fits; at timescale 1 the result is ±∞.
    /// `.hasBeenRounded` is set when `value / timescale` is not exactly `seconds`. NaN gives `.invalid`,
    /// ±infinity gives ±∞, and a non-positive timescale gives `.invalid`.
    public init(seconds: Double, preferredTimescale: Int32) {
        guard preferredTimescale > 0, !seconds.isNaN else {
            self = .invalid
            return
        }
        if seconds.isInfinite {
            self = seconds > 0 ? .positiveInfinity : .negativeInfinity
            return
        }
        var timescale = preferredTimescale
        while true {
            if let value = Int64(exactly: (seconds * Double(timescale)).rounded(.toNearestOrAwayFromZero)) {
                let exact = Double(value) / Double(timescale) == seconds
                self.init(value: value, timescale: timescale, flags: exact ? .valid : [.valid, .hasBeenRounded])
                return
            }
            guard timescale > 1 else {
                self = (seconds > 0 ? MediaTime.positiveInfinity : .negativeInfinity).rounded()
                return
            }
            timescale /= 2
        }
    }

    /// The exact fraction `numerator / denominator` seconds expressed at `timescale`: the building block of
    /// every operation that makes a new numeric time.
    ///
    /// The value is `numerator · timescale / denominator` rounded by `method`. When it does not fit in Int64
    /// and `coarsenOnOverflow` is set, the timescale is halved until it does, as CMTimeAdd and
    /// CMTimeMultiply do; if it still does not fit at timescale 1 (or coarsening is off) the result is ±∞.
    /// `.hasBeenRounded` is set when anything was lost, and kept when `inherited` already had it.
    ///
    /// - Precondition: `denominator` is positive and below 2⁹⁶, so `remainder · timescale` cannot overflow;
    ///   `timescale` is positive.
    static func exactly(
        _ numerator: Int128, over denominator: Int128, atTimescale timescale: Int32,
        rounding method: RoundingMethod, coarsenOnOverflow: Bool, inheriting inherited: Flags,
        epoch: Int64
    ) -> MediaTime {
        precondition(denominator > 0 && denominator < (Int128(1) << 96) && timescale > 0)
        let carried: Flags = inherited.contains(.hasBeenRounded) ? [.valid, .hasBeenRounded] : .valid
        // Split off the whole seconds so that only `remainder · timescale` (< 2¹²⁷) needs forming; the whole
        // part and the rounded fraction share the numerator's sign, so rounding the fraction alone is exact.
        let (whole, remainder) = numerator.quotientAndRemainder(dividingBy: denominator)
        var scale = timescale
        while true {
            let (scaledWhole, wholeOverflows) = whole.multipliedReportingOverflow(by: Int128(scale))
            if !wholeOverflows {
                let (fraction, isExact) = ExactArithmetic.divide(
                    remainder * Int128(scale), by: denominator,
                    rounding: method,
                    losesPrecision: denominator > Int128(scale))
                var (total, totalOverflows) = scaledWhole.addingReportingOverflow(fraction)
                if method == .quickTime && total == 0 && numerator < 0 { total = -1 }
                // The QuickTime −1 only replaces an inexact zero, so `isExact` stays the whole story.
                if !totalOverflows, let value = Int64(exactly: total) {
                    return MediaTime(
                        value: value, timescale: scale,
                        flags: isExact ? carried : [.valid, .hasBeenRounded], epoch: epoch)
                }
            }
            guard coarsenOnOverflow, scale > 1 else {
                return (numerator > 0 ? MediaTime.positiveInfinity : .negativeInfinity).rounded()
            }
            scale /= 2
        }
    }

    /// The same time marked as not exact.
    func rounded() -> MediaTime {
        var copy = self
        copy.flags.insert(.hasBeenRounded)
        return copy
    }
}
