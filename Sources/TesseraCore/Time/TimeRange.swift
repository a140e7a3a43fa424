/// A half-open range of media time, as CMTimeRange: `start` is inside, `end` is not.
///
///     start                     end = start + duration
///       [━━━━━━━━━━━━━━━━━━━━━━━━━━)
///
/// Stored as start and duration, like CMTimeRange, so a duration's exactness does not depend on the
/// start's timescale. Equality compares both as `MediaTime` does (exactly, across timescales).
/// As with CMTimeRange, a range may end at +∞ but cannot start at −∞ and end at a finite time: its
/// duration would be +∞, and `end` (−∞ + +∞) is invalid.
/// Containment, intersection and union live in `TimeRange+Algebra`; text in `TimeRange+Text`.
public struct TimeRange: Sendable, Hashable, Codable {
    /// The first instant inside the range.
    public var start: MediaTime
    /// How long the range lasts; a valid range's duration is at least zero, in epoch 0.
    public var duration: MediaTime

    /// The range from `start` lasting `duration`.
    public init(start: MediaTime, duration: MediaTime) {
        self.start = start
        self.duration = duration
    }

    /// The range from `start` up to, not including, `end`; the duration is `end - start`, so an `end`
    /// before `start` makes an invalid range (negative duration) rather than a swapped one.
    public init(start: MediaTime, end: MediaTime) {
        self.init(start: start, duration: end - start)
    }

    /// `start + duration`: the first instant after the range.
    public var end: MediaTime { start + duration }

    /// Whether the duration is zero: the range holds no instant, but still has a position.
    public var isEmpty: Bool { duration.kind == .numeric && duration.epoch == 0 && duration.value == 0 }

    /// Whether the range means something, as `CMTIMERANGE_IS_VALID`: start and duration both valid, and the
    /// duration a non-negative duration (epoch 0). An infinite or indefinite duration is valid.
    public var isValid: Bool {
        start.kind != .invalid && duration.kind != .invalid && duration.epoch == 0 && duration >= .zero
    }

    /// Invalid start and duration, as `kCMTimeRangeInvalid`.
    public static let invalid = TimeRange(start: .invalid, duration: .invalid)

    /// The empty range at time zero, as `kCMTimeRangeZero`.
    public static let zero = TimeRange(start: .zero, duration: .zero)
}
