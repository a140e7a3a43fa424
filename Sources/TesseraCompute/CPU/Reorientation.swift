import Dispatch
import TesseraAV

/// Turns and mirrors the planes of a picture on the CPU: rotation and flips for the swscale path.
///
/// `Orientation` gives, for output pixel (x, y), the pixel of the unturned picture P it copies:
/// `(a, b) = swap ? (y, x) : (x, y)`, mirrored along P's axes by `flipU`/`flipV`. Pixels are whole
/// units of a plane (1 byte for 8-bit planar, 2 for NV12's UV pairs or 16-bit, 4 for P010's UV or RGBA),
/// moved in 32×32 tiles so the transposing reads and writes both stay in cache.
enum Reorientation {
    static let tile = 32

    static func apply(
        _ orientation: Orientation, from p: UnsafePointer<UInt8>, stride pStride: Int, width pw: Int,
        height ph: Int, to o: UnsafeMutablePointer<UInt8>, stride oStride: Int, pixelBytes: Int
    ) {
        let (w, h) = orientation.swap ? (ph, pw) : (pw, ph)
        switch pixelBytes {
        case 1: run(UInt8.self, orientation, p, pStride, pw, ph, o, oStride, w, h)
        case 2: run(UInt16.self, orientation, p, pStride, pw, ph, o, oStride, w, h)
        default: run(UInt32.self, orientation, p, pStride, pw, ph, o, oStride, w, h)
        }
    }

    private static func run<T: FixedWidthInteger & SendableMetatype>(
        _: T.Type, _ orientation: Orientation,
        _ p: UnsafePointer<UInt8>, _ pStride: Int, _ pw: Int, _ ph: Int,
        _ o: UnsafeMutablePointer<UInt8>, _ oStride: Int, _ w: Int, _ h: Int
    ) {
        let size = MemoryLayout<T>.size
        let tilesY = (h + tile - 1) / tile
        // Each tile row writes its own output rows only.
        nonisolated(unsafe) let p = p, o = o
        // Rows of tiles are independent; two cores halve a 4K turn. concurrentPerform runs on GCD's
        // threads, not Swift's cooperative pool.
        let work: @Sendable (Int) -> Void = { ty in
            let y0 = ty * tile, y1 = min(h, y0 + tile)
            var x0 = 0
            while x0 < w {
                let x1 = min(w, x0 + tile)
                for y in y0..<y1 {
                    let row = UnsafeMutableRawPointer(o + y * oStride)
                    for x in x0..<x1 {
                        var a = orientation.swap ? y : x, b = orientation.swap ? x : y
                        if orientation.flipU { a = pw - 1 - a }
                        if orientation.flipV { b = ph - 1 - b }
                        let v = UnsafeRawPointer(p + b * pStride).loadUnaligned(fromByteOffset: a * size, as: T.self)
                        row.storeBytes(of: v, toByteOffset: x * size, as: T.self)
                    }
                }
                x0 = x1
            }
        }
        if w * h >= 256 * 256 {
            DispatchQueue.concurrentPerform(iterations: tilesY, execute: work)
        } else {
            for ty in 0..<tilesY { work(ty) }
        }
    }

    /// swscale's chroma position (luma grid / 256) to ask for along one axis of the unturned picture so
    /// that, after turning, the output's chroma sits where MPEG-2 puts it.
    ///
    /// - Parameters:
    ///   - length: luma samples along this axis of the unturned picture.
    ///   - flipped: whether turning reverses this axis.
    ///   - cosited: whether the output axis this one becomes wants chroma co-sited (horizontal) or
    ///     centred between two luma samples (vertical).
    static func chromaPosition(length: Int, flipped: Bool, cosited: Bool) -> Int {
        // Offset of the chroma sample from the start of its luma pair, in luma samples, centres at +½.
        let wanted = cosited ? 0.5 : 1.0
        let offset = flipped ? Double(length - 2 * ((length + 1) / 2) + 2) - wanted : wanted
        return Int(((offset - 0.5) * 256).rounded())
    }
}
