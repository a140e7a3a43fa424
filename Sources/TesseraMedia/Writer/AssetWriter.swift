import CFFmpeg
import Foundation
import TesseraAV
import TesseraCore

/// Encodes and muxes into one file, as AVAssetWriter.
///
/// ```
///  videoInput.append(frame) ─▶ encoder ─┐
///  audioInput.append(frame) ─▶ encoder ─┼─▶ interleaving muxer ─▶ .name.partial-XXXX ──rename──▶ name
///  passthrough.append(packet) ──────────┘         (on finishWriting)
/// ```
///
/// Nothing appears at `outputPath` until `finishWriting()` succeeds: the file is written under a
/// temporary name in the same directory and renamed at the end; a failed or cancelled writer (or one
/// released unfinished) removes its temporary file.
public final class AssetWriter: @unchecked Sendable {
    public let outputPath: String
    public let fileType: FileType
    /// Moov atom first (MP4/MOV/M4A), so playback can start before the download ends.
    public var optimizeForNetworkUse: Bool
    /// Container-level metadata to write (title, creation_time, …).
    public var metadata: [String: String] = [:]
    /// The output's start timecode, written on its video track (a QuickTime/MP4 `tmcd` track, a Matroska
    /// tag): the one place a timecode reaches the output (a copied stream's own tag is not kept).
    public var timecode: String?
    /// HDR10 static metadata for the video track's container boxes (Matroska's MasteringMetadata,
    /// ISO BMFF's mdcv and clli where the muxer writes them), beside the encoder's own signalling.
    public var hdr: HDRMetadata?
    /// Chapters to write, on the output's timeline.
    var chapters: [Chapter] = []
    /// Set for a streaming package's CMAF track file (one track): fragmented MP4 whose fragments are cut
    /// before the first packet presented at or after each of these times, so fragment k is media segment k.
    /// The priming of an encoder (AAC's 1024 samples) is cut by an edit list, not played.
    var fragmentBoundaries: [MediaTime]?
    /// Each fragment written so far, in order (with `fragmentBoundaries`).
    private(set) var fragments: [Fragment] = []
    private var cutTicks: [Int64] = []
    private var nextCut = 0
    /// Bytes of packets the writer may hold before `startWriting` (0: a packet then is refused). A
    /// segmented export's audio is encoded from the end of planning, while the header waits for the first
    /// segment's encoder parameters; a writer holding this much blocks the next write until it starts.
    var earlyPacketBytes = 0
    /// Packets held now, written before the header.
    var earlyPacketCount: Int {
        muxLock.lock()
        defer { muxLock.unlock() }
        return early.count
    }
    /// Packets written before the header, in order, in the time base they came in.
    private var early: [(packet: Packet, stream: UnsafeMutablePointer<AVStream>, timeBase: AVRational)] = []
    private var earlyBytes = 0

    /// One fragment of a CMAF track file, in the track's time base.
    struct Fragment {
        /// The first packet's presentation time.
        var start: Int64
        /// Where its last packet ends (presentation).
        var end: Int64
        /// The first packet's size: a video fragment's keyframe, for an I-frame playlist.
        var firstPacketBytes: Int
        /// The first packet's duration (an audio frame's).
        var firstPacketDuration: Int64
    }

    /// The one stream of a track file (a package's).
    func onlyStream() throws(MediaError) -> UnsafeMutablePointer<AVStream> {
        guard let ctx = context, ctx.pointee.nb_streams == 1, let stream = ctx.pointee.streams[0] else {
            throw MediaError(.internal, path: outputPath, "a track file holds one stream")
        }
        return stream
    }

    /// A chapter: `start ..< end` in `timeBase` ticks, with its title.
    struct Chapter {
        var start: Int64
        var end: Int64
        var timeBase: AVRational
        var title: String?
    }

    let temporaryPath: String
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private var inputs: [AssetWriterInput] = []
    /// Serialises muxing; writers of early packets wait on it for room or for the header.
    private let muxLock = NSCondition()
    private enum State { case configuring, writing, finished, failed }
    private var state = State.configuring

