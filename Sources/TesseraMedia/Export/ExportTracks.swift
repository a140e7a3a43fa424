import CFFmpeg
import TesseraAV
import TesseraCore

/// Which of the source's tracks an export writes, and how; and what it leaves out, each with the
/// reason. Decided once, before any work, so the plans, the report and the warnings agree.
///
/// By default an export keeps what AVAssetExportSession keeps and more: the video, every audio track
/// (each transcoded once over the whole range, keeping its language and title), every subtitle track
/// the container can hold (copied, or converted between text formats: SubRip or ASS to MP4's mov_text),
/// Matroska attachments (fonts) and chapters. Anything else is named in `notCarried`.
struct ExportTracks {
    /// How a subtitle track reaches the output.
    enum SubtitleHandling: Equatable {
        /// The packets are copied.
        case copy
        /// Text subtitles decoded and encoded again in the container's own text format.
        case convert(to: AVCodecID)
    }
    struct Subtitle {
        let trackID: Int
        let handling: SubtitleHandling
    }

    /// The most audio and subtitle tracks one export writes (each audio track is a decode and an encode
    /// thread, each subtitle track a thread).
    static let maxAudioTracks = 16
    static let maxSubtitleTracks = 32

    var video: Int?
    var audio: [Int] = []
    var subtitles: [Subtitle] = []
    var attachments: [Int] = []
    /// The source's chapters on the output's timeline, as written.
    var chapters: [AssetWriter.Chapter] = []
    /// One line per thing the output does not carry, for the report and a warning.
    var notCarried: [String] = []
    /// The output's start timecode: the source's, advanced to the range's first frame (`AssetWriter`).
    var timecode: String?
    /// HDR10 static metadata the output keeps (a 10-bit HEVC output of a PQ or HLG source): passed to the
    /// encoder (`VideoEncoding`) and the container (`AssetWriter.hdr`).
    var hdr: HDRMetadata?
    /// Set when the video is tone-mapped to BT.709 SDR (by the processor, as it scales).
    var toneMap: ToneMap?

    /// QuickTime's timecode track type, `tmcd`, as FFmpeg's little-endian codec tag.
    static let tmcd =
        UInt32(UInt8(ascii: "t")) | UInt32(UInt8(ascii: "m")) << 8 | UInt32(UInt8(ascii: "c")) << 16
        | UInt32(UInt8(ascii: "d")) << 24

