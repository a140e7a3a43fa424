import Foundation
import TesseraCompute
import TesseraCore

/// The double-precision reference every kernel is compared with, written from the definitions:
///
/// - A plane's samples are point samples of a continuous picture; luma sample i sits at i + ½ (in luma
///   pixels); 4:2:0/4:2:2 chroma is MPEG-2 sited (horizontally with the even luma column, vertically
///   between the two rows); 4:4:4 chroma sits with luma.
/// - Output samples sit at the same kind of positions in the output picture, which maps onto the source
///   through the rotation (clockwise), the mirror (before rotating) and the display flips (after).
/// - Each output sample is the source channel filtered at that position with the chosen kernel,
///   widened by the scale factor when shrinking, weights normalised, edges repeated.
/// - Colour: code values → normalised Y'CbCr or R'G'B' → (change of matrix via R'G'B') → output code
///   values; then composited over the background by opacity × alpha.
///
/// Returns unrounded output code values per output channel (Y, Cb, Cr or R, G, B, A).
enum Reference {
    static func kernel(_ filter: ScalingFilter, _ x: Double) -> Double {
        let x = abs(x)
        switch filter {
        case .bilinear: return max(0, 1 - x)
        case .bicubic, .mitchell:
            let (b, c) = filter == .bicubic ? (0.0, 0.5) : (1.0 / 3, 1.0 / 3)
            if x < 1 { return ((12 - 9 * b - 6 * c) * x * x * x + (-18 + 12 * b + 6 * c) * x * x + (6 - 2 * b)) / 6 }
            if x < 2 {
                return ((-b - 6 * c) * x * x * x + (6 * b + 30 * c) * x * x + (-12 * b - 48 * c) * x + (8 * b + 24 * c))
                    / 6
            }
            return 0
        case .lanczos3:
            if x == 0 { return 1 }
            if x >= 3 { return 0 }
            return 3 * sin(.pi * x) * sin(.pi * x / 3) / (.pi * .pi * x * x)
        }
    }

    static func radius(_ filter: ScalingFilter) -> Double {
        switch filter {
        case .bilinear: 1
        case .bicubic, .mitchell: 2
        case .lanczos3: 3
        }
    }

    /// Normalised weights over source indices for a centre, clamped to 0..<count.
    /// With no resampling to do (scale 1, centre on a sample) the sample itself, whatever the kernel.
    static func weights(_ filter: ScalingFilter, centre: Double, step: Double, count: Int) -> [(Int, Double)] {
        if abs(step - 1) < 1e-12, abs(centre - centre.rounded()) < 1e-9 {
            return [(min(max(Int(centre.rounded()), 0), count - 1), 1)]
        }
        let scale = max(1, step)
        let support = radius(filter) * scale
        var taps: [(Int, Double)] = []
        var sum = 0.0
        var i = Int((centre - support).rounded(.down))
        while Double(i) < centre + support {
            let w = kernel(filter, (Double(i) - centre) / scale)
            if w != 0 {
                taps.append((min(max(i, 0), count - 1), w))
                sum += w
            }
            i += 1
        }
        return taps.map { ($0.0, $0.1 / sum) }
    }

    /// Luma weights (Kr, Kb).
    static func kr_kb(_ m: ColorMatrix) -> (Double, Double) {
        switch m {
        case .bt601: (0.299, 0.114)
        case .bt2020nc: (0.2627, 0.0593)
        default: (0.2126, 0.0722)
        }
    }

