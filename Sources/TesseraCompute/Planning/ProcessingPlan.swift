import TesseraAV
import TesseraCore

/// Everything the kernels need for one job (input geometry and colour → `ProcessingSpec`), worked
/// out once on the CPU: buffer layouts, the parameter block and the filter tables the shaders read.
///
/// ```
///  source planes ──pass 1: resample along source y, a word at a time──▶ half-float rows (one per grid × plane)
///  half-float rows ──pass 2: resample along source x, colour map, composite, dither──▶ output planes
/// ```
struct ProcessingPlan: Sendable {
    struct Input: Sendable, Hashable {
        var format: PixelFormat
        var width: Int
        var height: Int
        var matrix: ColorMatrix
        var range: ColorRange
        var chromaLocation: ChromaLocation
        /// Read by a tone map only.
        var primaries: ColorPrimaries = .unspecified
    }

    /// Where a plane sits in a staging buffer.
    struct PlaneSlot: Sendable, Hashable {
        var offset: Int
        var stride: Int
        var rowBytes: Int
        var rows: Int
    }

    let input: Input
    let source: PictureLayout
    let output: PictureLayout
    let outputMatrix: ColorMatrix
    let outputWidth: Int
    let outputHeight: Int
    let outputRange: ColorRange
    let sourcePlanes: [PlaneSlot]
    let outputPlanes: [PlaneSlot]
    let sourceBytes: Int
    let outputBytes: Int
    /// Size of the half-float intermediate rows, in 32-bit words.
    let intermediateWords: Int
    /// The shaders' uniform parameter block (header, vertical jobs, output grids), as 32-bit words.
    let params: [UInt32]
    /// Filter tables (first tap and weights per output row or sample, per job and per grid channel).
    let tables: [UInt32]
    let jobCount: Int
    let gridCount: Int
    /// Workgroups for pass 1 (vertical) and pass 2 (horizontal) (x, y, z), at 64 invocations along x.
    let verticalDispatch: (x: Int, y: Int, z: Int)
    let horizontalDispatch: (x: Int, y: Int, z: Int)
    let transform: ColorTransform
    /// Specialisation constants of the horizontal pass: whether output axes are swapped, and per output
    /// grid the channels it reads (bit c = channel c).
    let swap: Bool
    let gridChannels: [UInt32]
    /// Specialisation constant of the horizontal pass: the grids tone-map (`ToneMapCurves`).
    let toneMaps: Bool
    /// The per-plane fast path, when this job qualifies (see `PlaneResampling`).
    let planeResampling: PlaneResampling?
    /// What the per-plane fast paths (`PlaneResampling` on a device, `PlaneScaler` on the CPU) read, when
    /// the job is planar YUV to planar 8-bit YUV with no turn, flip, compositing or channel mixing.
    let planeInputs: [PlaneResampling.PlaneInput]?

    static let workgroupWidth = 64
    static let planeAlignment = 256
    /// The shaders declare `uvec4 params[128]`.
    static let paramWords = 512

