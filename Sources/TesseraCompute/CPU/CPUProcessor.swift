import CFFmpeg
import TesseraAV
import TesseraCore

/// The CPU `FrameProcessor`: libswscale with slice threading across `threads` workers, plus Tessera's
/// own turning, flipping and compositing where libswscale has none. The common transcode (8-bit planar
/// YUV resized, same matrix and range, nothing turned or composited) runs Tessera's own SIMD
/// `PlaneScaler` instead, which is faster than libswscale there (`kind` then says `.simd`).
///
/// ```
///  input ─[8-bit planar YUV, only resized]─▶ PlaneScaler ─────────────────────────────────────────▶ output
///  input ─[flatten RGBA alpha over background]─▶ libswscale (scale + convert, into the unturned size)
///        ─[turn / flip planes]─▶ [fade towards the background by opacity] ─▶ output
///  HDR input with a tone map ─▶ libswscale (scale to 16-bit 4:4:4, nothing converted) ─▶ ToneMapper
///        (`tessera_tonemap`: BT.2390 to BT.709 SDR, chroma subsampled, dithered) ─[turn, fade]─▶ output
/// ```
///
/// The context is built on the first frame (its size, format and colour are only known then) and
/// rebuilt if the input geometry changes mid-stream. Chroma positions are passed to libswscale, so
/// MPEG-2-sited input gives MPEG-2-sited output even after a 90° turn.
public final class CPUProcessor: FrameProcessor {
    public let spec: ProcessingSpec
    public var kind: ProcessorKind { scaler == nil ? .swscale : .simd }
    /// Slice threads; 0 lets libswscale use one per core. The default is 1: in a transcode the decode and
    /// encode stages already keep every core busy, and slice threads there only add hand-offs
    /// (measured: about 7% less CPU for 1080p→720p than with one thread per core on 2 cores).
    public let threads: Int

    private var context: OpaquePointer?
    private var inputKey: (Int32, Int32, Int32, AVColorSpace, AVColorRange, AVChromaLocation) =
        (0, 0, -1, AVCOL_SPC_UNSPECIFIED, AVCOL_RANGE_UNSPECIFIED, AVCHROMA_LOC_UNSPECIFIED)
    private let outputFormat: AVPixelFormat
    private let orientation: Orientation
    /// The scaled, not yet turned picture; reused between frames.
    private var unturned: Frame?
    /// A writable copy of RGBA input with alpha, flattened over the background.
    private var flattened: Frame?
    private var background: [Double] = []
    /// Output pictures come from a pool: no page faults from fresh allocations on every frame.
    private var outputPool: FramePool?
    /// Tessera's scaler, when the input qualifies (decided with the context, per input geometry).
    private var scaler: PlaneScaler?
    /// With a tone map: the kernel, and the 16-bit 4:4:4 picture libswscale scales into for it.
    private var toneMapper: ToneMapper?
    private var wide: Frame?
    /// False keeps every frame on libswscale.
    public let allowsPlaneScaler: Bool

    /// - Throws: `MediaError.unsupported` for an output format libswscale cannot write, or a 90°/270°
    ///   turn into a format subsampled in one direction only (4:2:2), whose chroma a turn cannot keep.
    public convenience init(spec: ProcessingSpec, threads: Int = 1) throws(MediaError) {
        try self.init(spec: spec, threads: threads, allowsPlaneScaler: true)
    }

