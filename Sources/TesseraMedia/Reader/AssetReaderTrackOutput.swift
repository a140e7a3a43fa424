import CFFmpeg
import TesseraAV
import TesseraCore

/// One track's output from an `AssetReader`, as AVAssetReaderTrackOutput: decoded frames
/// (`copyNextFrame()`) or, for passthrough, compressed packets (`copyNextPacket()`).
///
/// Decoded video frames carry `pts` in `timeBase` ticks with the range start at 0. Decoded audio frames
/// carry `pts` in samples (`timeBase` = 1/sample rate) with the range start at 0. Passthrough packets
/// keep the stream's own timestamps.
public final class AssetReaderTrackOutput: @unchecked Sendable {
    public let trackID: Int
    public let mediaType: MediaKind
    /// The time base of the `pts` of what this output returns.
    public let timeBase: AVRational
    /// The stream's codec parameters (for a passthrough writer input).
    public let codecParameters: UnsafeMutablePointer<AVCodecParameters>
    /// The source stream's time base.
    public let streamTimeBase: AVRational

    /// Eight packets, or 32 MB of them (a 4K ProRes 4444 frame is about 10 MB).
    let packets = BoundedQueue<Packet>(capacity: 8, maxBytes: 32 << 20) { $0.size }
    private let frames = BoundedQueue<Frame>(capacity: BoundedQueue<Frame>.frameCapacity)
    private let decoder: Decoder?
    let range: TickRange
    /// Does not keep the reader reading on its own (see `AssetReader.addOutput`).
    let sparse: Bool
    private let failure: PipelineFailure
    private let sampleRate: Int32
    /// The frames (by pts) a retimed export shows; the decoder skips the others no frame refers to.
    var shown: Set<Int64>?

    public enum MediaKind: Sendable { case video, audio, other }

    init(
        stream: UnsafeMutablePointer<AVStream>, decoder: Decoder?, range: TickRange, failure: PipelineFailure,
        sparse: Bool = false
    ) {
        self.sparse = sparse
        trackID = Int(stream.pointee.index)
        let parameters = stream.pointee.codecpar!
        codecParameters = parameters
        streamTimeBase = stream.pointee.time_base
        sampleRate = parameters.pointee.sample_rate
        switch parameters.pointee.codec_type {
        case AVMEDIA_TYPE_VIDEO: mediaType = .video
        case AVMEDIA_TYPE_AUDIO: mediaType = .audio
        default: mediaType = .other
        }
        timeBase =
            decoder != nil && mediaType == .audio
            ? AVRational(num: 1, den: parameters.pointee.sample_rate) : stream.pointee.time_base
        self.decoder = decoder
        self.range = range
        self.failure = failure
        failure.watch(packets)
        failure.watch(frames)
    }

    /// The decoder's context once decoding has started (pixel format, colour, channel layout).
    public var decoderContext: UnsafeMutablePointer<AVCodecContext>? { decoder?.context }

    /// The next decoded frame, waiting for it; nil at the end of the range.
    /// - Throws: the reader's first error (damaged data, a failed read), or `.cancelled`.
    public func copyNextFrame() throws(MediaError) -> Frame? {
        if let frame = frames.pop() { return frame }
        try failure.check()
        return nil
    }

    /// The next compressed packet of a passthrough output; nil at the end of the file.
    public func copyNextPacket() throws(MediaError) -> Packet? {
        if let packet = packets.pop() { return packet }
        try failure.check()
        return nil
    }

    /// Tells the reader this output needs nothing more (a passthrough consumer reached its range end).
    public func finish() { packets.cancel() }

    /// Starts the decode thread (nil for passthrough outputs).
    func startDecoding() -> StageThread? {
        guard let decoder else { return nil }
        let kind = mediaType
        return StageThread("tessera.decode.\(trackID)", failure: failure) { [self] () throws(MediaError) in
            defer { frames.close() }
            var gate =
                kind == .video
                ? FrameGate.video(VideoGate(range: range))
                : .audio(
                    AudioGate(
                        range: range, streamTimeBase: streamTimeBase, sampleRate: sampleRate))
            let emit: (Frame) -> Bool = { [frames] in frames.push($0) }
            var more = true
            let shown = self.shown
            while more, let packet = packets.pop() {
                if let shown {
                    decoder.context.pointee.skip_frame =
                        shown.contains(packet.pointer.pointee.pts) ? AVDISCARD_DEFAULT : AVDISCARD_NONREF
                }
                more = try decoder.decode(packet) { (frame) throws(MediaError) in try gate.accept(frame, emit) }
            }
            if more {
                more = try decoder.decode(nil) { (frame) throws(MediaError) in try gate.accept(frame, emit) }
            }
            packets.cancel()
            if more { _ = try gate.finish(emit) }
        }
    }
}

/// Decides which decoded frames fall inside the range and retimes them to start at 0.
enum FrameGate {
    case video(VideoGate)
    case audio(AudioGate)

