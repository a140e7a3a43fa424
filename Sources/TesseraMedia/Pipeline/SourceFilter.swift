import CFFmpeg
import TesseraAV
import TesseraCore

/// What decoded source frames go through before they are processed, with libavfilter: a deinterlacer
/// (`Deinterlace.filter(for:)`: bwdif or yadif, one frame out per frame, or per field). (An HDR source's
/// tone map is the processor's: `ProcessingSpec.toneMap`.) A deinterlacer looks one frame ahead, so a
/// frame comes out when the next one goes in, and the last at `finish`. Frames keep their timestamps (a
/// deinterlacer's halved time base undone); a second field's, half a frame's duration later, rounds down
/// where the source's ticks cannot hold it, so it still sorts after the first and at or before its time.
final class SourceFilter {
    private let description: String
    private var graph: FilterGraph?
    /// The time base of the frames' `pts`.
    private let timeBase: AVRational

    init(filter description: String, timeBase: AVRational) {
        self.description = description
        self.timeBase = timeBase
    }

    /// Feeds `frame`; returns what the filter has finished (none for the first frame).
    func push(_ frame: Frame) throws(MediaError) -> [Frame] {
        if graph == nil {
            let f = frame.pointer.pointee
            let sar =
                f.sample_aspect_ratio.num > 0 && f.sample_aspect_ratio.den > 0
                ? f.sample_aspect_ratio : AVRational(num: 1, den: 1)
            graph = try FilterGraph(
                video: true,
                source: "video_size=\(f.width)x\(f.height):pix_fmt=\(f.format)"
                    + ":time_base=\(timeBase.num)/\(timeBase.den):pixel_aspect=\(sar.num)/\(sar.den)",
                description: description, what: "the source filters")
        }
        var out: [Frame] = []
        try graph!.push(frame) { (f) throws(MediaError) in out.append(restamped(f)) }
        return out
    }

    /// `frame` with its `pts` back in the input's time base.
    private func restamped(_ frame: Frame) -> Frame {
        if let graph, frame.pts != tessera_AV_NOPTS_VALUE() {
            frame.pts = av_rescale_q_rnd(frame.pts, graph.outputTimeBase, timeBase, AV_ROUND_DOWN)
        }
        return frame
    }

    /// Ends the input; returns the frames left.
    func finish() throws(MediaError) -> [Frame] {
        guard let graph else { return [] }
        var out: [Frame] = []
        try graph.finish { (f) throws(MediaError) in out.append(restamped(f)) }
        return out
    }
}
