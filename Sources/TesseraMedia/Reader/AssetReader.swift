import CFFmpeg
import TesseraAV
import TesseraCore

/// Reads chosen tracks of a file over a time range, as AVAssetReader: decoded frames, or compressed
/// packets for passthrough.
///
/// ```
///                      ┌─▶ packets ─▶ [decode thread] ─▶ frames ─▶ videoOutput.copyNextFrame()
///  [demux thread] ─────┼─▶ packets ─▶ [decode thread] ─▶ frames ─▶ audioOutput.copyNextFrame()
///                      └─▶ packets ───────────────────────────────▶ passthrough.copyNextPacket()
/// ```
///
/// Frame-accurate: reading starts at the keyframe at or before the range and the frames before it
/// are decoded and dropped. The frame on screen at the range start is kept and moved to the start;
/// audio is cut to the sample. Output timestamps are in each track's time base with the range start
/// at 0. Every queue holds at most 8 items, so a slow consumer slows the demuxer.
public final class AssetReader: @unchecked Sendable {
    public let path: String
    /// The range read, on the asset's timeline (0 = the container's start time); nil reads everything.
    /// Set it before adding outputs.
    public var timeRange: TimeRange?
    let input: InputFile
    private var outputs: [AssetReaderTrackOutput] = []
    private var threads: [StageThread] = []
    let failure = PipelineFailure()
    private var started = false

    /// Opens the file. - Throws: the `InputFile` errors (`.notFound`, `.emptyFile`, `.notMedia`, `.corrupt`).
    public init(path: String, timeRange: TimeRange? = nil) throws(MediaError) {
        self.path = path
        self.timeRange = timeRange
        input = try InputFile(path: path)
    }

    /// The asset's duration on its own timeline (container duration), exact to the microsecond.
    public var duration: MediaTime { MediaTime(value: input.duration, timescale: 1_000_000) }

    /// Index of the best video or audio stream, if the file has one.
    public var videoTrackID: Int? { input.bestStream(AVMEDIA_TYPE_VIDEO) }
    public var audioTrackID: Int? { input.bestStream(AVMEDIA_TYPE_AUDIO) }

    /// Every audio track, in file order (cover-art and other attached pictures are video, not audio).
    public var audioTrackIDs: [Int] {
        input.streams.filter { $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO }.map {
            Int($0.pointee.index)
        }
    }

    /// Adds an output of decoded frames (`decode: true`) or of compressed packets for a track.
    /// A `sparse` output (subtitles) gets the packets read while other outputs need reading, but does not
    /// keep the reader going on its own: a short range of a long file is not read to its end for a
    /// subtitle track that may have nothing more to say.
    /// - Throws: `.invalidArgument` after `startReading()` or for a track that does not exist;
    ///   `.unsupported` when the track's codec has no decoder.
    /// A retimed export's video frames it shows, by pts (`SegmentRetime.framesShown`): a video output's
    /// decoder skips the other frames no frame refers to. Set before the outputs are added.
    var shownVideoFrames: Set<Int64>?

    public func addOutput(
        trackID: Int, decode: Bool = true, sparse: Bool = false
    ) throws(MediaError)
        -> AssetReaderTrackOutput
    {
        guard !started else { throw MediaError(.invalidArgument, path: path, "outputs must be added before reading") }
        guard trackID >= 0, trackID < input.streams.count else {
            throw MediaError(.invalidArgument, path: path, "no track \(trackID)")
        }
        let stream = input.streams[trackID]
        let decoder = decode ? try Decoder(stream: stream, path: path) : nil
        let output = AssetReaderTrackOutput(
            stream: stream, decoder: decoder, range: ticks(for: stream),
            failure: failure, sparse: sparse)
        if decode, output.mediaType == .video { output.shown = shownVideoFrames }
        outputs.append(output)
        return output
    }

    /// Starts the demux and decode threads.
    public func startReading() throws(MediaError) {
        guard !started else { return }
        started = true
        if let range = timeRange, range.start.value > 0 {
            let start = TickMath.ceilTicks(range.start, tessera_AV_TIME_BASE_Q())
            try input.seek(toKeyframeAtOrBefore: start + input.startTime)
        }
        for output in outputs { if let thread = output.startDecoding() { threads.append(thread) } }
        let outputs = self.outputs, input = self.input
        threads.append(
            StageThread("tessera.demux", failure: failure) { () throws(MediaError) in
                try Self.demux(input, into: outputs)
            })
    }

