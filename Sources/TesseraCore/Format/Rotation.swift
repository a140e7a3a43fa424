/// The display rotation of a video track (its preferred transform), clockwise in degrees,
/// plus an optional horizontal mirror applied before rotating.
public struct Rotation: Sendable, Hashable, Codable, CustomStringConvertible {
    /// 0, 90, 180 or 270.
    public let degrees: Int
    public let mirrored: Bool

    public init(degrees: Int, mirrored: Bool = false) {
        let d = ((degrees % 360) + 360) % 360
        self.degrees = (d + 45) / 90 * 90 % 360
        self.mirrored = mirrored
    }

    public static let none = Rotation(degrees: 0)
    /// True when the displayed picture swaps width and height.
    public var swapsDimensions: Bool { degrees == 90 || degrees == 270 }
    public var description: String { mirrored ? "\(degrees)° mirrored" : "\(degrees)°" }
}
