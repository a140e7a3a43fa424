import CFFmpeg
import Foundation
import TesseraAV

/// Carries one subtitle track into the output over the export's range: its packets copied, or text
/// subtitles converted to the container's own text format (SubRip or ASS to MP4's mov_text). Events
/// are kept on the output's timeline: one that starts before the range and is still showing at its
/// start begins at 0; one running past the range end is cut there. In a retimed export each event
/// starts and ends where the time map reaches its source start and end, so a subtitle in a slowed range
/// stays up as long as its words take to play, and one showing at a freeze stays up through it.
final class SubtitleLeg: @unchecked Sendable {
    private let output: AssetReaderTrackOutput
    private let input: any SubtitleSink
    private let converter: SubtitleConverter?
    private let sourceTimeBase: AVRational
    /// The map and the timescale the output's times are written in.
    private let retime: (ExportRetime, timescale: Int64)?
    private(set) var events = 0

    /// - Parameter cues: where a package's track goes instead of `writer` (converted to WebVTT cues).
    /// - Throws: `.unsupported` when the track can neither be copied nor converted after all.
    init(
        reader: AssetReader, writer: AssetWriter?, track: ExportTracks.Subtitle, retime: ExportRetime? = nil,
        cues: WebVTTCues? = nil
    ) throws(MediaError) {
        let stream = reader.input.streams[track.trackID]
        sourceTimeBase = stream.pointee.time_base
        let timescale = ExportRetime.timescale(for: sourceTimeBase)
        self.retime = retime.map { ($0, timescale) }
        let timeBase = retime == nil ? sourceTimeBase : AVRational(num: 1, den: Int32(clamping: timescale))
        output = try reader.addOutput(trackID: track.trackID, decode: false, sparse: true)
        if let cues {
            converter = try SubtitleConverter(stream: stream, to: AV_CODEC_ID_WEBVTT, path: reader.path)
            cues.timeBase = timeBase
            input = cues
            return
        }
        guard let writer else { throw MediaError(.internal, path: reader.path, "a subtitle leg with nowhere to go") }
        switch track.handling {
        case .copy:
            converter = nil
            input = try writer.addPassthroughInput(
                parameters: stream.pointee.codecpar, timeBase: timeBase, sideDataFrom: stream)
        case .convert(let target):
            let converter = try SubtitleConverter(stream: stream, to: target, path: reader.path)
            self.converter = converter
            input = try writer.addEncodedInput(encoder: converter.encoder, timeBase: timeBase, tagsFrom: stream)
        }
    }

    /// An event's output start and duration: relative to the range start, or through the time map.
    private func timing(
        start: Int64, stop: Int64, untimed: Bool, range: TickRange
    ) throws(MediaError) -> (
        pts: Int64, duration: Int64
    ) {
        let from = try range.relative(start)
        guard let (retime, timescale) = retime else { return (from, untimed ? 0 : stop - start) }
        let to = try range.relative(stop)
        guard let a = retime.outputTick(relative: from, tb: sourceTimeBase, timescale: timescale),
            let b = retime.outputTick(relative: to, tb: sourceTimeBase, timescale: timescale)
        else { throw MediaError(.invalidArgument, "a subtitle time (\(start)) does not fit the time map") }
        return (a, untimed ? 0 : max(0, b - a))
    }

    var trackID: Int { output.trackID }
    var isConverted: Bool { converter != nil }

