import Foundation
import TesseraCore
import TesseraMedia

/// What `tessera plan` shows of a retiming: the time map piece by piece in both timelines, the output's
/// frame grid, and each segment of the plan (made on the output timeline) in both timelines.
struct RetimedTimeline: Encodable {
    struct Piece: Encodable {
        var outputStart: Double
        var outputEnd: Double
        var sourceStart: Double
        var sourceEnd: Double
        /// "linear ×1/8", "ramp 1→1/4", "freeze".
        var motion: String
    }

    var segmentPlan: SegmentPlan
    var timeMap: [Piece]
    /// Exact, as a fraction of seconds; and in seconds for people.
    var outputDuration: String
    var outputSeconds: Double
    var frameDuration: String
    var outputFrameCount: Int64
    /// Each segment's first output instant, in seconds.
    var segmentStartsInOutput: [Double]
    /// Each segment in both timelines: its output frames' span, and the source frames it presents.
    var segments: [Segment]

    struct Segment: Encodable {
        var outputStart: Double
        var outputEnd: Double
        var sourceStart: Double
        /// nil: to the end of the source.
        var sourceEnd: Double?
    }

    /// - Throws: `MediaError` for the source; `JobRequestError` naming the option for a bad retiming.
    init(plan: SegmentPlan, retiming: Retiming, range: TimeRange?) throws {
        segmentPlan = plan
        let asset = try Asset.load(plan.path, scanPackets: false)
        let origin = Rational(range?.start ?? .zero)
        let length = Rational(range?.duration ?? asset.duration)
        let map = try TimeMap.retiming(start: origin, duration: length, edits: retiming.edits)
        let nominal = asset.firstVideoTrack?.video.map { Rational($0.nominalFrameDuration) }
        guard let fd = retiming.frameDuration ?? nominal, fd.isValid, fd > .zero else {
            throw JobRequestError(field: "--frame-rate", "the source declares no frame rate; give --frame-rate")
        }
        timeMap = map.pieces.map { p in
            let motion: String
            switch p.motion {
            case .linear: motion = "linear ×\(p.sourceDuration / p.outputDuration)"
            case .ramp(let a, let b): motion = "ramp \(a)→\(b)"
            case .freeze: motion = "freeze"
            }
            return Piece(
                outputStart: p.outputStart.seconds, outputEnd: p.outputEnd.seconds, sourceStart: p.sourceStart.seconds,
                sourceEnd: p.sourceEnd.seconds, motion: motion)
        }
        outputDuration = "\(map.outputDuration)"
        outputSeconds = map.outputDuration.seconds
        frameDuration = "\(fd)"
        outputFrameCount = (map.outputDuration / fd).ceiling ?? 0
        let tb = plan.timeBase.seconds
        segments = plan.segments.map { s in
            let end = s.presentationRange.upperBound
            return Segment(
                outputStart: (Rational(Int64(s.outputFrames.lowerBound)) * fd).seconds,
                outputEnd: (Rational(Int64(s.outputFrames.upperBound)) * fd).seconds,
                sourceStart: Double(s.presentationRange.lowerBound) * tb,
                sourceEnd: end == Int64.max ? nil : Double(end) * tb)
        }
        segmentStartsInOutput = segments.map(\.outputStart)
    }

    var text: String {
        var lines = [
            String(
                format: "time map: %@ s of output (%.3f s), %lld frames of %@ s", outputDuration,
                outputSeconds, outputFrameCount, frameDuration)
        ]
        for p in timeMap {
            lines.append(
                String(
                    format: "  output %9.3fs – %9.3fs  ←  source %9.3fs – %9.3fs  %@", p.outputStart, p.outputEnd,
                    p.sourceStart, p.sourceEnd, p.motion))
        }
        lines.append("segments (planned on the output timeline):")
        for (i, s) in segments.enumerated() {
            lines.append(
                String(
                    format: "  #%-4d output %9.3fs – %9.3fs  ←  source frames %9.3fs – %@", i, s.outputStart,
                    s.outputEnd, s.sourceStart, s.sourceEnd.map { String(format: "%.3fs", $0) } ?? "end"))
        }
        return lines.joined(separator: "\n")
    }
}
