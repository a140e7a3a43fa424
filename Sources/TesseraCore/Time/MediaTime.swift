/// Exact rational media time, with CMTime's semantics: `value / timescale` seconds.
///
/// Minimal first cut; the full algebra (rounding methods, parsing, printing) lives beside it.
public struct MediaTime: Sendable, Hashable, Codable {
    public struct Flags: OptionSet, Sendable, Hashable, Codable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let valid = Flags(rawValue: 1 << 0)
        public static let hasBeenRounded = Flags(rawValue: 1 << 1)
        public static let positiveInfinity = Flags(rawValue: 1 << 2)
        public static let negativeInfinity = Flags(rawValue: 1 << 3)
        public static let indefinite = Flags(rawValue: 1 << 4)
    }

    public var value: Int64
    public var timescale: Int32
    public var flags: Flags
    public var epoch: Int64

    public init(value: Int64, timescale: Int32, flags: Flags = .valid, epoch: Int64 = 0) {
        self.value = value
        self.timescale = timescale
        self.flags = timescale > 0 ? flags : flags.subtracting(.valid)
        self.epoch = epoch
    }

    public static let zero = MediaTime(value: 0, timescale: 1)
    public static let invalid = MediaTime(value: 0, timescale: 0, flags: [])
    public static let positiveInfinity = MediaTime(value: 0, timescale: 1, flags: [.valid, .positiveInfinity])
    public static let negativeInfinity = MediaTime(value: 0, timescale: 1, flags: [.valid, .negativeInfinity])
    public static let indefinite = MediaTime(value: 0, timescale: 1, flags: [.valid, .indefinite])

    public var isValid: Bool { flags.contains(.valid) }
    /// Valid and finite: neither infinite nor indefinite.
    public var isNumeric: Bool {
        isValid && flags.isDisjoint(with: [.positiveInfinity, .negativeInfinity, .indefinite])
    }
    /// Floating-point seconds, for display and progress only — never for timing decisions.
    public var seconds: Double {
        if flags.contains(.positiveInfinity) { return .infinity }
        if flags.contains(.negativeInfinity) { return -.infinity }
        guard isNumeric else { return .nan }
        return Double(value) / Double(timescale)
    }
}
