import CFFmpeg
import TesseraAV
import TesseraCore

extension AssetTrack {
    /// Reads a stream's properties after `avformat_find_stream_info`, with what the packet scan saw (if any).
    init(stream: UnsafeMutablePointer<AVStream>, scan: Asset.PacketScan?) {
        let noValue = tessera_AV_NOPTS_VALUE()
        let st = stream.pointee
        let parameters = st.codecpar.pointee
        let timeBase = st.time_base
        let type = MediaType(parameters.codec_type)
        let metadata = Asset.dictionary(st.metadata)

        let startTicks = st.start_time != noValue ? st.start_time : (scan?.firstPTS ?? 0)
        var durationTicks = st.duration != noValue && st.duration > 0 ? st.duration : noValue
        if durationTicks == noValue, let first = scan?.firstPTS, let end = scan?.endPTS, end > first {
            durationTicks = end - first
        }
        let counted = scan?.packetCount ?? (st.nb_frames > 0 ? Int(st.nb_frames) : nil)

        let language = metadata["language"].flatMap { $0.isEmpty || $0 == "und" ? nil : $0 }
        self.init(
            trackID: Int(st.index), mediaType: type, codec: String(cString: avcodec_get_name(parameters.codec_id)),
            timeBase: Rational(timeBase),
            timeRange: TimeRange(
                start: Asset.time(startTicks, in: timeBase),
                duration: Asset.time(durationTicks, in: timeBase)),
            frameCount: counted, bitRate: parameters.bit_rate > 0 ? Int(parameters.bit_rate) : nil,
            language: language, isDefault: st.disposition & AV_DISPOSITION_DEFAULT != 0, metadata: metadata,
            video: type == .video ? Self.videoDescription(stream, scan: scan) : nil,
            audio: type == .audio ? Self.audioDescription(parameters) : nil)
        if let end = scan?.endPTS { presentationEnd = Asset.time(end, in: timeBase) }
    }

    static func videoDescription(
        _ stream: UnsafeMutablePointer<AVStream>, scan: Asset.PacketScan?
    )
        -> VideoFormatDescription
    {
        let st = stream.pointee
        let p = st.codecpar.pointee
        let nominal = StreamDescription.nominalFrameRate(of: stream).map { Asset.frameDuration(rate: $0) } ?? .invalid
        var minFrameDuration = nominal
        var isVariable = false
        // The steps are read against the declared base rate, the grid timestamps are written on.
        if let steps = scan?.frameSteps(timeBase: st.time_base, nominalRate: st.r_frame_rate) {
            minFrameDuration = Asset.time(steps.min, in: st.time_base)
            isVariable = steps.variable
        }
        let aspect = av_guess_sample_aspect_ratio(nil, stream, nil)
        let color = ColorDescription(
            matrix: ColorMatrix(rawValue: name(av_color_space_name(p.color_space))),
            primaries: ColorPrimaries(rawValue: name(av_color_primaries_name(p.color_primaries))),
            transfer: TransferFunction(rawValue: name(av_color_transfer_name(p.color_trc))),
            range: ColorRange(rawValue: name(av_color_range_name(p.color_range))) ?? .unspecified,
            chromaLocation: ChromaLocation(rawValue: name(av_chroma_location_name(p.chroma_location)))
                ?? .unspecified)
        var description = VideoFormatDescription(
            codec: String(cString: avcodec_get_name(p.codec_id)),
            profile: avcodec_profile_name(p.codec_id, p.profile).map { String(cString: $0) },
            level: p.level > 0 ? Int(p.level) : nil,
            width: Int(p.width), height: Int(p.height),
            pixelFormat: PixelFormat(AVPixelFormat(rawValue: p.format)),
            color: color, rotation: rotation(stream),
            sampleAspectRatio: aspect.num > 0 && aspect.den > 0
                ? Fraction(Int(aspect.num), Int(aspect.den))
                : Fraction(1, 1),
            nominalFrameDuration: nominal,
            averageFrameDuration: Asset.frameDuration(rate: st.avg_frame_rate),
            minFrameDuration: minFrameDuration, isVariableFrameRate: isVariable,
            bitRate: p.bit_rate > 0 ? Int(p.bit_rate) : nil,
            hasBFrames: p.video_delay > 0 || scan?.isReordered == true)
        description.fieldOrder = FieldOrder(p.field_order)
        description.hdr = HDRMetadata.read(stream: stream)
        return description
    }

    static func audioDescription(_ p: AVCodecParameters) -> AudioFormatDescription {
        var layout = p.ch_layout
        var text = [CChar](repeating: 0, count: 128)
        let described = av_channel_layout_describe(&layout, &text, text.count) >= 0
        return AudioFormatDescription(
            codec: String(cString: avcodec_get_name(p.codec_id)),
            profile: avcodec_profile_name(p.codec_id, p.profile).map { String(cString: $0) },
            sampleRate: Int(p.sample_rate), channelCount: Int(p.ch_layout.nb_channels),
            channelLayout: described
                ? String(
                    decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) },
                    as: UTF8.self) : "",
            sampleFormat: name(av_get_sample_fmt_name(AVSampleFormat(rawValue: p.format)), default: "none"),
            bitRate: p.bit_rate > 0 ? Int(p.bit_rate) : nil, frameSize: Int(max(p.frame_size, 0)))
    }

    /// The preferred transform from the stream's display matrix, as a clockwise rotation.
    ///
    /// `av_display_rotation_get` answers counter-clockwise degrees, so the sign flips: an iPhone portrait
    /// clip (matrix 0 1 / -1 0) gives -90 there and 90° clockwise here. A negative determinant means the
    /// matrix also mirrors; the mirror (a horizontal flip, applied first) is taken out before the angle is read.
    static func rotation(_ stream: UnsafeMutablePointer<AVStream>) -> Rotation {
        var size = 0
        guard let data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size),
            size >= 9 * MemoryLayout<Int32>.size
        else { return .none }
        var matrix = [Int32](repeating: 0, count: 9)
        matrix.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(start: data, count: 36)) }
        let mirrored = Int64(matrix[0]) * Int64(matrix[4]) - Int64(matrix[1]) * Int64(matrix[3]) < 0
        if mirrored { av_display_matrix_flip(&matrix, 1, 0) }
        let counterClockwise = av_display_rotation_get(matrix)
        guard counterClockwise.isFinite else { return .none }
        return Rotation(degrees: Int((-counterClockwise).rounded()), mirrored: mirrored)
    }

    /// A libavutil name, or `default` where libavutil has none for the value.
    private static func name(_ text: UnsafePointer<CChar>?, default fallback: String = "unknown") -> String {
        text.map { String(cString: $0) } ?? fallback
    }
}
