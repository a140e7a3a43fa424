import CFFmpeg
import Foundation
import TesseraAV

/// Owns an opened `AVFormatContext` for reading (a demuxer); closed with the object.
///
/// Opening classifies failures so the user learns the cause: a missing path, an empty file,
/// bytes FFmpeg does not recognise as media, or a damaged file.
final class InputFile: @unchecked Sendable {
    let path: String
    let context: UnsafeMutablePointer<AVFormatContext>
    /// Packets `read(into:)` has returned so far (for messages that say where reading stopped).
    private(set) var packetsRead = 0
    /// An input opened with `init(indexing:)`: its own byte source, which may skip the samples' bytes.
    private let sampleTable: SampleTableIO?
    /// Opened with `init(indexing:)` and reading the boxes alone: its packets' data is not the file's,
    /// their positions and sizes are.
    private(set) var skipsSampleBytes = false

    /// Opens `path` and reads enough packets to fill in every stream's parameters.
    ///
    /// - Throws: `MediaError` naming the file: `.notFound`, `.emptyFile`, `.notMedia`, `.corrupt` or
    ///   `.ffmpeg`, as classified by `Asset.checkFile` and `Asset.openFailure`; `.corrupt` too when the
    ///   container's index reaches past the end of the file (a file cut short).
    convenience init(path: String) throws(MediaError) {
        do {
            try self.init(unlabelled: path)
        } catch {
            throw error.about(path)
        }
    }

    /// Opens `path` for a scan of its packets' timing (`scanPackets`), never their data: an MP4 or
    /// QuickTime file whose codecs allow it is read for its boxes only, the samples' bytes skipped
    /// (`SampleTableIO`), so planning a film reads megabytes, not the film; its packets then come from the
    /// tables as they are (keyframes as the file marks its sync samples, no parser), and only the video
    /// and audio streams give packets. Other files are read whole, as by `init(path:)`. A packet's data
    /// is not the file's: never decode from such an input.
    ///
    /// - Throws: as `init(path:)`.
    convenience init(indexing path: String) throws(MediaError) {
        do {
            try self.init(unlabelled: path, indexing: true)
        } catch {
            throw error.about(path)
        }
    }

    /// Bytes of the file this input has read, when opened with `init(indexing:)`.
    var bytesRead: Int64? { sampleTable?.bytesRead }

    /// Opens a source over HTTP(S) (`tessera worker --media-url`): libavformat's reader, which seeks with
    /// range requests, sending `headers` (CRLF-terminated lines, e.g. the coordinator's bearer token) with
    /// each. Only the http, https, tcp and tls protocols are allowed.
    ///
    /// - Throws: `MediaError` naming the URL: `.notFound` for an answer other than 2xx (401, 403, 404 …),
    ///   `.io` when it cannot be reached, as `init(path:)` for what it reads.
    convenience init(url: String, headers: String) throws(MediaError) {
        do {
            try self.init(unlabelled: url, remoteHeaders: headers)
        } catch {
            throw error.about(url)
        }
    }

