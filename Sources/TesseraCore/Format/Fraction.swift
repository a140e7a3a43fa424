/// A reduced fraction of two integers (aspect ratios, frame rates for display).
public struct Fraction: Sendable, Hashable, Codable, CustomStringConvertible {
    public var numerator: Int
    public var denominator: Int
    public init(_ numerator: Int, _ denominator: Int) {
        self.numerator = numerator
        self.denominator = denominator
    }
    public var description: String { "\(numerator):\(denominator)" }
}
