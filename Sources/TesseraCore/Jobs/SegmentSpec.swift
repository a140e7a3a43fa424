/// One segment of a job: a contiguous run of output frames that a worker produces on its own.
///
/// Planned on the output timeline (ARCHITECTURE.md, timing model §3): output frames `[a, b)` are the
/// source frames presented in `presentationRange`; decoding starts at the keyframe packet
/// `decodePackets.lowerBound` and feeds packets in decode order up to `decodePackets.upperBound - 1`,
/// past the next keyframe where reordered frames (B-frames, RASL pictures) need it.
public struct SegmentSpec: Sendable, Hashable, Codable {
    public var index: Int
    /// Output frame numbers `[a, b)`.
    public var outputFrames: Range<Int>
    /// Source presentation times covered, in source-stream ticks: `[start, end)`.
    public var presentationRange: Range<Int64>
    /// Source video packets to decode, as decode-order indices.
    public var decodePackets: Range<Int>
    /// This segment's piece of the job's time map.
    public var timeMap: TimeMapPiece

    public init(
        index: Int, outputFrames: Range<Int>, presentationRange: Range<Int64>, decodePackets: Range<Int>,
        timeMap: TimeMapPiece
    ) {
        self.index = index
        self.outputFrames = outputFrames
        self.presentationRange = presentationRange
        self.decodePackets = decodePackets
        self.timeMap = timeMap
    }

    public var frameCount: Int { outputFrames.count }
}
