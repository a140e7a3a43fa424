/// YCbCr ↔ RGB matrix (FFmpeg's `colorspace` names).
public struct ColorMatrix: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
    public static let bt601: ColorMatrix = .init(rawValue: "smpte170m")
    public static let bt709: ColorMatrix = .init(rawValue: "bt709")
    public static let bt2020nc: ColorMatrix = .init(rawValue: "bt2020nc")
    public static let unspecified: ColorMatrix = .init(rawValue: "unknown")
}

/// Colour primaries (FFmpeg's `color_primaries` names).
public struct ColorPrimaries: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
    public static let bt709: ColorPrimaries = .init(rawValue: "bt709")
    public static let bt2020: ColorPrimaries = .init(rawValue: "bt2020")
    public static let smpte170m: ColorPrimaries = .init(rawValue: "smpte170m")
    public static let unspecified: ColorPrimaries = .init(rawValue: "unknown")
}

/// Transfer characteristic (FFmpeg's `color_trc` names).
public struct TransferFunction: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
    public static let bt709: TransferFunction = .init(rawValue: "bt709")
    public static let smpte2084: TransferFunction = .init(rawValue: "smpte2084")
    public static let aribStdB67: TransferFunction = .init(rawValue: "arib-std-b67")
    public static let unspecified: TransferFunction = .init(rawValue: "unknown")
}

/// Quantisation range of the samples.
public enum ColorRange: String, Sendable, Hashable, Codable, CaseIterable {
    /// "TV" range: Y in 16…235, Cb/Cr in 16…240 (8-bit).
    case limited = "tv"
    /// "PC" range: every code value is used.
    case full = "pc"
    case unspecified = "unknown"
}

/// Where chroma samples sit relative to luma (FFmpeg's `chroma_location` names).
public enum ChromaLocation: String, Sendable, Hashable, Codable, CaseIterable {
    case left, center, topleft, top, bottomleft, bottom
    case unspecified
}

/// The colour description of a video track or frame.
public struct ColorDescription: Sendable, Hashable, Codable {
    public var matrix: ColorMatrix
    public var primaries: ColorPrimaries
    public var transfer: TransferFunction
    public var range: ColorRange
    public var chromaLocation: ChromaLocation

    public init(
        matrix: ColorMatrix = .unspecified, primaries: ColorPrimaries = .unspecified,
        transfer: TransferFunction = .unspecified, range: ColorRange = .unspecified,
        chromaLocation: ChromaLocation = .unspecified
    ) {
        self.matrix = matrix
        self.primaries = primaries
        self.transfer = transfer
        self.range = range
        self.chromaLocation = chromaLocation
    }

    /// Standard-definition and HD defaults, used when a stream says nothing.
    public static let bt709Limited = ColorDescription(
        matrix: .bt709, primaries: .bt709, transfer: .bt709,
        range: .limited, chromaLocation: .left)
}
