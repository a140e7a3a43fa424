import TesseraCore

extension SegmentPlanner {
    /// The `.retimed` cut (`cut` is the entry): cuts a retimed export's output frames (the constant grid k·frameDuration, `retime.firstFrame` ≤ k <
    /// `retime.frameCount`)
    /// into segments about `targetSeconds` of output long: planned on the output timeline, so a slowed
    /// range is cut as often as its output length asks, boundaries inside it included.
    ///
    /// A boundary is put where a keyframe comes on screen when one does within a third of the target
    /// of the wished cut (the segment then decodes no lead-in); elsewhere it falls between any two
    /// output frames, and the segment decodes from the keyframe before the first source frame it needs.
    /// A segment making instants `[a, b)` presents the source frames from the one on screen at instant
    /// a's source time to the first one after instant b − 1's: what the whole export's `FrameRetimer`
    /// holds when it decides those instants, so every segment chooses exactly as one pass would.
    ///
    /// - Parameters:
    ///   - start, end: the exported range in source ticks (end may be `Int64.max`).
    ///   - targetSeconds: the wished segment length in output seconds; nil plans one segment.
    /// - Returns: the segments, and every output frame's time in ticks of the frame duration (0 ..< N).
    static func planRetimed(
        _ index: VideoPacketIndex, start: Int64, end: Int64, retime: SegmentRetime, targetSeconds: Rational?,
        grid: (frames: Int, pieces: Int)? = nil
    ) -> Cut {
        let packets = index.entries
        let frames = presentedFrames(index, start: start, end: end)
        // A composition's run makes instants k0 ..< count of the composition's grid; an export, all from 0.
        let count = retime.frameCount, k0 = retime.firstFrame
        guard !frames.isEmpty, count > k0, k0 >= 0, count <= Int64(SegmentRetime.maxFrames) else {
            return Cut(segments: [], outputTimes: [])
        }
        let n = Int(count - k0)
        let tb = Rational(index.timeBase)
        let times = frames.map { retime.sourceTime(ofTick: packets[$0].pts, timeBase: tb) }
        // shown[k]: the frame on screen at instant k0 + k's source time (the first frame before it); the map
        // never goes back in source time, so one walk finds them all.
        var shown = [Int](repeating: 0, count: n)
        var f = 0
        for k in 0..<n {
            let s = retime.sourceTime(ofFrame: k0 + Int64(k))
            while f + 1 < frames.count, times[f + 1] <= s { f += 1 }
            shown[k] = f
        }
        var bounds = [0]
        if let grid {
            var m = 1
            while true {
                let (scaled, overflow) = m.multipliedReportingOverflow(by: grid.frames)
                let a = scaled / grid.pieces
                guard !overflow, a < n else { break }
                if a > bounds.last! { bounds.append(a) }
                m += 1
            }
        } else if let target = targetSeconds, let wished = (target / retime.frameDuration).floor {
            let t = Int(clamping: max(1, wished))
            var a = 0
            while n - a > t + t / 3 {
                let ideal = a + t
                var best: Int? = nil
                for k in (a + max(1, 2 * t / 3))...min(n - 1, a + 4 * t / 3)
                where shown[k] != shown[k - 1] && packets[frames[shown[k]]].isKeyframe {
                    if best.map({ abs(k - ideal) < abs($0 - ideal) }) ?? true { best = k }
                }
                a = best ?? ideal
                bounds.append(a)
            }
        }
        bounds.append(n)

        var segments: [SegmentSpec] = []
        for (a, b) in zip(bounds, bounds.dropFirst()) {
            let first = shown[a]
            let last = min(shown[b - 1] + 1, frames.count - 1)
            let members = Array(frames[first...last])
            let lo = max(packets[members[0]].pts, start)
            let hi = last == frames.count - 1 ? end : packets[members[members.count - 1]].pts + 1
            segments.append(
                SegmentSpec(
                    index: segments.count, outputFrames: (Int(k0) + a)..<(Int(k0) + b), presentationRange: lo..<hi,
                    decodePackets: decodeRange(of: members, in: packets),
                    timeMap: TimeMapPiece(sourceStart: start, outputStart: 0)))
        }
        return Cut(segments: segments, outputTimes: (k0..<count).map { $0 })
    }
}
