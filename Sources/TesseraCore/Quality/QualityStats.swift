import Foundation

/// How close a run of encoded frames is to the frames given to the encoder, as FFmpeg's `psnr` and `ssim`
/// filters measure each frame: the sums their averages are made of, so the stats of segments add up to
/// the stats of the job exactly as the filters would report the whole file.
///
/// PSNR is computed from the mean squared error over all frames (as the `psnr` filter's `average`), SSIM
/// is the mean of every frame's `All` (as the `ssim` filter's). Frames identical to their source have no
/// error: their PSNR is reported as `QualityStats.identicalPSNR`.
public struct QualityStats: Sendable, Hashable, Codable {
    public var frames: Int
    /// The largest sample value of the measured format (255 for 8 bits, 1023 for 10).
    public var peak: Double
    /// Per frame, the mean squared error averaged over the planes by their sizes (the filter's
    /// `mse_avg`), summed over the frames.
    public var mseSum: Double
    /// Per plane (Y, U, V), every frame's mean squared error, summed.
    public var planeMSESums: [Double]
    /// Every frame's SSIM (`All`), summed.
    public var ssimSum: Double
    /// The worst frame's `mse_avg`.
    public var worstMSE: Double
    /// The worst frame's SSIM.
    public var minSSIM: Double

    /// What a frame with no error is said to have: a finite number, so reports stay valid JSON.
    public static let identicalPSNR = 100.0

    public init(peak: Double) {
        frames = 0
        self.peak = peak
        mseSum = 0
        planeMSESums = []
        ssimSum = 0
        worstMSE = 0
        minSSIM = 1
    }

    /// Adds one frame's measurement.
    public mutating func add(mse: Double, planeMSE: [Double], ssim: Double) {
        frames += 1
        mseSum += mse
        if planeMSESums.count < planeMSE.count {
            planeMSESums += Array(repeating: 0, count: planeMSE.count - planeMSESums.count)
        }
        for (i, m) in planeMSE.enumerated() { planeMSESums[i] += m }
        ssimSum += ssim
        worstMSE = max(worstMSE, mse)
        minSSIM = min(minSSIM, ssim)
    }

    /// Adds the stats of other frames of the same format (the next segment).
    public mutating func add(_ other: QualityStats) {
        guard other.frames > 0 else { return }
        if frames == 0 {
            self = other
            return
        }
        frames += other.frames
        mseSum += other.mseSum
        if planeMSESums.count < other.planeMSESums.count {
            planeMSESums += Array(repeating: 0, count: other.planeMSESums.count - planeMSESums.count)
        }
        for (i, m) in other.planeMSESums.enumerated() { planeMSESums[i] += m }
        ssimSum += other.ssimSum
        worstMSE = max(worstMSE, other.worstMSE)
        minSSIM = min(minSSIM, other.minSSIM)
    }

    /// The weighted average PSNR in dB, from the mean squared error over every frame.
    public var psnr: Double { frames > 0 ? Self.psnr(mse: mseSum / Double(frames), peak: peak) : 0 }
    /// Per plane (Y, U, V), the PSNR in dB.
    public var planePSNR: [Double] {
        frames > 0 ? planeMSESums.map { Self.psnr(mse: $0 / Double(frames), peak: peak) } : []
    }
    /// The mean SSIM.
    public var ssim: Double { frames > 0 ? ssimSum / Double(frames) : 0 }
    /// The worst frame's PSNR in dB.
    public var minPSNR: Double { frames > 0 ? Self.psnr(mse: worstMSE, peak: peak) : 0 }

    /// 10·log10(peak² / mse), as the `psnr` filter computes it; no error is `identicalPSNR`.
    public static func psnr(mse: Double, peak: Double) -> Double {
        guard mse > 0, mse.isFinite, peak > 0 else { return identicalPSNR }
        return min(identicalPSNR, 10 * log10(peak * peak / mse))
    }
}
