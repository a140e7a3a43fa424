import TesseraCore

extension SegmentPlanner {
    /// Where a streaming package's media segments start: the first farm segment at or after each multiple
    /// of `length` (farm segments start with a keyframe in every rendition). Each farm segment is given as
    /// its offset, in the unit of `length` (source ticks, or output frames on a constant grid), and its
    /// first output frame; returns the first output frames of the media segments.
    static func mediaSegmentStarts(_ segments: [(offset: Int64, firstFrame: Int)], length: Int64) -> [Int] {
        var starts: [Int] = []
        var m: Int64 = 0
        for (i, segment) in segments.enumerated() {
            let (reached, overflow) = m.multipliedReportingOverflow(by: max(1, length))
            guard i == 0 || (!overflow && segment.offset >= reached) else { continue }
            starts.append(segment.firstFrame)
            m = segment.offset / max(1, length) + 1
        }
        return starts
    }
}
