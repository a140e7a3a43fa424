import TesseraAV
import TesseraCore

/// Everything the kernels need for one job (input geometry and colour → `ProcessingSpec`), worked
/// out once on the CPU: buffer layouts, the weight tables and the parameter block the shaders read.
///
/// ```
///  source planes ──pass 1: resample along source x──▶ intermediates (float, one per grid × channel)
///  intermediates ──pass 2: resample along source y, colour map, composite, dither──▶ output planes
/// ```
struct ProcessingPlan: Sendable {
    struct Input: Sendable, Hashable {
        var format: PixelFormat
        var width: Int
        var height: Int
        var matrix: ColorMatrix
        var range: ColorRange
        var chromaLocation: ChromaLocation
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
    let intermediateFloats: Int
    /// The shaders' parameter block (jobs, grids, tables), as 32-bit words.
    let params: [UInt32]
    let jobCount: Int
    let gridCount: Int
    /// Workgroups for pass 1 and pass 2 (x, y, z), at 64 invocations along x.
    let rowsDispatch: (x: Int, y: Int, z: Int)
    let columnsDispatch: (x: Int, y: Int, z: Int)
    let transform: ColorTransform

    static let workgroupWidth = 64
    static let planeAlignment = 256

    /// - Throws: `MediaError.unsupported` for a format the kernels cannot read or write.
    init(input: Input, spec: ProcessingSpec) throws(MediaError) {
        guard let source = PictureLayout(input.format) else {
            throw MediaError(.unsupported, "the compute kernels cannot read pixel format \(input.format)")
        }
        guard let output = PictureLayout(spec.outputFormat) else {
            throw MediaError(.unsupported, "the compute kernels cannot write pixel format \(spec.outputFormat)")
        }
        guard input.width > 0, input.height > 0, spec.outputWidth > 0, spec.outputHeight > 0 else {
            throw MediaError(.invalidArgument, "empty picture: \(input.width)x\(input.height) → "
                + "\(spec.outputWidth)x\(spec.outputHeight)")
        }
        self.input = input
        outputWidth = spec.outputWidth
        outputHeight = spec.outputHeight
        self.source = source
        self.output = output
        let outMatrix = spec.outputMatrix ?? input.matrix
        let outRange = output.isRGB ? .full : (spec.outputRange ?? (input.range == .full ? .full : .limited))
        outputMatrix = outMatrix
        outputRange = outRange
        transform = ColorTransform(source: source, sourceMatrix: input.matrix,
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

        let orientation = Orientation(rotation: spec.rotation, flipHorizontal: spec.flipHorizontal,
                                      flipVertical: spec.flipVertical)
        let outW = spec.outputWidth, outH = spec.outputHeight

        // Output grids: (size, log2 subsampling, which transform rows, plane writing).
        struct Grid {
            var width: Int, height: Int, log2SubX: Int, log2SubY: Int
            var rows: [Int], planes: [Int], perSample: Int
        }
        var grids: [Grid] = []
        if output.isRGB {
            grids.append(Grid(width: outW, height: outH, log2SubX: 0, log2SubY: 0, rows: [0, 1, 2, 3], planes: [0],
                              perSample: 4))
        } else {
            grids.append(Grid(width: outW, height: outH, log2SubX: 0, log2SubY: 0, rows: [0], planes: [0],
                              perSample: 1))
            let c = output.planeSize(1, width: outW, height: outH)
            grids.append(Grid(width: c.width, height: c.height, log2SubX: output.log2ChromaX,
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

        var jobs: [[UInt32]] = []
        var gridWords: [[UInt32]] = []
        var tables: [UInt32] = []
        var tableRefs: [(job: Int?, grid: Int?, channel: Int, relative: Int)] = []
        var intermediate = 0
        var maxJobWidth = 1, maxJobRows = 1, maxWords = 1, maxGridRows = 1

        func table(_ w: ResamplingWeights) -> Int {
            let at = tables.count
            for k in 0..<w.first.count {
                tables.append(UInt32(bitPattern: w.first[k]))
                for t in 0..<w.taps { tables.append(w.weights[k * w.taps + t].bitPattern) }
            }
            return at
        }

        for (gi, grid) in grids.enumerated() {
            let m = transform.rows
            var needed = [false, false, false, false]
            for r in grid.rows where r < 3 { for c in 0..<3 where abs(m[r][c]) > 1e-12 { needed[c] = true } }
            if source.hasAlpha { needed[3] = true }
            var g = [UInt32](repeating: 0, count: 64)
            let bytes = output.channels[0].bytesPerSample
            let perWord = 4 / (grid.perSample * bytes)
            let words = (grid.width + perWord - 1) / perWord
            g[0] = UInt32(grid.width); g[1] = UInt32(grid.height); g[2] = UInt32(words); g[3] = UInt32(perWord)
            g[4] = orientation.swap ? 1 : 0
            g[5] = UInt32(bytes); g[6] = UInt32(output.channels[0].shift); g[7] = UInt32(output.maxCode)
            g[8] = UInt32(grid.planes.count); g[9] = UInt32(grid.perSample)
            for (i, p) in grid.planes.enumerated() {
                g[10 + 2 * i] = UInt32(outputPlanes[p].offset); g[11 + 2 * i] = UInt32(outputPlanes[p].stride)
            }
            g[14] = spec.dither && output.bitDepth < source.bitDepth ? 1 : 0
            g[15] = source.hasAlpha ? 1 : 0
            g[16] = Float(min(max(spec.opacity, 0), 1)).bitPattern
            for (i, r) in grid.rows.enumerated() where r < 3 { g[17 + i] = Float(transform.background[r]).bitPattern }
            for (i, r) in grid.rows.enumerated() where r < 3 {
                for c in 0..<4 { g[40 + 4 * i + c] = Float(m[r][c]).bitPattern }
            }
            maxWords = max(maxWords, words)
            maxGridRows = max(maxGridRows, grid.height)

            // Along u (source x) and v (source y): output counts, display extents and sitings.
            let uCount = orientation.swap ? grid.height : grid.width
            let vCount = orientation.swap ? grid.width : grid.height
            let uExtent = Double(orientation.swap ? outH : outW), vExtent = Double(orientation.swap ? outW : outH)
            let uSub = orientation.swap ? grid.log2SubY : grid.log2SubX
            let vSub = orientation.swap ? grid.log2SubX : grid.log2SubY
            let uHorizontal = !orientation.swap
            for c in 0..<4 where needed[c] {
                let ch = source.channels[c]
                let plane = source.planeSize(ch.plane, width: input.width, height: input.height)
                let srcW = Double(input.width), srcH = Double(input.height)
                let uWeights = ResamplingWeights(
                    filter: spec.filter, count: uCount, sourceCount: plane.width,
                    step: (srcW / Double(1 << ch.log2SubX)) / (uExtent / Double(1 << uSub))
                ) { k in
                    var n = outputPosition(k, log2Sub: uSub, horizontal: uHorizontal) / uExtent
                    if orientation.flipU { n = 1 - n }
                    return sourceIndex(n * srcW, log2Sub: ch.log2SubX, horizontal: true)
                }
                let vWeights = ResamplingWeights(
                    filter: spec.filter, count: vCount, sourceCount: plane.height,
                    step: (srcH / Double(1 << ch.log2SubY)) / (vExtent / Double(1 << vSub))
                ) { k in
                    var n = outputPosition(k, log2Sub: vSub, horizontal: !uHorizontal) / vExtent
                    if orientation.flipV { n = 1 - n }
                    return sourceIndex(n * srcH, log2Sub: ch.log2SubY, horizontal: false)
                }
                var job = [UInt32](repeating: 0, count: 16)
                job[0] = UInt32(sourcePlanes[ch.plane].offset + ch.byteOffset)
                job[1] = UInt32(sourcePlanes[ch.plane].stride)
                job[2] = UInt32(ch.pixelStride); job[3] = UInt32(ch.bytesPerSample); job[4] = UInt32(ch.shift)
                job[5] = UInt32(uCount); job[6] = UInt32(plane.height); job[7] = UInt32(intermediate)
                job[9] = UInt32(uWeights.taps)
                tableRefs.append((jobs.count, nil, 8, table(uWeights)))
                jobs.append(job)
                g[24 + 4 * c] = UInt32(intermediate); g[25 + 4 * c] = UInt32(uCount)
                g[27 + 4 * c] = UInt32(vWeights.taps)
                tableRefs.append((nil, gi, 26 + 4 * c, table(vWeights)))
                intermediate += uCount * plane.height
                maxJobWidth = max(maxJobWidth, uCount)
                maxJobRows = max(maxJobRows, plane.height)
            }
            gridWords.append(g)
        }

        let gridBase = 16 * jobs.count
        let tablesBase = gridBase + 64 * grids.count
        for ref in tableRefs {
            if let j = ref.job { jobs[j][ref.channel] = UInt32(tablesBase + ref.relative) }
            if let g = ref.grid { gridWords[g][ref.channel] = UInt32(tablesBase + ref.relative) }
        }
        var words = jobs.flatMap { $0 } + gridWords.flatMap { $0 } + tables
        words[15] = UInt32(gridBase)
        params = words
        jobCount = jobs.count
        gridCount = grids.count
        intermediateFloats = max(intermediate, 1)
        let wg = Self.workgroupWidth
        rowsDispatch = ((maxJobWidth + wg - 1) / wg, maxJobRows, jobs.count)
        columnsDispatch = ((maxWords + wg - 1) / wg, maxGridRows, grids.count)
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
