import CFFmpeg
import TesseraAV
import TesseraCore

/// Between libavcodec's parameters and the plain `CodecConfiguration` that crosses the wire.
extension CodecParameters {
    /// Video parameters rebuilt from plain values.
    /// - Throws: `.unsupported` for a codec or pixel format name this FFmpeg build does not know.
    public convenience init(_ c: CodecConfiguration) throws(MediaError) {
        guard let descriptor = avcodec_descriptor_get_by_name(c.codec) else {
            throw MediaError(.unsupported, "unknown codec \"\(c.codec)\"")
        }
        let format = av_get_pix_fmt(c.pixelFormat)
        guard format != AV_PIX_FMT_NONE else {
            throw MediaError(.unsupported, "unknown pixel format \"\(c.pixelFormat)\"")
        }
        guard let p = avcodec_parameters_alloc() else {
            throw MediaError(.internal, "out of memory for codec parameters")
        }
        p.pointee.codec_type = AVMEDIA_TYPE_VIDEO
        p.pointee.codec_id = descriptor.pointee.id
        p.pointee.codec_tag = c.codecTag
        p.pointee.width = Int32(c.width)
        p.pointee.height = Int32(c.height)
        p.pointee.format = format.rawValue
        p.pointee.profile = Int32(c.profile)
        p.pointee.level = Int32(c.level)
        p.pointee.color_range = AVColorRange(rawValue: UInt32(c.colorRange))
        p.pointee.color_primaries = AVColorPrimaries(rawValue: UInt32(c.colorPrimaries))
        p.pointee.color_trc = AVColorTransferCharacteristic(rawValue: UInt32(c.colorTransfer))
        p.pointee.color_space = AVColorSpace(rawValue: UInt32(c.colorSpace))
        p.pointee.chroma_location = AVChromaLocation(rawValue: UInt32(c.chromaLocation))
        p.pointee.field_order = AVFieldOrder(rawValue: UInt32(c.fieldOrder))
        p.pointee.sample_aspect_ratio = AVRational(
            num: Int32(c.sampleAspectRatio.numerator),
            den: Int32(c.sampleAspectRatio.denominator))
        p.pointee.bits_per_raw_sample = Int32(c.bitsPerRawSample)
        p.pointee.video_delay = Int32(c.videoDelay)
        p.pointee.bit_rate = c.bitRate
        if !c.extradata.isEmpty {
            let size = c.extradata.count
            guard let data = av_mallocz(size + Int(AV_INPUT_BUFFER_PADDING_SIZE))?.assumingMemoryBound(to: UInt8.self)
            else {
                var owned: UnsafeMutablePointer<AVCodecParameters>? = p
                avcodec_parameters_free(&owned)
                throw MediaError(.internal, "out of memory for extradata")
            }
            c.extradata.withUnsafeBufferPointer { data.update(from: $0.baseAddress!, count: size) }
            p.pointee.extradata = data
            p.pointee.extradata_size = Int32(size)
        }
        self.init(adopting: p)
    }

    /// The video fields as plain values.
    public var configuration: CodecConfiguration {
        let p = pointer.pointee
        let format = av_get_pix_fmt_name(AVPixelFormat(rawValue: p.format)).map { String(cString: $0) } ?? "none"
        return CodecConfiguration(
            codec: codecName, codecTag: p.codec_tag, width: Int(p.width), height: Int(p.height), pixelFormat: format,
            profile: Int(p.profile), level: Int(p.level), extradata: extradata,
            colorRange: Int(p.color_range.rawValue), colorPrimaries: Int(p.color_primaries.rawValue),
            colorTransfer: Int(p.color_trc.rawValue), colorSpace: Int(p.color_space.rawValue),
            chromaLocation: Int(p.chroma_location.rawValue), fieldOrder: Int(p.field_order.rawValue),
            sampleAspectRatio: Fraction(Int(p.sample_aspect_ratio.num), Int(p.sample_aspect_ratio.den)),
            bitsPerRawSample: Int(p.bits_per_raw_sample), videoDelay: Int(p.video_delay), bitRate: p.bit_rate)
    }
}
