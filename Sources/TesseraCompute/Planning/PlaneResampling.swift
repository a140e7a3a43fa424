/// The fast path of the Vulkan kernels, for the common transcode: planar YUV in, planar 8-bit YUV out,
/// no rotation, flip or compositing, and a colour map that never mixes channels (same matrix, any
/// range or depth). Each output plane then depends on one source plane only, so the kernels run per
/// plane with everything about the plane fixed at pipeline or dispatch time.
///
/// ```
///  source plane ──plane_vertical (16 bytes per step)──▶ 16-bit fixed-point rows ──plane_horizontal──▶ output plane
/// ```
///
/// `ProcessingPlan` offers one when the job qualifies; everything else runs the generic kernels. The kernels
/// store 64-bit words, so they run only on devices with `shaderInt64` (`VulkanDevice.hasInt64`).
struct PlaneResampling: Sendable {
    /// One plane's two dispatches: their push constants, specialisation constants and sizes.
    struct Plane: Sendable {
        /// `plane_vertical`'s push constants (see the shader) and its specialisation constants (taps, bytes per
        /// sample, lanes, union, row 1's window start, rows per group, row 1's window end, rows 2 to 5's
        /// windows); it runs a workgroup per group of output rows.
        var vertical: [UInt32]
        var verticalConstants: [UInt32]
        var verticalGroups: Int
        /// `plane_horizontal`'s push constants and its (span, dither).
        var horizontal: [UInt32]
        var horizontalConstants: [UInt32]
        var horizontalDispatch: (x: Int, y: Int)
    }

    /// How the kernels split the work. A CPU device (lavapipe) runs a workgroup's lanes 8 at a time on
    /// one core and pays per lane for every weight it fetches: few lanes per row in pass 1 and many rows
    /// per workgroup in pass 2 let each invocation reuse its weights. A GPU wants many small workgroups.
    /// `verticalRows`: output rows per pass-1 invocation from 16-bit sources (8-bit ones always take 2,
    /// as four rows of their sixteen samples per step outgrow a CPU's vector registers). Each source texel
    /// fetched serves every row whose taps cover it: on lavapipe a fetch costs more than the arithmetic.
    struct Tuning: Sendable {
        var verticalLanes: Int
        var rowsPerGroup: Int
        var verticalRows: Int
        static let gpu = Tuning(verticalLanes: 64, rowsPerGroup: 4, verticalRows: 2)
        static let cpu = Tuning(verticalLanes: 8, rowsPerGroup: 32, verticalRows: 6)
    }

    static let maxTaps = 16
    static let maxUnion = 20
    static let maxVerticalRows = 6
    static let maxSpan = 40
    /// An intermediate sample is `fixedZero` + value × 2^(15 − source bits): half the range of room for
    /// overshoot either way (the shader's ZERO).
    static let fixedZero = 16384.0
    static let workgroupWidth = 64
    static let pushConstantBytes = 44

    let planes: [Plane]
    /// Both kernels' tables: vertical rows as 32-bit words, horizontal spans in 16-byte texels.
    let tables: [UInt32]
    /// Fixed-point rows of every plane, in 32-bit words.
    let intermediateWords: Int

    /// Per plane p (0 Y, 1 Cb, 2 Cr): what the generic plan worked out for it.
    struct PlaneInput {
        var source: ProcessingPlan.PlaneSlot
        var bytesPerSample: Int
        var bitDepth: Int
        var width: Int
        var height: Int
        var vertical: ResamplingWeights
        var horizontal: ResamplingWeights
        var output: ProcessingPlan.PlaneSlot
        var outputWidth: Int
        var outputHeight: Int
        /// code = scale * value + bias.
        var scale: Double
        var bias: Double
    }