    /// Call it once the reader's time range is set.
    /// - Throws: `.invalidArgument` when `settings.audioTracks` selects none of the source's audio tracks.
    /// - Parameter hdrHandling: what becomes of an HDR source's range.
    /// - Throws: `.invalidArgument` for `--hdr keep` with an output that cannot carry HDR.
    static func choose(
        _ reader: AssetReader, settings: OutputSettings, fileType: FileType, hdrHandling: HDRHandling = .auto
    ) throws(MediaError)
        -> ExportTracks
    {
        let input = reader.input
        let muxer = av_guess_format(fileType.muxerName, nil, nil)
        var tracks = ExportTracks()
        if settings.passthrough || (settings.video != nil && fileType != .m4a) { tracks.video = reader.videoTrackID }
        let audioIDs = reader.audioTrackIDs
        if settings.audio != nil || settings.passthrough {
            let selection = settings.audioTracks ?? AudioTrackSelection()
            let chosen = audioIDs.filter {
                selection.includes(track: $0, language: Self.tag(input.streams[$0], "language"))
            }
            let candidates = audioIDs.map {
                AudioTrackSelection.Candidate(
                    id: $0, language: Self.tag(input.streams[$0], "language"),
                    description: Self.describe(input.streams[$0]))
            }
            if let why = selection.refusal(candidates) {
                throw MediaError(.invalidArgument, path: reader.path, why)
            }
            // A track this build cannot read (or the container cannot hold, for passthrough) is named, not
            // fatal, while another can be written; when none can, the first is kept so the export fails
            // with that track's own error, as it did when only one track was written.
            for (n, id) in chosen.enumerated() {
                // Each track costs a decode and an encode thread: a file declaring hundreds is refused
                // track by track, by name, rather than starting hundreds of threads.
                if n >= Self.maxAudioTracks {
                    tracks.notCarried.append(
                        "track \(id): audio (\(details(input.streams[id]))) is not carried: "
                            + "an export writes at most \(Self.maxAudioTracks) audio tracks (choose with --audio-track)"
                    )
                    continue
                }
                if let why = Self.audioProblem(input.streams[id], muxer: muxer, passthrough: settings.passthrough) {
                    tracks.notCarried.append(
                        "track \(id): audio (\(details(input.streams[id]))) is not carried: \(why)")
                } else {
                    tracks.audio.append(id)
                }
            }
            if tracks.audio.isEmpty, let first = chosen.first {
                tracks.audio = [first]
                tracks.notCarried.removeAll()
            }
        }
        // HDR: a 10-bit HEVC output keeps it, its static metadata passed to the encoder and the container;
        // an 8-bit output (or `--hdr tonemap`) is tone-mapped to BT.709 SDR; what is not kept is said.
        if let video = tracks.video, let vs = settings.video, !settings.passthrough {
            let p = input.streams[video].pointee.codecpar.pointee
            if p.color_trc == AVCOL_TRC_SMPTE2084 || p.color_trc == AVCOL_TRC_ARIB_STD_B67 {
                let curve = p.color_trc == AVCOL_TRC_SMPTE2084 ? "PQ" : "HLG"
                let depth = VideoEncoding.outputFormat(vs, source: AVPixelFormat(rawValue: p.format)).bitDepth
                // HEVC and AV1 carry the mastering display in the frames; the first one says it.
                let hdr =
                    HDRMetadata.completing(
                        HDRMetadata.read(stream: input.streams[video]), firstFrameOf: reader.path, track: video)
                    ?? HDRMetadata()
                let hasStatic = hdr.masteringDisplay != nil || hdr.maxContentLightLevel != nil
                if depth <= 8 && hdrHandling == .keep {
                    throw MediaError(
                        .invalidArgument, path: reader.path,
                        "--hdr keep: an 8-bit output cannot carry HDR (\(curve)); give a 10-bit one "
                            + "(--video-codec hevc --pixel-format yuv420p10le), or let it be tone-mapped")
                }
                if depth <= 8 || hdrHandling == .tonemap {
                    let map = ToneMap(
                        transfer: p.color_trc == AVCOL_TRC_SMPTE2084 ? .smpte2084 : .aribStdB67, hdr: hdr)
                    tracks.toneMap = map
                    tracks.notCarried.append(
                        "HDR (\(curve)) is tone-mapped to BT.709 SDR (\(map.summary)) for \(depth == 8 ? "an" : "a") "
                            + "\(depth)-bit output; its HDR metadata is not kept")
                } else if vs.codec == .hevc {
                    if hasStatic { tracks.hdr = hdr }
                } else if hasStatic {
                    tracks.notCarried.append(
                        "HDR10 metadata (mastering display, content light level) is not carried: only a 10-bit HEVC "
                            + "output keeps it here")
                }
                if let profile = hdr.dolbyVisionProfile, tracks.toneMap == nil {
                    tracks.notCarried.append(
                        "Dolby Vision\(profile > 0 ? " profile \(profile)" : "") metadata (RPUs) is not carried: "
                            + "the output is its HDR10/HLG base layer")
                }
                if hdr.hdr10Plus, tracks.toneMap == nil {
                    tracks.notCarried.append("HDR10+ dynamic metadata (SMPTE ST 2094-40) is not carried")
                }
            }
        }
        // A timecode (the container's, a tmcd track's or the video's tag) is carried on the video track.
        if let source = Asset.timecode(of: input) {
            if let video = tracks.video {
                let rate = StreamDescription.nominalFrameRate(of: input.streams[video])
                let duration = rate.map { Rational(Int64($0.den), Int64($0.num)) }
                tracks.timecode = Timecode.start(source, range: reader.timeRange, frameDuration: duration)
                if tracks.timecode == nil {
                    tracks.notCarried.append(
                        "timecode \(source) is not carried: it cannot be counted to the range's start at this frame rate"
                    )
                }
            } else {
                tracks.notCarried.append("timecode \(source) is not carried: the output has no video track to hold it")
            }
        }
        for stream in input.streams {
            let st = stream.pointee, index = Int(st.index)
            let type = st.codecpar.pointee.codec_type
            if index == tracks.video || tracks.audio.contains(index) { continue }
            // A track the settings leave out on purpose (no audio asked for, or not selected) is not news.
            if type == AVMEDIA_TYPE_AUDIO { continue }
            if type == AVMEDIA_TYPE_VIDEO && settings.video == nil && !settings.passthrough { continue }
            var reason = "this export writes one video track"
            switch type {
            case AVMEDIA_TYPE_SUBTITLE where fileType == .m4a:
                reason = "an m4a file holds audio only"
            case AVMEDIA_TYPE_SUBTITLE:
                switch subtitleHandling(stream, muxer: muxer, fileType: fileType) {
                case .success(let handling) where tracks.subtitles.count < Self.maxSubtitleTracks:
                    tracks.subtitles.append(Subtitle(trackID: index, handling: handling))
                    continue
                case .success:
                    reason = "an export writes at most \(Self.maxSubtitleTracks) subtitle tracks"
                case .failure(let why): reason = why.text
                }
            case AVMEDIA_TYPE_ATTACHMENT:
                if fileType == .matroska {
                    tracks.attachments.append(index)
                    continue
                }
                reason = "\(fileType.rawValue) cannot hold attachments (Matroska can)"
            case AVMEDIA_TYPE_DATA where st.codecpar.pointee.codec_tag == Self.tmcd && tracks.timecode != nil:
                continue  // carried as the video track's timecode
            case AVMEDIA_TYPE_DATA:
                reason = "data tracks are not carried"
            default:
                break
            }
            tracks.notCarried.append("track \(index): \(kind(stream)) (\(details(stream))) is not carried: \(reason)")
        }
        let chapters = Int(input.context.pointee.nb_chapters)
        if chapters > 0 {
            if fileType == .webm {
                tracks.notCarried.append(
                    "\(chapters) chapter\(chapters == 1 ? "" : "s") not carried: WebM output keeps no chapters here")
            } else {
                tracks.chapters = Self.chapters(of: reader)
            }
        }
        // A camera's QuickTime metadata (make, model, location, software) is written as QuickTime keys,
        // which only a .mov carries (`AssetWriter`); elsewhere it is named.
        let quickTime = AssetWriter.quickTimeKeys(in: input.context.pointee.metadata)
        if !quickTime.isEmpty && fileType != .mov {
            tracks.notCarried.append(
                "QuickTime metadata (\(quickTime.joined(separator: ", "))) is not carried: only a .mov output keeps it")
        }
        return tracks
    }

