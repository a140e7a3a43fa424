import CFFmpeg
import TesseraAV
import TesseraCore

/// Cuts a video track's output frames into segments about `targetTicks` long, at source keyframes.
///
/// The output frames are the source frames presented in `[start, end)` (plus the frame on screen at
/// `start` when none sits exactly there, moved to `start`), the same set the unsegmented export
/// writes. A segment boundary is always a keyframe's presentation time, so each segment (after the
/// first) starts decoding at its own keyframe; it feeds packets in decode order until every frame it
/// presents has been decoded, which reaches past the next keyframe when frames are reordered.
public enum SegmentPlanner {
    /// - Parameters:
    ///   - start, end: the exported range in source ticks (end may be `Int64.max`).
    ///   - targetTicks: the wished segment length in source ticks.
    /// - Returns: segments in output order covering every output frame exactly once (none when the
    ///   range holds no frame), and the output frames' presentation times.
    /// The cut: segments and the output frames' times.
    struct Cut {
        var segments: [SegmentSpec]
        /// Every output frame's presentation time in output ticks: what the stitched file must hold.
        var outputTimes: [Int64]
    }

    /// How a run's output frames are made, and how long its segments are wished.
    enum Timing {
        /// The source's own frames, cut about `targetTicks` source ticks apart at keyframes; with
        /// `parallel` above one, the last round re-cut so every slot finishes together.
        case asIs(targetTicks: Int64, parallel: Int)
        /// Frames chosen along a time map on a constant grid (a retimed export, a composition's run), cut
        /// about `targetSeconds` of output apart; nil makes one segment.
        case retimed(SegmentRetime, targetSeconds: Rational?)
        /// A streaming package's media segments, each cut in `pieces`: the source's own frames, cut at the
        /// first frame at or after every multiple of `targetTicks / pieces` from the start (in exact
        /// integers, so every `pieces`-th cut is a media segment's), keyframe or not (each segment's encode
        /// starts with one), so segments keep to the grid without drifting.
        case grid(targetTicks: Int64, pieces: Int)
        /// A retimed export's package: its constant grid cut every `frames / pieces` output frames (in
        /// exact integers, every `pieces`-th cut a media segment's).
        case retimedGrid(SegmentRetime, frames: Int, pieces: Int)
    }

    /// The one planner entry, for a plain transcode's range, a retimed export's and each run of a
    /// composition: the run's output frames over the source range `start ..< end` (ticks; end may be
    /// `Int64.max`), cut into segments as `timing` says.
    static func cut(_ index: VideoPacketIndex, start: Int64, end: Int64, _ timing: Timing) -> Cut {
        switch timing {
        case .asIs(let targetTicks, let parallel):
            plan(index, start: start, end: end, targetTicks: targetTicks, parallel: parallel)
        case .grid(let targetTicks, let pieces):
            plan(index, start: start, end: end, targetTicks: targetTicks, gridPieces: max(1, pieces))
        case .retimed(let retime, let targetSeconds):
            planRetimed(index, start: start, end: end, retime: retime, targetSeconds: targetSeconds)
        case .retimedGrid(let retime, let frames, let pieces):
            planRetimed(
                index, start: start, end: end, retime: retime, targetSeconds: nil,
                grid: (max(1, frames), max(1, pieces)))
        }
    }

    /// `seconds` in ticks of `timeBase`, at least one tick. A length that does not fit (a huge or
    /// non-finite value from a request, a degenerate time base from a file) is refused, never trapped on.
    /// - Throws: `.invalidArgument`.
    static func targetTicks(seconds: Double, timeBase tb: AVRational) throws(MediaError) -> Int64 {
        guard seconds.isFinite, seconds > 0, tb.num > 0, tb.den > 0,
            let ticks = Int64(exactly: (seconds * Double(tb.den) / Double(tb.num)).rounded(.down)),
            ticks < Int64.max / 4
        else {
            throw MediaError(
                .invalidArgument, "segment duration \(seconds) s does not fit time base \(tb.num)/\(tb.den)")
        }
        return max(1, ticks)
    }

