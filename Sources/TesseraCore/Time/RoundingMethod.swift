/// How a time is rounded when it has to be expressed at a timescale that cannot hold it exactly,
/// with the meanings of `CMTimeRoundingMethod`.
///
/// "Fraction" below is the part of the exact value, in ticks of the new timescale, that the
/// result cannot hold; the rounded value is then the nearest integer in the named direction.
public enum RoundingMethod: Sendable, CaseIterable {
    /// Toward zero when the fraction's magnitude is below one half, away from zero from one half up
    /// (1.5 → 2, −1.5 → −2). The default.
    case roundHalfAwayFromZero
    /// Toward zero whenever there is a fraction (truncation).
    case roundTowardZero
    /// Away from zero whenever there is a fraction.
    case roundAwayFromZero
    /// QuickTime's rule: toward zero when converting to a coarser timescale (less precision),
    /// away from zero when converting to a finer one (more precision); and a negative time is never
    /// rounded up to zero: it becomes the smallest negative time, −1 tick of the new timescale.
    case quickTime
    /// Toward +∞ whenever there is a fraction (ceiling).
    case roundTowardPositiveInfinity
    /// Toward −∞ whenever there is a fraction (floor).
    case roundTowardNegativeInfinity

    /// `roundHalfAwayFromZero`, as `kCMTimeRoundingMethod_Default`.
    public static let `default`: RoundingMethod = .roundHalfAwayFromZero
}
