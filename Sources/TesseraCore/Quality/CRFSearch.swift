import Foundation

/// One trial encode of a segment in a rate-factor search: the factor, what it measured, what it cost.
public struct QualityProbe: Sendable, Hashable, Codable {
    /// The rate factor: tenths where the encoder takes them (x264, x265), whole steps otherwise.
    public var crf: Double
    /// The segment's value in the target's metric (dB for PSNR, 0…1 for SSIM), over the frames encoded.
    public var value: Double
    public var bytes: Int
    /// A sample probe's frames: runs across the segment (`CRFSearch.sampleRuns`), encoded alone to learn
    /// how quality follows the factor at a fraction of the cost. nil for an encode of the whole segment.
    public var sampleFrames: Int?

    public init(crf: Double, value: Double, bytes: Int, sampleFrames: Int? = nil) {
        self.crf = crf
        self.value = value
        self.bytes = bytes
        self.sampleFrames = sampleFrames
    }

    /// A factor as people read it: `23`, `13.7`.
    public static func text(_ crf: Double) -> String { String(format: "%.4g", crf) }
}

/// The search of one segment's constant rate factor for a target quality: which factor to encode next,
/// given the probes so far, and which probe to keep. The probe kept is always an encode of the whole
/// segment, delivered as it was measured: no estimate stands between the target and the result.
///
/// Quality falls about linearly with the factor when it is measured in dB (PSNR, or SSIM as
/// −10·log10(1 − SSIM)). A segment long enough first encodes two samples (a third of its frames, in three
/// runs across it) to measure that line's slope where the target lies; then whole encodes aim where the
/// line crosses the target: the first through the samples, the next between the whole encodes either
/// side of the target (else through the two nearest it). The search keeps the whole encode of fewest bytes
/// that meets the target and stops when a higher factor is known (or predicted) to miss it or would save
/// less than `worthwhile`, when the range ends, or after `maxProbes` whole encodes (av1an's default is 4
/// probes). x264 and x265 take factors in tenths (as ab-av1's `--crf-increment` does for them); the other
/// encoders whole steps.
///
/// How far the samples' line misjudged the whole segment at the factor delivered is `sampleError`.
public struct CRFSearch: Sendable {
    /// The next encode: its factor, and whether it encodes the sample runs or the whole segment.
    public struct Probe: Sendable, Hashable {
        public var crf: Double
        public var sample: Bool
    }

    public let target: TargetQuality
    public let range: ClosedRange<Double>
    /// The finest step between two factors the encoder tells apart.
    public let step: Double
    /// Encodes of the whole segment at most; the samples come on top, each a third of one.
    public let maxProbes: Int
    /// The frames of the segment's sample: three runs, each a ninth of its frames, centred at a sixth, a
    /// half and five sixths of it, so that a segment whose picture changes is sampled in each part. Empty
    /// when the segment is too short to sample.
    public let sampleRuns: [Range<Int>]
    private let start: Double
    /// dB of quality lost per factor step, before probes measure it.
    private let typicalSlope: Double
    /// The farthest a probe goes from the one it aims from, while the slope is a guess.
    private let maxJump = 10.0
    /// A higher factor is tried only when it is predicted to save at least this many factor units (about
    /// 3.5 % of the bytes with x264): a closer one costs a whole encode for less than it would save.
    private let worthwhile: Double
    public private(set) var probes: [QualityProbe] = []

    /// Segments of fewer frames are searched with whole encodes only: a sample would be too short to
    /// stand for them.
    public static let minimumSampledFrames = 45

    /// - Parameters:
    ///   - frames: the segment's frames, to choose the sample runs (when `target.samples` is not false).
    public init(
        target: TargetQuality, codec: VideoCodec, start: Int, frames: Int = 0, maxProbes: Int = 4
    ) {
        var allowed = JobRequestLimits.crf(codec)
        // x264's CRF 0 is lossless, which no rate control (so no cap) applies to.
        if target.maxBitRate != nil && codec == .h264 { allowed = 1...allowed.upperBound }
        let range = target.crfRange?.clamped(to: allowed) ?? allowed
        self.target = target
        self.range = Double(range.lowerBound)...Double(range.upperBound)
        self.maxProbes = max(1, maxProbes)
        self.start = Double(min(max(start, range.lowerBound), range.upperBound))
        let fractional = codec == .h264 || codec == .hevc
        step = fractional ? 0.1 : 1
        worthwhile = fractional ? 0.3 : 1
        // x264/x265 CRF steps are about 0.5 dB of PSNR and 0.5 to 1 dB of SSIM (as −10·log10(1 − SSIM));
        // SVT-AV1's and libvpx's 0…63 scales are finer.
        let perStep = fractional ? 0.5 : 0.3
        typicalSlope = target.metric == .ssim ? perStep * 1.3 : perStep
        if target.samples ?? true, frames >= Self.minimumSampledFrames {
            let length = frames / 9
            sampleRuns = [1, 3, 5].map { sixths in
                let first = frames * sixths / 6 - length / 2
                return first..<first + length
            }
        } else {
            sampleRuns = []
        }
    }

