import TesseraCore

extension SegmentPlanner {
    /// Segments whose frames go through a deinterlacer, which reads each frame's neighbours: every segment
    /// but the first also decodes the frame shown just before its range (from that frame's keyframe), and
    /// every one but the last the frame shown just after it, so its first and last frames are
    /// deinterlaced as the one pass does them (`NeighbourGate`).
    static func withNeighbours(_ specs: [SegmentSpec], index: VideoPacketIndex) -> [SegmentSpec] {
        guard specs.count > 1 else { return specs }
        let entries = index.entries
        // Decode indices by presentation time, and the last keyframe at or before each decode index.
        let byPTS = entries.indices.sorted { entries[$0].pts < entries[$1].pts }
        var keyframeAtOrBefore = [Int](repeating: 0, count: entries.count)
        var last = 0
        for (i, e) in entries.enumerated() {
            if e.isKeyframe { last = i }
            keyframeAtOrBefore[i] = last
        }
        /// The position in `byPTS` of the first frame shown at or after `pts`.
        func firstAtOrAfter(_ pts: Int64) -> Int {
            var low = 0, high = byPTS.count
            while low < high {
                let mid = (low + high) / 2
                if entries[byPTS[mid]].pts < pts { low = mid + 1 } else { high = mid }
            }
            return low
        }
        return specs.enumerated().map { i, spec in
            var widened = spec
            let range = spec.presentationRange
            if i > 0 {
                let before = firstAtOrAfter(range.lowerBound) - 1
                if before >= 0 {
                    let keyframe = keyframeAtOrBefore[byPTS[before]]
                    widened.decodePackets = min(keyframe, spec.decodePackets.lowerBound)..<spec.decodePackets.upperBound
                }
            }
            if i < specs.count - 1 {
                let after = firstAtOrAfter(range.upperBound)
                if after < byPTS.count {
                    widened.decodePackets =
                        widened.decodePackets.lowerBound..<max(widened.decodePackets.upperBound, byPTS[after] + 1)
                }
            }
            return widened
        }
    }
}
