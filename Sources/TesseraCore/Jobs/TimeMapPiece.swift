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
        let value =
            Int128(outputStart)
            + (Int128(source) - Int128(sourceStart)) * Int128(rate.numerator) / Int128(rate.denominator)
        return Int64(clamping: value)
    }
}
