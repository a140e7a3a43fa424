/// A pixel layout, named as FFmpeg names it (`yuv420p`, `nv12`, `p010le`, …).
///
/// Kept as a name rather than a closed enum so that probing can report any format a file holds;
/// the formats Tessera converts between have constants.
public struct PixelFormat: RawRepresentable, Sendable, Hashable, Codable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }

    public static let yuv420p: PixelFormat = "yuv420p"
    public static let nv12: PixelFormat = "nv12"
    public static let yuv420p10le: PixelFormat = "yuv420p10le"
    public static let p010le: PixelFormat = "p010le"
    public static let yuv422p: PixelFormat = "yuv422p"
    public static let yuv422p10le: PixelFormat = "yuv422p10le"
    public static let yuv444p: PixelFormat = "yuv444p"
    public static let rgba: PixelFormat = "rgba"

    /// Bits per component of the formats Tessera knows; 8 for anything else.
    public var bitDepth: Int {
        switch self {
        case .yuv420p10le, .p010le, .yuv422p10le: 10
        default: rawValue.contains("10") ? 10 : (rawValue.contains("12") ? 12 : 8)
        }
    }
}