    /// Returns false once the range is complete (or the consumer stopped).
    mutating func accept(_ frame: Frame, _ emit: (Frame) -> Bool) throws(MediaError) -> Bool {
        switch self {
        case .video(var g):
            let r = try g.accept(frame, emit)
            self = .video(g)
            return r
        case .audio(var g):
            let r = try g.accept(frame, emit)
            self = .audio(g)
            return r
        }
    }

    mutating func finish(_ emit: (Frame) -> Bool) throws(MediaError) -> Bool {
        switch self {
        case .video(var g):
            let r = try g.finish(emit)
            self = .video(g)
            return r
        case .audio: return true
        }
    }
}

/// Video: frames in [start, end) pass at `pts − start`; the frame on screen at `start` (the last one
/// before it) is kept at 0 when no frame sits exactly on the start.
struct VideoGate {
    let range: TickRange
    private var held: Frame?
    private var emitted = false

    init(range: TickRange) { self.range = range }

    mutating func accept(_ frame: Frame, _ emit: (Frame) -> Bool) throws(MediaError) -> Bool {
        let pts = frame.pts
        if pts < range.start {
            held = frame
            return true
        }
        if pts >= range.end { return false }
        if !emitted, let first = held, pts > range.start {
            first.pts = 0
            guard emit(first) else { return false }
        }
        held = nil
        emitted = true
        frame.pts = try range.relative(pts)
        return emit(frame)
    }

    /// The range started after the last frame: that last frame is what is on screen at the start.
    mutating func finish(_ emit: (Frame) -> Bool) throws(MediaError) -> Bool {
        guard !emitted, let last = held else { return true }
        let duration = last.pointer.pointee.pkt_duration
        guard duration > 0, try TickRange.end(last.pts, plus: duration) > range.start else { return true }
        last.pts = 0
        held = nil
        return emit(last)
    }
}

/// Audio: cut to the sample at both ends; `pts` becomes a sample count from the range start. A gap in the
/// source's timestamps (a track that starts after the range does, a fragment that skips time) stays in
/// `pts`, for the consumer to fill with silence on the source's timeline; smaller differences are
/// timestamp jitter, and the samples are counted on.
struct AudioGate {
    let startSample: Int64
    let endSample: Int64
    let streamTimeBase: AVRational
    let sampleRate: Int32
    private var nextSample: Int64?

    init(range: TickRange, streamTimeBase: AVRational, sampleRate: Int32) {
        let samples = AVRational(num: 1, den: sampleRate)
        startSample = av_rescale_q(range.start, streamTimeBase, samples)
        endSample = range.end == Int64.max ? Int64.max : av_rescale_q(range.end, streamTimeBase, samples)
        self.streamTimeBase = streamTimeBase
        self.sampleRate = sampleRate
    }

    mutating func accept(_ frame: Frame, _ emit: (Frame) -> Bool) throws(MediaError) -> Bool {
        let count = Int64(frame.sampleCount)
        // Timestamps can jitter by a tick in coarse time bases (Matroska's 1 ms): once started, count samples,
        // unless the frame's own time is later by more than jitter (2 ms, or a quarter of the frame).
        let own =
            frame.pts == tessera_AV_NOPTS_VALUE()
            ? nil : av_rescale_q(frame.pts, streamTimeBase, AVRational(num: 1, den: sampleRate))
        let first: Int64
        if let next = nextSample {
            let jitter = max(Int64(sampleRate) / 500, count / 4)
            first =
                own.map {
                    let (gap, overflow) = $0.subtractingReportingOverflow(next)
                    return !overflow && gap > jitter ? $0 : next
                } ?? next
        } else {
            first = own ?? startSample
        }
        let last = try TickRange.end(first, plus: count)
        nextSample = last
        let from = max(first, startSample), to = min(last, endSample)
        if to <= from { return last < endSample }
        var out = frame
        if from > first || to < last {
            out = try Frame()
            let o = out.pointer
            o.pointee.format = frame.pointer.pointee.format
            o.pointee.sample_rate = frame.pointer.pointee.sample_rate
            try ff(
                av_channel_layout_copy(&o.pointee.ch_layout, &frame.pointer.pointee.ch_layout), "copy channel layout")
            o.pointee.nb_samples = Int32(to - from)
            try ff(av_frame_get_buffer(o, 0), "allocate audio samples")
            try ff(
                av_samples_copy(
                    o.pointee.extended_data, frame.pointer.pointee.extended_data, 0,
                    Int32(from - first), Int32(to - from), o.pointee.ch_layout.nb_channels,
                    AVSampleFormat(rawValue: o.pointee.format)), "cut audio samples")
        }
        let (relative, overflow) = from.subtractingReportingOverflow(startSample)
        guard !overflow else {
            throw MediaError(.corrupt, "an audio timestamp (\(from)) lies too far from the range start")
        }
        out.pts = relative
        guard emit(out) else { return false }
        return to < endSample
    }
}