    /// - Parameter planeKernels: the per-plane fast path's tuning, offered when the job qualifies; nil for
    ///   the generic kernels only.
    /// - Throws: `MediaError.unsupported` for a format the kernels cannot read or write.
    init(input: Input, spec: ProcessingSpec, planeKernels: PlaneResampling.Tuning? = .gpu) throws(MediaError) {
        guard let source = PictureLayout(input.format) else {
            throw MediaError(.unsupported, "the compute kernels cannot read pixel format \(input.format)")
        }
        guard let output = PictureLayout(spec.outputFormat) else {
            throw MediaError(.unsupported, "the compute kernels cannot write pixel format \(spec.outputFormat)")
        }
        guard input.width > 0, input.height > 0, spec.outputWidth > 0, spec.outputHeight > 0 else {
            throw MediaError(
                .invalidArgument,
                "empty picture: \(input.width)x\(input.height) → "
                    + "\(spec.outputWidth)x\(spec.outputHeight)")
        }
        self.input = input
        outputWidth = spec.outputWidth
        outputHeight = spec.outputHeight
        self.source = source
        self.output = output
        if spec.toneMap != nil, source.isRGB {
            throw MediaError(.unsupported, "a tone map reads Y'CbCr, not \(input.format)")
        }
        let outMatrix = spec.outputMatrix ?? (spec.toneMap != nil ? .bt709 : input.matrix)
        let outRange = output.isRGB ? .full : (spec.outputRange ?? (input.range == .full ? .full : .limited))
        outputMatrix = outMatrix
        outputRange = outRange
        transform = ColorTransform(
            source: source, sourceMatrix: input.matrix,
            sourceRange: source.isRGB ? .full : input.range, output: output,
            outputMatrix: outMatrix, outputRange: outRange, background: spec.backgroundColor)

        func slots(_ layout: PictureLayout, _ w: Int, _ h: Int) -> ([PlaneSlot], Int) {
            var offset = 0
            var result: [PlaneSlot] = []
            for p in 0..<layout.planeCount {
                let rowBytes = layout.rowBytes(p, width: w)
                let stride = (rowBytes + 63) / 64 * 64
                let rows = layout.planeSize(p, width: w, height: h).height
                result.append(PlaneSlot(offset: offset, stride: stride, rowBytes: rowBytes, rows: rows))
                offset += (stride * rows + Self.planeAlignment - 1) / Self.planeAlignment * Self.planeAlignment
            }
            return (result, offset)
        }
        (sourcePlanes, sourceBytes) = slots(source, input.width, input.height)
        (outputPlanes, outputBytes) = slots(output, spec.outputWidth, spec.outputHeight)

        let orientation = Orientation(
            rotation: spec.rotation, flipHorizontal: spec.flipHorizontal,
            flipVertical: spec.flipVertical)
        let outW = spec.outputWidth, outH = spec.outputHeight

        // Output grids: (size, log2 subsampling, which transform rows, plane writing).
        struct Grid {
            var width: Int, height: Int, log2SubX: Int, log2SubY: Int
            var rows: [Int], planes: [Int], perSample: Int
        }
        var grids: [Grid] = []
        if output.isRGB {
            grids.append(
                Grid(
                    width: outW, height: outH, log2SubX: 0, log2SubY: 0, rows: [0, 1, 2, 3], planes: [0],
                    perSample: 4))
        } else {
            grids.append(
                Grid(
                    width: outW, height: outH, log2SubX: 0, log2SubY: 0, rows: [0], planes: [0],
                    perSample: 1))
            let c = output.planeSize(1, width: outW, height: outH)
            grids.append(
                Grid(
                    width: c.width, height: c.height, log2SubX: output.log2ChromaX,
                    log2SubY: output.log2ChromaY, rows: [1, 2],
                    planes: output.planeCount == 3 ? [1, 2] : [1], perSample: output.planeCount == 3 ? 1 : 2))
        }

        // Sample positions in display pixels: output chroma is MPEG-2 sited (left, vertically centred).
        func outputPosition(_ k: Int, log2Sub: Int, horizontal: Bool) -> Double {
            if log2Sub == 0 { return Double(k) + 0.5 }
            return horizontal ? Double(2 * k) + 0.5 : Double(2 * k) + 1
        }
        // Continuous source coordinate → index in a plane with this subsampling and siting.
        let (hCosited, vOffset) = Self.siting(input.chromaLocation)
        func sourceIndex(_ x: Double, log2Sub: Int, horizontal: Bool) -> Double {
            if log2Sub == 0 { return x - 0.5 }
            return horizontal ? (x - (hCosited ? 0.5 : 1)) / 2 : (x - vOffset) / 2
        }

        /// Output index k along an axis → source plane index A k + B.
        struct Axis { var a: Double, b: Double }
        func axis(
            log2SubOut: Int, displayHorizontal: Bool, extent: Int, flipped: Bool, sourceExtent: Int,
            log2SubIn: Int, sourceHorizontal: Bool
        ) -> Axis {
            func index(_ k: Int) -> Double {
                var n = outputPosition(k, log2Sub: log2SubOut, horizontal: displayHorizontal) / Double(extent)
                if flipped { n = 1 - n }
                return sourceIndex(n * Double(sourceExtent), log2Sub: log2SubIn, horizontal: sourceHorizontal)
            }
            return Axis(a: index(1) - index(0), b: index(0))
        }

        var jobs: [[UInt32]] = []
        var gridWords: [[UInt32]] = []
        var channelMasks: [UInt32] = []
        var tableWords: [UInt32] = []  // vertical and horizontal filter tables
        var intermediate = 0  // uints
        var maxRowWords = 1, maxJobRows = 1, maxWords = 1, maxGridRows = 1
        // Per channel, the weights of the grid that writes it (for the fast path).
        var channelWeights: [(vertical: ResamplingWeights, horizontal: ResamplingWeights)?] = [nil, nil, nil, nil]

        // A tone map reads every channel at every grid's positions, and its rows take R'G'B' to output codes.
        let toneRows = spec.toneMap.map { _ in
            ColorTransform.fromNormalisedRGB(output: output, matrix: outMatrix, range: outRange)
        }
        for grid in grids {
            let m = toneRows ?? transform.rows
            var needed = [false, false, false, false]
            for r in grid.rows where r < 3 { for c in 0..<3 where abs(m[r][c]) > 1e-12 { needed[c] = true } }
            if toneRows != nil { needed[0...2] = [true, true, true] }
            if source.hasAlpha { needed[3] = true }
            var g = [UInt32](repeating: 0, count: 96)
            let bytes = output.channels[0].bytesPerSample
            let perWord = 4 / (grid.perSample * bytes)
            let words = (grid.width + perWord - 1) / perWord
            g[0] = UInt32(grid.width)
            g[1] = UInt32(grid.height)
            g[2] = UInt32(words)
            g[3] = UInt32(perWord)
            g[4] = orientation.swap ? 1 : 0
            g[5] = UInt32(bytes)
            g[6] = UInt32(output.channels[0].shift)
            g[7] = UInt32(output.maxCode)
            g[8] = UInt32(grid.planes.count)
            g[9] = UInt32(grid.perSample)
            for (i, p) in grid.planes.enumerated() {
                g[10 + 2 * i] = UInt32(outputPlanes[p].offset)
                g[11 + 2 * i] = UInt32(outputPlanes[p].stride)
            }
            g[14] = spec.dither && (output.bitDepth < source.bitDepth || spec.toneMap != nil) ? 1 : 0
            g[15] = source.hasAlpha ? 1 : 0
            g[16] = Float(min(max(spec.opacity, 0), 1)).bitPattern
            for (i, r) in grid.rows.enumerated() where r < 3 {
                g[17 + i] = Float(transform.background[r]).bitPattern
                for c in 0..<4 { g[64 + 4 * i + c] = Float(m[r][c]).bitPattern }
            }
            maxWords = max(maxWords, words)
            maxGridRows = max(maxGridRows, grid.height)

            // Along u (source x) and v (source y): which display axis reads it, its extent and subsampling.
            let uExtent = orientation.swap ? outH : outW, vExtent = orientation.swap ? outW : outH
            let uSub = orientation.swap ? grid.log2SubY : grid.log2SubX
            let vSub = orientation.swap ? grid.log2SubX : grid.log2SubY
            let vCount = orientation.swap ? grid.width : grid.height
            // One vertical job per source plane this grid reads.
            var jobOfPlane: [Int: (offset: Int, stride: Int)] = [:]
            var verticalOfPlane: [Int: ResamplingWeights] = [:]
            for c in 0..<4 where needed[c] {
                let ch = source.channels[c]
                let plane = source.planeSize(ch.plane, width: input.width, height: input.height)
                if jobOfPlane[ch.plane] == nil {
                    let rowWords = (source.rowBytes(ch.plane, width: input.width) + 3) / 4
                    let stride = ch.bytesPerSample == 1 ? 2 * rowWords : rowWords
                    let v = axis(
                        log2SubOut: vSub, displayHorizontal: orientation.swap, extent: vExtent,
                        flipped: orientation.flipV, sourceExtent: input.height, log2SubIn: ch.log2SubY,
                        sourceHorizontal: false)
                    let weights = ResamplingWeights(
                        filter: spec.filter, count: vCount, sourceCount: plane.height,
                        step: abs(v.a)
                    ) { v.a * Double($0) + v.b }
                    var job = [UInt32](repeating: 0, count: 16)
                    job[0] = UInt32(sourcePlanes[ch.plane].offset)
                    job[1] = UInt32(sourcePlanes[ch.plane].stride)
                    job[2] = UInt32(rowWords)
                    job[3] = UInt32(ch.bytesPerSample)
                    job[4] = UInt32(ch.shift)
                    job[5] = UInt32(plane.height)
                    job[6] = UInt32(vCount)
                    job[7] = UInt32(intermediate)
                    job[8] = UInt32(stride)
                    job[9] = UInt32(tableWords.count)
                    job[10] = UInt32(weights.taps)
                    tableWords += weights.words
                    jobs.append(job)
                    jobOfPlane[ch.plane] = (intermediate, stride)
                    verticalOfPlane[ch.plane] = weights
                    intermediate += stride * vCount
                    maxRowWords = max(maxRowWords, rowWords)
                    maxJobRows = max(maxJobRows, vCount)
                }
                guard let job = jobOfPlane[ch.plane] else { continue }
                let u = axis(
                    log2SubOut: uSub, displayHorizontal: !orientation.swap, extent: uExtent,
                    flipped: orientation.flipU, sourceExtent: input.width, log2SubIn: ch.log2SubX,
                    sourceHorizontal: true)
                let uCount = orientation.swap ? grid.height : grid.width
                let weights = ResamplingWeights(
                    filter: spec.filter, count: uCount, sourceCount: plane.width,
                    step: abs(u.a)
                ) { u.a * Double($0) + u.b }
                let o = 24 + 10 * c
                g[o] = 1
                g[o + 1] = UInt32(job.offset)
                g[o + 2] = UInt32(job.stride)
                g[o + 3] = UInt32(ch.pixelStride / ch.bytesPerSample)
                g[o + 4] = UInt32(ch.byteOffset / ch.bytesPerSample)
                g[o + 5] = UInt32(plane.width)
                g[o + 6] = UInt32(tableWords.count)
                g[o + 7] = UInt32(weights.taps)
                tableWords += weights.words
                if grid.rows.contains(c), let vertical = verticalOfPlane[ch.plane] {
                    channelWeights[c] = (vertical, weights)
                }
            }
            gridWords.append(g)
            channelMasks.append((0..<4).reduce(0) { needed[$1] ? $0 | (1 << UInt32($1)) : $0 })
        }
        var toneWords: [UInt32] = []
        if let map = spec.toneMap {
            let curves = ToneMapCurves(
                map, inputDepth: source.bitDepth, inputRange: input.range, inputMatrix: input.matrix,
                primaries: input.primaries)
            let floats =
                curves.toRGB.flatMap { $0 } + curves.gamut.flatMap { $0 }
                + [curves.gainDomain, curves.black, 0, curves.hlg?.scale ?? 0, curves.hlg?.exponent ?? 0]
                + curves.lumaWeights
            toneWords = floats.map(\.bitPattern)
            toneWords[23] = curves.hlg == nil ? 0 : 1
            toneWords.append(UInt32(ToneMapCurves.curveSamples))
            for curve in [curves.eotf, curves.gain, curves.oetf] {
                toneWords.append(UInt32(tableWords.count))
                tableWords += curve.map(\.bitPattern)
            }
        }
        toneMaps = spec.toneMap != nil
        tables = tableWords.isEmpty ? [0] : tableWords
        planeInputs = Self.planeInputs(
            source: source, output: output, transform: transform, orientation: orientation, spec: spec,
            input: input, sourcePlanes: sourcePlanes, outputPlanes: outputPlanes, weights: channelWeights)
        if let tuning = planeKernels, let planeInputs {
            planeResampling = PlaneResampling(
                planeInputs, dither: spec.dither && output.bitDepth < source.bitDepth,
                tuning: tuning)
        } else {
            planeResampling = nil
        }
        swap = orientation.swap
        gridChannels = channelMasks

        let gridBase = 16 + 16 * jobs.count
        var header = [UInt32](repeating: 0, count: 16)
        header[0] = UInt32(jobs.count)
        header[1] = UInt32(gridBase)
        header[2] = toneWords.isEmpty ? 0 : UInt32(gridBase + 96 * gridWords.count)
        params = header + jobs.flatMap { $0 } + gridWords.flatMap { $0 } + toneWords
        guard params.count <= Self.paramWords else {
            throw MediaError(.unsupported, "this job needs more kernel parameters than the kernels hold")
        }
        jobCount = jobs.count
        gridCount = grids.count
        intermediateWords = max(intermediate, 1)
        let wg = Self.workgroupWidth
        verticalDispatch = ((maxRowWords + wg - 1) / wg, maxJobRows, jobs.count)
        horizontalDispatch = ((maxWords + wg - 1) / wg, maxGridRows, grids.count)
    }

