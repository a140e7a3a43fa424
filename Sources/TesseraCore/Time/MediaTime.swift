/// Exact rational media time, with CMTime's semantics: `value / timescale` seconds.
///
/// A time is one of five kinds, decided by its flags (see `Comparable` for their order):
///
///     −∞  <  numeric (value / timescale, in an epoch)  <  indefinite  <  +∞  <  invalid
///
/// Timing decisions use exact integer arithmetic only: comparison cross-multiplies in 128 bits,
/// and `+`, `-`, `multiplied(by:)` and `convertScale(_:method:)` compute the exact rational result
/// before choosing a timescale for it, setting `.hasBeenRounded` whenever that timescale cannot hold it.
/// `seconds` and `init(seconds:preferredTimescale:)` are for people (display, UI input), not for timing.
///
/// The rest of the type lives beside this file: `MediaTime+Comparable` (order, equality, hashing),
/// `MediaTime+Arithmetic`, `MediaTime+Conversion` (timescales, rounding, seconds),
/// `MediaTime+Text` (parsing and printing) and `MediaTime+Codable`.
public struct MediaTime: Sendable, Hashable, Codable {
    /// What kind of time this is, bit for bit as `CMTimeFlags` (so the raw values can cross into CoreMedia).
    public struct Flags: OptionSet, Sendable, Hashable, Codable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// Set on every meaningful time; without it the time is invalid whatever else is set.
        public static let valid = Flags(rawValue: 1 << 0)
        /// Some operation that produced this time could not hold the exact result and rounded it.
        public static let hasBeenRounded = Flags(rawValue: 1 << 1)
        /// +∞; value and timescale are then ignored.
        public static let positiveInfinity = Flags(rawValue: 1 << 2)
        /// −∞; value and timescale are then ignored.
        public static let negativeInfinity = Flags(rawValue: 1 << 3)
        /// Not known yet (a live stream's duration, say); value and timescale are then ignored.
        public static let indefinite = Flags(rawValue: 1 << 4)
    }

    /// The number of `1 / timescale` second ticks.
    public var value: Int64
    /// Ticks per second; positive in every numeric time.
    public var timescale: Int32
    /// The kind of time and whether it was rounded; see `Flags`.
    public var flags: Flags
    /// Which of several unrelated timelines this time is on (a loop count, say); 0 for almost everything.
    /// Times in a larger epoch are later; durations are in epoch 0.
    public var epoch: Int64

    /// A time of `value / timescale` seconds. A timescale of zero or below makes it invalid, as in CMTime.
    public init(value: Int64, timescale: Int32, flags: Flags = .valid, epoch: Int64 = 0) {
        self.value = value
        self.timescale = timescale
        self.flags = timescale > 0 ? flags : flags.subtracting(.valid)
        self.epoch = epoch
    }

    /// Zero seconds, as `kCMTimeZero`.
    public static let zero = MediaTime(value: 0, timescale: 1)
    /// The invalid time, as `kCMTimeInvalid`; every time without `.valid` equals it.
    public static let invalid = MediaTime(value: 0, timescale: 0, flags: [])
    /// +∞, as `kCMTimePositiveInfinity`; every valid time with that flag equals it.
    public static let positiveInfinity = MediaTime(value: 0, timescale: 1, flags: [.valid, .positiveInfinity])
    /// −∞, as `kCMTimeNegativeInfinity`; every valid time with that flag equals it.
    public static let negativeInfinity = MediaTime(value: 0, timescale: 1, flags: [.valid, .negativeInfinity])
    /// Not known yet, as `kCMTimeIndefinite`; every valid time with that flag equals it.
    public static let indefinite = MediaTime(value: 0, timescale: 1, flags: [.valid, .indefinite])

    /// `CMTimeRoundingMethod`'s spelling, for callers who qualify it: `MediaTime.RoundingMethod.quickTime`.
    public typealias RoundingMethod = TesseraCore.RoundingMethod

    /// Whether `.valid` is set: true for numeric, infinite and indefinite times.
    public var isValid: Bool { flags.contains(.valid) }
    /// Valid and finite: neither infinite nor indefinite, and with a positive timescale (a hand-built time
    /// whose timescale was later set to zero or below is treated as invalid everywhere).
    public var isNumeric: Bool {
        isValid && timescale > 0 && flags.isDisjoint(with: [.positiveInfinity, .negativeInfinity, .indefinite])
    }
    /// Floating-point seconds, for display and progress only — never for timing decisions. ±∞ for the
    /// infinities, NaN for indefinite and invalid times (an infinity flag without `.valid` is invalid).
    public var seconds: Double {
        switch kind {
        case .positiveInfinity: return .infinity
        case .negativeInfinity: return -.infinity
        case .indefinite, .invalid: return .nan
        case .numeric: return Double(value) / Double(timescale)
        }
    }
}
