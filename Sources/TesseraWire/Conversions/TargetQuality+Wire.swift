import TesseraCore

extension Tessera_V1_TargetQuality {
    init(_ target: TargetQuality) throws(WireError) {
        self.init()
        metric = target.metric.rawValue
        value = target.value
        if let r = target.crfRange {
            crfMin = try WireValue.uint32(r.lowerBound, "task.target_quality.crf_min")
            crfMax = try WireValue.uint32(r.upperBound, "task.target_quality.crf_max")
        }
        if let cap = target.maxBitRate { maxBitRate = try WireValue.uint64(cap, "task.target_quality.max_bit_rate") }
        if let s = target.samples { samples = s }
    }
}

extension TargetQuality {
    /// - Throws: `.malformed` naming the field: an unknown metric, a value outside the metric's range, a
    ///   CRF range with one end or outside `codec`'s, a cap out of range.
    init(wire: Tessera_V1_TargetQuality, codec: VideoCodec, field: String) throws(WireError) {
        guard let metric = QualityMetric(rawValue: wire.metric) else {
            throw WireValue.malformed("\(field).metric", "is \(wire.metric.logSafe()): psnr or ssim")
        }
        guard wire.hasCrfMin == wire.hasCrfMax, !wire.hasCrfMin || wire.crfMin <= wire.crfMax,
            wire.crfMax <= 63
        else {
            throw WireValue.malformed(
                "\(field).crf_min", "and crf_max must come together, the first not above the second")
        }
        self.init(
            metric: metric, value: wire.value,
            crfRange: wire.hasCrfMin ? Int(wire.crfMin)...Int(wire.crfMax) : nil,
            maxBitRate: wire.maxBitRate == 0 ? nil : try WireValue.int(wire.maxBitRate, "\(field).max_bit_rate"),
            samples: wire.hasSamples ? wire.samples : nil)
        do throws(JobRequestError) {
            try validate(field: field, codec: codec)
        } catch {
            throw WireValue.malformed(error.field, error.message)
        }
    }
}

extension Tessera_V1_QualityProbe {
    init(_ probe: QualityProbe) throws(WireError) {
        self.init()
        (crf, rateFactor) = try WireValue.rateFactor(probe.crf, "output.probes.crf")
        value = probe.value
        bytes = try WireValue.uint64(probe.bytes, "output.probes.bytes")
        if let n = probe.sampleFrames { sampleFrames = try WireValue.uint32(n, "output.probes.sample_frames") }
    }
}

extension QualityProbe {
    /// - Parameter frames: the segment's frames, which a sample cannot exceed.
    /// - Throws: `.malformed` for a factor that is not a number 0…63, a value that is not a number, a
    ///   sample of more frames than the segment.
    public init(wire: Tessera_V1_QualityProbe, frames: Int, field: String) throws(WireError) {
        let crf = try WireValue.rateFactor(exact: wire.hasRateFactor ? wire.rateFactor : nil, crf: wire.crf, field)
        guard wire.value.isFinite, wire.value >= -1, wire.value <= QualityStats.identicalPSNR else {
            throw WireValue.malformed("\(field).value", "is \(wire.value): a PSNR or SSIM")
        }
        guard Int(exactly: wire.sampleFrames).map({ $0 <= frames }) == true else {
            throw WireValue.malformed(
                "\(field).sample_frames", "is \(wire.sampleFrames): more than the segment's \(frames) frames")
        }
        self.init(
            crf: crf, value: wire.value, bytes: try WireValue.int(wire.bytes, "\(field).bytes"),
            sampleFrames: wire.sampleFrames == 0 ? nil : Int(exactly: wire.sampleFrames))
    }
}
