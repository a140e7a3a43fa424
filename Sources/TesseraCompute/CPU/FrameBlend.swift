import CFFmpeg
import CTesseraKernels
import TesseraAV
import TesseraCore

/// The CPU blend of two pictures of one layout, row by row (8-bit rows in C, which vectorises):
/// `out = first + weight × (second − first)`, rounded half up, as the Vulkan kernel computes it.
public enum FrameBlend {
    /// - Throws: `.invalidArgument` for frames of different size or format or a weight outside 0…1.
    static func check(_ first: Frame, _ second: Frame, weight: Double) throws(MediaError) {
        guard first.width == second.width, first.height == second.height, first.pixelFormat == second.pixelFormat
        else {
            throw MediaError(
                .invalidArgument,
                "cannot blend a \(first.width)x\(first.height) "
                    + "\(PixelFormat(first.pixelFormat)) frame with a \(second.width)x\(second.height) "
                    + "\(PixelFormat(second.pixelFormat)) one")
        }
        guard weight >= 0, weight <= 1 else {
            throw MediaError(.invalidArgument, "blend weight \(weight) is outside 0…1")
        }
    }

    /// - Throws: as `check`, `.unsupported` for a format Tessera does not know, `.ffmpeg` on allocation.
    public static func blend(_ first: Frame, _ second: Frame, weight: Double) throws(MediaError) -> Frame {
        try check(first, second, weight: weight)
        let format = PixelFormat(first.pixelFormat)
        guard let layout = PictureLayout(format) else {
            throw MediaError(.unsupported, "cannot blend pixel format \(format)")
        }
        let output = try Frame(width: first.width, height: first.height, format: first.pixelFormat)
        try ff(av_frame_copy_props(output.pointer, first.pointer), "copy frame properties")
        let w = Float(weight)
        let bytes = layout.channels[0].bytesPerSample, shift = layout.channels[0].shift
        for p in 0..<layout.planeCount {
            let size = layout.planeSize(p, width: first.width, height: first.height)
            let rowBytes = layout.rowBytes(p, width: first.width)
            guard let a = first.plane(p), let b = second.plane(p), let o = output.plane(p) else { continue }
            for y in 0..<size.height {
                let ra = a + y * first.linesize(p), rb = b + y * second.linesize(p), ro = o + y * output.linesize(p)
                if bytes == 1 {
                    blendRow(ra, rb, ro, count: rowBytes, weight: w)
                } else {
                    ra.withMemoryRebound(to: UInt16.self, capacity: rowBytes / 2) { a16 in
                        rb.withMemoryRebound(to: UInt16.self, capacity: rowBytes / 2) { b16 in
                            ro.withMemoryRebound(to: UInt16.self, capacity: rowBytes / 2) { o16 in
                                blendRow16(a16, b16, o16, count: rowBytes / 2, weight: w, shift: shift)
                            }
                        }
                    }
                }
            }
        }
        return output
    }

    static func blendRow(
        _ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ o: UnsafeMutablePointer<UInt8>,
        count: Int, weight: Float
    ) {
        tessera_blend_row_u8(a, b, o, count, weight)
    }

    static func blendRow16(
        _ a: UnsafePointer<UInt16>, _ b: UnsafePointer<UInt16>, _ o: UnsafeMutablePointer<UInt16>,
        count: Int, weight: Float, shift: Int
    ) {
        for i in 0..<count {
            let x = Float(a[i] >> shift), y = Float(b[i] >> shift)
            o[i] = UInt16((x + weight * (y - x) + 0.5).rounded(.down)) << shift
        }
    }
}
