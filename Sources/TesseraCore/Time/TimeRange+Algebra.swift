/// Containment, intersection and union, following `CMTimeRangeContainsTime`,
/// `CMTimeRangeContainsTimeRange`, `CMTimeRangeGetIntersection` and `CMTimeRangeGetUnion`.
///
/// Ranges are treated as positioned intervals, not as sets of instants: an empty range still sits at its
/// start, so it is contained only where that point lies in `[start, end]`, and a union with it stretches
/// to reach it.
extension TimeRange {
    /// Whether `start ≤ time < end`. Always false for an invalid range or an invalid time.
    public func contains(_ time: MediaTime) -> Bool {
        guard isValid, time.kind != .invalid else { return false }
        return start <= time && time < end
    }

    /// Whether `range` lies within this one: `start ≤ range.start` and `range.end ≤ end`. An empty range
    /// at this range's end counts as inside, as CMTimeRangeContainsTimeRange has it. False if either
    /// range is invalid.
    public func contains(_ range: TimeRange) -> Bool {
        guard isValid, range.isValid else { return false }
        return start <= range.start && range.end <= end
    }

    /// The overlap of two ranges: from the later start to the earlier end.
    ///
    /// When they do not overlap the result is the empty range at the later start, so that the result's
    /// start is always `max(a.start, b.start)`, and touching ranges `[0, 1)` and `[1, 2)` meet in the
    /// empty range at 1. `.invalid` if either range is invalid.
    public func intersection(_ other: TimeRange) -> TimeRange {
        guard isValid, other.isValid else { return .invalid }
        let latestStart = MediaTime.maximum(start, other.start)
        let earliestEnd = MediaTime.minimum(end, other.end)
        guard earliestEnd > latestStart else { return TimeRange(start: latestStart, duration: .zero) }
        return TimeRange(start: latestStart, end: earliestEnd)
    }

    /// The smallest range covering both: from the earlier start to the later end, including any gap
    /// between them. `.invalid` if either range is invalid.
    public func union(_ other: TimeRange) -> TimeRange {
        guard isValid, other.isValid else { return .invalid }
        return TimeRange(start: MediaTime.minimum(start, other.start), end: MediaTime.maximum(end, other.end))
    }
}
