import TesseraAV
import TesseraCore

/// Converts and scales decoded pictures: the "process" stage of read → decode → process → encode.
///
/// ```
///  decoder ──Frame(src size, src format, src colour)──▶ FrameProcessor ──Frame(spec)──▶ encoder
/// ```
///
/// An instance is configured once with a `ProcessingSpec` and then fed frames of one input
/// geometry; it may keep buffers between calls. Implementations: `CPUProcessor` (CPU),
/// and a Vulkan compute one.
public protocol FrameProcessor: AnyObject {
    /// Short name for logs and reports (`swscale`, `vulkan`).
    var kind: ProcessorKind { get }
    var spec: ProcessingSpec { get }

    /// Returns the processed picture, with `pts` and other properties copied from `input`.
    ///
    /// - Throws: `MediaError.unsupported` for an input format the backend cannot read,
    ///   `MediaError.ffmpeg` when the conversion itself fails.
    func process(_ input: Frame) throws(MediaError) -> Frame
}

/// A processor that keeps several frames in flight: `submit` starts one, `receive` returns the oldest
/// finished one, in submission order. `VulkanProcessor` (slots on the device) and
/// `FrameParallelProcessor` (a CPU lane per frame) are both; `process` is submit-then-receive.
public protocol PipelinedFrameProcessor: FrameProcessor {
    /// Frames that may be pending at once.
    var framesInFlight: Int { get }
    /// Frames submitted and not yet received.
    var pendingCount: Int { get }
    /// Starts processing `input`. With `framesInFlight` pending, `receive()` one first.
    /// - Throws: `.invalidArgument` when every slot is pending; backend errors otherwise.
    func submit(_ input: Frame) throws(MediaError)
    /// Waits for the oldest submitted frame and returns it processed; nil when nothing is pending.
    func receive() throws(MediaError) -> Frame?
}

/// A processor that makes several outputs of each frame from one read of it: `VulkanProcessor` uploads a
/// frame once for every size a ladder wants. (The CPU path reads a decoded frame where it lies for every
/// output, so it has nothing to share.)
public protocol MultiOutputFrameProcessor: FrameProcessor {
    /// The outputs, in order; `spec` is the first.
    var specs: [ProcessingSpec] { get }
    /// A new processor making `specs` and then `spec`, sharing each frame's one upload.
    func adding(_ spec: ProcessingSpec) throws(MediaError) -> any MultiOutputFrameProcessor
    /// `input` processed as each of `specs` asks, in that order, from one upload.
    func processAll(_ input: Frame) throws(MediaError) -> [Frame]
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
    /// Mirror the picture left–right after the rotation (in display space).
    public var flipHorizontal: Bool
    /// Mirror the picture top–bottom after the rotation (in display space).
    public var flipVertical: Bool
    /// How much of the picture shows over `backgroundColor`: 1 opaque, 0 only background
    /// (a layer instruction's opacity). An RGBA input's own alpha multiplies it.
    public var opacity: Double
    /// What shows through where the picture is transparent (the video composition's background).
    public var backgroundColor: RGBColor
    /// HDR to BT.709 SDR on the way (`ToneMap`); the output matrix is then `outputMatrix`, BT.709 when nil.
    public var toneMap: ToneMap?

    public init(
        outputWidth: Int, outputHeight: Int, outputFormat: PixelFormat, outputMatrix: ColorMatrix? = nil,
        outputRange: ColorRange? = nil, filter: ScalingFilter = .bicubic, rotation: Rotation = .none,
        dither: Bool = true, flipHorizontal: Bool = false, flipVertical: Bool = false,
        opacity: Double = 1, backgroundColor: RGBColor = .black, toneMap: ToneMap? = nil
    ) {
        self.toneMap = toneMap
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
        self.outputFormat = outputFormat
        self.outputMatrix = outputMatrix
        self.outputRange = outputRange
        self.filter = filter
        self.rotation = rotation
        self.dither = dither
        self.flipHorizontal = flipHorizontal
        self.flipVertical = flipVertical
        self.opacity = opacity
        self.backgroundColor = backgroundColor
    }

    private enum CodingKeys: String, CodingKey {
        case outputWidth, outputHeight, outputFormat, outputMatrix, outputRange, filter, rotation, dither
        case flipHorizontal, flipVertical, opacity, backgroundColor, toneMap
    }

    /// Decodes specs written before the flip, opacity and background fields existed.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            outputWidth: try c.decode(Int.self, forKey: .outputWidth),
            outputHeight: try c.decode(Int.self, forKey: .outputHeight),
            outputFormat: try c.decode(PixelFormat.self, forKey: .outputFormat),
            outputMatrix: try c.decodeIfPresent(ColorMatrix.self, forKey: .outputMatrix),
            outputRange: try c.decodeIfPresent(ColorRange.self, forKey: .outputRange),
            filter: try c.decodeIfPresent(ScalingFilter.self, forKey: .filter) ?? .bicubic,
            rotation: try c.decodeIfPresent(Rotation.self, forKey: .rotation) ?? .none,
            dither: try c.decodeIfPresent(Bool.self, forKey: .dither) ?? true,
            flipHorizontal: try c.decodeIfPresent(Bool.self, forKey: .flipHorizontal) ?? false,
            flipVertical: try c.decodeIfPresent(Bool.self, forKey: .flipVertical) ?? false,
            opacity: try c.decodeIfPresent(Double.self, forKey: .opacity) ?? 1,
            backgroundColor: try c.decodeIfPresent(RGBColor.self, forKey: .backgroundColor) ?? .black,
            toneMap: try c.decodeIfPresent(ToneMap.self, forKey: .toneMap))
    }

    /// True when the output is the picture turned or mirrored relative to the source.
    public var reorients: Bool { rotation != .none || flipHorizontal || flipVertical }
}

/// A colour in non-linear R'G'B', each component 0…1, as a video composition's background.
public struct RGBColor: Sendable, Hashable, Codable {
    public var red: Double
    public var green: Double
    public var blue: Double

    public init(red: Double, green: Double, blue: Double) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    public static let black = RGBColor(red: 0, green: 0, blue: 0)
    public static let white = RGBColor(red: 1, green: 1, blue: 1)
}