    func run() throws(MediaError) {
        let range = output.range
        let none = tessera_AV_NOPTS_VALUE()
        defer { output.finish() }
        while let packet = try output.copyNextPacket() {
            let p = packet.pointer
            let pts = p.pointee.pts
            guard pts != none else { continue }
            if pts >= range.end { return }
            let duration = max(0, p.pointee.duration)
            let (end, overflow) = pts.addingReportingOverflow(duration)
            if pts < range.start && (duration == 0 || overflow || end <= range.start) { continue }
            let start = max(pts, range.start)
            let stop = overflow ? range.end : min(end, range.end)
            let timing = try timing(start: start, stop: stop, untimed: duration == 0, range: range)
            if let converter {
                guard let converted = try converter.convert(packet) else { continue }
                converted.pointer.pointee.pts = timing.pts
                converted.pointer.pointee.dts = timing.pts
                converted.pointer.pointee.duration = timing.duration
                try input.append(converted)
            } else {
                p.pointee.pts = timing.pts
                p.pointee.dts = timing.pts
                p.pointee.duration = timing.duration
                try input.append(packet)
            }
            events += 1
        }
    }
}

/// Where a subtitle leg's events go: an output track, or a package's WebVTT cues.
protocol SubtitleSink: AnyObject {
    func append(_ packet: Packet) throws(MediaError)
}

extension AssetWriterInput: SubtitleSink {}

/// Text subtitles decoded and encoded again (each event's text and styling; timing is the caller's).
final class SubtitleConverter: @unchecked Sendable {
    private let decoder: Decoder
    let encoder: UnsafeMutablePointer<AVCodecContext>
    private let path: String
    private var buffer = [UInt8](repeating: 0, count: 1 << 20)

    init(stream: UnsafeMutablePointer<AVStream>, to target: AVCodecID, path: String) throws(MediaError) {
        self.path = path
        decoder = try Decoder(stream: stream, path: path)
        let name = String(cString: avcodec_get_name(target))
        guard let codec = avcodec_find_encoder(target), let ctx = avcodec_alloc_context3(codec) else {
            throw MediaError(.unsupported, path: path, "no \(name) subtitle encoder")
        }
        encoder = ctx
        ctx.pointee.time_base = stream.pointee.time_base
        // The encoders read the styles from the decoder's ASS header.
        let header = decoder.context.pointee.subtitle_header, size = Int(decoder.context.pointee.subtitle_header_size)
        if let header, size > 0, let copy = av_mallocz(size + 1) {
            copy.copyMemory(from: header, byteCount: size)
            ctx.pointee.subtitle_header = copy.assumingMemoryBound(to: UInt8.self)
            ctx.pointee.subtitle_header_size = Int32(size)
        }
        let opened = avcodec_open2(ctx, codec, nil)
        if opened < 0 {
            throw MediaError(
                .unsupported, path: path, "cannot open the \(name) subtitle encoder: \(ffErrorString(opened))")
        }
    }

    deinit {
        var p: UnsafeMutablePointer<AVCodecContext>? = encoder
        avcodec_free_context(&p)
    }

    /// The event in `packet` in the target format; nil when it holds no text (an empty event).
    func convert(_ packet: Packet) throws(MediaError) -> Packet? {
        var subtitle = AVSubtitle()
        var got: Int32 = 0
        let decoded = avcodec_decode_subtitle2(decoder.context, &subtitle, &got, packet.pointer)
        guard decoded >= 0 else {
            throw MediaError(.corrupt, path: path, "subtitle event does not decode: \(ffErrorString(decoded))")
        }
        guard got != 0 else { return nil }
        defer { avsubtitle_free(&subtitle) }
        guard subtitle.num_rects > 0 else { return nil }
        let size = buffer.withUnsafeMutableBufferPointer {
            avcodec_encode_subtitle(encoder, $0.baseAddress, Int32($0.count), &subtitle)
        }
        guard size > 0 else {
            if size == 0 { return nil }
            throw MediaError(.ffmpeg, path: path, "subtitle event does not encode: \(ffErrorString(size))")
        }
        let out = try Packet()
        try ff(av_new_packet(out.pointer, size), "allocate a subtitle packet")
        buffer.withUnsafeBufferPointer { out.pointer.pointee.data.update(from: $0.baseAddress!, count: Int(size)) }
        out.pointer.pointee.flags |= AV_PKT_FLAG_KEY
        return out
    }
}