    /// - Parameter allowsPlaneScaler: false keeps every frame on libswscale (benchmarks compare the two).
    public init(spec: ProcessingSpec, threads: Int = 1, allowsPlaneScaler: Bool) throws(MediaError) {
        self.spec = spec
        self.threads = threads
        self.allowsPlaneScaler = allowsPlaneScaler
        outputFormat = spec.outputFormat.avFormat
        guard outputFormat != AV_PIX_FMT_NONE, sws_isSupportedOutput(outputFormat) != 0 else {
            throw MediaError(.unsupported, "libswscale cannot write pixel format \(spec.outputFormat)")
        }
        orientation = Orientation(
            rotation: spec.rotation, flipHorizontal: spec.flipHorizontal,
            flipVertical: spec.flipVertical)
        if !orientation.isIdentity {
            guard let layout = PictureLayout(spec.outputFormat),
                !orientation.swap || layout.log2ChromaX == layout.log2ChromaY
            else {
                throw MediaError(
                    .unsupported,
                    "the CPU path cannot turn pictures into \(spec.outputFormat) "
                        + "(\(spec.rotation)); use the Vulkan backend or a 4:2:0, 4:4:4 or RGB output")
            }
        }
    }

    deinit { sws_freeContext(context) }

    public func process(_ input: Frame) throws(MediaError) -> Frame {
        let f = input.pointer.pointee
        let key = (f.width, f.height, f.format, f.colorspace, f.color_range, f.chroma_location)
        if context == nil || key != inputKey {
            try configure(for: input)
            inputKey = key
        }
        var source = input
        if PixelFormat(input.pixelFormat) == .rgba { source = try flattenAlpha(input) }
        if outputPool == nil {
            outputPool = try FramePool.make(
                width: spec.outputWidth, height: spec.outputHeight, format: spec.outputFormat)
        }
        let output: Frame
        if let pool = outputPool {
            output = try pool.makeFrame()
        } else {
            output = try Frame(width: spec.outputWidth, height: spec.outputHeight, format: outputFormat)
        }
        try ff(av_frame_copy_props(output.pointer, input.pointer), "copy frame properties")
        if scaler != nil {
            scaler!.scale(source, into: output)
        } else if let toneMapper, let wide {
            let target = orientation.isIdentity ? output : try unturnedFrame()
            try ff(sws_scale_frame(context, wide.pointer, source.pointer), "scale frame with libswscale")
            try toneMapper.map(wide, into: target)
            if !orientation.isIdentity { turn(target, into: output) }
            if spec.opacity < 1 { fade(output) }
            output.markToneMapped()
        } else {
            let target = orientation.isIdentity ? output : try unturnedFrame()
            try ff(sws_scale_frame(context, target.pointer, source.pointer), "scale frame with libswscale")
            if !orientation.isIdentity { turn(target, into: output) }
            if spec.opacity < 1 { fade(output) }
        }
        output.pointer.pointee.colorspace =
            spec.outputFormat == .rgba
            ? AVCOL_SPC_RGB
            : avColorSpace(spec.outputMatrix ?? (spec.toneMap != nil ? .bt709 : input.colorMatrix))
        output.pointer.pointee.color_range =
            spec.outputFormat == .rgba
            ? AVCOL_RANGE_JPEG
            : (spec.outputRange.map { avColorRange($0) } ?? normalisedRange(f))
        output.pointer.pointee.chroma_location = AVCHROMA_LOC_LEFT
        return output
    }

    /// What libswscale writes: the output's format, or for a tone map 4:4:4 (its chroma where its luma is).
    private var scaledFormat: PixelFormat { spec.toneMap == nil ? spec.outputFormat : .yuv444p }

    private func normalisedRange(_ f: AVFrame) -> AVColorRange {
        f.color_range == AVCOL_RANGE_UNSPECIFIED ? AVCOL_RANGE_MPEG : f.color_range
    }

    private func unturnedFrame() throws(MediaError) -> Frame {
        if let unturned { return unturned }
        let (w, h) = orientation.swap ? (spec.outputHeight, spec.outputWidth) : (spec.outputWidth, spec.outputHeight)
        let frame = try Frame(width: w, height: h, format: outputFormat)
        unturned = frame
        return frame
    }

