import CFFmpeg
import Synchronization
import TesseraAV
import TesseraCore

/// Copies the video and audio packets unchanged (the Passthrough preset).
///
/// A time range starts at the keyframe at or before its start: packets keep their timing relative to
/// the range start, so the pre-roll sits before zero (MP4/MOV hide it with an edit list; Matroska
/// shifts it). This is keyframe-accurate, not frame-accurate, as AVFoundation's passthrough is.
final class PassthroughPipeline: ExportPipeline, @unchecked Sendable {
    private struct Leg: @unchecked Sendable {
        let output: AssetReaderTrackOutput
        let input: AssetWriterInput
        let source: StreamDescription
        /// Set for retimed video: every packet kept, its times mapped, in ticks of `1 / timescale` s.
        let retime: (map: ExportRetime, timescale: Int64)?
    }
    private let legs: [Leg]
    private let subtitles: [SubtitleLeg]
    private let counter = ProgressCounter()
    private let reached = Mutex(0.0)

    private init(legs: [Leg], subtitles: [SubtitleLeg]) {
        self.legs = legs
        self.subtitles = subtitles
    }

    /// - Throws: `.unsupported` when the container cannot hold a source codec; `.invalidArgument` when the
    ///   source has neither video nor audio.
    /// - Parameter retime: passthrough frame timing: every video packet once, its timestamps mapped
    ///   through the time map (the audio is refused before this by the session).
    static func make(
        reader: AssetReader, writer: AssetWriter, tracks: ExportTracks, retime: ExportRetime? = nil
    ) throws(MediaError) -> PassthroughPipeline {
        var legs: [Leg] = []
        for id in [tracks.video].compactMap({ $0 }) + tracks.audio {
            let stream = reader.input.streams[id]
            let output = try reader.addOutput(trackID: id, decode: false)
            let tb = stream.pointee.time_base
            // Mapped times in the source's own ticks when they are 1/N s, else in 1/90000 s.
            let timescale: Int64? = retime.map { _ in ExportRetime.timescale(for: tb) }
            let input = try writer.addPassthroughInput(
                parameters: stream.pointee.codecpar,
                timeBase: timescale.map { AVRational(num: 1, den: Int32(clamping: $0)) } ?? tb,
                frameRate: retime == nil ? stream.pointee.avg_frame_rate : AVRational(num: 0, den: 1),
                sideDataFrom: stream)
            legs.append(
                Leg(
                    output: output, input: input, source: StreamDescription(stream: stream),
                    retime: retime.flatMap { r in timescale.map { (r, $0) } }))
        }
        guard !legs.isEmpty else {
            throw MediaError(.invalidArgument, path: reader.path, "has no video or audio track to copy")
        }
        return PassthroughPipeline(
            legs: legs, subtitles: try tracks.addCarried(reader: reader, writer: writer, retime: retime))
    }

    func start(failure: PipelineFailure) -> [StageThread] {
        legs.map { leg in
            StageThread("tessera.copy.\(leg.output.trackID)", failure: failure) { [self] () throws(MediaError) in
                try copy(leg)
            }
        }
            + subtitles.map { leg in
                StageThread("tessera.subtitle.\(leg.trackID)", failure: failure) { () throws(MediaError) in
                    try leg.run()
                }
            }
    }

    private func copy(_ leg: Leg) throws(MediaError) {
        let range = leg.output.range
        let isVideo = leg.output.mediaType == .video
        let tb = leg.source.timeBase
        var lastDTS = Int64.min
        defer { leg.output.finish() }
        while let packet = try leg.output.copyNextPacket() {
            let p = packet.pointer
            // Video stops by decode order (every later packet shows later); audio by presentation time.
            let t = isVideo ? p.pointee.dts : p.pointee.pts
            if t != tessera_AV_NOPTS_VALUE() && t >= range.end { return }
            if !isVideo && p.pointee.pts != tessera_AV_NOPTS_VALUE() {
                let end = try TickRange.end(p.pointee.pts, plus: max(0, p.pointee.duration))
                if end <= range.start { continue }
            }
            if p.pointee.pts != tessera_AV_NOPTS_VALUE() { p.pointee.pts = try range.relative(p.pointee.pts) }
            if p.pointee.dts != tessera_AV_NOPTS_VALUE() { p.pointee.dts = try range.relative(p.pointee.dts) }
            var seconds = Double(p.pointee.pts) * Double(tb.num) / Double(tb.den)
            if let retime = leg.retime {
                try map(p, retime.map, timescale: retime.timescale, tb: tb, lastDTS: &lastDTS)
                seconds = Double(p.pointee.pts) / Double(retime.timescale)
            }
            try leg.input.append(packet)
            if isVideo || legs.count == 1 {
                counter.advance(to: seconds)
                let unit = leg.retime.map { 1 / Double($0.timescale) } ?? Double(tb.num) / Double(tb.den)
                let end = seconds + Double(p.pointee.duration) * unit
                reached.withLock { $0 = max($0, end) }
            }
        }
    }