    static func process(_ input: TestPicture, _ spec: ProcessingSpec) -> [[Double]] {
        let ins = input.shape
        let outs = TestPicture.shape(spec.outputFormat)
        let outW = spec.outputWidth, outH = spec.outputHeight
        let rot = spec.rotation.degrees
        let swap = rot == 90 || rot == 270

        // Display-normalised position → source-normalised (u, v).
        func sourcePoint(_ nx0: Double, _ ny0: Double) -> (Double, Double) {
            var nx = nx0, ny = ny0
            if spec.flipHorizontal { nx = 1 - nx }
            if spec.flipVertical { ny = 1 - ny }
            var (u, v): (Double, Double)
            switch rot {
            case 90: (u, v) = (ny, 1 - nx)
            case 180: (u, v) = (1 - nx, 1 - ny)
            case 270: (u, v) = (1 - ny, nx)
            default: (u, v) = (nx, ny)
            }
            if spec.rotation.mirrored { u = 1 - u }
            return (u, v)
        }

        let outChannels = outs.rgb ? 4 : 3
        var result: [[Double]] = []
        for oc in 0..<outChannels {
            let chromaOut = oc > 0 && !outs.rgb
            let sx = chromaOut ? outs.subX : 0, sy = chromaOut ? outs.subY : 0
            let gw = (outW + (1 << sx) - 1) >> sx, gh = (outH + (1 << sy) - 1) >> sy
            // Filtered source channels at each output sample of this grid.
            var filtered = [[Double]](repeating: [Double](repeating: 0, count: gw * gh), count: ins.rgb ? 4 : 3)
            for c in filtered.indices {
                let chromaIn = c > 0 && !ins.rgb
                let isx = chromaIn ? ins.subX : 0, isy = chromaIn ? ins.subY : 0
                let size = input.channelSize(c)
                // Horizontal (source x) first, separably: positions along u depend on one output axis only.
                let uCount = swap ? gh : gw, vCount = swap ? gw : gh
                var uCentres = [Double](), vCentres = [Double]()
                for a in 0..<uCount {
                    let (u, _) =
                        swap
                        ? sourcePoint(0.5, (sy == 1 ? Double(2 * a) + 1 : Double(a) + 0.5) / Double(outH))
                        : sourcePoint((sx == 1 ? Double(2 * a) + 0.5 : Double(a) + 0.5) / Double(outW), 0.5)
                    let x = u * Double(input.width)
                    uCentres.append(isx == 1 ? (x - 0.5) / 2 : x - 0.5)
                }
                for b in 0..<vCount {
                    let (_, v) =
                        swap
                        ? sourcePoint((sx == 1 ? Double(2 * b) + 0.5 : Double(b) + 0.5) / Double(outW), 0.5)
                        : sourcePoint(0.5, (sy == 1 ? Double(2 * b) + 1 : Double(b) + 0.5) / Double(outH))
                    let y = v * Double(input.height)
                    vCentres.append(isy == 1 ? (y - 1) / 2 : y - 0.5)
                }
                let uExtent = Double(swap ? outH : outW) / Double(1 << (swap ? sy : sx))
                let vExtent = Double(swap ? outW : outH) / Double(1 << (swap ? sx : sy))
                let uStep = Double(input.width) / Double(1 << isx) / uExtent
                let vStep = Double(input.height) / Double(1 << isy) / vExtent
                var rows = [Double](repeating: 0, count: uCount * size.height)
                for a in 0..<uCount {
                    let w = weights(spec.filter, centre: uCentres[a], step: uStep, count: size.width)
                    for j in 0..<size.height {
                        var s = 0.0
                        for (i, wi) in w { s += wi * Double(input.channels[c][j * size.width + i]) }
                        rows[j * uCount + a] = s
                    }
                }
                for b in 0..<vCount {
                    let w = weights(spec.filter, centre: vCentres[b], step: vStep, count: size.height)
                    for a in 0..<uCount {
                        var s = 0.0
                        for (j, wj) in w { s += wj * rows[j * uCount + a] }
                        let (k, l) = swap ? (b, a) : (a, b)
                        filtered[c][l * gw + k] = s
                    }
                }
            }
            // Colour.
            var plane = [Double](repeating: 0, count: gw * gh)
            let outMatrix = spec.outputMatrix ?? input.matrix
            let outRange: ColorRange = outs.rgb ? .full : (spec.outputRange ?? input.range)
            for n in 0..<(gw * gh) {
                let ch = filtered.map { $0[n] }
                var rgb: [Double]
                var yuvDirect: [Double]? = nil
                if ins.rgb {
                    rgb = (0..<3).map { ch[$0] / 255 }
                } else {
                    let s = Double(1 << (ins.depth - 8)), maxCode = Double((1 << ins.depth) - 1)
                    let y, cb, cr: Double
                    if input.range == .full {
                        let mid = Double(1 << (ins.depth - 1))
                        (y, cb, cr) = (ch[0] / maxCode, (ch[1] - mid) / maxCode, (ch[2] - mid) / maxCode)
                    } else {
                        (y, cb, cr) = ((ch[0] / s - 16) / 219, (ch[1] / s - 128) / 224, (ch[2] / s - 128) / 224)
                    }
                    let (kr, kb) = kr_kb(input.matrix)
                    let r = y + 2 * (1 - kr) * cr, b = y + 2 * (1 - kb) * cb
                    rgb = [r, (y - kr * r - kb * b) / (1 - kr - kb), b]
                    if !outs.rgb && kr_kb(outMatrix) == (kr, kb) { yuvDirect = [y, cb, cr] }
                }
                func toOutput(_ rgb: [Double], direct: [Double]?) -> [Double] {
                    if outs.rgb { return rgb.map { $0 * 255 } }
                    let (kr, kb) = kr_kb(outMatrix)
                    let y = kr * rgb[0] + (1 - kr - kb) * rgb[1] + kb * rgb[2]
                    let yuv = direct ?? [y, (rgb[2] - y) / (2 * (1 - kb)), (rgb[0] - y) / (2 * (1 - kr))]
                    let s = Double(1 << (outs.depth - 8)), maxCode = Double((1 << outs.depth) - 1)
                    if outRange == .full {
                        let mid = Double(1 << (outs.depth - 1))
                        return [yuv[0] * maxCode, yuv[1] * maxCode + mid, yuv[2] * maxCode + mid]
                    }
                    return [(16 + 219 * yuv[0]) * s, (128 + 224 * yuv[1]) * s, (128 + 224 * yuv[2]) * s]
                }
                if oc == 3 {
                    plane[n] = 255
                    continue
                }
                var value = toOutput(rgb, direct: yuvDirect)[oc]
                var alpha = spec.opacity
                if ins.rgb { alpha *= min(max(ch[3] / 255, 0), 1) }
                if alpha < 1 {
                    let bg = spec.backgroundColor
                    let bgOut = toOutput([bg.red, bg.green, bg.blue], direct: nil)[oc]
                    value = bgOut + alpha * (value - bgOut)
                }
                plane[n] = min(max(value, 0), Double((1 << outs.depth) - 1))
            }
            result.append(plane)
        }
        return result
    }

    /// PSNR (dB) of each channel of `actual` against unrounded reference values; 100 when identical.
    static func psnr(_ actual: TestPicture, _ reference: [[Double]]) -> [Double] {
        let peak = Double((1 << actual.shape.depth) - 1)
        return zip(actual.channels, reference).map { a, r in
            var sum = 0.0
            for i in a.indices {
                let d = Double(a[i]) - r[i]
                sum += d * d
            }
            let mse = sum / Double(max(a.count, 1))
            return mse < 1e-10 ? 100 : 10 * log10(peak * peak / mse)
        }
    }

    /// PSNR of each channel of one picture against another.
    static func psnr(_ a: TestPicture, _ b: TestPicture) -> [Double] {
        psnr(a, b.channels.map { $0.map(Double.init) })
    }
}
