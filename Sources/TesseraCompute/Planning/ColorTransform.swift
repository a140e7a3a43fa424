import TesseraCore

/// The affine map from source code values to output code values: range and bit-depth change, a
/// change of YCbCr matrix or a YCbCr ↔ RGB conversion, composed in double precision once per job.
///
/// Both are affine and the resampling filters are normalised, so converting after resampling gives
/// the same result as converting first; the kernels therefore resample source code values and apply
/// this map once per output sample.
struct ColorTransform: Sendable, Equatable {
    /// rows[r] = (coefficient of channel 0, 1, 2, constant) for output component r (3 rows).
    var rows: [[Double]]
    /// The background colour in output code values, one per output component.
    var background: [Double]

    /// Luma weights (Kr, Kb) of a matrix; BT.709 for anything unknown.
    static func lumaWeights(_ matrix: ColorMatrix) -> (kr: Double, kb: Double) {
        switch matrix {
        case .bt601, ColorMatrix(rawValue: "bt470bg"): (0.299, 0.114)
        case .bt2020nc, ColorMatrix(rawValue: "bt2020c"): (0.2627, 0.0593)
        default: (0.2126, 0.0722)
        }
    }

    /// Code values → normalised (Y 0…1, Cb/Cr −½…½, or R'G'B' 0…1): scale and offset per channel.
    static func normalise(depth: Int, range: ColorRange, rgb: Bool) -> [(scale: Double, offset: Double)] {
        let maxCode = Double((1 << depth) - 1)
        if rgb { return Array(repeating: (1 / maxCode, 0), count: 3) }
        if range == .full {
            let mid = Double(1 << (depth - 1))
            return [(1 / maxCode, 0), (1 / maxCode, -mid / maxCode), (1 / maxCode, -mid / maxCode)]
        }
        let s = Double(1 << (depth - 8))
        return [(1 / (219 * s), -16 / 219), (1 / (224 * s), -128 / 224), (1 / (224 * s), -128 / 224)]
    }

    /// YCbCr → R'G'B' for a matrix, as a 3x3.
    static func yuvToRGB(_ matrix: ColorMatrix) -> [[Double]] {
        let (kr, kb) = lumaWeights(matrix)
        let kg = 1 - kr - kb
        return [
            [1, 0, 2 * (1 - kr)],
            [1, -2 * (1 - kb) * kb / kg, -2 * (1 - kr) * kr / kg],
            [1, 2 * (1 - kb), 0],
        ]
    }

    /// R'G'B' → YCbCr for a matrix, as a 3x3.
    static func rgbToYUV(_ matrix: ColorMatrix) -> [[Double]] {
        let (kr, kb) = lumaWeights(matrix)
        let kg = 1 - kr - kb
        return [
            [kr, kg, kb],
            [-kr / (2 * (1 - kb)), -kg / (2 * (1 - kb)), 0.5],
            [0.5, -kg / (2 * (1 - kr)), -kb / (2 * (1 - kr))],
        ]
    }

    /// Non-linear R'G'B' 0…1 → output code values (a tone map's last step): three rows of (R', G', B',
    /// constant).
    static func fromNormalisedRGB(output: PictureLayout, matrix: ColorMatrix, range: ColorRange) -> [[Double]] {
        let norm = normalise(depth: output.bitDepth, range: output.isRGB ? .full : range, rgb: output.isRGB)
        let m = output.isRGB ? [[1, 0, 0], [0, 1, 0], [0, 0, 1]] : rgbToYUV(matrix)
        return (0..<3).map { r in (0..<3).map { c in m[r][c] / norm[r].scale } + [-norm[r].offset / norm[r].scale] }
    }

    /// - Parameters:
    ///   - sourceMatrix/outputMatrix: ignored on the RGB side(s).
    ///   - opacity/background: folded in when the source has no alpha of its own.
    init(
        source: PictureLayout, sourceMatrix: ColorMatrix, sourceRange: ColorRange,
        output: PictureLayout, outputMatrix: ColorMatrix, outputRange: ColorRange, background rgb: RGBColor
    ) {
        // Normalised source: n = s * code + o per channel.
        let inNorm = Self.normalise(depth: source.bitDepth, range: sourceRange, rgb: source.isRGB)
        // A 3x4 affine as [[Double]], starting from the source normalisation.
        var m: [[Double]] = (0..<3).map { r in
            (0..<3).map { c in r == c ? inNorm[r].scale : 0 } + [inNorm[r].offset]
        }
        func apply(_ a: [[Double]], _ m: [[Double]]) -> [[Double]] {
            (0..<3).map { r in (0..<4).map { c in (0..<3).reduce(0) { $0 + a[r][$1] * m[$1][c] } } }
        }
        let sameYUV = !source.isRGB && !output.isRGB && Self.lumaWeights(sourceMatrix) == Self.lumaWeights(outputMatrix)
        if !sameYUV {
            if !source.isRGB { m = apply(Self.yuvToRGB(sourceMatrix), m) }
            if !output.isRGB { m = apply(Self.rgbToYUV(outputMatrix), m) }
        }
        // Normalised output → code values: code = (n - o) / s.
        let outNorm = Self.normalise(depth: output.bitDepth, range: outputRange, rgb: output.isRGB)
        rows = (0..<3).map { r in
            let s = outNorm[r].scale, o = outNorm[r].offset
            return (0..<4).map { c in c < 3 ? m[r][c] / s : (m[r][3] - o) / s }
        }
        let bgRGB = [rgb.red, rgb.green, rgb.blue]
        let bgNorm =
            output.isRGB
            ? bgRGB
            : Self.rgbToYUV(outputMatrix).map { row in
                (0..<3).reduce(0) { $0 + row[$1] * bgRGB[$1] }
            }
        background = (0..<3).map { (bgNorm[$0] - outNorm[$0].offset) / outNorm[$0].scale }
    }
}