    /// Adds the subtitle legs, the attachments and the chapters to `writer`; the legs still have to run.
    /// A retimed export maps every subtitle event's and chapter's start and end through the time map.
    /// Drops every track but the video and audio (and the chapters, attachments and timecode), naming each.
    mutating func leaveOnlyAudioAndVideo(because reason: String) {
        for s in subtitles { notCarried.append("subtitle track \(s.trackID) is not carried: \(reason)") }
        if !attachments.isEmpty { notCarried.append("\(attachments.count) attachment(s) not carried: \(reason)") }
        if !chapters.isEmpty { notCarried.append("\(chapters.count) chapter(s) not carried: \(reason)") }
        if let timecode { notCarried.append("timecode \(timecode) is not carried: \(reason)") }
        (subtitles, attachments, chapters, timecode) = ([], [], [], nil)
    }

    /// What a streaming package keeps besides video and audio: its text subtitle tracks, as WebVTT (the
    /// HLS and DASH way); attachments, chapters and timecode are dropped and named.
    mutating func keepForPackage(_ streams: [UnsafeMutablePointer<AVStream>]) {
        let text = subtitles.filter { s in
            let id = streams[s.trackID].pointee.codecpar.pointee.codec_id
            return avcodec_descriptor_get(id).map { $0.pointee.props & AV_CODEC_PROP_TEXT_SUB != 0 } ?? false
                && avcodec_find_decoder(id) != nil && avcodec_find_encoder(AV_CODEC_ID_WEBVTT) != nil
        }
        for s in subtitles where !text.contains(where: { $0.trackID == s.trackID }) {
            notCarried.append(
                "subtitle track \(s.trackID) is not carried: only text subtitles become a package's WebVTT")
        }
        let reason = "a package holds video, audio and subtitle tracks"
        subtitles = []
        leaveOnlyAudioAndVideo(because: reason)
        subtitles = text.map { Subtitle(trackID: $0.trackID, handling: .convert(to: AV_CODEC_ID_WEBVTT)) }
    }

