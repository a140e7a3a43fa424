import CFFmpeg
import TesseraAV
import TesseraCore

/// Output frames of one size and layout whose pixel memory comes from an `AVBufferPool`, so steady-state
/// processing allocates no picture memory: a buffer returns to the pool when the encoder drops its frame.
/// Planes sit at `ProcessingPlan`'s offsets and strides, so a whole picture is one contiguous copy.
final class FramePool {
    let width: Int
    let height: Int
    let format: AVPixelFormat
    let planes: [ProcessingPlan.PlaneSlot]
    let bytes: Int
    private let pool: OpaquePointer

    /// - Throws: `MediaError.ffmpeg` when the pool cannot be created.
    init(
        width: Int, height: Int, format: PixelFormat, planes: [ProcessingPlan.PlaneSlot], bytes: Int
    )
        throws(MediaError)
    {
        self.width = width
        self.height = height
        self.format = format.avFormat
        self.planes = planes
        self.bytes = bytes
        // Padding past the last plane, as av_frame_get_buffer leaves for SIMD readers.
        guard let pool = av_buffer_pool_init(bytes + 64, nil) else {
            throw MediaError(.internal, "out of memory creating a frame pool")
        }
        self.pool = pool
    }

    /// A pool for pictures of a format the compute layouts know, with 64-byte-aligned rows; nil otherwise.
    ///
    /// - Throws: `MediaError.ffmpeg` when the pool cannot be created.
    static func make(width: Int, height: Int, format: PixelFormat) throws(MediaError) -> FramePool? {
        guard let layout = PictureLayout(format) else { return nil }
        var offset = 0
        var planes: [ProcessingPlan.PlaneSlot] = []
        for p in 0..<layout.planeCount {
            let rowBytes = layout.rowBytes(p, width: width)
            let stride = (rowBytes + 63) / 64 * 64
            let rows = layout.planeSize(p, width: width, height: height).height
            planes.append(.init(offset: offset, stride: stride, rowBytes: rowBytes, rows: rows))
            offset += (stride * rows + 255) / 256 * 256
        }
        return try FramePool(width: width, height: height, format: format, planes: planes, bytes: offset)
    }

    deinit {
        var p: OpaquePointer? = pool
        av_buffer_pool_uninit(&p)
    }

    /// A frame whose planes are uninitialised pool memory.
    func makeFrame() throws(MediaError) -> Frame {
        let frame = try Frame()
        guard let buffer = av_buffer_pool_get(pool) else { throw MediaError(.internal, "out of memory for a frame") }
        let f = frame.pointer
        f.pointee.buf.0 = buffer
        f.pointee.width = Int32(width)
        f.pointee.height = Int32(height)
        f.pointee.format = format.rawValue
        for (i, plane) in planes.enumerated() {
            frame.setPlane(i, buffer.pointee.data + plane.offset, linesize: plane.stride)
        }
        // As av_frame_get_buffer does for video: extended_data points at data, AVFrame's first field.
        f.pointee.extended_data = UnsafeMutableRawPointer(f).assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
        return frame
    }

    /// The start of a pool frame's single buffer.
    static func base(of frame: Frame) -> UnsafeMutablePointer<UInt8>? { frame.pointer.pointee.buf.0?.pointee.data }
}

/// Copies `rows` rows of `rowBytes` between two strided planes; one memcpy when the strides agree.
func copyPlane(
    from source: UnsafeRawPointer, sourceStride: Int, to destination: UnsafeMutableRawPointer,
    destinationStride: Int, rowBytes: Int, rows: Int
) {
    guard rows > 0 else { return }
    if sourceStride == destinationStride {
        memcpy(destination, source, (rows - 1) * sourceStride + rowBytes)
        return
    }
    for y in 0..<rows {
        memcpy(destination + y * destinationStride, source + y * sourceStride, rowBytes)
    }
}