    /// The fast paths' planes when every output plane is one source plane resampled and mapped by a scale
    /// and offset: planar YUV to planar 8-bit YUV, no turn, flip or compositing, no channel mixing.
    private static func planeInputs(
        source: PictureLayout, output: PictureLayout, transform: ColorTransform, orientation: Orientation,
        spec: ProcessingSpec, input: Input, sourcePlanes: [PlaneSlot], outputPlanes: [PlaneSlot],
        weights: [(vertical: ResamplingWeights, horizontal: ResamplingWeights)?]
    ) -> [PlaneResampling.PlaneInput]? {
        func planar(_ layout: PictureLayout) -> Bool {
            !layout.isRGB && !layout.hasAlpha && layout.planeCount == 3
                && layout.channels.indices.allSatisfy { c in
                    let ch = layout.channels[c]
                    return ch.plane == c && ch.byteOffset == 0 && ch.pixelStride == ch.bytesPerSample && ch.shift == 0
                }
        }
        let m = transform.rows
        guard spec.toneMap == nil, planar(source), planar(output), output.bitDepth == 8, orientation.isIdentity,
            spec.opacity >= 1,
            (0..<3).allSatisfy({ r in (0..<3).allSatisfy { c in c == r || abs(m[r][c]) <= 1e-12 } })
        else { return nil }
        var planes: [PlaneResampling.PlaneInput] = []
        for p in 0..<3 {
            guard let w = weights[p] else { return nil }
            let sourceSize = source.planeSize(p, width: input.width, height: input.height)
            let outputSize = output.planeSize(p, width: spec.outputWidth, height: spec.outputHeight)
            planes.append(
                PlaneResampling.PlaneInput(
                    source: sourcePlanes[p], bytesPerSample: source.channels[p].bytesPerSample,
                    bitDepth: source.bitDepth,
                    width: sourceSize.width, height: sourceSize.height,
                    vertical: w.vertical, horizontal: w.horizontal, output: outputPlanes[p],
                    outputWidth: outputSize.width,
                    outputHeight: outputSize.height, scale: m[p][p], bias: m[p][3]))
        }
        return planes
    }

    /// Source chroma siting: horizontally co-sited with luma or centred; vertical offset in luma rows of the
    /// first chroma sample's centre (0.5 top, 1 centre, 1.5 bottom). Unspecified means MPEG-2 (left).
    static func siting(_ location: ChromaLocation) -> (hCosited: Bool, vOffset: Double) {
        switch location {
        case .center: (false, 1)
        case .topleft: (true, 0.5)
        case .top: (false, 0.5)
        case .bottomleft: (true, 1.5)
        case .bottom: (false, 1.5)
        case .left, .unspecified: (true, 1)
        }
    }
}