    /// Stops reading; outputs then return nil.
    public func cancelReading() {
        failure.record(MediaError(.cancelled, path: path, "reading cancelled"))
    }

    /// Waits for the reader's threads to end (after the outputs are drained or the reader is cancelled).
    func waitUntilFinished() { threads.forEach { $0.wait() } }

    /// Demuxes packets to the outputs until every output that is not sparse has what it needs (every
    /// output, when all are sparse) or the file ends.
    private static func demux(_ input: InputFile, into outputs: [AssetReaderTrackOutput]) throws(MediaError) {
        var byStream: [Int: AssetReaderTrackOutput] = [:]
        for output in outputs { byStream[output.trackID] = output }
        var open = Set(byStream.keys)
        let allSparse = outputs.allSatisfy(\.sparse)
        var dense = Set(outputs.filter { allSparse || !$0.sparse }.map(\.trackID))
        defer { outputs.forEach { $0.packets.close() } }
        while !dense.isEmpty {
            let packet = try Packet()
            guard try input.read(into: packet) else { return }
            guard let output = byStream[packet.streamIndex], open.contains(packet.streamIndex) else { continue }
            if !output.packets.push(packet) {
                open.remove(packet.streamIndex)
                dense.remove(packet.streamIndex)
            }
        }
    }

    /// The range as ticks of a stream's time base, including the container's start offset.
    func ticks(for stream: UnsafeMutablePointer<AVStream>) -> TickRange {
        let tb = stream.pointee.time_base
        let offset = av_rescale_q(input.startTime, tessera_AV_TIME_BASE_Q(), tb)
        // MP4/QuickTime audio ends where its track says (the edit list trims the encoder's padding off
        // the last AAC frame, which the decoder still outputs whole): the output's audio then ends exactly
        // where the source's does, not up to a frame later. Other containers' durations can be estimates
        // (MPEG-TS) or carry the trim in the packets (Matroska's DiscardPadding), so they are not used.
        let st = stream.pointee, none = tessera_AV_NOPTS_VALUE()
        var declaredEnd = Int64.max
        if input.formatName.hasPrefix("mov,"), st.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO,
            st.start_time != none, st.duration != none,
            st.duration > 0, case let (end, overflow) = st.start_time.addingReportingOverflow(st.duration), !overflow
        {
            declaredEnd = end
        }
        guard let range = timeRange else { return TickRange(start: offset, end: declaredEnd, offset: offset) }
        // A frame at tick t is inside [start, end) when t·tb ≥ start, i.e. t ≥ ⌈start / tb⌉.
        let start = TickMath.ceilTicks(range.start, tb) + offset
        let end =
            range.duration.flags.contains(.positiveInfinity)
            ? Int64.max : TickMath.ceilTicks(range.start, plus: range.duration, tb) + offset
        return TickRange(start: start, end: min(end, declaredEnd), offset: offset)
    }
}

/// A time range in one stream's ticks: frames at `start ..< end` are read; `offset` is the tick of
/// the asset's time zero.
struct TickRange: Sendable {
    let start: Int64
    let end: Int64
    let offset: Int64

    /// `t` with the range start at 0. A file's timestamps are outside values: one so far from the start
    /// that the difference does not fit 64 bits is damage, not a trap.
    func relative(_ t: Int64) throws(MediaError) -> Int64 {
        let (value, overflow) = t.subtractingReportingOverflow(start)
        guard !overflow else { throw Self.outOfRange(t) }
        return value
    }

    /// `t + duration`, or a `.corrupt` error when a file's values overflow.
    static func end(_ t: Int64, plus duration: Int64) throws(MediaError) -> Int64 {
        let (value, overflow) = t.addingReportingOverflow(duration)
        guard !overflow else { throw outOfRange(t) }
        return value
    }

    private static func outOfRange(_ t: Int64) -> MediaError {
        MediaError(.corrupt, "a timestamp (\(t)) lies too far from the rest of the file to be read")
    }
}
