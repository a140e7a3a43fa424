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
    static func make(
        reader: AssetReader, writer: AssetWriter, tracks: ExportTracks
    ) throws(MediaError) -> PassthroughPipeline {
        var legs: [Leg] = []
        for id in [tracks.video].compactMap({ $0 }) + tracks.audio {
            let stream = reader.input.streams[id]
            let output = try reader.addOutput(trackID: id, decode: false)
            let input = try writer.addPassthroughInput(
                parameters: stream.pointee.codecpar,
                timeBase: stream.pointee.time_base,
                frameRate: stream.pointee.avg_frame_rate, sideDataFrom: stream)
            legs.append(Leg(output: output, input: input, source: StreamDescription(stream: stream)))
        }
        guard !legs.isEmpty else {
            throw MediaError(.invalidArgument, path: reader.path, "has no video or audio track to copy")
        }
        return PassthroughPipeline(legs: legs, subtitles: try tracks.addCarried(reader: reader, writer: writer))
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
            let seconds = Double(p.pointee.pts) * Double(tb.num) / Double(tb.den)
            try leg.input.append(packet)
            if isVideo || legs.count == 1 {
                counter.advance(to: seconds)
                let end = seconds + Double(p.pointee.duration) * Double(tb.num) / Double(tb.den)
                reached.withLock { $0 = max($0, end) }
            }
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
