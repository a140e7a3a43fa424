import CFFmpeg
import TesseraAV
import TesseraCore

/// Measures pairs of pictures of one size and format with libavfilter's `psnr` and `ssim` filters (the
/// reference the ffmpeg CLI users compare against), and adds each pair's figures to `QualityStats`.
///
/// ```
///  encoded, decoded ─[in0]──────────────▶ psnr ─▶ ssim ─▶ out (the decoded frame, its figures in metadata)
///  given to encoder ─[in1]─ split ─┬───────┘       │
///                                  └───────────────┘
/// ```
/// Pairs go in with the same timestamp, in presentation order.
final class QualityMeter {
    private let graph: FilterGraph
    private(set) var stats: QualityStats

    /// - Throws: `.unsupported` for a pixel format the filters cannot compare (packed RGB, alpha).
    init(width: Int, height: Int, format: AVPixelFormat, timeBase: Rational) throws(MediaError) {
        guard let descriptor = av_pix_fmt_desc_get(format),
            descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) == 0,
            descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA) == 0,
            descriptor.pointee.nb_components == 3 || descriptor.pointee.nb_components == 1
        else {
            throw MediaError(.unsupported, "quality is measured on YUV or grey pictures, not \(PixelFormat(format))")
        }
        let depth = Int(descriptor.pointee.comp.0.depth)
        stats = QualityStats(peak: Double((1 << depth) - 1))
        let source =
            "video_size=\(width)x\(height):pix_fmt=\(format.rawValue)"
            + ":time_base=\(timeBase.numerator)/\(timeBase.denominator):pixel_aspect=1/1"
        graph = try FilterGraph(
            video: true, sources: [source, source],
            description: "[in1]split[r0][r1];[in0][r0]psnr[p];[p][r1]ssim", what: "the quality filters")
    }

    /// Measures the decoded picture `encoded` against `reference`, the picture given to the encoder.
    func measure(_ encoded: Frame, against reference: Frame) throws(MediaError) {
        try graph.push(encoded, into: 0, record)
        try graph.push(reference, into: 1, record)
    }

    /// Measures what the filters still hold; returns every pair's figures.
    func finish() throws(MediaError) -> QualityStats {
        try graph.finish(record)
        return stats
    }

    private func record(_ frame: Frame) throws(MediaError) {
        let metadata = frame.pointer.pointee.metadata
        func value(_ key: String) -> Double? {
            guard let entry = av_dict_get(metadata, key, nil, 0), let v = entry.pointee.value else { return nil }
            return Double(String(cString: v))
        }
        guard let mse = value("lavfi.psnr.mse_avg"), let ssim = value("lavfi.ssim.All") else {
            throw MediaError(.internal, "the quality filters returned a frame without figures")
        }
        let planes = ["y", "u", "v"].compactMap { value("lavfi.psnr.mse.\($0)") }
        stats.add(mse: mse, planeMSE: planes, ssim: ssim)
    }
}
