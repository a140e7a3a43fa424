import Foundation

/// One trial encode of a segment in a rate-factor search: the factor, what it measured, what it cost.
public struct QualityProbe: Sendable, Hashable, Codable {
    public var crf: Int
    /// The segment's value in the target's metric (dB for PSNR, 0…1 for SSIM).
    public var value: Double
    public var bytes: Int

    public init(crf: Int, value: Double, bytes: Int) {
        self.crf = crf
        self.value = value
        self.bytes = bytes
    }
}

/// The search of one segment's constant rate factor for a target quality: which factor to encode next,
/// given the probes so far, and which probe to keep. Every probe is a complete, measured encode of the
/// segment, so the one kept is delivered as it was measured: no estimate stands between the target and
/// the result.
///
/// Quality falls about linearly with the factor when it is measured in dB (PSNR, or SSIM as
/// −10·log10(1 − SSIM)). The first probe is at the start factor; the next is where that line, through
/// the probes nearest the target (or with a typical slope after one probe), crosses the target; the
/// search keeps the highest factor that meets the target and stops when the next factor up is known (or
/// predicted) to miss it, when the range ends, or after `maxProbes` encodes (av1an's default is 4).
public struct CRFSearch: Sendable {
    public let target: TargetQuality
    public let range: ClosedRange<Int>
    public let maxProbes: Int
    private let start: Int
    /// dB of quality lost per factor step, before two probes measure it.
    private let typicalSlope: Double
    /// The farthest the second probe goes from the first, while the slope is a guess.
    private let maxJump = 10
    public private(set) var probes: [QualityProbe] = []

    public init(target: TargetQuality, codec: VideoCodec, start: Int, maxProbes: Int = 4) {
        var allowed = JobRequestLimits.crf(codec)
        // x264's CRF 0 is lossless, which no rate control (so no cap) applies to.
        if target.maxBitRate != nil && codec == .h264 { allowed = 1...allowed.upperBound }
        let range = target.crfRange?.clamped(to: allowed) ?? allowed
        self.target = target
        self.range = range
        self.maxProbes = max(1, maxProbes)
        self.start = min(max(start, range.lowerBound), range.upperBound)
        // x264/x265 CRF steps are about 0.5 dB of PSNR and 0.5 to 1 dB of SSIM (as −10·log10(1 − SSIM));
        // SVT-AV1's and libvpx's 0…63 scales are finer.
        let perStep = codec == .h264 || codec == .hevc ? 0.5 : 0.3
        typicalSlope = target.metric == .ssim ? perStep * 1.3 : perStep
    }

    /// The quality of `value` in dB, where it falls about linearly with the factor.
    func decibels(_ value: Double) -> Double {
        switch target.metric {
        case .psnr: return value
        case .ssim: return value >= 1 ? QualityStats.identicalPSNR : -10 * log10(max(1e-10, 1 - value))
        }
    }

    private func meets(_ p: QualityProbe) -> Bool { p.value >= target.value - target.metric.tolerance }

    /// Records a finished probe.
    public mutating func record(_ probe: QualityProbe) { probes.append(probe) }

    /// The factor to encode next; nil when the search is done.
    public var next: Int? {
        guard !probes.isEmpty else { return start }
        guard probes.count < maxProbes else { return nil }
        let passing = probes.filter(meets), failing = probes.filter { !meets($0) }
        // Three encodes with one that meets the target: a fourth would save at most a step's bytes.
        if !passing.isEmpty && probes.count >= 3 { return nil }
        // The last two cost about the same: the bytes no longer follow the factor (a still picture, or a
        // bit-rate cap that binds), so another factor changes nothing.
        if probes.count >= 2 {
            let (a, b) = (probes[probes.count - 1].bytes, probes[probes.count - 2].bytes)
            if Double(abs(a - b)) < 0.03 * Double(max(a, b, 1)) { return nil }
        }
        let best = passing.map(\.crf).max()
        let worst = failing.map(\.crf).filter { f in best.map { f > $0 } ?? true }.min()
        if let best, best >= range.upperBound { return nil }
        if best == nil, let lowest = failing.map(\.crf).min(), lowest <= range.lowerBound { return nil }
        if let best, let worst, worst - best <= 1 { return nil }

        let goal = decibels(target.value)
        // The line through the probes nearest the target on either side (else the two nearest), or the
        // typical slope through the one probe.
        let sorted = probes.sorted { abs(decibels($0.value) - goal) < abs(decibels($1.value) - goal) }
        let reference = sorted[0]
        var slope = typicalSlope
        var reach = Double(maxJump)
        if let other = sorted.dropFirst().first(where: { $0.crf != reference.crf }) {
            let measured = (decibels(other.value) - decibels(reference.value)) / Double(reference.crf - other.crf)
            if measured.isFinite { slope = min(max(measured, 0.05), 3) }
            reach = 63
        }
        var step = (decibels(reference.value) - goal) / slope
        guard step.isFinite else { return nil }
        // The last probe allowed, with none meeting the target yet, aims a step lower to be sure it does.
        if passing.isEmpty && probes.count == maxProbes - 1 { step -= 1 }
        var crf = reference.crf + Int(step.clamped(to: -reach...reach).rounded(.down))
        if let best, let top = passing.first(where: { $0.crf == best }) {
            // The next factor up is predicted to miss the target: this is as far as the bits can go.
            if decibels(top.value) - slope < decibels(target.value - target.metric.tolerance) {
                return nil
            }
            crf = max(crf, best + 1)
        }
        if let worst { crf = min(crf, worst - 1) }
        crf = min(max(crf, range.lowerBound), range.upperBound)
        return probes.contains { $0.crf == crf } ? nil : crf
    }

    /// The probe to deliver: the one of fewest bytes that meets the target, else the best measured.
    public var chosen: QualityProbe? {
        probes.filter(meets).min { ($0.bytes, -$0.crf) < ($1.bytes, -$1.crf) }
            ?? probes.max { $0.value < $1.value }
    }

    /// How far the chosen probe falls short of the target (0 when it meets it).
    public var shortfall: Double {
        guard let chosen, !meets(chosen) else { return 0 }
        return target.value - chosen.value
    }
}

extension Double {
    fileprivate func clamped(to r: ClosedRange<Double>) -> Double {
        Swift.min(Swift.max(self, r.lowerBound), r.upperBound)
    }
}
