import Foundation
import PropertyBased
import Testing

@testable import TesseraCore

/// The rate-factor search against quality models standing in for encodes: it meets the target when the
/// range can, keeps a factor close to the highest that does, stays in range, is bounded in probes, and says
/// by how much it falls short when the range cannot reach the target. Samples stand for the whole segment
/// only as well as their model says (`sampleBias`): the search still delivers a whole encode that meets the
/// target, and reports how far the samples were off.
@Suite struct CRFSearchTests {
    /// Runs the search with `quality(crf)` as each whole encode's measurement, that plus `sampleBias` dB
    /// as each sample's, and `bytes(crf)` the size (a sample's a third of it).
    static func run(
        _ target: TargetQuality, codec: VideoCodec = .h264, start: Int = 23, frames: Int = 0,
        sampleBias: Double = 0, quality: (Double) -> Double,
        // About 11 % fewer bytes a step, as x264's CRF goes (twice the factor six steps down).
        bytes: (Double) -> Int = { Int(1e6 * pow(0.89, $0)) }
    ) -> CRFSearch {
        var search = CRFSearch(target: target, codec: codec, start: start, frames: frames)
        while let next = search.next {
            #expect(search.range.contains(next.crf), "probe \(next.crf) outside \(search.range)")
            #expect(
                !search.probes.contains { $0.crf == next.crf && ($0.sampleFrames != nil) == next.sample },
                "probed \(next) twice")
            let whole = quality(next.crf)
            let measured =
                next.sample ? target.metric.value(decibels: target.metric.decibels(whole) + sampleBias) : whole
            search.record(
                QualityProbe(
                    crf: next.crf, value: measured, bytes: bytes(next.crf) / (next.sample ? 3 : 1),
                    sampleFrames: next.sample ? search.sampleRuns.reduce(0) { $0 + $1.count } : nil))
        }
        return search
    }

    static func wholeProbes(_ s: CRFSearch) -> Int { s.probes.filter { $0.sampleFrames == nil }.count }
    static func samples(_ s: CRFSearch) -> Int { s.probes.filter { $0.sampleFrames != nil }.count }

    @Test func aLinearPSNRFindsAFactorCloseToTheHighestThatMeetsIt() throws {
        // 60 dB at crf 0, 0.6 dB a step: 40 dB is reached at crf 33.3, and met (0.2 tolerance) up to 33.67.
        // A probe at 33 meets it; one at 33.3 would save less than half a step, so the search stops.
        let search = Self.run(TargetQuality(metric: .psnr, value: 40)) { 60 - 0.6 * $0 }
        let chosen = try #require(search.chosen)
        #expect(chosen.crf >= 32.8 && chosen.crf <= 33.67, "\(search.probes)")
        #expect(chosen.value >= 39.8)
        #expect(search.shortfall == 0)
        #expect(search.probes.count <= 4)
        #expect(search.probes.first?.crf == 23, "starts at the settings' factor")
        #expect(search.sampleError == nil, "a short segment is not sampled")
    }

    @Test func ssimIsSearchedOnItsDecibelScale() throws {
        // SSIM whose dB falls 0.8 a step from 30 dB at crf 10: 0.97 (15.23 dB) is reached at crf 28.46.
        let target = TargetQuality(metric: .ssim, value: 0.97)
        let model = { (crf: Double) in 1 - pow(10, -(30 - 0.8 * (crf - 10)) / 10) }
        let search = Self.run(target, quality: model)
        let chosen = try #require(search.chosen)
        #expect(chosen.value >= 0.97 - 0.002)
        #expect(chosen.crf >= 27.9 && chosen.crf <= 28.8, "\(search.probes)")
        #expect(search.probes.count <= 4)
    }

    /// SVT-AV1 and libvpx take whole factors.
    @Test func encodersWithoutFractionsAreSearchedInWholeSteps() throws {
        let search = Self.run(TargetQuality(metric: .psnr, value: 40), codec: .av1, start: 35) { 55 - 0.3 * $0 }
        #expect(search.probes.allSatisfy { $0.crf == $0.crf.rounded() }, "\(search.probes)")
        let chosen = try #require(search.chosen)
        // 40 dB at crf 50, met up to 50.67.
        #expect(chosen.crf == 50 || chosen.crf == 49, "\(search.probes)")
    }

    /// Light grain: quality hardly moves from crf 23 down to 18, then climbs steeply once the encoder keeps
    /// the grain (as x264's does on Benchmarks/quality.sh's NOISE=4 source). The first encodes below the
    /// cliff measure a flat line; once one meets the target far below, the next is aimed between it and
    /// the miss above it, not along the flat line.
    @Test func aCliffIsSearchedBetweenTheEncodesEitherSideOfIt() throws {
        let target = TargetQuality(metric: .ssim, value: 0.97)
        // dB: 12.5 at crf 23, 0.05 more a step down to 18, then 1.25 a step; 0.97 (15.23 dB) is reached at
        // crf 16.0, 0.968 at 16.2.
        let model = { (crf: Double) in
            let db = 12.5 + 0.05 * max(0, 23 - crf) + 1.2 * max(0, 18 - crf)
            return 1 - pow(10, -db / 10)
        }
        for frames in [30, 120] {
            let search = Self.run(target, frames: frames, quality: model)
            let chosen = try #require(search.chosen)
            #expect(chosen.value >= 0.968, "\(search.probes)")
            #expect(chosen.crf >= 15.4 && chosen.crf <= 16.2, "\(frames) frames: \(search.probes)")
            #expect(Self.wholeProbes(search) <= 4)
        }
    }

    @Test func anUnreachableTargetEndsAtTheBestFactorAndSaysHowShort() throws {
        var target = TargetQuality(metric: .psnr, value: 45)
        target.crfRange = 18...40
        let search = Self.run(target) { 30 - 0.5 * ($0 - 18) }
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
        let search = Self.run(
            TargetQuality(metric: .ssim, value: 0.95), quality: { _ in 1 }, bytes: { 1800 - Int($0) })
        #expect(search.probes.count == 2, "\(search.probes)")
        let capped = Self.run(
            TargetQuality(metric: .ssim, value: 0.99), quality: { _ in 0.5 }, bytes: { 90_000 - 10 * Int($0) })
        #expect(capped.probes.count == 2 && capped.shortfall > 0.4, "\(capped.probes)")
    }

    /// A segment of 120 frames: two samples of 39 frames in three runs, then whole encodes aimed by them. The
    /// samples here promise 0.6 dB more than the whole segment gives (their keyframe weighs more); the
    /// delivered encode still meets the target, and the report says how far the samples were off.
    @Test func samplesAimTheWholeEncodesAndTheirErrorIsReported() throws {
        let target = TargetQuality(metric: .ssim, value: 0.97)
        let model = { (crf: Double) in 1 - pow(10, -(30 - 0.8 * (crf - 10)) / 10) }
        let search = Self.run(target, frames: 120, sampleBias: 0.6, quality: model)
        #expect(search.sampleRuns == [14..<27, 54..<67, 94..<107])
        #expect(search.probes.prefix(2).allSatisfy { $0.sampleFrames == 39 }, "\(search.probes)")
        #expect(Self.samples(search) == 2 && Self.wholeProbes(search) <= 3, "\(search.probes)")
        let chosen = try #require(search.chosen)
        #expect(chosen.sampleFrames == nil, "a sample is never delivered")
        #expect(search.probes.contains { $0.crf != $0.crf.rounded() }, "x264 is searched in tenths: \(search.probes)")
        #expect(chosen.value >= 0.968, "\(search.probes)")
        #expect(chosen.crf >= 27.9 && chosen.crf <= 28.8, "\(search.probes)")
        // 0.6 dB at SSIM 0.97 is about +0.0039.
        let error = try #require(search.sampleError)
        #expect(error > 0.003 && error < 0.005, "\(error)")
        // Without samples, the same segment needs at least as many whole encodes.
        var off = target
        off.samples = false
        let whole = Self.run(off, frames: 120, quality: model)
        #expect(Self.samples(whole) == 0 && whole.sampleRuns.isEmpty)
        #expect(Self.wholeProbes(whole) >= Self.wholeProbes(search), "\(whole.probes) against \(search.probes)")
    }

    @Test func anyMonotoneModelIsMetWhenTheRangeCanMeetIt() async {
        let model = zip(
            Gen.int(in: 30...70), Gen.int(in: 2...30), Gen.int(in: 20...55), Gen.int(in: 0...51),
            Gen.int(in: -10...10), Gen.bool)
        await propertyCheck(count: 400, input: model) { top, slope10, goal, start, bias10, sampled in
            // PSNR falling `slope10 / 20` dB a step (0.1 to 1.5) from `top` dB at crf 0; samples off by
            // up to ±1 dB.
            let slope = Double(slope10) / 20
            let quality = { (crf: Double) in Double(top) - slope * crf }
            let target = TargetQuality(metric: .psnr, value: Double(goal))
            let search = Self.run(
                target, start: start, frames: sampled ? 90 : 30, sampleBias: Double(bias10) / 10,
                quality: quality)
            guard let chosen = search.chosen else {
                Issue.record("no probe")
                return
            }
            #expect(chosen.sampleFrames == nil)
            #expect(Self.wholeProbes(search) <= search.maxProbes && Self.samples(search) <= (sampled ? 2 : 0))
            if quality(0) >= Double(goal) - 0.2 {
                #expect(chosen.value >= Double(goal) - 0.2, "\(search.probes) for \(goal) dB")
            } else {
                #expect(search.shortfall > 0)
            }
        }
    }
}
