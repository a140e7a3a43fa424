import CFFmpeg
import Foundation
import TesseraAV
import TesseraCompute
import TesseraCore

/// Makes a composition's output frames from one asset's pictures (`SegmentLayer`): the one statement of
/// how a frame reaches the render, shared by the one-pass render and a farm's segments so both make the
/// same pictures.
///
/// ```
///  decoded frame ─▶ FrameProcessor (Vulkan or CPU: upright, scaled, right-angle turns, an HDR asset
///      tone-mapped) ─▶ LayerPlacement
///      (on the background, cut to the render; other angles resampled) ─▶ opacity (FrameBlend) ─▶ frame k
/// ```
///
/// Output frame k shows the picture placed by the layer's transform at time k·frameDuration (a new
/// processor only when the transform asks another size or turn than the frame before), faded over the
/// background by the opacity there; a gap shows the background.
struct LayerRenderer {
    let layer: SegmentLayer
    let rotation: Rotation
    let frameDuration: Rational
    /// An HDR asset's tone map, which its processor applies as it scales.
    let toneMap: ToneMap?
    /// The background picture, render-sized.
    let background: Frame
    private let makeProcessor: SegmentRunner.MakeProcessor
    private var processor: (any FrameProcessor)?

    init(
        layer: SegmentLayer, rotation: Rotation, frameDuration: Rational, toneMap: ToneMap? = nil,
        makeProcessor: @escaping SegmentRunner.MakeProcessor
    ) throws(MediaError) {
        self.layer = layer
        self.toneMap = toneMap
        self.rotation = rotation
        self.frameDuration = frameDuration
        self.makeProcessor = makeProcessor
        background = try Self.solid(layer.renderWidth, layer.renderHeight, layer.rgb)
    }

    /// Which processor made the pictures (none yet, or a gap's background alone: `.none`).
    var kind: ProcessorKind { processor?.kind ?? .none }

    /// Output frame `k`: `picture` (a decoded source frame; nil where nothing plays) on the render, with
    /// `pts = k` and a duration of 1 in ticks of the frame duration.
    mutating func render(_ picture: Frame?, k: Int64) throws(MediaError) -> Frame {
        let t = Rational(k) * frameDuration
        var out = try background.clone()
        if let picture {
            let f = picture.pointer.pointee
            let placement = try LayerPlacement(
                sourceWidth: Int(f.width), sourceHeight: Int(f.height),
                sampleAspect: (Int(f.sample_aspect_ratio.num), Int(f.sample_aspect_ratio.den)), rotation: rotation,
                renderWidth: layer.renderWidth, renderHeight: layer.renderHeight,
                transform: layer.transforms.transform(at: t))
            if placement.isVisible {
                try out.makeWritable()
                var spec = placement.spec
                spec.toneMap = toneMap
                if processor?.spec != spec { processor = try makeProcessor(spec, picture) }
                try placement.draw(try processor!.process(picture), on: out)
            }
            let alpha = layer.opacity(at: t)
            if alpha < 1 { out = try FrameBlend.blend(out, background, weight: 1 - alpha) }
        }
        out.pts = k
        out.pointer.pointee.pkt_duration = 1
        out.pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE
        return out
    }

    /// The size a composition's output at `settings` has: the render, or a smaller rendition's box fitted
    /// around it (the render scaled).
    static func outputSize(of layer: SegmentLayer, settings: VideoSettings) -> (width: Int, height: Int) {
        settings.outputSize(forDisplayWidth: layer.renderWidth, height: layer.renderHeight)
    }

    /// What the encoder of a composition's video takes: the render in 8-bit 4:2:0, square pixels, one tick
    /// per frame.
    static func encoderInput(
        width: Int, height: Int, frameDuration d: Rational
    ) throws(MediaError)
        -> Encoder.VideoInput
    {
        guard d > .zero else { throw MediaError(.invalidArgument, "frame duration \(d) is not positive") }
        let timeBase = try AVRational(d, "the frame duration")
        return Encoder.VideoInput(
            width: width, height: height, pixelFormat: AV_PIX_FMT_YUV420P,
            timeBase: timeBase, frameRate: timeBase.inverse,
            sampleAspectRatio: AVRational(num: 1, den: 1), colorSpace: AVCOL_SPC_UNSPECIFIED,
            colorPrimaries: AVCOL_PRI_UNSPECIFIED, colorTransfer: AVCOL_TRC_UNSPECIFIED,
            colorRange: AVCOL_RANGE_MPEG, chromaLocation: AVCHROMA_LOC_LEFT)
    }

    /// A picture of one colour (BT.601 limited range, as libavfilter's pad draws it).
    static func solid(_ width: Int, _ height: Int, _ rgb: (r: Int, g: Int, b: Int)) throws(MediaError) -> Frame {
        let (r, g, b) = (Double(rgb.r) / 255, Double(rgb.g) / 255, Double(rgb.b) / 255)
        let y = 16 + 219 * (0.299 * r + 0.587 * g + 0.114 * b)
        let u = 128 + 224 * (-0.168736 * r - 0.331264 * g + 0.5 * b)
        let v = 128 + 224 * (0.5 * r - 0.418688 * g - 0.081312 * b)
        let frame = try Frame(width: width, height: height, format: AV_PIX_FMT_YUV420P)
        let p = frame.pointer
        let lines = [p.pointee.linesize.0, p.pointee.linesize.1, p.pointee.linesize.2]
        for (plane, value, rows) in [(0, y, height), (1, u, (height + 1) / 2), (2, v, (height + 1) / 2)] {
            guard let data = p.pointee.extended_data[plane] else { continue }
            memset(data, Int32(value.rounded()), Int(lines[plane]) * rows)
        }
        return frame
    }
}