    private init(unlabelled path: String, remoteHeaders: String? = nil, indexing: Bool = false) throws(MediaError) {
        self.path = path
        var size: Int64 = -1
        var code: Int32
        var opening: UnsafeMutablePointer<AVFormatContext>? = nil
        if let remoteHeaders {
            var options: OpaquePointer? = nil
            defer { av_dict_free(&options) }
            av_dict_set(&options, "headers", remoteHeaders, 0)
            av_dict_set(&options, "protocol_whitelist", "http,https,tcp,tls", 0)
            av_dict_set(&options, "seekable", "1", 0)
            code = avformat_open_input(&opening, path, nil, &options)
            guard code >= 0, let opened = opening else {
                let reason = code == tessera_AVERROR(ENOENT) ? "no such file" : ffErrorString(code)
                let kind: MediaError.Kind =
                    code == tessera_AVERROR(EIO) || code == tessera_AVERROR(ECONNREFUSED)
                        || code == tessera_AVERROR(ETIMEDOUT) ? .io : .notFound
                throw MediaError(kind, "cannot be read over HTTP: \(reason)", code: code)
            }
            if let pb = opened.pointee.pb { size = avio_size(pb) }
            sampleTable = nil
        } else {
            size = try Asset.checkFile(path)
            if indexing {
                let io = try SampleTableIO.open(path: path, size: size)
                opening = avformat_alloc_context()
                opening?.pointee.pb = io.context
                opening?.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
                sampleTable = io
            } else {
                sampleTable = nil
            }
            code = avformat_open_input(&opening, path, nil, nil)
            guard code >= 0, opening != nil else { throw Asset.openFailure(path: path, size: size, code: code) }
        }
        let context = opening!
        self.context = context
        // Timing from the sample tables alone: no parser may look into the samples' bytes (libavformat
        // parses H.264 samples in MP4 for their field order, and takes their keyframe flags from it).
        let skipsSamples = sampleTable != nil && sampleBytesNeedNotBeRead(size: size)
        if skipsSamples { context.pointee.flags |= AVFMT_FLAG_NOPARSE }
        let info = avformat_find_stream_info(context, nil)
        if info < 0 {
            let cause = "cannot read stream information: \(ffErrorString(info))"
            throw probeScore <= AVPROBE_SCORE_RETRY
                ? MediaError(.notMedia, "not a media file FFmpeg recognises (\(cause))", code: info)
                : MediaError(.corrupt, "damaged \(formatName) file: \(cause)", code: info)
        }
        if let damage = samplesPastTheEnd(fileSize: size) {
            let longName = context.pointee.iformat.flatMap { $0.pointee.long_name }.map { String(cString: $0) }
            throw MediaError(.corrupt, "truncated \(longName ?? formatName) file: \(damage)")
        }
        let media = [AVMEDIA_TYPE_VIDEO, AVMEDIA_TYPE_AUDIO]
        guard streams.contains(where: { media.contains($0.pointee.codecpar.pointee.codec_type) }) else {
            throw MediaError(
                .notMedia,
                probeScore <= AVPROBE_SCORE_RETRY
                    ? "not a media file FFmpeg recognises (a weak guess of \(formatName) found no audio or video)"
                    : "has no audio or video streams (\(formatName) with \(streams.count) other streams)")
        }
        if skipsSamples {
            skipSampleBytes()
            skipsSampleBytes = true
        }
    }

    /// Whether a timing scan may skip the samples' bytes: an MP4 or QuickTime file whose `moov` indexes
    /// every sample (no `moof`: a fragment's samples are listed in the fragment, and lavf's timing of them
    /// leans on the parsers) and whose video and audio codecs are ones the demuxer passes on unread once
    /// parsers are off (`SampleTableIO.indexableCodecs`).
    private func sampleBytesNeedNotBeRead(size: Int64) -> Bool {
        let media = [AVMEDIA_TYPE_VIDEO, AVMEDIA_TYPE_AUDIO]
        guard storesPacketsVerbatim,
            streams.filter({ media.contains($0.pointee.codecpar.pointee.codec_type) }).allSatisfy({
                SampleTableIO.indexableCodecs.contains($0.pointee.codecpar.pointee.codec_id)
            }),
            let boxes = TopLevelBoxes(path: path, size: size)
        else { return false }
        return boxes.damage == nil && boxes.contains("moov") && !boxes.contains("moof")
    }

    /// For an input opened with `init(indexing:)` whose samples need not be read: discards every stream
    /// but the video and audio ones (a timecode or caption track's samples are read as boxes), and tells
    /// the byte source where the samples lie, from the sample tables libavformat read when opening.
    private func skipSampleBytes() {
        guard let sampleTable else { return }
        let media = [AVMEDIA_TYPE_VIDEO, AVMEDIA_TYPE_AUDIO]
        var kept: [UnsafeMutablePointer<AVStream>] = []
        for stream in streams {
            if media.contains(stream.pointee.codecpar.pointee.codec_type) {
                kept.append(stream)
            } else {
                stream.pointee.discard = AVDISCARD_ALL
            }
        }
        var samples: [Range<Int64>] = []
        for stream in kept {
            for i in 0..<max(0, avformat_index_get_entries_count(stream)) {
                guard let entry = avformat_index_get_entry(stream, i)?.pointee, entry.pos >= 0, entry.size > 0 else {
                    continue
                }
                let (end, overflow) = entry.pos.addingReportingOverflow(Int64(entry.size))
                if !overflow { samples.append(entry.pos..<end) }
            }
        }
        sampleTable.skip(samples: samples)
    }

    deinit {
        var context: UnsafeMutablePointer<AVFormatContext>? = context
        avformat_close_input(&context)
    }

