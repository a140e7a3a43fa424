/// Two integers as a ratio for display and pass-through (a pixel aspect ratio, "0:1" for unknown), kept
/// as given. Times, time bases and rates are `Rational`.
public struct Fraction: Sendable, Hashable, Codable, CustomStringConvertible {
    public var numerator: Int
    public var denominator: Int
    public init(_ numerator: Int, _ denominator: Int) {
        self.numerator = numerator
        self.denominator = denominator
    }
    public var description: String { "\(numerator):\(denominator)" }
}