    func decibels(_ value: Double) -> Double { target.metric.decibels(value) }

    private func meets(_ p: QualityProbe) -> Bool { p.value >= target.value - target.metric.tolerance }

    /// Records a finished probe.
    public mutating func record(_ probe: QualityProbe) { probes.append(probe) }

    private var whole: [QualityProbe] { probes.filter { $0.sampleFrames == nil } }
    private var samples: [QualityProbe] { probes.filter { $0.sampleFrames != nil } }

    /// The slope (dB per factor unit) of the line through `a` and `b`, held to what encoders show; nil
    /// when they are at one factor or measure no slope.
    private func slope(_ a: QualityProbe, _ b: QualityProbe) -> Double? {
        guard abs(a.crf - b.crf) >= step / 2 else { return nil }
        let s = (decibels(b.value) - decibels(a.value)) / (a.crf - b.crf)
        return s.isFinite ? min(max(s, 0.05), 3) : nil
    }

    /// The slope the samples measured, if two did.
    private var sampleSlope: Double? {
        let s = samples
        return s.count >= 2 ? slope(s[0], s[1]) : nil
    }

    /// The factor, on the step's grid and rounded down (to the safer side), where the line through
    /// `reference` with `slope` crosses `goal` dB, at most `reach` away.
    private func aim(from reference: QualityProbe, slope: Double, goal: Double, reach: Double) -> Double {
        let move = ((decibels(reference.value) - goal) / slope)
        let bounded = move.isFinite ? min(max(move, -reach), reach) : 0
        return snap(reference.crf + bounded)
    }

    /// `crf` on the step's grid (rounded down) and in range.
    private func snap(_ crf: Double) -> Double {
        let grid = ((crf / step) + 1e-6).rounded(.down) * step
        let tidy = (grid * 10).rounded() / 10
        return min(max(tidy, range.lowerBound), range.upperBound)
    }

    private func probed(_ crf: Double, in list: [QualityProbe]) -> Bool {
        list.contains { abs($0.crf - crf) < step / 2 }
    }

    /// The encode to make next; nil when the search is done. The search never ends before one whole
    /// encode.
    public var next: Probe? {
        let goal = decibels(target.value)
        let whole = whole, samples = samples
        if !sampleRuns.isEmpty, whole.isEmpty, samples.count < 2 {
            guard let first = samples.first else { return Probe(crf: start, sample: true) }
            let second = aim(from: first, slope: typicalSlope, goal: goal, reach: maxJump)
            if !probed(second, in: samples) { return Probe(crf: second, sample: true) }
        }
        guard whole.count < maxProbes else { return nil }
        // The samples' slope, unless they misjudged the first whole encode by more than a dB: then they
        // stand for a different picture than the segment's (a scene that changes inside it).
        let misjudged =
            whole.first.map { w in
                samples.count >= 2
                    && abs(Self.predicted(at: w.crf, samples: samples, metric: target.metric) - decibels(w.value)) > 1
            } ?? false
        let measured = misjudged ? nil : sampleSlope
        guard !whole.isEmpty else {
            // The first whole encode: where the samples' line crosses the target, else the start. Samples
            // whose bytes do not follow the factor (a still picture) say nothing of the slope: the whole
            // encode takes the highest factor they met the target at.
            guard !samples.isEmpty else { return Probe(crf: start, sample: false) }
            if samples.count >= 2, Self.flat(samples[0].bytes, samples[1].bytes) {
                return Probe(crf: samples.filter(meets).map(\.crf).max() ?? start, sample: false)
            }
            let nearest = samples.min { abs(decibels($0.value) - goal) < abs(decibels($1.value) - goal) }!
            // Below both samples, neither meeting the target: carried past what it was measured on, the
            // line is taken no shallower than the typical slope (see below).
            var slope = measured ?? typicalSlope
            if !samples.contains(where: meets) { slope = max(slope, typicalSlope) }
            return Probe(
                crf: aim(from: nearest, slope: slope, goal: goal, reach: measured == nil ? maxJump : 63),
                sample: false)
        }
        let passing = whole.filter(meets), failing = whole.filter { !meets($0) }
        // Samples of a still picture: a whole encode that meets the target is as cheap as any.
        if !passing.isEmpty, samples.count >= 2, Self.flat(samples[0].bytes, samples[1].bytes) { return nil }
        // Three whole encodes with one that meets the target: a fourth would save little, unless it falls
        // between that one and a miss more than two factors above it (quality that drops off a cliff, as
        // light grain's does when the encoder stops keeping it), where the line is measured on both sides.
        if let top = passing.map(\.crf).max(), whole.count >= 3,
            !failing.contains(where: { $0.crf > top + 2 })
        {
            return nil
        }
        // The last two cost about the same: the bytes no longer follow the factor (a still picture, or a
        // bit-rate cap that binds), so another factor changes nothing.
        if whole.count >= 2, Self.flat(whole[whole.count - 1].bytes, whole[whole.count - 2].bytes) { return nil }
        let best = passing.map(\.crf).max()
        let worst = failing.map(\.crf).filter { f in best.map { f > $0 } ?? true }.min()
        if let best, best >= range.upperBound { return nil }
        if best == nil, let lowest = failing.map(\.crf).min(), lowest <= range.lowerBound { return nil }
        if let best, let worst, worst - best <= step * 1.5 { return nil }

        // The line through the whole encodes either side of the target, the highest that meets it and the
        // lowest above it that misses (else through the two nearest the target; else the samples' slope
        // through the nearest, else the typical slope).
        let sorted = whole.sorted { abs(decibels($0.value) - goal) < abs(decibels($1.value) - goal) }
        var reference = sorted[0]
        var slope = measured ?? typicalSlope
        var reach = measured == nil ? maxJump : 63
        if let best, let worst, let above = whole.first(where: { $0.crf == worst }),
            let below = whole.first(where: { $0.crf == best }), let s = self.slope(above, below)
        {
            (reference, slope, reach) = (above, s, 63)
        } else if let other = sorted.dropFirst().first(where: { self.slope(reference, $0) != nil }) {
            slope = self.slope(reference, other)!
            reach = 63
        }
        // The last encode allowed aims safer, on the line as measured: with none meeting the target yet a
        // whole factor lower, else half a factor (a miss there would leave the lower encode delivered).
        let last = whole.count == maxProbes - 1
        let margin = last ? (passing.isEmpty ? slope : slope / 2) : 0
        // Before it, below every encode so far and none meeting the target, the line is carried past what
        // it was measured on: a shallow one there (a picture that changes inside the segment bends the
        // curve, as light grain's does once the encoder keeps it) would send the next encode far lower than
        // needed, so it is taken no shallower than the typical slope.
        if best == nil && !last { slope = max(slope, typicalSlope) }
        var crf = aim(from: reference, slope: slope, goal: goal + margin, reach: reach)
        if let best {
            // A higher factor that would save too little, or that the line says misses: done.
            if crf - best < worthwhile { return nil }
            crf = max(crf, snap(best + step))
        }
        if let worst { crf = min(crf, snap(worst - step)) }
        return probed(crf, in: whole) ? nil : Probe(crf: crf, sample: false)
    }

