import CFFmpeg
import TesseraAV
import TesseraCompute
import TesseraCore

/// How a source video track becomes the encoder's input: output size (the displayed picture fitted
/// into the settings' box, the rotation kept as metadata), pixel format, and the processing needed.
/// Shared by the one-pass export and every segment of a segmented one, so they encode identically.
struct VideoEncoding {
    let processing: ProcessingSpec?
    let encoderInput: Encoder.VideoInput
    let rotation: Rotation

    /// The output's pixel format: the settings', else 10-bit 4:2:0 for a deeper source (except for H.264,
    /// whose 10-bit profile few players decode), else 8-bit 4:2:0.
    static func outputFormat(_ vs: VideoSettings, source: AVPixelFormat) -> PixelFormat {
        vs.pixelFormat ?? (PixelFormat(source).bitDepth > 8 && vs.codec != .h264 ? .yuv420p10le : .yuv420p)
    }

    /// - Throws: `.unsupported` when the encoder cannot take the chosen pixel format.
    init(
        _ vs: VideoSettings, source: StreamDescription, hdr: HDRMetadata? = nil, toneMap: ToneMap? = nil
    ) throws(MediaError) {
        try self.init(
            vs, parameters: source.parameters, timeBase: source.timeBase, frameRate: source.frameRate,
            rotation: source.rotation, hdr: hdr, toneMap: toneMap)
    }

    /// From the source stream's parts, as a segment task carries them.
    /// - Parameters:
    ///   - hdr: the HDR10 metadata the output keeps (`ExportTracks.hdr`), signalled by the encoder.
    ///   - toneMap: the processor tone-maps the frames to BT.709 SDR (always processing, then).
    init(
        _ vs: VideoSettings, parameters source: AVCodecParameters, timeBase: AVRational, frameRate: AVRational,
        rotation: Rotation, hdr: HDRMetadata? = nil, toneMap: ToneMap? = nil
    ) throws(MediaError) {
        var p = source
        if toneMap != nil {
            // What the tone map hands on: BT.709 throughout, limited range.
            p.color_space = AVCOL_SPC_BT709
            p.color_primaries = AVCOL_PRI_BT709
            p.color_trc = AVCOL_TRC_BT709
            p.color_range = AVCOL_RANGE_MPEG
        }
        self.rotation = rotation
        let displayW = rotation.swapsDimensions ? Int(p.height) : Int(p.width)
        let displayH = rotation.swapsDimensions ? Int(p.width) : Int(p.height)
        let fitted = vs.outputSize(forDisplayWidth: displayW, height: displayH)
        let (w, h) = rotation.swapsDimensions ? (fitted.height, fitted.width) : (fitted.width, fitted.height)
        let sourceFormat = AVPixelFormat(rawValue: p.format)
        let wanted = Self.outputFormat(vs, source: sourceFormat)
        guard Encoder.supports(vs.codec.encoderName, pixelFormat: wanted.avFormat) else {
            throw MediaError(.unsupported, "\(vs.codec.encoderName) cannot encode pixel format \(wanted)")
        }
        let needsProcessing =
            toneMap != nil || w != Int(p.width) || h != Int(p.height) || wanted.avFormat != sourceFormat
        processing =
            needsProcessing
            ? ProcessingSpec(
                outputWidth: w, outputHeight: h, outputFormat: wanted, outputMatrix: toneMap.map { _ in .bt709 },
                outputRange: toneMap.map { _ in .limited }, toneMap: toneMap)
            : nil
        var colorRange = p.color_range
        if colorRange == AVCOL_RANGE_UNSPECIFIED || needsProcessing { colorRange = AVCOL_RANGE_MPEG }
        // An untagged source's matrix is guessed from its height (BT.709 from 720 lines up) and kept through
        // processing; a picture scaled across that line would be guessed otherwise by a player, so it is
        // tagged with the matrix it holds.
        var colorSpace = p.color_space
        if colorSpace == AVCOL_SPC_UNSPECIFIED && (Int(p.height) >= 720) != (h >= 720) {
            colorSpace = Int(p.height) >= 720 ? AVCOL_SPC_BT709 : AVCOL_SPC_SMPTE170M
        }
        encoderInput = Encoder.VideoInput(
            width: w, height: h, pixelFormat: wanted.avFormat, timeBase: timeBase, frameRate: frameRate,
            sampleAspectRatio: p.sample_aspect_ratio.num > 0 ? p.sample_aspect_ratio : AVRational(num: 1, den: 1),
            colorSpace: colorSpace, colorPrimaries: p.color_primaries, colorTransfer: p.color_trc,
            colorRange: colorRange, chromaLocation: p.chroma_location, hdr: toneMap != nil ? nil : hdr)
    }
}
