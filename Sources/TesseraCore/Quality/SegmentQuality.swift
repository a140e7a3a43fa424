/// One segment's output as its quality report lists it: where it is on the output timeline, how close it
/// came to the frames given to the encoder, and what it cost (`"quality": {"segments": [...]}`).
public struct SegmentQuality: Sendable, Hashable, Codable {
    public var index: Int
    /// Seconds on the output timeline.
    public var start: Double
    public var duration: Double
    public var frames: Int
    /// Weighted average PSNR (dB) and mean SSIM over the segment's frames.
    public var psnr: Double
    public var ssim: Double
    /// The worst frame's.
    public var minPsnr: Double
    public var minSsim: Double
    /// PSNR per plane (Y, U, V), dB.
    public var planePsnr: [Double]
    /// The constant rate factor the segment was encoded at; nil for a bit-rate encode.
    public var crf: Double?
    /// Every encode of the segment's rate-factor search, in order (empty without a target).
    public var probes: [QualityProbe]
    /// How far the search's samples misjudged the delivered encode (`CRFSearch.sampleError`); nil when
    /// the search encoded no samples.
    public var sampleError: Double?
    /// How far the segment falls short of the job's target; nil when it meets it (or there is none).
    public var shortfall: Double?
    /// Bits per second of the segment's packets.
    public var bitRate: Double
    public var bytes: Int
    /// Seconds the worker spent making the segment.
    public var encodeSeconds: Double
    /// The sums behind the figures, so segments add up to the job (`QualityReport`).
    public var stats: QualityStats

    /// The entry for a segment of `frames` frames spanning `span` seconds of the output timeline; nil when
    /// it carries no measurement.
    /// - Parameters:
    ///   - crf: the factor a search chose; nil takes `rateControl`'s.
    ///   - target: the quality the job asked for.
    public init?(
        index: Int, stats: QualityStats?, frames: Int, span: ClosedRange<Double>, bytes: Int, encodeSeconds: Double,
        rateControl: RateControl, crf chosen: Double? = nil, probes: [QualityProbe] = [],
        target: TargetQuality? = nil
    ) {
        guard let stats, stats.frames > 0 else { return nil }
        self.index = index
        start = span.lowerBound.rounded(places: 6)
        duration = (span.upperBound - span.lowerBound).rounded(places: 6)
        self.frames = frames
        psnr = stats.psnr.rounded(places: 4)
        ssim = stats.ssim.rounded(places: 6)
        minPsnr = stats.minPSNR.rounded(places: 4)
        minSsim = stats.minSSIM.rounded(places: 6)
        planePsnr = stats.planePSNR.map { $0.rounded(places: 4) }
        if case .crf(let q) = rateControl { crf = chosen ?? Double(q) } else { crf = chosen }
        self.probes = probes.map { p in
            var rounded = p
            rounded.value = p.value.rounded(places: 6)
            return rounded
        }
        sampleError = target.flatMap { t in
            chosen.flatMap { c in
                probes.last { $0.sampleFrames == nil && $0.crf == c }.flatMap {
                    CRFSearch.sampleError(of: $0, probes: probes, metric: t.metric)?.rounded(places: 6)
                }
            }
        }
        shortfall = target.flatMap { t in
            t.isMet(by: stats) ? nil : (t.value - t.metric.value(of: stats)).rounded(places: 6)
        }
        self.bytes = bytes
        bitRate = duration > 0 ? (Double(bytes) * 8 / duration).rounded() : 0
        self.encodeSeconds = encodeSeconds.rounded(places: 3)
        self.stats = stats
    }

    /// The entry for a finished segment; nil when it carries no measurement.
    /// - Parameter timeBase: the time base of the segment's packets.
    public init?(_ output: SegmentOutput, timeBase: Rational, rateControl: RateControl, target: TargetQuality?) {
        self.init(
            index: output.index, stats: output.quality, frames: output.frames,
            span: Self.span(output.packets.lazy.map { ($0.pts, $0.duration) }, timeBase: timeBase) ?? 0...0,
            bytes: output.payloadBytes, encodeSeconds: output.seconds, rateControl: rateControl, crf: output.crf,
            probes: output.probes, target: target)
    }

