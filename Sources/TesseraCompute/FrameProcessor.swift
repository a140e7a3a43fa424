import TesseraAV
import TesseraCore

/// Converts and scales decoded pictures: the "process" stage of read → decode → process → encode.
///
/// ```
///  decoder ──Frame(src size, src format, src colour)──▶ FrameProcessor ──Frame(spec)──▶ encoder
/// ```
///
/// An instance is configured once with a `ProcessingSpec` and then fed frames of one input
/// geometry; it may keep buffers between calls. Implementations: `SwscaleProcessor` (CPU),
/// and a Vulkan compute one.
public protocol FrameProcessor: AnyObject {
    /// Short name for logs and reports (`swscale`, `vulkan`).
    var backendName: String { get }
    var spec: ProcessingSpec { get }

    /// Returns the processed picture, with `pts` and other properties copied from `input`.
    ///
    /// - Throws: `MediaError.unsupported` for an input format the backend cannot read,
    ///   `MediaError.ffmpeg` when the conversion itself fails.
    func process(_ input: Frame) throws(MediaError) -> Frame
}

/// The resampling kernel used when the picture changes size.
public enum ScalingFilter: String, Sendable, Hashable, Codable, CaseIterable {
    case bilinear
    /// Bicubic, Catmull-Rom (B=0, C=0.5).
    case bicubic
    /// Bicubic, Mitchell–Netravali (B=1/3, C=1/3).
    case mitchell
    case lanczos3
}

/// What a processor produces: the output geometry, format and colour, and how it gets there.
public struct ProcessingSpec: Sendable, Hashable, Codable {
    public var outputWidth: Int
    public var outputHeight: Int
    public var outputFormat: PixelFormat
    /// Output colour; a nil field keeps the input's.
    public var outputMatrix: ColorMatrix?
    public var outputRange: ColorRange?
    public var filter: ScalingFilter
    /// Applied before scaling: the track's preferred transform. `outputWidth/Height` are after it.
    public var rotation: Rotation
    /// Dither when reducing bit depth (10 → 8).
    public var dither: Bool

    public init(outputWidth: Int, outputHeight: Int, outputFormat: PixelFormat, outputMatrix: ColorMatrix? = nil,
                outputRange: ColorRange? = nil, filter: ScalingFilter = .bicubic, rotation: Rotation = .none,
                dither: Bool = true) {
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
        self.outputFormat = outputFormat
        self.outputMatrix = outputMatrix
        self.outputRange = outputRange
        self.filter = filter
        self.rotation = rotation
        self.dither = dither
    }
}
