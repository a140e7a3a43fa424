@testable import TesseraCore

/// Slow, obviously-correct reference arithmetic that shares no code with `MediaTime`: plain Int64 on small
/// values, or quotient-and-remainder reasoning that never forms a product wider than 64 bits.
enum Reference {
    /// ⌊n / d⌋ for d > 0.
    static func floorDivide(_ n: Int64, _ d: Int64) -> Int64 {
        let quotient = n / d
        return n % d != 0 && n < 0 ? quotient - 1 : quotient
    }

    /// ⌈n / d⌉ for d > 0.
    static func ceilDivide(_ n: Int64, _ d: Int64) -> Int64 { -floorDivide(-n, d) }

    /// `n / d` rounded as `method` names it, for d > 0 and |n| well below 2⁶².
    static func divide(_ n: Int64, _ d: Int64, _ method: RoundingMethod, losesPrecision: Bool) -> Int64 {
        let towardZero = n >= 0 ? floorDivide(n, d) : ceilDivide(n, d)
        let awayFromZero = n >= 0 ? ceilDivide(n, d) : floorDivide(n, d)
        switch method {
        case .roundTowardZero: return towardZero
        case .roundAwayFromZero: return awayFromZero
        case .roundTowardPositiveInfinity: return ceilDivide(n, d)
        case .roundTowardNegativeInfinity: return floorDivide(n, d)
        case .roundHalfAwayFromZero:
            // ⌊(2|n| + d) / 2d⌋ is |n|/d rounded half up.
            return n >= 0 ? floorDivide(2 * n + d, 2 * d) : -floorDivide(-2 * n + d, 2 * d)
        case .quickTime:
            let rounded = losesPrecision ? towardZero : awayFromZero
            return rounded == 0 && n < 0 ? -1 : rounded
        }
    }

    /// −1, 0, 1 comparing two numeric epoch-0 times with any Int64 values and positive Int32 timescales,
    /// without 128-bit products: split each into whole seconds (floored) and a tick remainder in
    /// [0, timescale), compare the wholes, then the remainders (whose cross products fit in 62 bits).
    static func order(_ a: MediaTime, _ b: MediaTime) -> Int {
        func split(_ t: MediaTime) -> (whole: Int64, ticks: Int64) {
            let scale = Int64(t.timescale)
            var (whole, ticks) = t.value.quotientAndRemainder(dividingBy: scale)
            if ticks < 0 { (whole, ticks) = (whole - 1, ticks + scale) }
            return (whole, ticks)
        }
        let (x, y) = (split(a), split(b))
        if x.whole != y.whole { return x.whole < y.whole ? -1 : 1 }
        let (left, right) = (x.ticks * Int64(b.timescale), y.ticks * Int64(a.timescale))
        return left == right ? 0 : (left < right ? -1 : 1)
    }
}
