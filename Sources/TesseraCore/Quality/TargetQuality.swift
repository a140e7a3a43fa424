import Foundation

/// What a segment's quality is measured in. A closed set: VMAF joins it where FFmpeg is built with
/// libvmaf (Debian 12's is not).
public enum QualityMetric: String, Sendable, Hashable, Codable, CaseIterable {
    /// Weighted average PSNR, dB (FFmpeg's `psnr` filter).
    case psnr
    /// Mean SSIM, 0…1 (FFmpeg's `ssim` filter, `All`).
    case ssim

    /// The values a target may ask for.
    public var targets: ClosedRange<Double> {
        switch self {
        case .psnr: 10...100
        case .ssim: 0...1
        }
    }

    /// How far below its target a segment may measure and still count as meeting it.
    public var tolerance: Double {
        switch self {
        case .psnr: 0.2
        case .ssim: 0.002
        }
    }

    /// The measured value of `stats` in this metric.
    public func value(of stats: QualityStats) -> Double {
        switch self {
        case .psnr: stats.psnr
        case .ssim: stats.ssim
        }
    }
}

/// A quality to reach with the fewest bits: each segment searches the constant rate factor that meets
/// it (`--target-quality ssim:0.97`; in a request `"targetQuality": {"metric": "ssim", "value": 0.97}`).
public struct TargetQuality: Sendable, Hashable, Codable, CustomStringConvertible {
    public var metric: QualityMetric
    public var value: Double
    /// The rate factors the search may use; nil is the encoder's whole range.
    public var crfRange: ClosedRange<Int>?
    /// A bit-rate cap (capped CRF, for ladders): the encoder's VBV maximum rate in bits per second.
    public var maxBitRate: Int?
    /// Whether a segment's search may begin with samples of its frames (`CRFSearch`); nil: yes, where the
    /// segment is long enough. `false` searches with whole encodes only.
    public var samples: Bool?

    /// Segment length for an export asked for a quality and no segments: the search runs per segment.
    public static let defaultSegmentSeconds = 4.0

    public init(
        metric: QualityMetric, value: Double, crfRange: ClosedRange<Int>? = nil, maxBitRate: Int? = nil,
        samples: Bool? = nil
    ) {
        self.metric = metric
        self.value = value
        self.crfRange = crfRange
        self.maxBitRate = maxBitRate
        self.samples = samples
    }

    /// `ssim:0.97`, `psnr:40`; nil for anything else (the range is checked by `validate`).
    public init?(parsing text: String) {
        let parts = text.lowercased().split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let metric = QualityMetric(rawValue: String(parts[0])), let value = Double(parts[1])
        else { return nil }
        self.init(metric: metric, value: value)
    }

    public var description: String {
        let v = value == value.rounded() && abs(value) < 1e9 ? String(Int(value)) : String(value)
        return "\(metric.rawValue):\(v)"
    }

    /// Whether a segment measuring `stats` meets the target (within the metric's tolerance).
    public func isMet(by stats: QualityStats) -> Bool { metric.value(of: stats) >= value - metric.tolerance }

    /// Checks the target against the output it would apply to, then its own values (`validate`).
    /// - Throws: `JobRequestError` naming the field: an output that copies its video (passthrough) or has
    ///   none, a bit-rate encode (the cap is `maxBitRate`), and what `validate` refuses.
    public func check(against settings: OutputSettings, field: String) throws(JobRequestError) {
        guard !settings.passthrough, let video = settings.video else {
            throw JobRequestError(
                field: field,
                settings.passthrough
                    ? "a passthrough export copies the video: there is no encode to aim at a quality"
                    : "the output has no video to aim at a quality")
        }
        if case .bitRate = video.rateControl {
            throw JobRequestError(
                field: field,
                "a target quality searches the rate factor; give a bit-rate cap as \(field).maxBitRate, "
                    + "not a bit rate in the settings")
        }
        try validate(field: field, codec: video.codec)
    }

    /// - Throws: `JobRequestError` naming the field: a value outside the metric's range or not a number, a
    ///   CRF range outside the codec's, a cap outside the video bit rates a job may ask.
    public func validate(field: String, codec: VideoCodec) throws(JobRequestError) {
        guard value.isFinite, metric.targets.contains(value) else {
            throw JobRequestError(
                field: "\(field).value",
                "a \(metric.rawValue) target is \(JobRequestError.range(metric.targets)), not \(value)")
        }
        let allowed = JobRequestLimits.crf(codec)
        if let crfRange, !(allowed.contains(crfRange.lowerBound) && allowed.contains(crfRange.upperBound)) {
            throw JobRequestError(
                field: "\(field).crfRange",
                "\(codec.encoderName) takes crf \(JobRequestError.range(allowed)), not "
                    + JobRequestError.range(crfRange))
        }
        if let maxBitRate {
            guard JobRequestLimits.videoBitRate.contains(maxBitRate) else {
                throw JobRequestError(
                    field: "\(field).maxBitRate",
                    "must be \(JobRequestError.range(JobRequestLimits.videoBitRate)) bits per second, not \(maxBitRate)"
                )
            }
            guard codec != .av1 else {
                throw JobRequestError(
                    field: "\(field).maxBitRate", "SVT-AV1 has no capped CRF here; leave the cap out for AV1")
            }
        }
    }
}
