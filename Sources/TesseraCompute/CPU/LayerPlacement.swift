import CFFmpeg
import Foundation
import TesseraAV
import TesseraCore

/// Where one asset's picture lands on a composition's render, and the drawing of it there.
///
/// The picture is made square-pixelled, upright (the track's preferred transform) and scaled by the
/// `FrameProcessor` (Vulkan or the CPU path), turned there too when the layer's turn is a right angle;
/// `draw` then copies it onto the render at its position, cut to the render's edges. Only a turn that
/// is not a right angle is resampled here (bilinear, about the picture's centre, into its bounding box;
/// the corners keep the background).
///
/// Without a transform the picture is fitted into the render keeping its aspect ratio and centred; with
/// one it is scaled, turned about its centre, and its bounding box's top-left corner is put at (x, y).
/// Sizes and offsets are even, for 4:2:0.
public struct LayerPlacement: Sendable, Hashable {
    /// What the frame processor makes of the source picture.
    public var spec: ProcessingSpec
    /// The top-left corner of the picture's bounding box on the render (may lie outside it).
    public var x: Int
    public var y: Int
    /// A clockwise turn in degrees the processor cannot make (not a right angle), or 0.
    public var turn: Double
    /// The turned picture's bounding box.
    public var boxWidth: Int
    public var boxHeight: Int
    public var renderWidth: Int
    public var renderHeight: Int

    /// False when no pixel of the picture lands on the render: the render shows the background alone.
    public var isVisible: Bool {
        min(boxWidth, renderWidth - x) - max(0, -x) >= 2 && min(boxHeight, renderHeight - y) - max(0, -y) >= 2
    }

    /// - Parameters:
    ///   - sampleAspect: the source's pixel aspect ratio (num, den); a non-positive one is square.
    /// - Throws: `.invalidArgument` for a picture with no pixels, or when the transform makes the picture
    ///   larger than the spec allows (a task from the wire is held to the same bound as a spec).
    public init(
        sourceWidth: Int, sourceHeight: Int, sampleAspect: (num: Int, den: Int), rotation: Rotation,
        renderWidth: Int, renderHeight: Int, transform: CompositionSpec.Transform?
    ) throws(MediaError) {
        guard sourceWidth > 0, sourceHeight > 0, renderWidth > 0, renderHeight > 0 else {
            throw MediaError(
                .invalidArgument,
                "cannot place a \(sourceWidth)x\(sourceHeight) picture on a \(renderWidth)x\(renderHeight) render")
        }
        self.renderWidth = renderWidth
        self.renderHeight = renderHeight
        let sar =
            sampleAspect.num > 0 && sampleAspect.den > 0
            ? min(max(Double(sampleAspect.num) / Double(sampleAspect.den), 1e-3), 1e3) : 1
        // Every size and offset is bounded (±2^20 px, a non-number 0) before it becomes an Int: none can trap.
        func even(_ v: Double) -> Int {
            v.isFinite ? Int((min(max(v, -1_048_576), 1_048_576) / 2).rounded(.down)) * 2 : 0
        }
        // The upright picture's size in square pixels.
        var (w, h) = (Double(sourceWidth) * sar, Double(sourceHeight))
        if rotation.swapsDimensions { (w, h) = (h, w) }
        var turned = rotation
        let (outW, outH): (Int, Int)
        if let transform {
            let extent = transform.extent(ofSide: max(w, h))
            guard extent <= CompositionSpec.Transform.maxExtent else {
                throw MediaError(
                    .invalidArgument,
                    "the layer transform makes the picture \(String(format: "%.0f", extent)) px across; at most "
                        + String(format: "%.0f", CompositionSpec.Transform.maxExtent))
            }
            var (sw, sh) = (
                max(2, even(Double(even(w)) * transform.scale)), max(2, even(Double(even(h)) * transform.scale))
            )
            let degrees = transform.degrees
            if degrees.truncatingRemainder(dividingBy: 90) == 0 {
                let quarter = Int(exactly: (degrees / 90).rounded()) ?? 0  // degrees is in [0, 360)
                turned = Rotation(degrees: rotation.degrees + 90 * quarter, mirrored: rotation.mirrored)
                if quarter % 2 != 0 { (sw, sh) = (sh, sw) }
                turn = 0
                (boxWidth, boxHeight) = (sw, sh)
            } else {
                turn = degrees
                let a = degrees * .pi / 180
                let (c, s) = (abs(cos(a)), abs(sin(a)))
                // The sides are at most 2^20 (bounded above), the box at most 2^20 · √2.
                boxWidth = max(2, Int((Double(sw) * c + Double(sh) * s) / 2) * 2)
                boxHeight = max(2, Int((Double(sw) * s + Double(sh) * c) / 2) * 2)
            }
            (outW, outH) = (sw, sh)
            (x, y) = (even(Double(transform.x)), even(Double(transform.y)))
        } else {
            // Fitted: the longer side relative to the render fills it, the other keeps the aspect ratio.
            if Double(renderWidth) / w <= Double(renderHeight) / h {
                (outW, outH) = (renderWidth, min(renderHeight, max(2, even(Double(renderWidth) * h / w))))
            } else {
                (outW, outH) = (min(renderWidth, max(2, even(Double(renderHeight) * w / h))), renderHeight)
            }
            turn = 0
            (boxWidth, boxHeight) = (outW, outH)
            (x, y) = (even(Double(renderWidth - outW) / 2), even(Double(renderHeight - outH) / 2))
        }
        spec = ProcessingSpec(
            outputWidth: outW, outputHeight: outH, outputFormat: .yuv420p, outputRange: .limited, filter: .bicubic,
            rotation: turned)
    }

