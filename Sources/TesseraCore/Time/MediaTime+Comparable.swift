/// Order, equality and hashing, following `CMTimeCompare`.
///
/// The order is total, so times can be sorted and used as keys whatever their kind:
///
///     −∞  <  numeric  <  indefinite  <  +∞  <  invalid
///
/// - Numeric times compare by epoch first (a larger epoch is always later), then by exact value:
///   `a/b` against `c/d` is `a·d` against `c·b`, formed in 128 bits, so no timescale or value can
///   overflow it and no floating point is involved. `1/2 == 2/4`.
/// - All invalid times are equal to one another and greater than everything else; likewise all
///   indefinite times, all +∞ and all −∞ are equal among themselves whatever their value, timescale
///   or epoch. (CMTimeCompare documents exactly this order; invalid sorts *last*, not first.)
/// - `.hasBeenRounded` does not take part: a rounded time equals the exact time with the same value.
///
/// Hashing agrees with `==`: a numeric time hashes its epoch and its value in lowest terms, any
/// other time only its kind.
extension MediaTime: Comparable {
    /// The five kinds of time, in `CMTimeCompare`'s order.
    enum Kind: Int, Comparable {
        case negativeInfinity, numeric, indefinite, positiveInfinity, invalid

        static func < (lhs: Kind, rhs: Kind) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// This time's kind. A garbage flag combination (say both infinities) is read in the order the
    /// checks below run, so every bit pattern still has exactly one kind.
    var kind: Kind {
        guard isValid else { return .invalid }
        if flags.contains(.positiveInfinity) { return .positiveInfinity }
        if flags.contains(.negativeInfinity) { return .negativeInfinity }
        if flags.contains(.indefinite) { return .indefinite }
        return timescale > 0 ? .numeric : .invalid
    }

    /// −1, 0 or 1 as `lhs` is less than, equal to or greater than `rhs`, as `CMTimeCompare`.
    static func order(_ lhs: MediaTime, _ rhs: MediaTime) -> Int {
        let (lhsKind, rhsKind) = (lhs.kind, rhs.kind)
        if lhsKind != rhsKind { return lhsKind < rhsKind ? -1 : 1 }
        guard lhsKind == .numeric else { return 0 }
        if lhs.epoch != rhs.epoch { return lhs.epoch < rhs.epoch ? -1 : 1 }
        if lhs.timescale == rhs.timescale { return lhs.value == rhs.value ? 0 : (lhs.value < rhs.value ? -1 : 1) }
        // Both timescales are positive, so cross-multiplying keeps the order. Each product needs up to
        // 94 bits; the full-width (high, low) pair compares as a 128-bit two's-complement number.
        let left = lhs.value.multipliedFullWidth(by: Int64(rhs.timescale))
        let right = rhs.value.multipliedFullWidth(by: Int64(lhs.timescale))
        if left.high != right.high { return left.high < right.high ? -1 : 1 }
        if left.low != right.low { return left.low < right.low ? -1 : 1 }
        return 0
    }

    /// Earlier in the order above (`CMTimeCompare(lhs, rhs) < 0`).
    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool { order(lhs, rhs) < 0 }

    /// Equal in `CMTimeCompare`'s sense: the same instant (`1/2 == 2/4`), or the same non-numeric kind.
    public static func == (lhs: MediaTime, rhs: MediaTime) -> Bool { order(lhs, rhs) == 0 }

    /// Hashes what `==` looks at: kind, and for numeric times the epoch and the value in lowest terms.
    public func hash(into hasher: inout Hasher) {
        let kind = self.kind
        hasher.combine(kind)
        guard kind == .numeric else { return }
        let terms = lowestTerms
        hasher.combine(epoch)
        hasher.combine(terms.value)
        hasher.combine(terms.timescale)
    }

    /// Value and timescale divided by their greatest common divisor (numeric times only); zero is 0/1.
    var lowestTerms: (value: Int64, timescale: Int32) {
        // The divisor divides the timescale, so it is at least 1 and fits in Int32.
        let divisor = ExactArithmetic.gcd(value.magnitude, UInt64(timescale))
        return (value / Int64(divisor), timescale / Int32(divisor))
    }

    /// The lesser of two times in the order above; `a` when they are equal, as `CMTimeMinimum`.
    public static func minimum(_ a: MediaTime, _ b: MediaTime) -> MediaTime { b < a ? b : a }

    /// The greater of two times in the order above; `a` when they are equal, as `CMTimeMaximum`.
    public static func maximum(_ a: MediaTime, _ b: MediaTime) -> MediaTime { b > a ? b : a }
}