    private func turn(_ unturned: Frame, into output: Frame) {
        guard let layout = PictureLayout(spec.outputFormat) else { return }
        for p in 0..<layout.planeCount {
            let size = layout.planeSize(p, width: unturned.width, height: unturned.height)
            let pixelBytes = layout.channels.first { $0.plane == p }?.pixelStride ?? 1
            guard let from = unturned.plane(p), let to = output.plane(p) else { continue }
            Reorientation.apply(
                orientation, from: from, stride: unturned.linesize(p), width: size.width,
                height: size.height, to: to, stride: output.linesize(p), pixelBytes: pixelBytes)
        }
    }

    private func fade(_ output: Frame) {
        guard let layout = PictureLayout(spec.outputFormat) else { return }
        for p in 0..<layout.planeCount {
            let channels = layout.channels.indices.filter { layout.channels[$0].plane == p }
            let size = layout.planeSize(p, width: output.width, height: output.height)
            guard let data = output.plane(p), let first = channels.first else { continue }
            let ch = layout.channels[first]
            Compositing.fade(
                data, stride: output.linesize(p), width: size.width, height: size.height,
                bytesPerSample: ch.bytesPerSample, shift: ch.shift,
                pixelChannels: ch.pixelStride / ch.bytesPerSample,
                background: channels.compactMap { $0 < 3 ? background[$0] : nil }, opacity: spec.opacity)
        }
    }

    private func flattenAlpha(_ input: Frame) throws(MediaError) -> Frame {
        if flattened == nil || flattened?.width != input.width || flattened?.height != input.height {
            flattened = try Frame(width: input.width, height: input.height, format: input.pixelFormat)
        }
        guard let copy = flattened, let to = copy.plane(0), let from = input.plane(0) else { return input }
        copyPlane(
            from: from, sourceStride: input.linesize(0), to: to, destinationStride: copy.linesize(0),
            rowBytes: 4 * input.width, rows: input.height)
        try ff(av_frame_copy_props(copy.pointer, input.pointer), "copy frame properties")
        Compositing.flattenAlpha(
            to, stride: copy.linesize(0), width: input.width, height: input.height,
            background: spec.backgroundColor)
        return copy
    }

