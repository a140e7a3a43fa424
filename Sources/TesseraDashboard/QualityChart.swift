import Foundation
import TesseraCore

/// A job's quality, drawn on the server for its page: per segment, the bit rate as bars (width the
/// segment's duration) and the measured quality as a line, with the target dashed; and a map of the
/// segments coloured by SSIM. Plain SVG and HTML, no script; every figure is also in each mark's title.
enum QualityChart {
    static let width = 640.0, height = 200.0, left = 56.0, right = 56.0, top = 12.0, bottom = 28.0

    /// The chart's SVG; the line shows the target's metric, else SSIM.
    static func svg(_ q: QualityReport) -> String {
        let segments = q.segments
        guard !segments.isEmpty else { return "" }
        let metric: QualityMetric = q.target.flatMap { TargetQuality(parsing: $0)?.metric } ?? .ssim
        let target = q.target.flatMap { TargetQuality(parsing: $0)?.value }
        func value(_ s: SegmentQuality) -> Double { metric == .ssim ? s.ssim : s.psnr }
        let plotW = width - left - right, plotH = height - top - bottom
        let total = max(1e-9, segments.reduce(0) { $0 + max(0, $1.duration) })
        let maxRate = max(1, segments.map(\.bitRate).max() ?? 1)
        // The quality axis spans the values and the target, with a little room.
        let values = segments.map(value) + (target.map { [$0] } ?? [])
        let span = max(metric == .ssim ? 0.01 : 1, (values.max()! - values.min()!) * 0.15)
        var low = values.min()! - span, high = values.max()! + span
        if metric == .ssim { (low, high) = (max(0, low), min(1, high)) }
        func y(_ v: Double) -> Double { top + plotH * (1 - (v - low) / max(1e-9, high - low)) }
        func n(_ v: Double) -> String { String(format: "%.1f", v.isFinite ? v : 0) }
        func figure(_ v: Double) -> String {
            metric == .ssim ? String(format: "%.4f", v) : String(format: "%.2f dB", v)
        }

        var marks: [String] = []
        var x = left
        var points: [String] = []
        for s in segments {
            let w = plotW * max(0, s.duration) / total
            let h = plotH * s.bitRate / maxRate
            let crf = s.crf.map { ", CRF \(QualityProbe.text($0))" } ?? ""
            let short = s.shortfall.map { String(format: ", short of the target by %g", $0) } ?? ""
            marks.append(
                "<rect x=\"\(n(x + 0.5))\" y=\"\(n(top + plotH - h))\" width=\"\(n(max(1, w - 1)))\" "
                    + "height=\"\(n(h))\" class=\"rate\"><title>Segment \(s.index): "
                    + String(format: "%.0f kb/s", s.bitRate / 1000) + ", \(metric.rawValue.uppercased()) "
                    + "\(figure(value(s)))\(crf)\(short)</title></rect>")
            points.append("\(n(x + w / 2)),\(n(y(value(s))))")
            x += w
        }
        let line =
            "<polyline points=\"\(points.joined(separator: " "))\" class=\"metric\"/>"
            + segments.enumerated().map { i, s in
                "<circle cx=\"\(points[i].split(separator: ",")[0])\" cy=\"\(n(y(value(s))))\" r=\"3\" "
                    + "class=\"metric\(s.shortfall == nil ? "" : " short")\"/>"
            }.joined()
        let targetLine =
            target.map { t in
                "<line x1=\"\(n(left))\" x2=\"\(n(width - right))\" y1=\"\(n(y(t)))\" y2=\"\(n(y(t)))\" "
                    + "class=\"target\"><title>Target \(figure(t))</title></line>"
            } ?? ""
        let axes =
            "<text x=\"\(n(left - 4))\" y=\"\(n(top + 10))\" text-anchor=\"end\">"
            + String(format: "%.0f", maxRate / 1000) + " kb/s</text>"
            + "<text x=\"\(n(left - 4))\" y=\"\(n(top + plotH))\" text-anchor=\"end\">0</text>"
            + "<text x=\"\(n(width - right + 4))\" y=\"\(n(top + 10))\">\(figure(high))</text>"
            + "<text x=\"\(n(width - right + 4))\" y=\"\(n(top + plotH))\">\(figure(low))</text>"
            + "<text x=\"\(n(left))\" y=\"\(n(height - 8))\">0 s</text>"
            + "<text x=\"\(n(width - right))\" y=\"\(n(height - 8))\" text-anchor=\"end\">"
            + String(format: "%.1f s", total) + "</text>"
        let description =
            "Bit rate (bars, left axis) and \(metric.rawValue.uppercased()) (line, right axis) of "
            + "\(segments.count) segments" + (target.map { "; target \(figure($0)) dashed" } ?? "") + "."
        return """
            <svg class="quality" viewBox="0 0 \(n(width)) \(n(height))" role="img" aria-labelledby="qc-t qc-d">\
            <title id="qc-t">Quality and bit rate per segment</title><desc id="qc-d">\(description)</desc>\
            <rect x="\(n(left))" y="\(n(top))" width="\(n(plotW))" height="\(n(plotH))" class="plot"/>\
            \(marks.joined())\(targetLine)\(line)\(axes)</svg>
            """
    }

    /// SSIM bands a segment's cell is coloured by, best first, with the legend's words.
    static let bands: [(floor: Double, name: String, label: String)] = [
        (0.99, "qa", "SSIM ≥ 0.99"), (0.97, "qb", "0.97–0.99"), (0.95, "qc", "0.95–0.97"), (0.9, "qd", "0.90–0.95"),
        (-1, "qe", "below 0.90"),
    ]

    static func band(_ ssim: Double) -> (name: String, label: String) {
        let b = bands.first { ssim >= $0.floor } ?? bands[bands.count - 1]
        return (b.name, b.label)
    }

    /// The segments as cells coloured by SSIM (a segment not measured is left plain), with a legend.
    static func map(_ segments: [SegmentStatus]) -> String {
        let cells = segments.map { s -> String in
            guard let q = s.quality else {
                return "<li class=\"q\" title=\"Segment \(s.index): not measured\">\(s.index % 10)</li>"
            }
            let b = band(q.ssim)
            return "<li class=\"\(b.name)\" title=\"Segment \(s.index): SSIM "
                + String(format: "%.4f, PSNR %.2f dB", q.ssim, q.psnr) + "\">\(s.index % 10)</li>"
        }
        let legend = bands.map { "<span class=\"key \($0.name)\">\($0.label)</span>" }.joined(separator: " ")
        return "<p class=\"legend\">\(legend)</p><ol class=\"cells\" aria-label=\"Segments by SSIM\">"
            + cells.joined() + "</ol>"
    }
}
