import Foundation
import TesseraCore

/// A `ToneMap` as numbers the kernels read: the matrices and three curves sampled once per job, so the
/// Vulkan pass (`horizontal_pass.comp`) and the CPU kernel (`tessera_tonemap`) apply the same ones.
///
/// Per pixel: input code values → R'G'B' (source matrix) → linear light (`eotf`; HLG: scene light, then
/// its OOTF) relative to SDR white → × `gain` of the largest component (BT.2390's EETF, in PQ) →
/// BT.709 primaries (`gamut`), clipped to black…1 → `oetf` (BT.1886's inverse) → output code values.
struct ToneMapCurves: Sendable, Equatable {
    /// Input code values → non-linear R'G'B' 0…1: three rows of (Y, Cb, Cr coefficients, constant).
    let toRGB: [[Float]]
    /// Linear source primaries → linear BT.709, 3x3.
    let gamut: [[Float]]
    /// Signal 0…1 → linear light relative to SDR white (PQ), or scene light 0…1 (HLG); `curveSamples` + 1
    /// entries, read with linear interpolation.
    let eotf: [Float]
    /// Indexed by ⁴√(m / `gainDomain`), m the largest linear component: the factor that takes it to its
    /// tone-mapped value.
    let gain: [Float]
    let gainDomain: Float
    /// Indexed by √x, x linear 0…1: the output signal.
    let oetf: [Float]
    /// The output's black, linear: the floor of the clip.
    let black: Float
    /// HLG's OOTF: display light = `hlgScale` × Ys^`hlgExponent` × scene light, Ys the scene luminance
    /// (`lumaWeights`); nil for PQ.
    let hlg: (scale: Float, exponent: Float)?
    let lumaWeights: [Float]

    static let curveSamples = 4096

    static func == (a: ToneMapCurves, b: ToneMapCurves) -> Bool {
        a.toRGB == b.toRGB && a.gamut == b.gamut && a.eotf == b.eotf && a.gain == b.gain && a.oetf == b.oetf
            && a.black == b.black && a.hlg?.scale == b.hlg?.scale && a.hlg?.exponent == b.hlg?.exponent
    }

    /// - Parameters:
    ///   - inputDepth/inputRange/inputMatrix: the code values the kernel reads (the CPU path's are 16-bit).
    ///   - primaries: the source's; anything but BT.709 and P3 is taken as BT.2020.
    init(_ map: ToneMap, inputDepth: Int, inputRange: ColorRange, inputMatrix: ColorMatrix, primaries: ColorPrimaries) {
        let norm = ColorTransform.normalise(depth: inputDepth, range: inputRange, rgb: false)
        let m = ColorTransform.yuvToRGB(inputMatrix == .unspecified ? .bt2020nc : inputMatrix)
        toRGB = (0..<3).map { r in
            (0..<3).map { c in Float(m[r][c] * norm[c].scale) }
                + [Float((0..<3).reduce(0) { $0 + m[r][$1] * norm[$1].offset })]
        }
        let source = Self.chromaticities(primaries)
        let toXYZ = Self.rgbToXYZ(source), fromXYZ = Self.inverse(Self.rgbToXYZ(Self.chromaticities(.bt709)))
        gamut = (0..<3).map { r in (0..<3).map { c in Float((0..<3).reduce(0) { $0 + fromXYZ[r][$1] * toXYZ[$1][c] }) }
        }
        let (kr, kb) = ColorTransform.lumaWeights(primaries == .bt709 ? .bt709 : .bt2020nc)
        lumaWeights = [Float(kr), Float(1 - kr - kb), Float(kb)]

        let white = ToneMap.sdrWhite
        let targetBlack = white / 1000
        let n = Self.curveSamples
        let isHLG = map.transfer == .aribStdB67
        // What a hand-made ToneMap may say is held to what the curves can hold.
        let peak = map.sourcePeak.isFinite ? min(max(map.sourcePeak, 1), 10_000) : ToneMap.defaultPeak
        let sourceBlack = map.sourceBlack.isFinite ? min(max(map.sourceBlack, 0), peak / 100) : 0
        if isHLG {
            // BT.2100: system gamma 1.2 at a 1000 cd/m² display, adjusted for other peaks.
            let gamma = 1.2 + 0.42 * log10(peak / 1000)
            hlg = (Float(peak / white), Float(gamma - 1))
            eotf = (0...n).map { Float(Self.hlgInverseOETF(Double($0) / Double(n))) }
        } else {
            hlg = nil
            eotf = (0...n).map { Float(Self.pqEOTF(Double($0) / Double(n)) / white) }
        }
        // BT.2390's EETF in PQ, from [source black, source peak] to [target black, SDR white].
        let p0 = Self.pqInverse(sourceBlack), p1 = Self.pqInverse(peak)
        let span = max(p1 - p0, 1e-6)
        let maxLum = (Self.pqInverse(white) - p0) / span, minLum = max((Self.pqInverse(targetBlack) - p0) / span, 0)
        // libplacebo's knee (its default offset 1): ks = 2 maxLum − 1; BT.2390 itself writes 1.5 maxLum − 0.5.
        let ks = 2 * maxLum - 1
        func eetf(_ nits: Double) -> Double {
            let e1 = min(max((Self.pqInverse(nits) - p0) / span, 0), 1)
            var e2 = e1
            if ks < 1, e1 >= ks {
                let t = (e1 - ks) / (1 - ks), t2 = t * t, t3 = t2 * t
                e2 = (2 * t3 - 3 * t2 + 1) * ks + (t3 - 2 * t2 + t) * (1 - ks) + (-2 * t3 + 3 * t2) * maxLum
            }
            e2 += minLum * pow(1 - e2, 4)
            return Self.pqEOTF(e2 * span + p0)
        }
        gainDomain = Float(10_000 / white)
        gain = (0...n).map { i in
            let q = Double(i) / Double(n)
            let m = q * q * q * q * 10_000  // cd/m²
            return m <= 0 ? Float(eetf(1e-6) / 1e-6) : Float(eetf(m) / m)
        }
        black = Float(targetBlack / white)
        let b = pow(targetBlack / white, 1 / 2.4)
        oetf = (0...n).map { i in
            let s = Double(i) / Double(n)
            let v: Double = pow(max(s * s, targetBlack / white), 1 / 2.4)
            return Float(max((v - b) / (1 - b), 0))
        }
    }