    /// Seconds from the first packet's presentation to the end of the last one shown, for packets given as
    /// (pts, duration) in `timeBase`; nil for no packets or an invalid time base. Times from a worker are
    /// compared and subtracted in Double, so no value can trap.
    public static func span(
        _ packets: some Sequence<(pts: Int64, duration: Int64)>, timeBase: Rational
    ) -> ClosedRange<Double>? {
        var first = Int64.max, end = -Double.infinity
        for (pts, duration) in packets {
            first = min(first, pts)
            end = max(end, Double(pts) + Double(max(0, duration)))
        }
        guard first != Int64.max, timeBase.isValid else { return nil }
        let seconds = timeBase.seconds, start = Double(first) * seconds
        return start...max(start, end * seconds)
    }
}

/// The quality of a job's output, segment by segment and as a whole (`--json`'s `"quality"`, a job's
/// status). The whole is computed from the segments' sums, as FFmpeg's filters would report the file.
public struct QualityReport: Sendable, Hashable, Codable {
    public var segments: [SegmentQuality]
    public var psnr: Double
    public var ssim: Double
    public var minPsnr: Double
    public var minSsim: Double
    /// The quality asked for (`ssim:0.97`), when one was.
    public var target: String?
    /// The segments that fell short of it (by `shortfall`): the rate-factor range could not reach it.
    public var short: [Int]
    /// Probes encoded over the job (whole encodes of their segment and samples), and the frames they
    /// encoded over the frames delivered: the search's cost in encodes.
    public var probes: Int
    public var encodesPerFrame: Double
    /// The largest error of a search's samples against the whole encode delivered (`SegmentQuality`'s
    /// `sampleError`), by size, sign kept; nil when no search sampled.
    public var worstSampleError: Double?

    /// nil when no segment was measured.
    public init?(segments: [SegmentQuality], target: TargetQuality? = nil) {
        guard !segments.isEmpty else { return nil }
        var total = QualityStats(peak: segments[0].stats.peak)
        for s in segments { total.add(s.stats) }
        self.segments = segments.sorted { $0.index < $1.index }
        psnr = total.psnr.rounded(places: 4)
        ssim = total.ssim.rounded(places: 6)
        minPsnr = total.minPSNR.rounded(places: 4)
        minSsim = total.minSSIM.rounded(places: 6)
        self.target = target?.description
        short = self.segments.filter { $0.shortfall != nil }.map(\.index)
        probes = segments.reduce(0) { $0 + $1.probes.count }
        let frames = segments.reduce(0) { $0 + $1.frames }
        let encoded = segments.reduce(0) { sum, s in
            sum + (s.probes.isEmpty ? s.frames : s.probes.reduce(0) { $0 + ($1.sampleFrames ?? s.frames) })
        }
        encodesPerFrame = frames > 0 ? (Double(encoded) / Double(frames)).rounded(places: 3) : 0
        worstSampleError = segments.compactMap(\.sampleError).max { abs($0) < abs($1) }
    }
}

extension QualityReport {
    /// One line for people: the whole's figures, and against the target what was met and what it cost.
    public var summary: String {
        var text = String(
            format: "PSNR %.2f dB, SSIM %.4f (worst frame %.2f dB, %.4f)", psnr, ssim, minPsnr, minSsim)
        if let target {
            let met = segments.count - short.count
            text += "; target \(target) met by \(met) of \(segments.count) segments"
            let crfs = segments.compactMap(\.crf)
            if let low = crfs.min(), let high = crfs.max() {
                let (l, h) = (QualityProbe.text(low), QualityProbe.text(high))
                text += low == high ? ", CRF \(l)" : ", CRF \(l)–\(h)"
            }
            text += String(format: ", %.2f encodes per frame", encodesPerFrame)
            if !short.isEmpty {
                let worst = segments.compactMap(\.shortfall).max() ?? 0
                text +=
                    "; short: segment\(short.count > 1 ? "s" : "") "
                    + short.map(String.init).joined(separator: ", ") + " (by up to \(worst.rounded(places: 4)))"
            }
        }
        return text
    }
}
