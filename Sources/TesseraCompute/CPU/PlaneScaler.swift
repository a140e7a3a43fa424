import CTesseraKernels
import TesseraAV
import TesseraCore

/// Tessera's own CPU scaler for the common transcode: 8-bit planar YUV resized to 8-bit planar YUV with
/// the same matrix and range, no turn, flip or compositing (`ProcessingPlan.planeInputs`). Each plane is
/// resampled with the plan's filter tables (the same as the Vulkan kernels'), vertical pass first, so the
/// horizontal pass runs on output rows only; the loops are C with AVX2 (`CTesseraKernels`).
///
/// ```
///  source plane ──vertical taps, one output row at a time──▶ 16-bit row ──horizontal taps──▶ output row
/// ```
///
/// Measured against libswscale's bicubic for 1080p → 720p: see Benchmarks/compute/README.md.
struct PlaneScaler {
    struct Plane {
        var sourceWidth: Int
        var outputWidth: Int
        var outputHeight: Int
        var verticalFirst: [Int32]
        var verticalWeights: [Int16]
        var verticalTaps: Int
        var horizontalFirst: [Int32]
        /// `horizontalTaps` (a multiple of 8) per output sample, zero-padded.
        var horizontalWeights: [Int16]
        var horizontalTaps: Int
    }

    let planes: [Plane]
    /// One 16-bit row between the passes, reused for every row of every plane.
    private var row: [Int16]
    static let maxTaps = 64
    static let fractionBits = 14

    /// Whether the AVX2 loops run on this machine (otherwise the portable ones do).
    static var usesAVX2: Bool { tessera_kernels_have_avx2() != 0 }

    /// Nil when the plan has no plane fast path, or its planes are not 8-bit with an identity colour map.
    init?(plan: ProcessingPlan) {
        guard let inputs = plan.planeInputs,
            inputs.allSatisfy({ p in
                p.bytesPerSample == 1 && p.bitDepth == 8 && abs(p.scale - 1) < 1e-9 && abs(p.bias) < 1e-6
                    && p.vertical.taps <= Self.maxTaps && p.horizontal.taps <= Self.maxTaps
            })
        else { return nil }
        planes = inputs.map { p in
            let hTaps = (p.horizontal.taps + 7) / 8 * 8
            return Plane(
                sourceWidth: p.width, outputWidth: p.outputWidth, outputHeight: p.outputHeight,
                verticalFirst: p.vertical.first,
                verticalWeights: Self.fixedPoint(p.vertical, paddedTo: p.vertical.taps),
                verticalTaps: p.vertical.taps, horizontalFirst: p.horizontal.first,
                horizontalWeights: Self.fixedPoint(p.horizontal, paddedTo: hTaps), horizontalTaps: hTaps)
        }
        let widest = planes.map { $0.sourceWidth + $0.horizontalTaps }.max() ?? 0
        row = Array(repeating: 0, count: widest)
    }

    /// Q14 weights whose taps sum to exactly 1 (the largest absorbs the rounding), so flat areas stay exact.
    static func fixedPoint(_ w: ResamplingWeights, paddedTo taps: Int) -> [Int16] {
        let one = 1 << fractionBits
        var out = [Int16](repeating: 0, count: w.first.count * taps)
        for k in w.first.indices {
            let row = (0..<w.taps).map { Int((Double(w.weights[k * w.taps + $0]) * Double(one)).rounded()) }
            var fixed = row
            if let largest = row.indices.max(by: { abs(row[$0]) < abs(row[$1]) }) {
                fixed[largest] += one - row.reduce(0, +)
            }
            for t in 0..<w.taps { out[k * taps + t] = Int16(clamping: fixed[t]) }
        }
        return out
    }

    /// Scales `input`'s planes into `output`'s (both of the plan's formats and sizes).
    /// - Parameter simd: false runs the portable loops even where AVX2 exists (tests compare the two).
    mutating func scale(_ input: Frame, into output: Frame, simd: Bool = true) {
        for (p, plane) in planes.enumerated() {
            guard let from = input.plane(p), let to = output.plane(p) else { continue }
            let sourceStride = input.linesize(p), outputStride = output.linesize(p)
            plane.verticalFirst.withUnsafeBufferPointer { vFirst in
                plane.verticalWeights.withUnsafeBufferPointer { vWeights in
                    plane.horizontalFirst.withUnsafeBufferPointer { hFirst in
                        plane.horizontalWeights.withUnsafeBufferPointer { hWeights in
                            row.withUnsafeMutableBufferPointer { row in
                                tessera_scale_plane_u8(
                                    from, sourceStride, Int32(plane.sourceWidth), to, outputStride,
                                    Int32(plane.outputWidth), Int32(plane.outputHeight),
                                    vFirst.baseAddress, vWeights.baseAddress, Int32(plane.verticalTaps),
                                    hFirst.baseAddress, hWeights.baseAddress, Int32(plane.horizontalTaps),
                                    row.baseAddress, simd ? 1 : 0)
                            }
                        }
                    }
                }
            }
        }
    }
}