    /// Nil when some plane needs more taps or a wider span than the kernels hold, or is too narrow.
    init?(_ inputs: [PlaneInput], dither: Bool, tuning: Tuning) {
        var tables: [UInt32] = []
        var planes: [Plane] = []
        var intermediate = 0  // uvec4s
        for p in inputs {
            let v = p.vertical, h = p.horizontal
            guard v.taps <= Self.maxTaps, v.first.count == p.outputHeight, h.first.count == p.outputWidth,
                p.source.stride % 16 == 0, p.source.offset % 16 == 0,
                // Pass 2 writes whole 64-bit words, the last one of a row into the row's padding.
                p.output.stride % 8 == 0, p.output.offset % 8 == 0, p.output.stride >= (p.outputWidth + 7) / 8 * 8
            else { return nil }
            let rowTexels = (p.source.rowBytes + 15) / 16
            let midStride = p.bytesPerSample == 1 ? 2 * rowTexels : rowTexels  // uvec4s: 8 halves each
            let fixedScale = Double(1 << (15 - p.bitDepth))
            func weight(_ b: Int, _ t: Int) -> UInt32 {
                Float(Double(v.weights[b * v.taps + t]) * fixedScale).bitPattern
            }

            // Vertical: output rows in groups of `rowCount`; row r's window starts `d` rows after row 0's,
            // and over all groups falls in [lo r, hi r) of the group's union of source rows.
            func windows(_ rowCount: Int) -> [(lo: Int, hi: Int)]? {
                let groups = (p.outputHeight + rowCount - 1) / rowCount
                var w = [(lo: 0, hi: v.taps)]
                for r in 1..<rowCount {
                    let offsets = (0..<groups).compactMap { m in
                        rowCount * m + r < p.outputHeight ? Int(v.first[rowCount * m + r] - v.first[rowCount * m]) : nil
                    }
                    let lo = offsets.min() ?? 0, hi = v.taps + (offsets.max() ?? 0)
                    guard lo >= 0, hi <= Self.maxUnion else { return nil }
                    w.append((lo, hi))
                }
                return w
            }
            let wanted = p.bytesPerSample == 2 ? min(max(tuning.verticalRows, 2), Self.maxVerticalRows) : 2
            guard
                let (rowCount, window) = stride(from: wanted, through: 2, by: -1).lazy
                    .compactMap({ n in windows(n).map { (n, $0) } }).first
            else { return nil }
            let union = window.map(\.hi).max() ?? v.taps
            let verticalGroups = (p.outputHeight + rowCount - 1) / rowCount
            let vTable = tables.count
            for m in 0..<verticalGroups {
                let b0 = rowCount * m
                tables.append(UInt32(bitPattern: v.first[b0]))
                for (r, (lo, hi)) in window.enumerated() {
                    let b = b0 + r
                    let d = b < p.outputHeight ? Int(v.first[b] - v.first[b0]) : 0
                    tables += (lo..<hi).map { u in
                        b < p.outputHeight && u - d >= 0 && u - d < v.taps ? weight(b, u - d) : 0
                    }
                }
            }
            let padded = window + Array(repeating: (lo: 0, hi: 0), count: Self.maxVerticalRows - rowCount)

            // Horizontal: the eight outputs of an invocation read one span that starts at a multiple of 8
            // samples and stays inside what pass 1 wrote (beyond the plane: resampled padding, finite and
            // weighted 0).
            let limit = 8 * midStride
            let words = (p.outputWidth + 3) / 4
            let groups = (p.outputWidth + 7) / 8
            func bounds(_ g: Int) -> (lo: Int, hi: Int) {
                let ks = (8 * g)..<min(8 * g + 8, p.outputWidth)
                return (ks.map { Int(h.first[$0]) }.min() ?? 0, ks.map { Int(h.first[$0]) + h.taps }.max() ?? 0)
            }
            var span = (0..<groups).map { g in bounds(g).hi - bounds(g).lo / 8 * 8 }.max() ?? 8
            span = (span + 7) / 8 * 8
            func start(_ g: Int) -> Int { min(bounds(g).lo / 8 * 8, (limit - span) / 8 * 8) }
            guard span <= Self.maxSpan, span <= limit, (0..<groups).allSatisfy({ start($0) + span >= bounds($0).hi })
            else { return nil }
            // Per output of an invocation, the span samples it may read in any invocation.
            var reads = [(lo: Int, hi: Int)](repeating: (span, 0), count: 8)
            for g in 0..<groups {
                for i in 0..<8 where 8 * g + i < p.outputWidth {
                    let o = Int(h.first[8 * g + i]) - start(g)
                    reads[i] = (min(reads[i].lo, o), max(reads[i].hi, o + h.taps))
                }
            }
            while tables.count % 4 != 0 { tables.append(0) }
            let hTable = tables.count / 4
            for g in 0..<groups {
                let s = start(g)
                tables += [UInt32(s / 8), 0, 0, 0]
                var columns = [Float](repeating: 0, count: 8 * span)  // per span sample, outputs 0…7
                for i in 0..<8 where 8 * g + i < p.outputWidth {
                    let k = 8 * g + i
                    for t in 0..<h.taps { columns[8 * (Int(h.first[k]) + t - s) + i] += h.weights[k * h.taps + t] }
                }
                tables += columns.map(\.bitPattern)
            }

            let rows = p.outputHeight
            // The weights of an output sum to 1, so the sum over a span is fixedScale × value + fixedZero.
            let scale = p.scale / fixedScale, bias = p.bias - scale * Self.fixedZero
            planes.append(
                Plane(
                    vertical: [
                        UInt32(p.source.offset / 16), UInt32(p.source.stride / 16), UInt32(rowTexels),
                        UInt32(p.height - 1), UInt32(intermediate), UInt32(midStride), UInt32(vTable),
                    ],
                    verticalConstants: [
                        UInt32(v.taps), UInt32(p.bytesPerSample), UInt32(tuning.verticalLanes),
                        UInt32(union), UInt32(padded[1].lo), UInt32(rowCount), UInt32(padded[1].hi),
                    ]
                        + padded[2...].flatMap { [UInt32($0.lo), UInt32($0.hi)] },
                    verticalGroups: verticalGroups,
                    horizontal: [
                        UInt32(intermediate), UInt32(midStride), UInt32(p.output.offset / 4),
                        UInt32(p.output.stride / 4), UInt32(words), UInt32(rows), UInt32(hTable),
                        UInt32(tuning.rowsPerGroup), Float(scale).bitPattern, Float(bias).bitPattern,
                        Float(255).bitPattern,
                    ],
                    horizontalConstants: [UInt32(span), dither ? 1 : 0]
                        + reads.flatMap { [UInt32(min($0.lo, $0.hi)), UInt32($0.hi)] },
                    horizontalDispatch: (
                        (groups + Self.workgroupWidth - 1) / Self.workgroupWidth,
                        (rows + tuning.rowsPerGroup - 1) / tuning.rowsPerGroup
                    )))
            intermediate += midStride * rowCount * verticalGroups  // a short last group writes spare rows
        }
        self.planes = planes
        self.tables = tables
        intermediateWords = max(4 * intermediate, 4)
    }
}