    /// Checks the destination and prepares the muxer.
    /// - Throws: `.outputExists` when the file exists and `overwrite` is false (as AVAssetExportSession
    ///   refuses), `.outputLocation` when its directory is missing or is not a directory.
    public init(
        outputPath: String, fileType: FileType, overwrite: Bool = false,
        optimizeForNetworkUse: Bool = false
    ) throws(MediaError) {
        self.outputPath = outputPath
        self.fileType = fileType
        self.optimizeForNetworkUse = optimizeForNetworkUse
        let url = URL(fileURLWithPath: outputPath)
        let directory = url.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw MediaError(.outputLocation, path: outputPath, "directory \(directory) does not exist")
        }
        if FileManager.default.fileExists(atPath: outputPath, isDirectory: &isDirectory) {
            if isDirectory.boolValue { throw MediaError(.outputLocation, path: outputPath, "is a directory") }
            if !overwrite { throw MediaError(.outputExists, path: outputPath, "already exists (use --overwrite)") }
        }
        temporaryPath =
            directory + "/" + Self.temporaryPrefix(of: url) + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        var ctx: UnsafeMutablePointer<AVFormatContext>? = nil
        try ff(avformat_alloc_output_context2(&ctx, nil, fileType.muxerName, temporaryPath), "create \(fileType) muxer")
        context = ctx
    }

    /// The temporary file's name up to its random suffix: `.NAME.partial-`.
    static func temporaryPrefix(of output: URL) -> String { "." + output.lastPathComponent + ".partial-" }

    /// Removes the temporary files a writer for `outputPath` left behind when its process was killed
    /// (kill -9 or power loss skip `discard()`); call it before that output is written again. Returns
    /// how many were removed.
    @discardableResult
    public static func removeLeftovers(of outputPath: String) -> Int {
        let url = URL(fileURLWithPath: outputPath)
        let directory = url.deletingLastPathComponent()
        let prefix = temporaryPrefix(of: url)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        var removed = 0
        for name in names where name.hasPrefix(prefix) {
            let suffix = name.dropFirst(prefix.count)
            guard !suffix.isEmpty, suffix.allSatisfy(\.isHexDigit) else { continue }
            if (try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))) != nil { removed += 1 }
        }
        return removed
    }

    deinit {
        if state != .finished { discard() }
        avformat_free_context(context)
    }

    private var needsGlobalHeader: Bool { context!.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 }

    /// Adds a video track encoded with `settings` from pictures described by `input`.
    /// - Throws: `.unsupported` (encoder missing, pixel format refused), `.invalidArgument` (bad settings).
    func addVideoInput(
        settings: VideoSettings, input: Encoder.VideoInput, rotation: Rotation,
        tagsFrom source: UnsafeMutablePointer<AVStream>?
    ) throws(MediaError) -> AssetWriterInput {
        let encoder = try Encoder(video: settings, input: input, globalHeader: needsGlobalHeader)
        let stream = try newStream()
        try ff(avcodec_parameters_from_context(stream.pointee.codecpar, encoder.context), "describe video track")
        stream.pointee.time_base = encoder.context.pointee.time_base
        stream.pointee.avg_frame_rate = input.frameRate
        if settings.codec == .hevc { tagForApple(stream) }
        if rotation != .none, let matrix = av_stream_new_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, 9 * 4) {
            matrix.withMemoryRebound(to: Int32.self, capacity: 9) { m in
                // av_display_rotation_get reads counter-clockwise degrees, but _set takes clockwise ones
                // (set(θ) reads back as −θ), which is Rotation's convention.
                av_display_rotation_set(m, Double(rotation.degrees))
                if rotation.mirrored { av_display_matrix_flip(m, 1, 0) }
            }
        }
        copyTags(from: source, to: stream)
        return register(
            AssetWriterInput(
                writer: self, stream: stream, encoder: encoder, kind: .video,
                timeBase: encoder.context.pointee.time_base))
    }

    /// Adds an audio track encoded with `settings`; appended PCM may have any format, rate or layout.
    /// The source track's language, title and disposition (default, forced, commentary…) are kept.
    /// - Parameter threads: with 2 or more, an AAC track is encoded in chunks on that many threads
    ///   (`ChunkedAudioEncoder`), for exports whose audio encode is on the critical path.
    func addAudioInput(
        settings: AudioSettings, sampleRate: Int, channels: Int,
        tagsFrom source: UnsafeMutablePointer<AVStream>?, threads: Int = 1
    ) throws(MediaError) -> AssetWriterInput {
        let globalHeader = needsGlobalHeader
        let encoder = try Encoder(
            audio: settings, sampleRate: sampleRate, channels: channels, globalHeader: globalHeader)
        let stream = try newStream()
        try ff(avcodec_parameters_from_context(stream.pointee.codecpar, encoder.context), "describe audio track")
        stream.pointee.time_base = encoder.context.pointee.time_base
        copyTags(from: source, to: stream)
        let converter = try AudioConverter(encoder: encoder)
        let chunks =
            threads >= 2 && settings.codec == .aac
            ? ChunkedAudioEncoder(threads: threads) { () throws(MediaError) in
                try Encoder(audio: settings, sampleRate: sampleRate, channels: channels, globalHeader: globalHeader)
            } : nil
        return register(
            AssetWriterInput(
                writer: self, stream: stream, encoder: encoder, kind: .audio,
                converter: converter, chunks: chunks, timeBase: encoder.context.pointee.time_base))
    }

    /// Apple players want HEVC tagged hvc1 (parameter sets in the sample description) in MP4 and QuickTime.
    private func tagForApple(_ stream: UnsafeMutablePointer<AVStream>) {
        guard fileType == .mp4 || fileType == .mov else { return }
        stream.pointee.codecpar.pointee.codec_tag = Self.fourCC("hvc1")
    }

    /// Adds a track whose compressed packets are copied unchanged.
    /// - Parameter frameRate: video's frame rate, declared on the stream (Matroska then writes a default
    ///   duration, and readers see the rate); nil or 0/1 declares none.
    /// - Parameter ownEncode: the packets are Tessera's own encodes (stitched segments), tagged as its
    ///   one-pass encodes are (HEVC as hvc1).
    /// - Throws: `.unsupported` when the container cannot hold the codec.
    func addPassthroughInput(
        parameters: UnsafePointer<AVCodecParameters>, timeBase: AVRational,
        frameRate: AVRational? = nil,
        sideDataFrom source: UnsafeMutablePointer<AVStream>?, ownEncode: Bool = false
    ) throws(MediaError)
        -> AssetWriterInput
    {
        let input = try addPassthroughInput(timeBase: timeBase, frameRate: frameRate, sideDataFrom: source)
        try describe(input, parameters: parameters, ownEncode: ownEncode)
        return input
    }

    /// Adds a passthrough track now and describes it later (`describe`, before `startWriting`): a
    /// segmented export's video keeps its place as the first track while only its first segment will show
    /// the encoder's parameters.
    func addPassthroughInput(
        timeBase: AVRational, frameRate: AVRational? = nil, sideDataFrom source: UnsafeMutablePointer<AVStream>?
    ) throws(MediaError) -> AssetWriterInput {
        let stream = try newStream()
        stream.pointee.time_base = timeBase
        if let rate = frameRate, rate.num > 0, rate.den > 0 { stream.pointee.avg_frame_rate = rate }
        if let source {
            for i in 0..<Int(source.pointee.nb_side_data) {
                let sd = source.pointee.side_data[i]
                if let dst = av_stream_new_side_data(stream, sd.type, Int(sd.size)) {
                    dst.update(from: sd.data, count: Int(sd.size))
                }
            }
            av_dict_copy(&stream.pointee.metadata, source.pointee.metadata, 0)
            stream.pointee.disposition = source.pointee.disposition
        }
        return register(
            AssetWriterInput(
                writer: self, stream: stream, encoder: nil, kind: .passthrough,
                timeBase: timeBase))
    }

    /// Gives a passthrough track its codec parameters.
    /// - Throws: `.unsupported` when the container cannot hold the codec; `.invalidArgument` once the
    ///   header is written.
    func describe(
        _ input: AssetWriterInput, parameters: UnsafePointer<AVCodecParameters>, ownEncode: Bool = false
    ) throws(MediaError) {
        guard state == .configuring else {
            throw MediaError(.invalidArgument, path: outputPath, "a track must be described before startWriting")
        }
        let codecName = String(cString: avcodec_get_name(parameters.pointee.codec_id))
        guard avformat_query_codec(context!.pointee.oformat, parameters.pointee.codec_id, FF_COMPLIANCE_NORMAL) == 1
        else {
            throw MediaError(.unsupported, path: outputPath, "\(fileType) cannot hold \(codecName) without re-encoding")
        }
        let stream = input.stream
        try ff(avcodec_parameters_copy(stream.pointee.codecpar, parameters), "copy \(codecName) parameters")
        stream.pointee.codecpar.pointee.codec_tag = 0
        if ownEncode && parameters.pointee.codec_id == AV_CODEC_ID_HEVC { tagForApple(stream) }
    }

    /// Adds a track whose packets the caller encodes itself (converted subtitles): described by
    /// `encoder`'s parameters, tagged as `source`, timestamps appended in `timeBase`.
    func addEncodedInput(
        encoder: UnsafeMutablePointer<AVCodecContext>, timeBase: AVRational,
        tagsFrom source: UnsafeMutablePointer<AVStream>?
    ) throws(MediaError) -> AssetWriterInput {
        let stream = try newStream()
        try ff(avcodec_parameters_from_context(stream.pointee.codecpar, encoder), "describe track")
        stream.pointee.time_base = timeBase
        copyTags(from: source, to: stream)
        return register(
            AssetWriterInput(
                writer: self, stream: stream, encoder: nil, kind: .passthrough,
                timeBase: timeBase))
    }

    /// Adds an attachment (a font for styled subtitles): Matroska keeps its data in the header.
    func addAttachment(from source: UnsafeMutablePointer<AVStream>) throws(MediaError) {
        let stream = try newStream()
        try ff(avcodec_parameters_copy(stream.pointee.codecpar, source.pointee.codecpar), "copy attachment")
        stream.pointee.codecpar.pointee.codec_tag = 0
        av_dict_copy(&stream.pointee.metadata, source.pointee.metadata, 0)
    }

    /// Puts HDR10 static metadata on a stream as libavformat's side data, replacing what was copied.
    static func attach(_ hdr: HDRMetadata, to stream: UnsafeMutablePointer<AVStream>) {
        // Values from a file or the wire: a non-number is 0, and none can trap the conversion.
        func q(_ v: Double, _ scale: Int32) -> AVRational {
            let bounded = v.isFinite ? min(max(v, 0), Double(Int32.max / scale)) : 0
            return AVRational(num: Int32((bounded * Double(scale)).rounded()), den: scale)
        }
        if let m = hdr.masteringDisplay, m.primaries.count == 3, m.primaries.allSatisfy({ $0.count == 2 }),
            m.whitePoint.count == 2,
            let data = av_stream_new_side_data(
                stream, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, MemoryLayout<AVMasteringDisplayMetadata>.size)
        {
            var md = AVMasteringDisplayMetadata()
            md.display_primaries = (
                (q(m.primaries[0][0], 50000), q(m.primaries[0][1], 50000)),
                (q(m.primaries[1][0], 50000), q(m.primaries[1][1], 50000)),
                (q(m.primaries[2][0], 50000), q(m.primaries[2][1], 50000))
            )
            md.white_point = (q(m.whitePoint[0], 50000), q(m.whitePoint[1], 50000))
            md.min_luminance = q(m.minLuminance, 10000)
            md.max_luminance = q(m.maxLuminance, 10000)
            md.has_primaries = 1
            md.has_luminance = 1
            UnsafeMutableRawPointer(data).storeBytes(of: md, as: AVMasteringDisplayMetadata.self)
        }
        if let cll = hdr.maxContentLightLevel,
            let data = av_stream_new_side_data(
                stream, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, MemoryLayout<AVContentLightMetadata>.size)
        {
            var light = AVContentLightMetadata()
            light.MaxCLL = UInt32(min(max(cll, 0), 65535))
            light.MaxFALL = UInt32(min(max(hdr.maxFrameAverageLightLevel ?? 0, 0), 65535))
            UnsafeMutableRawPointer(data).storeBytes(of: light, as: AVContentLightMetadata.self)
        }
    }

    static let quickTimePrefix = "com.apple.quicktime."

    /// The QuickTime keys in a container's metadata, without their prefix (`make`, `model`), sorted.
    static func quickTimeKeys(in dictionary: OpaquePointer?) -> [String] {
        var keys: [String] = []
        var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let e = av_dict_get(dictionary, quickTimePrefix, entry, AV_DICT_IGNORE_SUFFIX) {
            keys.append(String(String(cString: e.pointee.key).dropFirst(quickTimePrefix.count)))
            entry = e
        }
        return keys.sorted()
    }

    /// Opens the temporary file and writes the container header.
    /// - Throws: `.outputLocation` when the file cannot be created.
    public func startWriting() throws(MediaError) {
        guard state == .configuring, let ctx = context else { return }
        for (key, value) in metadata { av_dict_set(&ctx.pointee.metadata, key, value, 0) }
        av_dict_set(&ctx.pointee.metadata, "timecode", nil, 0)
        var videoTagged = false
        for i in 0..<Int(ctx.pointee.nb_streams) {
            guard let stream = ctx.pointee.streams[i] else { continue }
            av_dict_set(&stream.pointee.metadata, "timecode", nil, 0)
            if !videoTagged, stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO {
                if let timecode { av_dict_set(&stream.pointee.metadata, "timecode", timecode, 0) }
                if let hdr { Self.attach(hdr, to: stream) }
                videoTagged = true
            }
        }
        do throws(MediaError) { try writeChapters(ctx) } catch {
            fail()
            throw error
        }
        let opened = avio_open(&ctx.pointee.pb, temporaryPath, AVIO_FLAG_WRITE)
        if opened < 0 {
            fail()
            throw MediaError(.outputLocation, path: outputPath, "cannot create: \(ffErrorString(opened))", code: opened)
        }
        var options: OpaquePointer? = nil
        var movFlags = optimizeForNetworkUse && fileType.supportsFastStart ? "+faststart" : ""
        // QuickTime keys (com.apple.quicktime.make, …) are written as such, as a camera writes them; the mov
        // muxer drops keys it has no atom for otherwise.
        if fileType == .mov && metadata.keys.contains(where: { $0.hasPrefix(Self.quickTimePrefix) }) {
            movFlags += "+use_metadata_tags"
        }
        if fragmentBoundaries != nil {
            // CMAF: an empty moov written with the first fragment (so its edit list knows the priming),
            // fragments only where `write` cuts them, no index at the end.
            movFlags += "+frag_custom+empty_moov+delay_moov+default_base_moof+cmaf+skip_trailer"
            av_dict_set(&options, "use_editlist", "1", 0)
        }
        if !movFlags.isEmpty { av_dict_set(&options, "movflags", movFlags, 0) }
        let written = avformat_write_header(ctx, &options)
        av_dict_free(&options)
        if written < 0 {
            fail()
            throw MediaError(.ffmpeg, path: outputPath, "cannot write \(fileType) header: \(ffErrorString(written))")
        }
        if let boundaries = fragmentBoundaries, ctx.pointee.nb_streams == 1, let stream = ctx.pointee.streams[0] {
            // The muxer has chosen the track's time base by now.
            cutTicks = boundaries.map { TickMath.ceilTicks($0, stream.pointee.time_base) }
        }
        muxLock.lock()
        defer {
            muxLock.broadcast()
            muxLock.unlock()
        }
        // Abandoned while the header was being written (the export failed): the file is not used.
        guard state == .configuring else {
            throw MediaError(.cancelled, path: outputPath, "the writer was abandoned before its header")
        }
        state = .writing
        // What came before the header, in the order it came; the muxer interleaves it with what follows.
        let held = early
        early = []
        earlyBytes = 0
        for (packet, stream, timeBase) in held {
            do throws(MediaError) { try mux(packet, stream: stream, from: timeBase, ctx) } catch {
                state = .failed
                throw error
            }
        }
    }

    /// Flushes every input, writes the trailer (moving the index to the front when asked), closes the
    /// file, lets `check` inspect the finished temporary file, and renames it into place.
    /// When `check` throws, the temporary file is removed and nothing appears at `outputPath`.
    public func finishWriting(check: (String) throws(MediaError) -> Void = { _ in }) throws(MediaError) {
        guard state == .writing, let ctx = context else {
            throw MediaError(.invalidArgument, path: outputPath, "finishWriting called before startWriting")
        }
        for input in inputs where !input.isFinished { try input.markAsFinished() }
        // A track file of one fragment has not written its moov yet: the trailer's flush then writes the
        // fragment.
        if fragmentBoundaries != nil && fragments.count == 1 {
            muxLock.lock()
            defer { muxLock.unlock() }
            try flushFragment(ctx)
        }
        try ff(av_write_trailer(ctx), "finish \(fileType) file").discard()
        avio_closep(&ctx.pointee.pb)
        do throws(MediaError) {
            try check(temporaryPath)
        } catch {
            discard()
            throw error
        }
        if rename(temporaryPath, outputPath) != 0 {
            let reason = String(cString: strerror(errno))
            discard()
            throw MediaError(.outputLocation, path: outputPath, "cannot move the finished file into place: \(reason)")
        }
        state = .finished
    }

    /// Stops and removes the temporary file; `outputPath` is left as it was.
    public func cancelWriting() { discard() }

    /// A writer not started yet takes nothing more: its early packets are dropped and a write waiting for
    /// room throws. Once started, nothing changes.
    func abandonBeforeHeader() { fail(onlyBeforeHeader: true) }

    /// Marks the writer failed and wakes any writer of early packets (its write then throws).
    private func fail(onlyBeforeHeader: Bool = false) {
        muxLock.lock()
        defer {
            muxLock.broadcast()
            muxLock.unlock()
        }
        guard !onlyBeforeHeader || state == .configuring else { return }
        state = .failed
        early = []
        earlyBytes = 0
    }

    private func discard() {
        if let ctx = context, ctx.pointee.pb != nil { avio_closep(&ctx.pointee.pb) }
        unlink(temporaryPath)
        if state != .finished { fail() }
    }

    /// Muxes one packet whose timestamps are in `timeBase`; safe from several encoding threads.
    /// Before `startWriting`, holds it (up to `earlyPacketBytes`, then waits for the header or a cancel).
    func write(_ packet: Packet, stream: UnsafeMutablePointer<AVStream>, from timeBase: AVRational) throws(MediaError) {
        packet.pointer.pointee.stream_index = stream.pointee.index
        muxLock.lock()
        defer { muxLock.unlock() }
        if state == .configuring && earlyPacketBytes > 0 {
            while state == .configuring && earlyBytes > 0 && earlyBytes >= earlyPacketBytes { muxLock.wait() }
            if state == .configuring {
                early.append((packet, stream, timeBase))
                earlyBytes += packet.size
                return
            }
        }
        guard state == .writing, let ctx = context else {
            throw MediaError(.invalidArgument, path: outputPath, "append before startWriting or after finishing")
        }
        try mux(packet, stream: stream, from: timeBase, ctx)
    }

    /// Rescales and muxes one packet. Called under the mux lock, once the header is written.
    private func mux(
        _ packet: Packet, stream: UnsafeMutablePointer<AVStream>, from timeBase: AVRational,
        _ ctx: UnsafeMutablePointer<AVFormatContext>
    ) throws(MediaError) {
        av_packet_rescale_ts(packet.pointer, timeBase, stream.pointee.time_base)
        if fragmentBoundaries != nil { try cutFragment(before: packet.pointer.pointee, ctx) }
        let code = av_interleaved_write_frame(ctx, packet.pointer)
        if code < 0 {
            // A full disk or a failing one is an I/O error, not a muxer's.
            let io = [tessera_AVERROR(ENOSPC), tessera_AVERROR(EIO), tessera_AVERROR(EDQUOT)].contains(code)
            throw MediaError(
                io ? .io : .ffmpeg, path: outputPath, "cannot write packet: \(ffErrorString(code))", code: code)
        }
    }

    /// Closes the fragment in progress when `packet` is presented at or after the next boundary, and extends
    /// its fragment's end by the packet. Called under the mux lock.
    private func cutFragment(before p: AVPacket, _ ctx: UnsafeMutablePointer<AVFormatContext>) throws(MediaError) {
        var crossed = false
        while nextCut < cutTicks.count && p.pts >= cutTicks[nextCut] {
            crossed = true
            nextCut += 1
        }
        if fragments.isEmpty || crossed {
            // The first flush writes the moov alone (delay_moov); the next writes the fragment.
            for _ in 0..<(fragments.count == 1 ? 2 : fragments.isEmpty ? 0 : 1) { try flushFragment(ctx) }
            fragments.append(
                Fragment(start: p.pts, end: p.pts, firstPacketBytes: Int(p.size), firstPacketDuration: p.duration))
        }
        let (end, overflow) = p.pts.addingReportingOverflow(max(0, p.duration))
        fragments[fragments.count - 1].end = max(fragments[fragments.count - 1].end, overflow ? p.pts : end)
    }

    /// Writes the fragment the muxer holds (with `frag_custom`, only when asked).
    private func flushFragment(_ ctx: UnsafeMutablePointer<AVFormatContext>) throws(MediaError) {
        _ = av_interleaved_write_frame(ctx, nil)
        let code = av_write_frame(ctx, nil)
        if code < 0 {
            throw MediaError(.io, path: outputPath, "cannot write a fragment: \(ffErrorString(code))", code: code)
        }
    }

    private func newStream() throws(MediaError) -> UnsafeMutablePointer<AVStream> {
        guard state == .configuring else {
            throw MediaError(.invalidArgument, path: outputPath, "inputs must be added before startWriting")
        }
        guard let stream = avformat_new_stream(context, nil) else {
            throw MediaError(.internal, path: outputPath, "out of memory adding a track")
        }
        return stream
    }

    private func register(_ input: AssetWriterInput) -> AssetWriterInput {
        inputs.append(input)
        return input
    }

    /// Keeps what a person chose a track by: its language, title and disposition.
    private func copyTags(from source: UnsafeMutablePointer<AVStream>?, to stream: UnsafeMutablePointer<AVStream>) {
        guard let source else { return }
        for key in ["language", "title"] {
            if let e = av_dict_get(source.pointee.metadata, key, nil, 0) {
                av_dict_set(&stream.pointee.metadata, key, e.pointee.value, 0)
                // MP4 and QuickTime keep a track's name in its handler box, which players show.
                if key == "title" && [.mp4, .mov, .m4a].contains(fileType) {
                    av_dict_set(&stream.pointee.metadata, "handler_name", e.pointee.value, 0)
                }
            }
        }
        stream.pointee.disposition = source.pointee.disposition & ~AV_DISPOSITION_ATTACHED_PIC
    }

    /// Hands `chapters` to the muxer, as libavformat's own demuxers build them (the context frees them).
    private func writeChapters(_ ctx: UnsafeMutablePointer<AVFormatContext>) throws(MediaError) {
        guard !chapters.isEmpty else { return }
        let size = MemoryLayout<UnsafeMutablePointer<AVChapter>?>.stride
        guard let list = av_calloc(chapters.count, size) else {
            throw MediaError(.internal, path: outputPath, "out of memory writing chapters")
        }
        let array = list.bindMemory(to: UnsafeMutablePointer<AVChapter>?.self, capacity: chapters.count)
        ctx.pointee.chapters = array
        for (i, chapter) in chapters.enumerated() {
            guard let raw = av_mallocz(MemoryLayout<AVChapter>.stride) else {
                throw MediaError(.internal, path: outputPath, "out of memory writing chapters")
            }
            let c = raw.bindMemory(to: AVChapter.self, capacity: 1)
            c.pointee.id = Int64(i + 1)
            c.pointee.time_base = chapter.timeBase
            c.pointee.start = chapter.start
            c.pointee.end = chapter.end
            if let title = chapter.title { av_dict_set(&c.pointee.metadata, "title", title, 0) }
            array[i] = c
            ctx.pointee.nb_chapters = UInt32(i + 1)
        }
    }

    private static func fourCC(_ s: String) -> UInt32 {
        s.utf8.reversed().reduce(0) { ($0 << 8) | UInt32($1) }
    }
}

extension Int32 {
    /// Marks an `ff()` result as deliberately unused.
    fileprivate func discard() {}
}
