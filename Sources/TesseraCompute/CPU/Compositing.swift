import TesseraAV

/// Opacity over a background colour on the CPU, in output code values:
/// `code = background + opacity × (code − background)`, rounded half up like the Vulkan kernel.
enum Compositing {
    /// - Parameters:
    ///   - background: background code value of each channel of the plane, in the plane's order.
    ///   - pixelChannels: channels interleaved in the plane (1, 2 for UV, 4 for RGBA whose 4th, alpha, stays).
    static func fade(
        _ plane: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int, bytesPerSample: Int,
        shift: Int, pixelChannels: Int, background: [Double], opacity: Double
    ) {
        let a = Float(opacity)
        let bg = background.map { Float($0) }
        for y in 0..<height {
            let row = plane + y * stride
            for x in 0..<width {
                for c in 0..<min(pixelChannels, bg.count) {
                    let i = x * pixelChannels + c
                    if bytesPerSample == 1 {
                        row[i] = UInt8((bg[c] + a * (Float(row[i]) - bg[c]) + 0.5).rounded(.down))
                    } else {
                        let p = UnsafeMutableRawPointer(row).assumingMemoryBound(to: UInt16.self)
                        let v = Float(p[i] >> shift)
                        p[i] = UInt16((bg[c] + a * (v - bg[c]) + 0.5).rounded(.down)) << shift
                    }
                }
            }
        }
    }

    /// Composites straight-alpha RGBA over an opaque background in place (alpha becomes 255), before
    /// libswscale, which would drop alpha.
    static func flattenAlpha(
        _ plane: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int,
        background: RGBColor
    ) {
        let bg = [Float(background.red * 255), Float(background.green * 255), Float(background.blue * 255)]
        for y in 0..<height {
            let row = plane + y * stride
            for x in 0..<width {
                let a = Float(row[4 * x + 3]) / 255
                for c in 0..<3 {
                    row[4 * x + c] = UInt8((bg[c] + a * (Float(row[4 * x + c]) - bg[c]) + 0.5).rounded(.down))
                }
                row[4 * x + 3] = 255
            }
        }
    }
}
