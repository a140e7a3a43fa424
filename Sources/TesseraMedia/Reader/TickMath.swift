import CFFmpeg
import TesseraCore

/// Exact conversions between `MediaTime` and a stream's integer ticks (`time_base`), with 128-bit
/// intermediates so no timescale combination overflows or rounds twice.
enum TickMath {
    /// ⌈(a/b) / (num/den)⌉ for a rational time a/b.
    static func ceilTicks(numerator a: Int128, denominator b: Int128, _ tb: AVRational) -> Int64 {
        let n = a * Int128(tb.den), d = b * Int128(tb.num)
        var q = n / d
        if n % d != 0 && (n > 0) == (d > 0) { q += 1 }
        return Int64(clamping: q)
    }

    /// The first tick at or after `t`.
    static func ceilTicks(_ t: MediaTime, _ tb: AVRational) -> Int64 {
        ceilTicks(numerator: Int128(t.value), denominator: Int128(t.timescale), tb)
    }

    /// The first tick at or after `start + duration`, computed without rounding the sum.
    static func ceilTicks(_ start: MediaTime, plus duration: MediaTime, _ tb: AVRational) -> Int64 {
        let a = Int128(start.value) * Int128(duration.timescale) + Int128(duration.value) * Int128(start.timescale)
        return ceilTicks(numerator: a, denominator: Int128(start.timescale) * Int128(duration.timescale), tb)
    }

    /// A tick count as exact media time in the stream's time base. Ticks come from files: where
    /// ticks × numerator does not fit in 64 bits, `Asset.time` rounds to microseconds instead of trapping.
    static func time(_ ticks: Int64, _ tb: AVRational) -> MediaTime {
        if tb.num == 1 { return MediaTime(value: ticks, timescale: tb.den) }
        let (value, overflow) = ticks.multipliedReportingOverflow(by: Int64(tb.num))
        return overflow ? Asset.time(ticks, in: tb) : MediaTime(value: value, timescale: tb.den)
    }
}