    /// - Parameter parallel: segments expected to run at once. With more than one, the last round of
    ///   segments is re-cut so every slot finishes together (see `balanceTail`).
    /// The `.asIs` cut (`cut` is the entry).
    static func plan(
        _ index: VideoPacketIndex, start: Int64, end: Int64, targetTicks: Int64, parallel: Int = 1,
        gridPieces: Int? = nil
    ) -> Cut {
        let packets = index.entries
        let frames = presentedFrames(index, start: start, end: end)
        guard !frames.isEmpty else { return Cut(segments: [], outputTimes: []) }

        var cuts: [Int64] = []
        if let pieces = gridPieces {
            // The first frame at or after each grid point (the held first frame belongs to the first).
            func point(_ n: Int64) -> Int64? {
                let (scaled, overflow) = n.multipliedReportingOverflow(by: targetTicks)
                let (p, past) = start.addingReportingOverflow(scaled / Int64(pieces))
                return overflow || past ? nil : p
            }
            var n: Int64 = 1
            var next = point(n)
            for f in frames where packets[f].pts > start && packets[f].pts < end {
                guard let grid = next else { break }
                guard packets[f].pts >= grid else { continue }
                cuts.append(packets[f].pts)
                while let g = next, g <= packets[f].pts {
                    n += 1
                    next = point(n)
                }
            }
        } else {
            // Cut points: keyframe presentation times inside the range, at least a target apart.
            let keyframes = packets.filter(\.isKeyframe).map(\.pts).sorted()
            var last = start
            for k in keyframes where k > start && k < end && k - last >= targetTicks {
                cuts.append(k)
                last = k
            }
            // Don't leave a runt at the end: merge a last segment shorter than a third of the target.
            if let lastCut = cuts.last, let lastFrame = frames.last, packets[lastFrame].pts - lastCut < targetTicks / 3
            {
                cuts.removeLast()
            }
        }
        if parallel > 1 && gridPieces == nil {
            let ptsOfFrame = frames.map { packets[$0].pts }
            let keyframeAt = frames.map { packets[$0].isKeyframe }
            // No piece shorter than two thirds of the target: a short segment costs a keyframe and an
            // encoder's start-up for little time (VP9 realtime lost 0.8 dB on 15-frame pieces).
            // In Doubles: the held frame before the range can carry any pts a file wrote (Int64.min + 1).
            let frameTicks = (Double(ptsOfFrame.last!) - Double(ptsOfFrame.first!)) / Double(max(1, frames.count - 1))
            let minimum = min(Double(frames.count), Double(targetTicks) * 2 / 3 / max(frameTicks, 1))
            cuts = balanceTail(
                cuts, framePTS: ptsOfFrame, isKeyframe: keyframeAt, parallel: parallel,
                minimumFrames: max(8, Int(minimum.rounded(.up))))
        }

        var segments: [SegmentSpec] = []
        var frameCursor = 0
        let bounds = [start] + cuts + [end]
        for (i, (lo, hi)) in zip(bounds, bounds.dropFirst()).enumerated() {
            var members: [Int] = []
            while frameCursor < frames.count {
                let f = frames[frameCursor]
                // The held first frame (pts < start) belongs to the first segment.
                guard packets[f].pts < hi || (i == 0 && packets[f].pts < start) else { break }
                members.append(f)
                frameCursor += 1
            }
            guard !members.isEmpty else { continue }
            let outputStart = segments.last.map { $0.outputFrames.upperBound } ?? 0
            segments.append(
                SegmentSpec(
                    index: segments.count, outputFrames: outputStart..<(outputStart + members.count),
                    presentationRange: lo..<hi, decodePackets: decodeRange(of: members, in: packets),
                    timeMap: TimeMapPiece(sourceStart: start, outputStart: 0)))
        }
        return Cut(segments: segments, outputTimes: frames.map { max(packets[$0].pts, start) - start })
    }

    /// The frames an export of `[start, end)` shows, in presentation order, as decode-order positions:
    /// those presented in the range, after the frame on screen at `start` when none sits exactly there.
    static func presentedFrames(_ index: VideoPacketIndex, start: Int64, end: Int64) -> [Int] {
        let packets = index.entries
        let order = packets.indices.sorted { packets[$0].pts < packets[$1].pts }
        var frames = order.filter { packets[$0].pts >= start && packets[$0].pts < end }
        if let first = frames.first, packets[first].pts > start,
            let held = order.last(where: { packets[$0].pts < start })
        {
            frames.insert(held, at: 0)
        } else if frames.isEmpty, let held = order.last(where: { packets[$0].pts < start }) {
            frames = [held]
        }
        return frames
    }

    /// The packets (decode order) a segment presenting `members` decodes: from the last keyframe in
    /// decode order presented at or before its first frame, to its last member.
    static func decodeRange(of members: [Int], in packets: [VideoPacketIndex.Entry]) -> Range<Int> {
        let firstPTS = members.map { packets[$0].pts }.min()!
        let firstDecode = members.min()!
        let keyStart = (0...firstDecode).last { packets[$0].isKeyframe && packets[$0].pts <= firstPTS } ?? 0
        return keyStart..<(members.max()! + 1)
    }
}
