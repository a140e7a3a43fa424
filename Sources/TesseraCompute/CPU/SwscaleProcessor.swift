import CFFmpeg
import TesseraAV
import TesseraCore

/// The CPU `FrameProcessor`: libswscale, with slice threading across `threads` workers.
///
/// The context is built on the first frame (its size, format and colour are only known then) and
/// rebuilt if the input geometry changes mid-stream.
public final class SwscaleProcessor: FrameProcessor {
    public let spec: ProcessingSpec
    public var backendName: String { "swscale" }
    /// Slice threads; 0 lets libswscale use one per core.
    public let threads: Int

    private var context: OpaquePointer?
    private var inputKey: (Int32, Int32, Int32, AVColorSpace, AVColorRange) = (0, 0, -1, AVCOL_SPC_UNSPECIFIED,
                                                                                 AVCOL_RANGE_UNSPECIFIED)
    private let outputFormat: AVPixelFormat

    /// - Throws: `MediaError.unsupported` for an output format libswscale cannot write, or a rotation
    ///   (libswscale only scales; rotated output is the Vulkan backend's or the SIMD path's job).
    public init(spec: ProcessingSpec, threads: Int = 0) throws(MediaError) {
        self.spec = spec
        self.threads = threads
        outputFormat = spec.outputFormat.avFormat
        guard outputFormat != AV_PIX_FMT_NONE, sws_isSupportedOutput(outputFormat) != 0 else {
            throw MediaError(.unsupported, "libswscale cannot write pixel format \(spec.outputFormat)")
        }
        guard spec.rotation == .none else {
            throw MediaError(.unsupported, "libswscale cannot rotate (\(spec.rotation)); keep the rotation as metadata")
        }
    }

    deinit { sws_freeContext(context) }

    public func process(_ input: Frame) throws(MediaError) -> Frame {
        let f = input.pointer.pointee
        let key = (f.width, f.height, f.format, f.colorspace, f.color_range)
        if context == nil || key != inputKey {
            try configure(for: input)
            inputKey = key
        }
        let output = try Frame(width: spec.outputWidth, height: spec.outputHeight, format: outputFormat)
        try ff(av_frame_copy_props(output.pointer, input.pointer), "copy frame properties")
        output.pointer.pointee.colorspace = spec.outputMatrix.map { avColorSpace($0) } ?? f.colorspace
        output.pointer.pointee.color_range = spec.outputRange.map { avColorRange($0) } ?? normalisedRange(f)
        try ff(sws_scale_frame(context, output.pointer, input.pointer), "scale frame with libswscale")
        return output
    }

    private func normalisedRange(_ f: AVFrame) -> AVColorRange {
        f.color_range == AVCOL_RANGE_UNSPECIFIED ? AVCOL_RANGE_MPEG : f.color_range
    }

    private func configure(for input: Frame) throws(MediaError) {
        sws_freeContext(context)
        context = nil
        let f = input.pointer.pointee
        guard sws_isSupportedInput(AVPixelFormat(rawValue: f.format)) != 0 else {
            throw MediaError(.unsupported, "libswscale cannot read pixel format \(PixelFormat(input.pixelFormat))")
        }
        guard let ctx = sws_alloc_context() else { throw MediaError(.ffmpeg, "out of memory creating a scaler") }
        context = ctx
        let flags: Int64
        var param0 = Double(SWS_PARAM_DEFAULT), param1 = Double(SWS_PARAM_DEFAULT)
        switch spec.filter {
        case .bilinear: flags = Int64(SWS_BILINEAR)
        case .bicubic: flags = Int64(SWS_BICUBIC)
        case .mitchell: flags = Int64(SWS_BICUBIC); param0 = 1.0 / 3; param1 = 1.0 / 3
        case .lanczos3: flags = Int64(SWS_LANCZOS); param0 = 3
        }
        let raw = UnsafeMutableRawPointer(ctx)
        try ff(av_opt_set_int(raw, "srcw", Int64(f.width), 0), "configure scaler")
        try ff(av_opt_set_int(raw, "srch", Int64(f.height), 0), "configure scaler")
        try ff(av_opt_set_int(raw, "src_format", Int64(f.format), 0), "configure scaler")
        try ff(av_opt_set_int(raw, "dstw", Int64(spec.outputWidth), 0), "configure scaler")
        try ff(av_opt_set_int(raw, "dsth", Int64(spec.outputHeight), 0), "configure scaler")
        try ff(av_opt_set_int(raw, "dst_format", Int64(outputFormat.rawValue), 0), "configure scaler")
        try ff(av_opt_set_int(raw, "sws_flags", flags, 0), "configure scaler")
        try ff(av_opt_set_double(raw, "param0", param0, 0), "configure scaler")
        try ff(av_opt_set_double(raw, "param1", param1, 0), "configure scaler")
        try ff(av_opt_set_int(raw, "threads", Int64(threads), 0), "configure scaler threads")
        // libswscale's "auto" dither is ordered dither on depth reduction; "none" turns it off.
        try ff(av_opt_set(raw, "sws_dither", spec.dither ? "auto" : "none", 0), "configure scaler dither")
        try ff(sws_init_context(ctx, nil, nil), "initialise libswscale for \(f.width)x\(f.height)")

        // Matrix and range: libswscale defaults to BT.601 limited on both sides.
        let srcSpace = f.colorspace == AVCOL_SPC_UNSPECIFIED ? defaultMatrix(height: Int(f.height)) : f.colorspace
        let dstSpace = spec.outputMatrix.map { avColorSpace($0) } ?? srcSpace
        let srcFull: Int32 = f.color_range == AVCOL_RANGE_JPEG ? 1 : 0
        let dstFull: Int32 = (spec.outputRange.map { avColorRange($0) } ?? normalisedRange(f)) == AVCOL_RANGE_JPEG ? 1 : 0
        _ = sws_setColorspaceDetails(ctx, sws_getCoefficients(Int32(srcSpace.rawValue)), srcFull,
                                     sws_getCoefficients(Int32(dstSpace.rawValue)), dstFull, 0, 1 << 16, 1 << 16)
    }

    /// Untagged video: BT.709 for HD and larger, BT.601 below, as players assume.
    private func defaultMatrix(height: Int) -> AVColorSpace { height >= 720 ? AVCOL_SPC_BT709 : AVCOL_SPC_SMPTE170M }
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
