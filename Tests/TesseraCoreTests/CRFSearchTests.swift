import Foundation
import PropertyBased
import Testing

@testable import TesseraCore

/// The rate-factor search against quality models standing in for encodes: it meets the target when the
/// range can, keeps the highest factor that does (within a step), stays in range, is bounded in probes,
/// and says by how much it falls short when the range cannot reach the target.
@Suite struct CRFSearchTests {
    /// Runs the search with `quality(crf)` as each probe's measurement and `bytes(crf)` its size.
    static func run(
        _ target: TargetQuality, codec: VideoCodec = .h264, start: Int = 23, quality: (Int) -> Double,
        // About 11 % fewer bytes a step, as x264's CRF goes (twice the factor six steps down).
        bytes: (Int) -> Int = { Int(1e6 * pow(0.89, Double($0))) }
    ) -> CRFSearch {
        var search = CRFSearch(target: target, codec: codec, start: start)
        while let crf = search.next {
            #expect(search.range.contains(crf), "probe \(crf) outside \(search.range)")
            #expect(!search.probes.contains { $0.crf == crf }, "probed \(crf) twice")
            search.record(QualityProbe(crf: crf, value: quality(crf), bytes: bytes(crf)))
        }
        return search
    }

    @Test func aLinearPSNRFindsTheHighestFactorThatMeetsIt() throws {
        // 60 dB at crf 0, 0.6 dB a step: 40 dB is met up to crf 33 (40.2), not at 34 (39.6; 0.2 tolerance
        // counts 39.8 and up).
        let search = Self.run(TargetQuality(metric: .psnr, value: 40)) { 60 - 0.6 * Double($0) }
        let chosen = try #require(search.chosen)
        #expect(chosen.crf >= 32 && chosen.crf <= 33, "\(search.probes)")
        #expect(chosen.value >= 39.8)
        #expect(search.shortfall == 0)
        #expect(search.probes.count <= 4)
        #expect(search.probes.first?.crf == 23, "starts at the settings' factor")
    }

    @Test func ssimIsSearchedOnItsDecibelScale() throws {
        // SSIM whose dB falls 0.8 a step from 30 dB at crf 10: 0.97 (15.2 dB) is met up to crf 28.
        let target = TargetQuality(metric: .ssim, value: 0.97)
        let model = { (crf: Int) in 1 - pow(10, -(30 - 0.8 * Double(crf - 10)) / 10) }
        let search = Self.run(target, quality: model)
        let chosen = try #require(search.chosen)
        #expect(chosen.value >= 0.97 - 0.002)
        #expect(chosen.crf >= 27 && chosen.crf <= 28, "\(search.probes)")
        #expect(search.probes.count <= 4)
    }

    @Test func anUnreachableTargetEndsAtTheBestFactorAndSaysHowShort() throws {
        var target = TargetQuality(metric: .psnr, value: 45)
        target.crfRange = 18...40
        let search = Self.run(target) { 30 - 0.5 * Double($0 - 18) }
        let chosen = try #require(search.chosen)
        #expect(chosen.crf == 18, "\(search.probes)")
        #expect(abs(search.shortfall - 15) < 1e-9)
        #expect(search.probes.count <= 4)
    }

    @Test func anEasyTargetEndsAtTheTopOfTheRange() throws {
        var target = TargetQuality(metric: .ssim, value: 0.9)
        target.crfRange = 20...35
        let search = Self.run(target) { _ in 0.999 }
        #expect(search.chosen?.crf == 35, "\(search.probes)")
        #expect(search.shortfall == 0)
    }

    /// A still picture, or a bit-rate cap that binds: the bytes stop following the factor.
    @Test func theSearchStopsWhenTheBytesNoLongerFollowTheFactor() {
        let search = Self.run(TargetQuality(metric: .ssim, value: 0.95), quality: { _ in 1 }, bytes: { 1800 - $0 })
        #expect(search.probes.count == 2, "\(search.probes)")
        let capped = Self.run(
            TargetQuality(metric: .ssim, value: 0.99), quality: { _ in 0.5 }, bytes: { 90_000 - 10 * $0 })
        #expect(capped.probes.count == 2 && capped.shortfall > 0.4, "\(capped.probes)")
    }

    @Test func anyMonotoneModelIsMetWhenTheRangeCanMeetIt() async {
        let model = zip(Gen.int(in: 30...70), Gen.int(in: 2...30), Gen.int(in: 20...55), Gen.int(in: 0...51))
        await propertyCheck(count: 400, input: model) { top, slope10, goal, start in
            // PSNR falling `slope10 / 20` dB a step (0.1 to 1.5) from `top` dB at crf 0.
            let quality = { (crf: Int) in Double(top) - Double(slope10) / 20 * Double(crf) }
            let target = TargetQuality(metric: .psnr, value: Double(goal))
            let search = Self.run(target, start: start, quality: quality)
            guard let chosen = search.chosen else {
                Issue.record("no probe")
                return
            }
            #expect(search.probes.count <= search.maxProbes)
            if quality(0) >= Double(goal) - 0.2 {
                #expect(chosen.value >= Double(goal) - 0.2, "\(search.probes) for \(goal) dB")
            } else {
                #expect(search.shortfall > 0)
            }
        }
    }
}