    /// Rewrites a packet's times (relative to the range start, in `tb`) through the time map: the output
    /// tick at which the map reaches each; the duration runs to where the map reaches the packet's end.
    /// Decode times stay strictly increasing (a fast range can map two to one tick).
    private func map(
        _ p: UnsafeMutablePointer<AVPacket>, _ retime: ExportRetime, timescale: Int64, tb: AVRational,
        lastDTS: inout Int64
    ) throws(MediaError) {
        let none = tessera_AV_NOPTS_VALUE()
        func mapped(_ t: Int64) throws(MediaError) -> Int64 {
            guard let tick = retime.outputTick(relative: t, tb: tb, timescale: timescale) else {
                throw MediaError(.invalidArgument, "a packet time (\(t)) does not fit the time map")
            }
            return tick
        }
        let pts = p.pointee.pts, dts = p.pointee.dts
        if pts != none {
            p.pointee.pts = try mapped(pts)
            if p.pointee.duration > 0, case let (end, overflow) = pts.addingReportingOverflow(p.pointee.duration),
                !overflow
            {
                p.pointee.duration = max(0, try mapped(end) - p.pointee.pts)
            }
        }
        if dts != none {
            var out = try mapped(dts)
            if lastDTS != Int64.min, out <= lastDTS { out = lastDTS + 1 }
            if p.pointee.pts != none, out > p.pointee.pts { p.pointee.pts = out }
            p.pointee.dts = out
            lastDTS = out
        }
    }

    func progress(total: Double, elapsed: Double) -> ExportProgress {
        let s = counter.snapshot
        return ExportProgress(frames: s.frames, seconds: s.seconds, totalSeconds: total, elapsedSeconds: elapsed)
    }

    func checkComplete(expectedSeconds: Double, source: String) throws(MediaError) {
        let slack = 1.0
        if expectedSeconds > 0 && reached.withLock({ $0 }) + slack < expectedSeconds {
            throw MediaError(
                .corrupt, path: source,
                String(
                    format: "ends at %.3fs but the file declares %.3fs (truncated?)", reached.withLock { $0 },
                    expectedSeconds))
        }
    }

    var report: ExportReport {
        var r = ExportReport(
            source: "", output: "", fileType: "", preset: nil, passthrough: true, timeRange: nil,
            duration: MediaTime(seconds: reached.withLock { $0 }, preferredTimescale: 1_000_000),
            video: nil, audio: nil, bytes: 0, wallSeconds: 0, framesPerSecond: 0)
        for leg in legs {
            let c = leg.source.parameters
            let codec = String(cString: avcodec_get_name(c.codec_id))
            if leg.output.mediaType == .video {
                r.video = .init(
                    codec: codec, width: Int(c.width), height: Int(c.height),
                    pixelFormat: PixelFormat(AVPixelFormat(rawValue: c.format)).rawValue,
                    frames: leg.input.packetCount, rotation: leg.source.rotation.degrees, processor: "none")
            } else {
                r.audioTracks.append(
                    .init(
                        codec: codec, sampleRate: Int(c.sample_rate), channels: Int(c.ch_layout.nb_channels),
                        packets: leg.input.packetCount, sourceTrack: leg.output.trackID,
                        language: leg.source.language))
            }
        }
        r.audio = r.audioTracks.first
        r.subtitleTracks = subtitles.map {
            .init(sourceTrack: $0.trackID, events: $0.events, converted: $0.isConverted)
        }
        return r
    }
}
