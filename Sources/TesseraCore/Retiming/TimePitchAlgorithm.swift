/// How retimed audio keeps (or does not keep) its pitch, as AVFoundation's `AVAudioTimePitchAlgorithm`.
public enum TimePitchAlgorithm: String, Sendable, Hashable, Codable, CaseIterable {
    /// Phase-vocoder time stretching (libavfilter's rubberband): best quality; AVFoundation's export default.
    case spectral
    /// Overlap-add time stretching (libavfilter's atempo, chained in stages of at most 2×).
    case timeDomain
    /// Resampling: the pitch follows the rate, as tape does.
    case varispeed
    /// timeDomain with the rate snapped to AVFoundation's set {0.5, 0.667, 0.8, 1, 1.25, 1.5, 2}.
    case lowQualityZeroLatency

    /// AVFoundation's rates for `lowQualityZeroLatency`.
    public static let zeroLatencyRates: [Rational] = [
        Rational(1, 2), Rational(2, 3), Rational(4, 5), .one, Rational(5, 4), Rational(3, 2), Rational(2),
    ]

    /// The rate `lowQualityZeroLatency` plays `rate` at: the nearest of `zeroLatencyRates`.
    public static func snapped(_ rate: Rational) -> Rational {
        zeroLatencyRates.min { abs(($0 - rate).seconds) < abs(($1 - rate).seconds) } ?? rate
    }
}
