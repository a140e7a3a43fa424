import CFFmpeg
import Testing
import TesseraCore
@testable import TesseraMedia

/// Ticks come from files: a timestamp whose product with the time base's numerator passes 64 bits is
/// rounded (and flagged), never trapped on; ordinary ones stay exact.
@Suite struct TickMathTests {
    @Test func exactWhereItFits() {
        let t = TickMath.time(90, AVRational(num: 1001, den: 30000))
        #expect(t == MediaTime(value: 90090, timescale: 30000))
        #expect(!t.flags.contains(.hasBeenRounded))
    }

    @Test(arguments: [Int64.max / 2, Int64.max, Int64.min / 3])
    func hugeTicksAreRoundedNotTrapped(ticks: Int64) {
        let t = TickMath.time(ticks, AVRational(num: 1001, den: 30000))
        #expect(t.isValid)
        #expect(t.flags.contains(.hasBeenRounded))
        #expect((t.seconds > 0) == (ticks > 0))
    }
}