    private func configure(for input: Frame) throws(MediaError) {
        sws_freeContext(context)
        context = nil
        let f = input.pointer.pointee
        let planInput = ProcessingPlan.Input(
            format: PixelFormat(input.pixelFormat), width: input.width,
            height: input.height, matrix: input.colorMatrix, range: input.colorRange,
            chromaLocation: input.chromaLocation)
        scaler =
            allowsPlaneScaler && spec.toneMap == nil
            ? (try? ProcessingPlan(input: planInput, spec: spec, planeKernels: nil)).flatMap(PlaneScaler.init(plan:))
            : nil
        guard sws_isSupportedInput(AVPixelFormat(rawValue: f.format)) != 0 else {
            throw MediaError(.unsupported, "libswscale cannot read pixel format \(PixelFormat(input.pixelFormat))")
        }
        guard let ctx = sws_alloc_context() else { throw MediaError(.internal, "out of memory creating a scaler") }
        context = ctx
        let flags: Int64
        var param0 = Double(SWS_PARAM_DEFAULT), param1 = Double(SWS_PARAM_DEFAULT)
        switch spec.filter {
        case .bilinear: flags = Int64(SWS_BILINEAR)
        // libswscale's bicubic parameters are (B, C); its default C is 0.6, not Catmull-Rom's 0.5.
        case .bicubic:
            flags = Int64(SWS_BICUBIC)
            param0 = 0
            param1 = 0.5
        case .mitchell:
            flags = Int64(SWS_BICUBIC)
            param0 = 1.0 / 3
            param1 = 1.0 / 3
        case .lanczos3:
            flags = Int64(SWS_LANCZOS)
            param0 = 3
        }
        let (w, h) = orientation.swap ? (spec.outputHeight, spec.outputWidth) : (spec.outputWidth, spec.outputHeight)
        let raw = UnsafeMutableRawPointer(ctx)
        try ff(av_opt_set_int(raw, "srcw", Int64(f.width), 0), "configure scaler")
        try ff(av_opt_set_int(raw, "srch", Int64(f.height), 0), "configure scaler")
        try ff(av_opt_set_int(raw, "src_format", Int64(f.format), 0), "configure scaler")
        try ff(av_opt_set_int(raw, "dstw", Int64(w), 0), "configure scaler")
        try ff(av_opt_set_int(raw, "dsth", Int64(h), 0), "configure scaler")
        // A tone map's input: the source's codes at the output's size, 16 bits, every pixel its own chroma.
        let scaled = spec.toneMap == nil ? outputFormat : AV_PIX_FMT_YUV444P16LE
        try ff(av_opt_set_int(raw, "dst_format", Int64(scaled.rawValue), 0), "configure scaler")
        // RGB input: convert chroma at full width before filtering, rather than averaging pixel pairs.
        let rgbInput = PictureLayout(PixelFormat(input.pixelFormat))?.isRGB ?? false
        try ff(
            av_opt_set_int(raw, "sws_flags", flags | (rgbInput ? Int64(SWS_FULL_CHR_H_INP) : 0), 0),
            "configure scaler")
        try ff(av_opt_set_double(raw, "param0", param0, 0), "configure scaler")
        try ff(av_opt_set_double(raw, "param1", param1, 0), "configure scaler")
        try ff(av_opt_set_int(raw, "threads", Int64(threads), 0), "configure scaler threads")
        // libswscale's "auto" dithering is ordered dither on depth reduction; "none" turns it off.
        try ff(av_opt_set(raw, "sws_dither", spec.dither ? "auto" : "none", 0), "configure scaler dithering")
        try setChromaPositions(raw, input: input, width: w, height: h)
        try initialise(ctx, input: input, width: w, height: h)

        // Matrix and range: libswscale defaults to BT.601 limited on both sides.
        let srcSpace = avColorSpace(input.colorMatrix)
        let srcFull: Int32 = f.color_range == AVCOL_RANGE_JPEG ? 1 : 0
        // A tone map's input keeps the source's matrix and range: the kernel converts.
        let dstSpace = spec.toneMap != nil ? srcSpace : (spec.outputMatrix.map { avColorSpace($0) } ?? srcSpace)
        let dstFull: Int32 =
            spec.toneMap != nil
            ? srcFull
            : (spec.outputRange.map { avColorRange($0) } ?? normalisedRange(f)) == AVCOL_RANGE_JPEG ? 1 : 0
        _ = sws_setColorspaceDetails(
            ctx, sws_getCoefficients(Int32(srcSpace.rawValue)), srcFull,
            sws_getCoefficients(Int32(dstSpace.rawValue)), dstFull, 0, 1 << 16, 1 << 16)

        toneMapper = nil
        wide = nil
        if let map = spec.toneMap {
            guard let output = PictureLayout(spec.outputFormat) else {
                throw MediaError(.unsupported, "the CPU tone map cannot write \(spec.outputFormat)")
            }
            toneMapper = try ToneMapper(
                map, inputRange: input.colorRange, inputMatrix: input.colorMatrix, primaries: input.colorPrimaries,
                output: output, outputMatrix: spec.outputMatrix ?? .bt709, outputRange: spec.outputRange ?? .limited,
                dither: spec.dither)
            wide = try Frame(width: w, height: h, format: AV_PIX_FMT_YUV444P16LE)
        }
        if let source = PictureLayout(PixelFormat(input.pixelFormat)), let output = PictureLayout(spec.outputFormat) {
            background =
                ColorTransform(
                    source: source, sourceMatrix: input.colorMatrix, sourceRange: input.colorRange,
                    output: output,
                    outputMatrix: spec.outputMatrix ?? (spec.toneMap != nil ? .bt709 : input.colorMatrix),
                    outputRange: output.isRGB
                        ? .full
                        : (spec.outputRange ?? input.colorRange),
                    background: spec.backgroundColor
                ).background
        } else {
            background = [0, 128, 128]
        }
    }

