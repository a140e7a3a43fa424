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

    public init(index: Int, outputFrames: Range<Int>, presentationRange: Range<Int64>, decodePackets: Range<Int>,
                timeMap: TimeMapPiece) {
        self.index = index
        self.outputFrames = outputFrames
        self.presentationRange = presentationRange
        self.decodePackets = decodePackets
        self.timeMap = timeMap
    }

    public var frameCount: Int { outputFrames.count }
}

/// A linear piece of the map from source time to output time, in source-stream ticks:
/// `output = outputStart + (source − sourceStart) · rate`. Plain transcodes have rate 1; retimed
/// ranges (scaleTimeRange) will carry their own rate.
public struct TimeMapPiece: Sendable, Hashable, Codable {
    public var sourceStart: Int64
    public var outputStart: Int64
    public var rate: Fraction

    public init(sourceStart: Int64, outputStart: Int64, rate: Fraction = Fraction(1, 1)) {
        self.sourceStart = sourceStart
        self.outputStart = outputStart
        self.rate = rate
    }

    /// The output tick of a source tick (exact for rate 1; rounds toward zero otherwise). Computed in
    /// 128 bits and clamped to Int64: the terms come from the wire, and an absurd map must give absurd
    /// (then refused) times, not a trap.
    public func output(_ source: Int64) -> Int64 {
        guard rate.denominator != 0 else { return outputStart }
        let value = Int128(outputStart)
            + (Int128(source) - Int128(sourceStart)) * Int128(rate.numerator) / Int128(rate.denominator)
        return Int64(clamping: value)
    }
}

/// A worker's report on a segment in flight, for progress bars and dashboards.
public struct SegmentProgress: Sendable, Hashable, Codable {
    public var segment: Int
    public var framesDone: Int
    public var framesTotal: Int

    public init(segment: Int, framesDone: Int, framesTotal: Int) {
        self.segment = segment
        self.framesDone = framesDone
        self.framesTotal = framesTotal
    }
}