    /// Draws `picture` (the processor's output for `spec`) on `canvas` (the render, 8-bit 4:2:0, holding
    /// the background), cut to its edges.
    /// - Throws: `.invalidArgument` for frames of other sizes or formats than the placement's.
    public func draw(_ picture: Frame, on canvas: Frame) throws(MediaError) {
        guard picture.width == spec.outputWidth, picture.height == spec.outputHeight,
            picture.pixelFormat == AV_PIX_FMT_YUV420P, canvas.pixelFormat == AV_PIX_FMT_YUV420P,
            canvas.width == renderWidth, canvas.height == renderHeight
        else {
            throw MediaError(
                .invalidArgument,
                "cannot place a \(picture.width)x\(picture.height) \(PixelFormat(picture.pixelFormat)) picture "
                    + "on a \(canvas.width)x\(canvas.height) \(PixelFormat(canvas.pixelFormat)) render")
        }
        guard isVisible else { return }
        for p in 0..<3 {
            let shift = p == 0 ? 0 : 1
            guard let source = picture.plane(p), let target = canvas.plane(p) else { continue }
            let plane = Plane(
                source: source, sourceStride: picture.linesize(p), width: spec.outputWidth >> shift,
                height: spec.outputHeight >> shift, target: target, targetStride: canvas.linesize(p),
                targetWidth: renderWidth >> shift, targetHeight: renderHeight >> shift)
            if turn == 0 {
                plane.copy(x: x >> shift, y: y >> shift)
            } else {
                plane.turn(
                    degrees: turn, boxX: x >> shift, boxY: y >> shift, boxWidth: boxWidth >> shift,
                    boxHeight: boxHeight >> shift)
            }
        }
    }

    /// One plane of the picture and of the render.
    private struct Plane {
        let source: UnsafeMutablePointer<UInt8>
        let sourceStride: Int
        let width: Int
        let height: Int
        let target: UnsafeMutablePointer<UInt8>
        let targetStride: Int
        let targetWidth: Int
        let targetHeight: Int

        /// Copies the picture's rows with its top-left corner at (x, y), cut to the render.
        func copy(x: Int, y: Int) {
            let left = max(0, -x), top = max(0, -y)
            let right = min(width, targetWidth - x), bottom = min(height, targetHeight - y)
            guard right > left, bottom > top else { return }
            for row in top..<bottom {
                memcpy(target + (y + row) * targetStride + x + left, source + row * sourceStride + left, right - left)
            }
        }

        /// Turns the picture `degrees` clockwise about its centre into the box at (boxX, boxY), sampling it
        /// bilinearly; a box pixel whose source lies outside the picture keeps the render's value.
        func turn(degrees: Double, boxX: Int, boxY: Int, boxWidth: Int, boxHeight: Int) {
            let a = degrees * .pi / 180
            let (c, s) = (cos(a), sin(a))
            let (cx, cy) = (Double(boxWidth) / 2, Double(boxHeight) / 2)
            let (pcx, pcy) = (Double(width) / 2, Double(height) / 2)
            let x0 = max(0, boxX), x1 = min(targetWidth, boxX + boxWidth)
            let y0 = max(0, boxY), y1 = min(targetHeight, boxY + boxHeight)
            guard x1 > x0, y1 > y0 else { return }
            for ty in y0..<y1 {
                let dy = Double(ty - boxY) + 0.5 - cy
                let row = target + ty * targetStride
                for tx in x0..<x1 {
                    let dx = Double(tx - boxX) + 0.5 - cx
                    // The inverse turn: the source point this box pixel shows (pixel centres at +0.5).
                    let u = c * dx + s * dy + pcx - 0.5, v = -s * dx + c * dy + pcy - 0.5
                    guard u >= -0.5, v >= -0.5, u <= Double(width) - 0.5, v <= Double(height) - 0.5 else { continue }
                    let cu = min(max(u, 0), Double(width - 1)), cv = min(max(v, 0), Double(height - 1))
                    let iu = min(Int(cu), max(width - 2, 0)), iv = min(Int(cv), max(height - 2, 0))
                    let fu = cu - Double(iu), fv = cv - Double(iv)
                    let iu1 = min(iu + 1, width - 1), iv1 = min(iv + 1, height - 1)
                    let r0 = source + iv * sourceStride, r1 = source + iv1 * sourceStride
                    let top = Double(r0[iu]) + fu * (Double(r0[iu1]) - Double(r0[iu]))
                    let bottom = Double(r1[iu]) + fu * (Double(r1[iu1]) - Double(r1[iu]))
                    row[tx] = UInt8(min(max(top + fv * (bottom - top) + 0.5, 0), 255))
                }
            }
        }
    }
}