    func addCarried(
        reader: AssetReader, writer: AssetWriter, retime: ExportRetime? = nil
    ) throws(MediaError) -> [SubtitleLeg] {
        for id in attachments { try writer.addAttachment(from: reader.input.streams[id]) }
        writer.chapters = retime.map { r in chapters.compactMap(r.mapped) } ?? chapters
        var legs: [SubtitleLeg] = []
        for subtitle in subtitles {
            legs.append(try SubtitleLeg(reader: reader, writer: writer, track: subtitle, retime: retime))
        }
        return legs
    }

    /// The source's chapters moved onto the output's timeline: shifted by the container's start and the
    /// range's, cut to the range, those outside it dropped.
    static func chapters(of reader: AssetReader) -> [AssetWriter.Chapter] {
        let ctx = reader.input.context.pointee
        var result: [AssetWriter.Chapter] = []
        for i in 0..<Int(ctx.nb_chapters) {
            guard let c = ctx.chapters[i]?.pointee, c.time_base.num > 0, c.time_base.den > 0 else { continue }
            let tb = c.time_base
            let offset = Int128(av_rescale_q(reader.input.startTime, tessera_AV_TIME_BASE_Q(), tb))
            var start = Int128(c.start) - offset, end = Int128(c.end) - offset
            if let range = reader.timeRange {
                let from = Int128(TickMath.ceilTicks(range.start, tb))
                start -= from
                end -= from
                if range.duration.isNumeric {
                    end = min(end, Int128(TickMath.ceilTicks(range.duration, tb)))
                }
            }
            start = max(0, start)
            guard end > start, let s = Int64(exactly: start), let e = Int64(exactly: end) else { continue }
            let title = av_dict_get(c.metadata, "title", nil, 0).map { String(cString: $0.pointee.value) }
            result.append(AssetWriter.Chapter(start: s, end: e, timeBase: tb, title: title))
        }
        return result
    }

    /// Why an audio track cannot be written: no decoder (or no usable format) to transcode it, or a
    /// container that cannot hold it as it is.
    private static func audioProblem(
        _ stream: UnsafeMutablePointer<AVStream>, muxer: UnsafePointer<AVOutputFormat>?,
        passthrough: Bool
    ) -> String? {
        let p = stream.pointee.codecpar.pointee
        let name = String(cString: avcodec_get_name(p.codec_id))
        if passthrough {
            guard let muxer, avformat_query_codec(muxer, p.codec_id, FF_COMPLIANCE_NORMAL) == 1 else {
                return "the container cannot hold \(name) without re-encoding"
            }
            return nil
        }
        if avcodec_find_decoder(p.codec_id) == nil { return "this build has no \(name) decoder" }
        if p.sample_rate <= 0 || p.ch_layout.nb_channels <= 0 { return "it declares no sample rate or channels" }
        return nil
    }

