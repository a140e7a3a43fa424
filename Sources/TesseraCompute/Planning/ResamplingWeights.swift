import Foundation

/// Filter weights for resampling one axis: for each output sample, the first source sample it
/// reads and `taps` weights, edges clamped (the edge sample repeats) and weights summing to 1.
/// The horizontal pass reads them as a table: one fetch per tap instead of evaluating the kernel.
///
/// Sample positions follow one convention everywhere: a plane's sample i sits at i in its own index
/// space, and an output sample's centre is mapped into that space by the caller. Downscaling widens
/// the kernel by the scale factor so it stays a low-pass filter.
struct ResamplingWeights: Sendable, Equatable {
    var first: [Int32]
    /// Row-major: weights[k * taps + t].
    var weights: [Float]
    var taps: Int

    /// The continuous kernel and its radius in source samples at scale 1.
    static func kernel(_ filter: ScalingFilter) -> (radius: Double, weight: @Sendable (Double) -> Double) {
        switch filter {
        case .bilinear: return (1, { max(0, 1 - abs($0)) })
        case .bicubic: return (2, { cubic($0, b: 0, c: 0.5) })
        case .mitchell: return (2, { cubic($0, b: 1.0 / 3, c: 1.0 / 3) })
        case .lanczos3: return (3, { lanczos($0, lobes: 3) })
        }
    }

    /// Mitchell–Netravali cubic with parameters B and C.
    static func cubic(_ x: Double, b: Double, c: Double) -> Double {
        let x = abs(x)
        if x < 1 {
            return ((12 - 9 * b - 6 * c) * x * x * x + (-18 + 12 * b + 6 * c) * x * x + (6 - 2 * b)) / 6
        }
        if x < 2 {
            return
                ((-b - 6 * c) * x * x * x + (6 * b + 30 * c) * x * x + (-12 * b - 48 * c) * x
                + (8 * b + 24 * c)) / 6
        }
        return 0
    }

    static func lanczos(_ x: Double, lobes: Double) -> Double {
        let x = abs(x)
        if x < 1e-12 { return 1 }
        if x >= lobes { return 0 }
        let px = Double.pi * x
        return lobes * sin(px) * sin(px / lobes) / (px * px)
    }

    /// - Parameters:
    ///   - count: output samples along the axis.
    ///   - sourceCount: source samples along the axis.
    ///   - position: the centre of output sample k in source index space.
    ///   - step: source samples per output sample (sets the kernel's widening when > 1).
    init(filter: ScalingFilter, count: Int, sourceCount: Int, step: Double, position: (Int) -> Double) {
        // Same size and every output sample on a source sample: a copy, whatever the kernel (Mitchell
        // would otherwise soften a picture that needs no resampling).
        if abs(step - 1) < 1e-12, (0..<count).allSatisfy({ abs(position($0) - position($0).rounded()) < 1e-9 }) {
            first = (0..<count).map { Int32(min(max(Int(position($0).rounded()), 0), sourceCount - 1)) }
            weights = Array(repeating: 1, count: count)
            taps = 1
            return
        }
        let (radius, kernel) = Self.kernel(filter)
        let scale = max(1, step)
        let support = radius * scale
        var firsts: [Int32] = []
        var rows: [[Double]] = []
        var maxTaps = 1
        for k in 0..<count {
            let centre = position(k)
            let lo = Int((centre - support).rounded(.down)) + 1
            let hi = Int((centre + support).rounded(.up)) - 1
            var sum = 0.0
            var taps: [(Int, Double)] = []
            for i in lo...max(lo, hi) {
                let w = kernel((Double(i) - centre) / scale)
                guard w != 0 else { continue }
                taps.append((min(max(i, 0), sourceCount - 1), w))
                sum += w
            }
            if taps.isEmpty || sum == 0 {  // a centre outside every kernel: take the nearest sample
                taps = [(min(max(Int(centre.rounded()), 0), sourceCount - 1), 1)]
                sum = 1
            }
            let start = taps.map(\.0).min() ?? 0
            let end = taps.map(\.0).max() ?? 0
            var row = Array(repeating: 0.0, count: end - start + 1)
            for (i, w) in taps { row[i - start] += w / sum }
            firsts.append(Int32(start))
            rows.append(row)
            maxTaps = max(maxTaps, row.count)
        }
        taps = min(maxTaps, sourceCount)
        // Windows near the far edge start early enough that `taps` samples stay inside the plane.
        weights = []
        weights.reserveCapacity(count * taps)
        for k in 0..<count {
            var start = Int(firsts[k])
            var row = rows[k]
            let shift = max(0, start + taps - sourceCount)
            start -= shift
            row = Array(repeating: 0, count: shift) + row
            row += Array(repeating: 0, count: max(0, taps - row.count))
            firsts[k] = Int32(start)
            weights += row.prefix(taps).map { Float($0) }
        }
        first = firsts
    }
}

extension ResamplingWeights {
    /// The table the horizontal pass reads: per output sample, the first source index, then `taps`
    /// weights as float bits.
    var words: [UInt32] {
        var out: [UInt32] = []
        out.reserveCapacity(first.count * (taps + 1))
        for k in first.indices {
            out.append(UInt32(bitPattern: first[k]))
            for t in 0..<taps { out.append(weights[k * taps + t].bitPattern) }
        }
        return out
    }
}
