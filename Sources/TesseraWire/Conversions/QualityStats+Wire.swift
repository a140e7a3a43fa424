import TesseraCore

extension Tessera_V1_SegmentQuality {
    init(_ stats: QualityStats) throws(WireError) {
        self.init()
        frames = try WireValue.uint32(stats.frames, "output.quality.frames")
        peak = stats.peak
        mseSum = stats.mseSum
        planeMseSums = stats.planeMSESums
        ssimSum = stats.ssimSum
        worstMse = stats.worstMSE
        minSsim = stats.minSSIM
    }
}

extension QualityStats {
    /// A worker's figures for its segment of `frames` frames.
    /// - Throws: `.malformed` naming the field for a count that is not the output's, a peak that is not
    ///   2ⁿ − 1 for 8 to 16 bits, an error that is negative, not a number or past what the peak allows, an
    ///   SSIM outside −1…1, more than four planes.
    public init(wire: Tessera_V1_SegmentQuality, frames: Int, field: String) throws(WireError) {
        guard Int(wire.frames) == frames, frames > 0 else {
            throw WireValue.malformed("\(field).frames", "is \(wire.frames): the output has \(frames) frames")
        }
        guard (8...16).contains(where: { Double((1 << $0) - 1) == wire.peak }) else {
            throw WireValue.malformed("\(field).peak", "is \(wire.peak): 2ⁿ − 1 for 8 to 16 bits")
        }
        let count = Double(frames), worst = wire.peak * wire.peak
        func error(_ v: Double, _ name: String, most: Double) throws(WireError) {
            guard v.isFinite, v >= 0, v <= most else {
                throw WireValue.malformed("\(field).\(name)", "is \(v): 0 to \(most)")
            }
        }
        try error(wire.mseSum, "mse_sum", most: count * worst)
        try error(wire.worstMse, "worst_mse", most: worst)
        guard wire.planeMseSums.count <= 4 else {
            throw WireValue.malformed("\(field).plane_mse_sums", "has \(wire.planeMseSums.count) planes: at most 4")
        }
        for (i, v) in wire.planeMseSums.enumerated() { try error(v, "plane_mse_sums[\(i)]", most: count * worst) }
        guard wire.ssimSum.isFinite, abs(wire.ssimSum) <= count else {
            throw WireValue.malformed("\(field).ssim_sum", "is \(wire.ssimSum): −frames to frames")
        }
        guard wire.minSsim.isFinite, abs(wire.minSsim) <= 1 else {
            throw WireValue.malformed("\(field).min_ssim", "is \(wire.minSsim): −1 to 1")
        }
        self.init(peak: wire.peak)
        self.frames = frames
        mseSum = wire.mseSum
        planeMSESums = wire.planeMseSums
        ssimSum = wire.ssimSum
        worstMSE = wire.worstMse
        minSSIM = wire.minSsim
    }
}
