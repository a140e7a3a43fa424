extension SegmentPlanner {
    /// What decoding a frame only to drop it costs, relative to a frame decoded, processed and encoded
    /// (H.264 1080p → 720p veryfast: decoding is about a quarter of the work).
    public static let decodeOnlyCost = 0.25

    /// Re-cuts the last round of segments so that all `parallel` slots finish together (with fewer
    /// segments than slots, the whole video is that round: a one-keyframe recording still uses every slot).
    ///
    /// Keyframe-aligned segments come in whole GOPs, so the last round is usually uneven: with 15 GOPs
    /// on 2 slots, one slot idles for a whole GOP at the end. Segments are dispatched in order to the
    /// first free slot; this simulates that with cost ∝ frames, then splits the frames of the last
    /// `parallel` segments into pieces that end together. A piece ends at a keyframe when one is close
    /// (a tenth of the piece), otherwise mid-GOP: the next piece then decodes from the keyframe before
    /// it and drops the frames ahead of its start (counted at `decodeOnlyCost`). Pieces shorter than
    /// `minimumFrames` are not made (that slot is left to idle), and the re-cut is kept only when the
    /// simulated finish comes earlier.
    ///
    /// - Parameters:
    ///   - cuts: segment boundaries as presentation times (each the first frame of a segment).
    ///   - framePTS, isKeyframe: the output frames in presentation order.
    /// - Returns: the new boundaries; the same when there is nothing to gain.
    public static func balanceTail(
        _ cuts: [Int64], framePTS: [Int64], isKeyframe: [Bool], parallel: Int,
        minimumFrames: Int = 8
    ) -> [Int64] {
        let count = framePTS.count
        // Segment boundaries as frame indices.
        // The first frame at or after each cut (presentation order is ascending): a binary search, as a
        // two-hour film has hundreds of thousands of frames and thousands of cuts.
        func firstFrame(atOrAfter cut: Int64) -> Int {
            var low = 0, high = count
            while low < high {
                let mid = (low + high) / 2
                if framePTS[mid] < cut { low = mid + 1 } else { high = mid }
            }
            return low
        }
        let bounds = [0] + cuts.map(firstFrame) + [count]
        let segments = bounds.count - 1
        guard parallel > 1 else { return cuts }
        // The segments before the last round; with fewer segments than slots (a long GOP, a short
        // source), every frame is in the last round and the slots share it.
        let before = max(0, segments - parallel)
        let tailStart = bounds[before]

        // Frames decoded only to reach `frame` from the keyframe before it.
        func lead(_ frame: Int) -> Double {
            let key = (0...frame).last { isKeyframe[$0] } ?? 0
            return Double(frame - key) * decodeOnlyCost
        }
        // What each segment between `bounds` costs: its frames plus its lead-in decoding.
        func costs(_ bounds: [Int]) -> [Double] { zip(bounds, bounds.dropFirst()).map { Double($1 - $0) + lead($0) } }
        // When each slot becomes free for the last round.
        let free = slotsFree(after: costs(Array(bounds.prefix(before + 1))), slots: parallel).sorted()
        // Slots that would get less than a minimum piece stay idle; the others share the tail.
        var slots = parallel
        var finish = 0.0
        while slots > 1 {
            finish = (free.prefix(slots).reduce(0, +) + Double(count - tailStart)) / Double(slots)
            if finish - free[slots - 1] >= Double(minimumFrames) { break }
            slots -= 1
        }
        guard slots > 1 else { return cuts }

        // Twice: the second pass counts the lead-in decoding of the mid-GOP cuts the first one chose.
        var pieces: [Int] = []
        for _ in 0..<2 {
            let leadIns = pieces.reduce(0) { $0 + lead($1) }
            let target = finish + leadIns / Double(slots)
            pieces = []
            var position = tailStart
            for slot in 0..<(slots - 1) {
                let remainingPieces = slots - slot - 1
                var end = position + Int((target - free[slot] - lead(position)).rounded())
                let tolerance = max(1, (end - position) / 10)
                let near = max(position + 1, end - tolerance), far = min(count - 1, end + tolerance)
                if near <= far,
                    let key = (near...far).filter({ isKeyframe[$0] }).min(by: { abs($0 - end) < abs($1 - end) })
                {
                    end = key
                }
                end = min(max(end, position + minimumFrames), count - minimumFrames * remainingPieces)
                guard end > position, end < count else { return cuts }
                pieces.append(end)
                position = end
            }
        }
        // Keep the re-cut only when it helps: snapping and minimum pieces can undo a small gain.
        let newBounds = Array(bounds.prefix(before + 1)) + pieces + [count]
        let was = slotsFree(after: costs(bounds), slots: parallel).max()!
        let now = slotsFree(after: costs(newBounds), slots: parallel).max()!
        return now < was ? Array(cuts.prefix(before)) + pieces.map { framePTS[$0] } : cuts
    }

    /// When each slot is free again after the segments of `costs` went, in order, to the first free slot.
    static func slotsFree(after costs: [Double], slots: Int) -> [Double] {
        var free = Array(repeating: 0.0, count: max(1, slots))
        for cost in costs {
            let slot = free.indices.min { free[$0] < free[$1] }!
            free[slot] += cost
        }
        return free
    }
}
