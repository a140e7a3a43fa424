import CFFmpeg
import Foundation
import TesseraAV
import TesseraCore

/// A picture as plain arrays of code values per channel (Y, Cb, Cr — or R, G, B, A), with its own
/// writer into and reader out of `Frame`s for every format the tests use. Written independently of
/// TesseraCompute's layouts so the tests do not check the library against itself.
struct TestPicture {
    var format: PixelFormat
    var width: Int
    var height: Int
    /// channels[c][y * planeWidth + x]
    var channels: [[Int]]
    var matrix: ColorMatrix = .bt709
    var range: ColorRange = .limited

    struct Shape {
        var depth: Int
        var rgb: Bool
        /// log2 subsampling of the chroma planes.
        var subX: Int
        var subY: Int
    }

    static func shape(_ format: PixelFormat) -> Shape {
        switch format {
        case .yuv420p, .nv12: Shape(depth: 8, rgb: false, subX: 1, subY: 1)
        case .yuv420p10le, .p010le: Shape(depth: 10, rgb: false, subX: 1, subY: 1)
        case .yuv422p: Shape(depth: 8, rgb: false, subX: 1, subY: 0)
        case .yuv422p10le: Shape(depth: 10, rgb: false, subX: 1, subY: 0)
        case .yuv444p: Shape(depth: 8, rgb: false, subX: 0, subY: 0)
        case .rgba: Shape(depth: 8, rgb: true, subX: 0, subY: 0)
        default: fatalError("test picture format \(format)")
        }
    }

    var shape: Shape { Self.shape(format) }

    func channelSize(_ c: Int) -> (width: Int, height: Int) {
        let s = shape
        if c == 0 || s.rgb { return (width, height) }
        return ((width + (1 << s.subX) - 1) >> s.subX, (height + (1 << s.subY) - 1) >> s.subY)
    }

    /// A deterministic picture with smooth gradients, fine detail and hard edges in every channel.
    static func pattern(
        _ format: PixelFormat, width: Int, height: Int, seed: Int = 1, matrix: ColorMatrix = .bt709,
        range: ColorRange = .limited
    ) -> TestPicture {
        var p = TestPicture(format: format, width: width, height: height, channels: [], matrix: matrix, range: range)
        let s = p.shape
        let maxCode = Double((1 << s.depth) - 1)
        let count = s.rgb ? 4 : 3
        for c in 0..<count {
            let size = p.channelSize(c)
            var values = [Int](repeating: 0, count: size.width * size.height)
            for y in 0..<size.height {
                for x in 0..<size.width {
                    let fx = Double(x) / Double(max(size.width, 1)), fy = Double(y) / Double(max(size.height, 1))
                    let wave: Double = sin(Double(seed + c) + 9 * fx + 4 * fy * fy)
                    let detail: Double = cos(Double(x * (c + 2)) * 0.21 + Double(y) * 0.13)
                    var v: Double = 0.5 + 0.3 * wave + 0.1 * detail
                    if (x / 17 + y / 23 + c) % 5 == 0 { v += 0.15 }  // hard-edged blocks
                    if c == 3 { v = 0.25 + 0.75 * fx }  // alpha: a ramp
                    var code = v * maxCode
                    if !s.rgb && range == .limited {
                        let scale = Double(1 << (s.depth - 8))
                        code = c == 0 ? (16 + 219 * v) * scale : (16 + 224 * v) * scale
                    }
                    values[y * size.width + x] = Int(min(max(code.rounded(), 0), maxCode))
                }
            }
            p.channels.append(values)
        }
        return p
    }

    /// Writes the picture into a new frame, tagged with its matrix, range and MPEG-2 chroma siting.
    func makeFrame() throws -> Frame {
        let frame = try Frame(width: width, height: height, format: format.avFormat)
        let f = frame.pointer
        f.pointee.colorspace = AVColorSpace(rawValue: UInt32(av_color_space_from_name(matrix.rawValue)))
        f.pointee.color_range = range == .full ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
        f.pointee.chroma_location = AVCHROMA_LOC_LEFT
        for c in channels.indices {
            let size = channelSize(c)
            let (plane, offset, step, bytes, shift) = Self.location(format, channel: c)
            let base = dataPointer(frame, plane)
            let stride = lineSize(frame, plane)
            for y in 0..<size.height {
                for x in 0..<size.width {
                    let v = channels[c][y * size.width + x] << shift
                    let address = base + y * stride + x * step + offset
                    if bytes == 1 {
                        address.pointee = UInt8(v)
                    } else {
                        address.pointee = UInt8(v & 0xFF)
                        address[1] = UInt8(v >> 8)
                    }
                }
            }
        }
        return frame
    }

    /// (plane, byte offset, bytes between samples, bytes per sample, left shift) of a channel.
    static func location(_ format: PixelFormat, channel c: Int) -> (Int, Int, Int, Int, Int) {
        switch format {
        case .nv12: c == 0 ? (0, 0, 1, 1, 0) : (1, c - 1, 2, 1, 0)
        case .p010le: c == 0 ? (0, 0, 2, 2, 6) : (1, 2 * (c - 1), 4, 2, 6)
        case .rgba: (0, c, 4, 1, 0)
        case .yuv420p10le, .yuv422p10le: (c, 0, 2, 2, 0)
        default: (c, 0, 1, 1, 0)
        }
    }
}

extension TestPicture {
    /// Reads a frame of a known format back into channels.
    init(frame: Frame) {
        format = PixelFormat(frame.pixelFormat)
        width = frame.width
        height = frame.height
        channels = []
        let count = Self.shape(format).rgb ? 4 : 3
        for c in 0..<count {
            let size = channelSize(c)
            let (plane, offset, step, bytes, shift) = Self.location(format, channel: c)
            let base = dataPointer(frame, plane)
            let stride = lineSize(frame, plane)
            var values = [Int](repeating: 0, count: size.width * size.height)
            for y in 0..<size.height {
                for x in 0..<size.width {
                    let address = base + y * stride + x * step + offset
                    let raw = bytes == 1 ? Int(address.pointee) : Int(address.pointee) | Int(address[1]) << 8
                    values[y * size.width + x] = raw >> shift
                }
            }
            channels.append(values)
        }
    }

}

func dataPointer(_ frame: Frame, _ plane: Int) -> UnsafeMutablePointer<UInt8> {
    withUnsafeBytes(of: frame.pointer.pointee.data) { $0.bindMemory(to: UnsafeMutablePointer<UInt8>?.self)[plane]! }
}

func lineSize(_ frame: Frame, _ plane: Int) -> Int {
    withUnsafeBytes(of: frame.pointer.pointee.linesize) { Int($0.bindMemory(to: Int32.self)[plane]) }
}