    /// At equal sizes libswscale takes "unscaled" shortcuts that copy chroma rows as they are, ignoring
    /// chroma positions and 4:2:2 → 4:2:0 filtering. An identity source chroma filter of length 3
    /// ([0, 1, 0]) changes no value but sends it down the filtering path whenever chroma must move.
    private func initialise(_ ctx: OpaquePointer, input: Frame, width: Int, height: Int) throws(MediaError) {
        let source = PictureLayout(PixelFormat(input.pixelFormat))
        let output = PictureLayout(scaledFormat)
        let chromaMoves =
            !orientation.isIdentity || input.chromaLocation != .left && input.chromaLocation != .unspecified
            || source?.log2ChromaX != output?.log2ChromaX || source?.log2ChromaY != output?.log2ChromaY
        guard input.width == width, input.height == height, chromaMoves,
            let h = sws_allocVec(3), let v = sws_allocVec(3)
        else {
            try ff(sws_init_context(ctx, nil, nil), "initialise libswscale for \(input.width)x\(input.height)")
            return
        }
        defer {
            sws_freeVec(h)
            sws_freeVec(v)
        }
        for vector in [h, v] {
            vector.pointee.coeff[0] = 0
            vector.pointee.coeff[1] = 1
            vector.pointee.coeff[2] = 0
        }
        var filter = SwsFilter(lumH: nil, lumV: nil, chrH: h, chrV: v)
        try ff(sws_init_context(ctx, &filter, nil), "initialise libswscale for \(input.width)x\(input.height)")
    }

    /// Source siting from the frame (unspecified = MPEG-2), output siting MPEG-2 after any turn.
    private func setChromaPositions(
        _ raw: UnsafeMutableRawPointer, input: Frame, width: Int, height: Int
    )
        throws(MediaError)
    {
        // Along an axis that is not subsampled chroma sits with luma (position 0).
        let source = PictureLayout(PixelFormat(input.pixelFormat)), output = PictureLayout(scaledFormat)
        let (hCosited, vOffset) = ProcessingPlan.siting(input.chromaLocation)
        let srcH = (source?.log2ChromaX ?? 1) > 0 ? (hCosited ? 0 : 128) : 0
        let srcV = (source?.log2ChromaY ?? 1) > 0 ? Int(((vOffset - 0.5) * 256).rounded()) : 0
        try ff(av_opt_set_int(raw, "src_h_chr_pos", Int64(srcH), 0), "configure scaler chroma")
        try ff(av_opt_set_int(raw, "src_v_chr_pos", Int64(srcV), 0), "configure scaler chroma")
        let o = orientation
        let h =
            (output?.log2ChromaX ?? 1) > 0
            ? Reorientation.chromaPosition(length: width, flipped: o.flipU, cosited: !o.swap) : 0
        let v =
            (output?.log2ChromaY ?? 1) > 0
            ? Reorientation.chromaPosition(length: height, flipped: o.flipV, cosited: o.swap) : 0
        try ff(av_opt_set_int(raw, "dst_h_chr_pos", Int64(h), 0), "configure scaler chroma")
        try ff(av_opt_set_int(raw, "dst_v_chr_pos", Int64(v), 0), "configure scaler chroma")
    }
}

/// libavutil's colour-space value for a named matrix.
func avColorSpace(_ matrix: ColorMatrix) -> AVColorSpace {
    let v = av_color_space_from_name(matrix.rawValue)
    return v < 0 ? AVCOL_SPC_UNSPECIFIED : AVColorSpace(rawValue: UInt32(v))
}

func avColorRange(_ range: ColorRange) -> AVColorRange {
    switch range {
    case .limited: AVCOL_RANGE_MPEG
    case .full: AVCOL_RANGE_JPEG
    case .unspecified: AVCOL_RANGE_UNSPECIFIED
    }
}