    /// Whether two encodes cost about the same (within 3 %).
    private static func flat(_ a: Int, _ b: Int) -> Bool { Double(abs(a - b)) < 0.03 * Double(max(a, b, 1)) }

    /// The samples' line (through the first two) at `crf`, in dB.
    private static func predicted(at crf: Double, samples: [QualityProbe], metric: QualityMetric) -> Double {
        let (a, b) = (samples[0], samples[1])
        let slope = (metric.decibels(a.value) - metric.decibels(b.value)) / (b.crf - a.crf)
        return metric.decibels(a.value) - (slope.isFinite ? slope : 0) * (crf - a.crf)
    }

    /// The probe to deliver: the whole encode of fewest bytes that meets the target, else the best one.
    public var chosen: QualityProbe? {
        let whole = whole
        return whole.filter(meets).min { ($0.bytes, -$0.crf) < ($1.bytes, -$1.crf) }
            ?? whole.max { $0.value < $1.value }
    }

    /// How far the chosen probe falls short of the target (0 when it meets it).
    public var shortfall: Double {
        guard let chosen, !meets(chosen) else { return 0 }
        return target.value - chosen.value
    }

    /// How far the samples misjudged the delivered encode (`sampleError(of:probes:metric:)`).
    public var sampleError: Double? {
        chosen.flatMap { Self.sampleError(of: $0, probes: probes, metric: target.metric) }
    }

    /// How far a search's samples misjudged the encode `delivered`: the value on the line through the first
    /// two samples at the delivered factor, less the value measured on the whole segment, in the metric's
    /// units (positive: the samples promised more). nil without two samples at different factors.
    public static func sampleError(
        of delivered: QualityProbe, probes: [QualityProbe], metric: QualityMetric
    ) -> Double? {
        let samples = probes.filter { $0.sampleFrames != nil }
        guard samples.count >= 2, samples[0].crf != samples[1].crf else { return nil }
        let error =
            metric.value(decibels: predicted(at: delivered.crf, samples: samples, metric: metric)) - delivered.value
        return error.isFinite ? error : nil
    }
}

extension QualityMetric {
    /// The quality of `value` in dB, where it falls about linearly with the rate factor: PSNR as it is,
    /// SSIM as −10·log10(1 − SSIM).
    public func decibels(_ value: Double) -> Double {
        switch self {
        case .psnr: return value
        case .ssim: return value >= 1 ? QualityStats.identicalPSNR : -10 * log10(max(1e-10, 1 - value))
        }
    }

    /// The metric's value of `decibels` (the inverse of `decibels(_:)`).
    public func value(decibels db: Double) -> Double {
        switch self {
        case .psnr: return db
        case .ssim: return 1 - pow(10, -db / 10)
        }
    }
}
