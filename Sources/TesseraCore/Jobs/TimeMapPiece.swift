/// Where a plain segment's source ticks land on the output timeline: `output = outputStart + (source −
/// sourceStart)`, in source-stream ticks. (A retimed segment chooses its frames along its `SegmentRetime`.)
public struct TimeMapPiece: Sendable, Hashable, Codable {
    public var sourceStart: Int64
    public var outputStart: Int64

    public init(sourceStart: Int64, outputStart: Int64) {
        self.sourceStart = sourceStart
        self.outputStart = outputStart
    }

    /// The output tick of a source tick: source and output ticks advance together (a retimed segment's
    /// frames follow its `SegmentRetime` instead). Computed in 128 bits and clamped to Int64: the terms
    /// come from the wire, and an absurd map must give absurd (then refused) times, not a trap.
    public func output(_ source: Int64) -> Int64 {
        Int64(clamping: Int128(outputStart) + Int128(source) - Int128(sourceStart))
    }
}
