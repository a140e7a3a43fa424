import CFFmpeg
import TesseraAV
import TesseraCore

/// Where each colour channel of a pixel format lives in memory, as both backends and the kernels
/// read it: plane, byte position inside a sample, spacing, width and bit position.
struct PictureLayout: Sendable, Hashable {
    struct Channel: Sendable, Hashable {
        var plane: Int
        /// Byte offset of this channel inside one pixel of its plane (1 for V in NV12's UVUV…).
        var byteOffset: Int
        /// Bytes from one pixel of the plane to the next (2 for NV12's UV plane, 4 for RGBA).
        var pixelStride: Int
        /// 1 or 2.
        var bytesPerSample: Int
        /// Right shift that brings a sample's value down to `bitDepth` bits (6 for P010).
        var shift: Int
        /// log2 of the horizontal and vertical subsampling of this channel's plane.
        var log2SubX: Int
        var log2SubY: Int
    }

    let format: PixelFormat
    /// Y, Cb, Cr — or R, G, B, A for RGB formats.
    let channels: [Channel]
    let isRGB: Bool
    let hasAlpha: Bool
    let bitDepth: Int
    let planeCount: Int
    let log2ChromaX: Int
    let log2ChromaY: Int

    var maxCode: Int { (1 << bitDepth) - 1 }

    /// The layouts TesseraCompute reads and writes; nil for any other format.
    init?(_ format: PixelFormat) {
        self.format = format
        func planar(_ bytes: Int, _ sx: Int, _ sy: Int) -> [Channel] {
            [
                Channel(
                    plane: 0, byteOffset: 0, pixelStride: bytes, bytesPerSample: bytes, shift: 0, log2SubX: 0,
                    log2SubY: 0),
                Channel(
                    plane: 1, byteOffset: 0, pixelStride: bytes, bytesPerSample: bytes, shift: 0, log2SubX: sx,
                    log2SubY: sy),
                Channel(
                    plane: 2, byteOffset: 0, pixelStride: bytes, bytesPerSample: bytes, shift: 0, log2SubX: sx,
                    log2SubY: sy),
            ]
        }
        func semiPlanar(_ bytes: Int, _ shift: Int) -> [Channel] {
            [
                Channel(
                    plane: 0, byteOffset: 0, pixelStride: bytes, bytesPerSample: bytes, shift: shift, log2SubX: 0,
                    log2SubY: 0),
                Channel(
                    plane: 1, byteOffset: 0, pixelStride: 2 * bytes, bytesPerSample: bytes, shift: shift,
                    log2SubX: 1, log2SubY: 1),
                Channel(
                    plane: 1, byteOffset: bytes, pixelStride: 2 * bytes, bytesPerSample: bytes, shift: shift,
                    log2SubX: 1, log2SubY: 1),
            ]
        }
        var rgb = false, alpha = false, depth = 8, planes = 3, cx = 1, cy = 1
        switch format {
        case .yuv420p: channels = planar(1, 1, 1)
        case .yuv422p:
            channels = planar(1, 1, 0)
            cy = 0
        case .yuv444p:
            channels = planar(1, 0, 0)
            cx = 0
            cy = 0
        case .yuv420p10le:
            channels = planar(2, 1, 1)
            depth = 10
        case .yuv422p10le:
            channels = planar(2, 1, 0)
            depth = 10
            cy = 0
        case .nv12:
            channels = semiPlanar(1, 0)
            planes = 2
        case .p010le:
            channels = semiPlanar(2, 6)
            planes = 2
            depth = 10
        case .rgba:
            channels = (0..<4).map {
                Channel(
                    plane: 0, byteOffset: $0, pixelStride: 4, bytesPerSample: 1, shift: 0, log2SubX: 0,
                    log2SubY: 0)
            }
            rgb = true
            alpha = true
            planes = 1
            cx = 0
            cy = 0
        default: return nil
        }
        isRGB = rgb
        hasAlpha = alpha
        bitDepth = depth
        planeCount = planes
        log2ChromaX = cx
        log2ChromaY = cy
    }

    /// Formats the kernels read.
    static let readable: [PixelFormat] = [
        .yuv420p, .nv12, .yuv420p10le, .p010le, .yuv422p, .yuv422p10le, .yuv444p,
        .rgba,
    ]
    /// Formats the kernels write.
    static let writable: [PixelFormat] = [.yuv420p, .nv12, .p010le, .rgba, .yuv420p10le, .yuv422p, .yuv444p]

    /// Width and height of plane `index` for a picture of `width` × `height`.
    func planeSize(_ index: Int, width: Int, height: Int) -> (width: Int, height: Int) {
        guard index > 0, !isRGB else { return (width, height) }
        return ((width + (1 << log2ChromaX) - 1) >> log2ChromaX, (height + (1 << log2ChromaY) - 1) >> log2ChromaY)
    }

    /// Bytes in one row of plane `index` (all channels of the plane).
    func rowBytes(_ index: Int, width: Int) -> Int {
        let w = planeSize(index, width: width, height: 1).width
        return w * (channels.first { $0.plane == index }?.pixelStride ?? 1)
    }
}