    /// Where the container's own index (an MP4's sample tables, an AVI's idx1) places samples beyond the
    /// end of the file: the file was cut short, and reading would quietly stop early. Nil when every
    /// indexed sample lies inside the file, or the size is unknown (a pipe).
    func samplesPastTheEnd(fileSize: Int64) -> String? {
        guard fileSize > 0 else { return nil }
        for stream in streams {
            let count = Int(avformat_index_get_entries_count(stream))
            var missing = 0, end: Int64 = 0
            for i in 0..<count {
                guard let entry = avformat_index_get_entry(stream, Int32(i)) else { continue }
                let entryEnd = entry.pointee.pos + Int64(entry.pointee.size)
                end = max(end, entryEnd)
                if entryEnd > fileSize { missing += 1 }
            }
            if missing > 0 {
                return "the index of track \(stream.pointee.index) lists \(count) samples reaching byte \(end), "
                    + "but the file ends at byte \(fileSize); \(missing) samples are missing"
            }
        }
        return nil
    }

    /// libavformat's demuxer name (`iformat->name`).
    var formatName: String { context.pointee.iformat.map { String(cString: $0.pointee.name) } ?? "unknown" }

    /// Whether each packet's data lies in the file as it is, at the packet's `pos`: MP4 and QuickTime
    /// store samples so (other containers frame them: Matroska blocks, MPEG-TS packets).
    var storesPacketsVerbatim: Bool { formatName.hasPrefix("mov,") }

    /// How sure libavformat was of the format, 0…100 (`AVPROBE_SCORE_MAX`); 25 or less is a guess.
    var probeScore: Int32 { context.pointee.probe_score }

    /// The streams, in index order. Demuxers of formats without a header (MPEG-TS) may add streams
    /// while packets are read, so this is read afresh each time.
    var streams: [UnsafeMutablePointer<AVStream>] {
        let count = Int(context.pointee.nb_streams)
        guard count > 0, let base = context.pointee.streams else { return [] }
        return (0..<count).compactMap { base[$0] }
    }

    /// The best stream of a type (FFmpeg's choice: default disposition, then most frames), or nil.
    func bestStream(_ type: AVMediaType) -> Int? {
        let index = av_find_best_stream(context, type, -1, -1, nil, 0)
        return index >= 0 ? Int(index) : nil
    }

    /// The asset's time zero in `AV_TIME_BASE` units: the container's start time (MPEG-TS often starts
    /// at 1.4 s or later), or 0 when unknown or negative. A negative start is encoder priming (Opus's
    /// pre-skip in WebM, AAC's in Matroska): it lies before the timeline and must not delay the video.
    var startTime: Int64 {
        let t = context.pointee.start_time
        guard t != tessera_AV_NOPTS_VALUE() else { return 0 }
        return max(0, t)
    }

    /// The container's duration in `AV_TIME_BASE` units (0 when unknown).
    var duration: Int64 {
        let d = context.pointee.duration
        guard d != tessera_AV_NOPTS_VALUE(), d > 0 else { return 0 }
        return d
    }

    /// Seeks so the next packet read is at or before `timestamp` (`AV_TIME_BASE` units) on a keyframe.
    func seek(toKeyframeAtOrBefore timestamp: Int64) throws(MediaError) {
        let code = avformat_seek_file(context, -1, Int64.min, timestamp, timestamp, 0)
        if code < 0 {
            // Some demuxers cannot seek; reading from the start is always correct, only slower.
            _ = avformat_seek_file(context, -1, Int64.min, 0, 0, AVSEEK_FLAG_BYTE)
        }
    }

    /// Seeks so the next packet of `stream` read is on a keyframe at or before `timestamp` (that stream's
    /// time base); a demuxer that cannot seek reads from the start (correct, only slower).
    func seek(stream: Int, toKeyframeAtOrBefore timestamp: Int64) {
        if avformat_seek_file(context, Int32(clamping: stream), Int64.min, timestamp, timestamp, 0) < 0 {
            _ = avformat_seek_file(context, -1, Int64.min, 0, 0, AVSEEK_FLAG_BYTE)
        }
    }

    /// Reads the next packet into `packet`; false at the end of the file.
    ///
    /// - Throws: `.corrupt` naming the file when the demuxer fails for any reason other than EOF.
    func read(into packet: Packet) throws(MediaError) -> Bool {
        var code = av_read_frame(context, packet.pointer)
        while code == tessera_AVERROR_EAGAIN() { code = av_read_frame(context, packet.pointer) }
        if code == tessera_AVERROR_EOF() { return false }
        if code < 0 {
            // A file cut short often ends in an I/O error rather than a clean EOF.
            let position = avio_tell(context.pointee.pb)
            throw MediaError(
                .corrupt, path: path,
                "cannot read packet \(packetsRead + 1) near byte \(position): \(ffErrorString(code)) "
                    + "(truncated or damaged?)", code: code)
        }
        packetsRead += 1
        return true
    }
}
