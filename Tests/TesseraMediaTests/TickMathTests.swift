import CFFmpeg
import TesseraAV
import TesseraCore
import Testing

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

    /// Timestamps near the ends of 64 bits (a crafted file) are damage the reader reports, not a trap
    /// in the range gates.
    @Test func gatesReportTimestampsAtTheEndsOf64Bits() throws {
        let audio = try Frame()
        audio.pointer.pointee.nb_samples = 1024
        audio.pts = Int64.max - 10
        var gate = AudioGate(
            range: TickRange(start: 0, end: Int64.max, offset: 0),
            streamTimeBase: AVRational(num: 1, den: 48_000), sampleRate: 48_000)
        let error = #expect(throws: MediaError.self) { _ = try gate.accept(audio) { _ in true } }
        #expect(error?.kind == .corrupt)

        let video = try Frame()
        video.pts = Int64.max - 10
        var videoGate = VideoGate(range: TickRange(start: -1_000, end: Int64.max, offset: -1_000))
        #expect(throws: MediaError.self) { _ = try videoGate.accept(video) { _ in true } }

        let range = TickRange(start: Int64.min + 5, end: Int64.max, offset: 0)
        #expect(throws: MediaError.self) { _ = try range.relative(100) }
        #expect(try TickRange(start: 10, end: 20, offset: 0).relative(15) == 5)
    }
}