    /// SMPTE ST 2084: signal 0…1 → cd/m².
    static func pqEOTF(_ e: Double) -> Double {
        let (m1, m2, c1, c2, c3) = (0.1593017578125, 78.84375, 0.8359375, 18.8515625, 18.6875)
        guard e > 0 else { return 0 }
        let p = pow(e, 1 / m2)
        return 10_000 * pow(max(p - c1, 0) / (c2 - c3 * p), 1 / m1)
    }

    /// cd/m² → PQ signal 0…1.
    static func pqInverse(_ nits: Double) -> Double {
        let (m1, m2, c1, c2, c3) = (0.1593017578125, 78.84375, 0.8359375, 18.8515625, 18.6875)
        let p = pow(min(max(nits, 0), 10_000) / 10_000, m1)
        return pow((c1 + c2 * p) / (1 + c3 * p), m2)
    }

    /// BT.2100 HLG: signal 0…1 → scene light 0…1.
    static func hlgInverseOETF(_ e: Double) -> Double {
        let (a, b, c) = (0.17883277, 0.28466892, 0.55991073)
        return e <= 0.5 ? e * e / 3 : (exp((e - c) / a) + b) / 12
    }

    /// xy of red, green, blue and the white point.
    static func chromaticities(_ p: ColorPrimaries) -> [[Double]] {
        switch p {
        case .bt709: [[0.64, 0.33], [0.30, 0.60], [0.15, 0.06], [0.3127, 0.3290]]
        case ColorPrimaries(rawValue: "smpte432"):
            [[0.680, 0.320], [0.265, 0.690], [0.150, 0.060], [0.3127, 0.3290]]
        default: [[0.708, 0.292], [0.170, 0.797], [0.131, 0.046], [0.3127, 0.3290]]
        }
    }

    /// Linear RGB → CIE XYZ for primaries given as xy (white at Y = 1).
    static func rgbToXYZ(_ xy: [[Double]]) -> [[Double]] {
        let columns = (0..<4).map { i in [xy[i][0] / xy[i][1], 1, (1 - xy[i][0] - xy[i][1]) / xy[i][1]] }
        let primaries = (0..<3).map { r in (0..<3).map { c in columns[c][r] } }
        let inv = inverse(primaries)
        let s = (0..<3).map { r in (0..<3).reduce(0) { $0 + inv[r][$1] * columns[3][$1] } }
        return (0..<3).map { r in (0..<3).map { c in primaries[r][c] * s[c] } }
    }

    static func inverse(_ m: [[Double]]) -> [[Double]] {
        let det =
            m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        return (0..<3).map { r in
            (0..<3).map { c in
                let (r1, r2, c1, c2) = ((c + 1) % 3, (c + 2) % 3, (r + 1) % 3, (r + 2) % 3)
                return (m[r1][c1] * m[r2][c2] - m[r1][c2] * m[r2][c1]) / det
            }
        }
    }
}