    /// Copy when the container holds the codec; convert text subtitles to the container's own text
    /// format; otherwise the reason it cannot be carried.
    private static func subtitleHandling(
        _ stream: UnsafeMutablePointer<AVStream>, muxer: UnsafePointer<AVOutputFormat>?,
        fileType: FileType
    ) -> Result<SubtitleHandling, Reason> {
        let id = stream.pointee.codecpar.pointee.codec_id
        guard let muxer else { return .failure(Reason("no muxer")) }
        let name = String(cString: muxer.pointee.name)
        if avformat_query_codec(muxer, id, FF_COMPLIANCE_NORMAL) == 1 { return .success(.copy) }
        let isText = avcodec_descriptor_get(id).map { $0.pointee.props & AV_CODEC_PROP_TEXT_SUB != 0 } ?? false
        // libavformat 5.1 names no default subtitle codec for MP4 and QuickTime; theirs is mov_text (3GPP timed text).
        let quickTime: Set<FileType> = [.mp4, .mov, .m4a]
        let target =
            muxer.pointee.subtitle_codec != AV_CODEC_ID_NONE || !quickTime.contains(fileType)
            ? muxer.pointee.subtitle_codec : AV_CODEC_ID_MOV_TEXT
        guard isText else {
            return .failure(
                Reason("\(name) cannot hold \(String(cString: avcodec_get_name(id))) (picture subtitles need Matroska)")
            )
        }
        guard target != AV_CODEC_ID_NONE, avcodec_find_decoder(id) != nil, avcodec_find_encoder(target) != nil,
            avformat_query_codec(muxer, target, FF_COMPLIANCE_NORMAL) == 1
        else {
            return .failure(Reason("\(name) holds no text subtitles this build can write"))
        }
        return .success(.convert(to: target))
    }

    struct Reason: Error {
        let text: String
        init(_ text: String) { self.text = text }
    }

    static func tag(_ stream: UnsafeMutablePointer<AVStream>, _ key: String) -> String? {
        guard let e = av_dict_get(stream.pointee.metadata, key, nil, 0) else { return nil }
        return String(cString: e.pointee.value)
    }

    private static func kind(_ stream: UnsafeMutablePointer<AVStream>) -> String {
        let st = stream.pointee
        switch st.codecpar.pointee.codec_type {
        case AVMEDIA_TYPE_VIDEO: return st.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 ? "cover picture" : "video"
        case AVMEDIA_TYPE_AUDIO: return "audio"
        case AVMEDIA_TYPE_SUBTITLE: return "subtitle"
        case AVMEDIA_TYPE_ATTACHMENT: return "attachment"
        case AVMEDIA_TYPE_DATA: return "data"
        default: return "stream"
        }
    }

    /// "aac, fra, \"Commentary\"": codec, language and title, each bounded and escaped.
    private static func details(_ stream: UnsafeMutablePointer<AVStream>) -> String {
        var details = [String(cString: avcodec_get_name(stream.pointee.codecpar.pointee.codec_id))]
        if let language = tag(stream, "language"), language != "und" { details.append(language.logSafe(limit: 16)) }
        if let title = tag(stream, "title") ?? tag(stream, "filename") {
            details.append("\"\(title.logSafe(limit: 48))\"")
        }
        return details.joined(separator: ", ")
    }

    /// "track 1 (aac, eng)", for an error listing the choices.
    /// A passthrough retime copies the video only (audio cannot be stretched without re-encoding it): the
    /// audio tracks are named as not carried rather than copied beside it unretimed.
    mutating func dropAudioForPassthroughRetime(_ input: InputFile) {
        for id in audio {
            notCarried.append(
                "track \(id): audio (\(Self.details(input.streams[id]))) is not carried: a passthrough retime "
                    + "copies the video only; re-encode (leave out --preset Passthrough) to retime the audio")
        }
        audio = []
    }

    private static func describe(_ stream: UnsafeMutablePointer<AVStream>) -> String {
        "track \(stream.pointee.index) (\(details(stream)))"
    }
}
