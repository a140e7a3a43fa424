import CFFmpeg
import Foundation
import TesseraAV
import TesseraCompute
import TesseraCore

/// The segmented path of an export on one machine: the farm's pipeline with threads for workers.
///
/// ```
///  [demux thread] ─ tasks (in order, ≤ N waiting) ─▶ [worker 1…N] ─ results ─┐
///  AssetReader audio ─▶ [audio thread] ─▶ audio input ────────────────────────┼─▶ AssetWriter
///  calling thread: stitch results in segment order into the video input ◀─────┘
/// ```
///
/// The video is planned with `SegmentPlanner`, each segment transcoded independently, and the
/// packets concatenated; the audio is decoded and encoded once over the whole range.
final class SegmentedExport: @unchecked Sendable {
    struct Configuration {
        var settings: OutputSettings
        var fileType: FileType
        var segmentSeconds: Double
        var parallel: Int
        var makeProcessor: @Sendable (ProcessingSpec, Frame) throws(MediaError) -> any FrameProcessor
    }

    private let reader: AssetReader
    private let config: Configuration
    private let failure: PipelineFailure
    private let done = ProgressCounter()
    private let results = ResultBoard()
    private(set) var segmentCount = 0
    private(set) var processorName = "none"
    private(set) var audioPlan: TranscodePlan?
    /// The presentation time of every output frame, from the plan.
    private(set) var expectedTimes: [MediaTime] = []
    private var videoInput: AssetWriterInput?
    private var videoEnd: Double = 0
    private var rotation = Rotation.none
    private var codec = VideoCodec.h264

    init(reader: AssetReader, configuration: Configuration) {
        self.reader = reader
        config = configuration
        failure = reader.failure
        failure.watchCancel { [results] in results.cancel() }
    }

    /// Plans, transcodes and stitches; `makeWriter` is called once the first segment shows the codec
    /// parameters. Returns the writer, finished.
    func run(makeWriter: () throws(MediaError) -> AssetWriter,
             progress: (ExportProgress) -> Void, total: Double, started: Date) throws(MediaError) -> AssetWriter {
        guard let vs = config.settings.video, let videoID = reader.videoTrackID else {
            throw MediaError(.invalidArgument, path: reader.path, "segmenting needs a video track to cut")
        }
        codec = vs.codec
        let stream = reader.input.streams[videoID]
        let source = StreamDescription(stream: stream)
        rotation = source.rotation
        let encoding = try VideoEncoding(vs, source: source)
        let range = reader.ticks(for: stream)
        let tb = source.timeBase
        let index = try VideoPacketIndex.build(try InputFile(path: reader.path), trackID: videoID)
        let target = max(1, Int64(config.segmentSeconds * Double(tb.den) / Double(tb.num)))
        let planned = SegmentPlanner.plan(index, start: range.start, end: range.end, targetTicks: target)
        let plan = planned.segments
        expectedTimes = planned.outputTimes.map { TickMath.time($0, tb) }
        guard !plan.isEmpty else { throw MediaError(.invalidArgument, path: reader.path, "the range holds no video frame") }
        segmentCount = plan.count
        let lastEnd: Int64? = range.end == Int64.max ? nil : range.end - range.start
        let parameters = try CodecParameters(copying: stream.pointee.codecpar)

        // Producer: cut the packets into tasks; workers: transcode them.
        let tasks = BoundedQueue<SegmentTask>(capacity: max(1, config.parallel))
        failure.watch(tasks)
        var stages = [StageThread("tessera.segments.demux", failure: failure) { [self] () throws(MediaError) in
            defer { tasks.close() }
            try produceTasks(plan, videoID: videoID, parameters: parameters, timeBase: tb, settings: vs,
                             encoding: encoding, lastEnd: lastEnd, into: tasks)
        }]
        let makeProcessor = config.makeProcessor
        for n in 0..<max(1, config.parallel) {
            stages.append(StageThread("tessera.segments.worker\(n)", failure: failure) { [results] () throws(MediaError) in
                while let task = tasks.pop() {
                    let result = try SegmentTranscoder.run(task, makeProcessor: makeProcessor)
                    results.post(result)
                }
            })
        }

        // Stitch in order; the writer can only be made once segment 0 shows the encoder's parameters.
        guard let first = results.take(0) else { throw waitFailure(stages) }
        let writer = try makeWriter()
        let input = try writer.addPassthroughInput(parameters: first.parameters.pointer, timeBase: tb,
                                                   sideDataFrom: stream)
        videoInput = input
        var audioSettings = config.settings
        audioSettings.video = nil
        if audioSettings.audio != nil, reader.audioTrackID != nil {
            audioPlan = try TranscodePlan.make(reader: reader, writer: writer, settings: audioSettings,
                                               fileType: config.fileType, config.makeProcessor)
        }
        try writer.startWriting()
        try reader.startReading()
        stages += audioPlan?.start(failure: failure) ?? []
        processorName = first.processor

        let stitcher = SegmentStitcher(reference: first.parameters, timeBase: tb, path: writer.outputPath)
        var next: SegmentResult? = first
        for i in 0..<plan.count {
            if next == nil { next = results.take(i) }
            guard let result = next else { throw waitFailure(stages) }
            next = nil
            try stitcher.append(result, to: input)
            done.advance(frames: result.frames, to: stitcher.endSeconds)
            progress(ExportProgress(frames: done.snapshot.frames, seconds: stitcher.endSeconds, totalSeconds: total,
                                    elapsedSeconds: Date().timeIntervalSince(started)))
        }
        videoEnd = stitcher.endSeconds
        for stage in stages { stage.wait() }
        try failure.check()
        return writer
    }

    /// Reads the video packets once, in decode order, handing each segment its packets as soon as
    /// the last one it needs has been read (segments can share packets past a keyframe).
    private func produceTasks(_ plan: [SegmentSpec], videoID: Int, parameters: CodecParameters, timeBase: AVRational,
                              settings: VideoSettings, encoding: VideoEncoding, lastEnd: Int64?,
                              into tasks: BoundedQueue<SegmentTask>) throws(MediaError) {
        let input = try InputFile(path: reader.path)
        var buffer: [EncodedPacket] = []
        var bufferStart = plan[0].decodePackets.lowerBound
        var decodeIndex = 0
        var nextSegment = 0
        let packet = try Packet()
        while nextSegment < plan.count, try input.read(into: packet) {
            defer { av_packet_unref(packet.pointer) }
            guard packet.streamIndex == videoID else { continue }
            if decodeIndex >= bufferStart { buffer.append(EncodedPacket(packet)) }
            decodeIndex += 1
            while nextSegment < plan.count, plan[nextSegment].decodePackets.upperBound <= decodeIndex {
                let spec = plan[nextSegment]
                let slice = Array(buffer[(spec.decodePackets.lowerBound - bufferStart)..<(spec.decodePackets.upperBound - bufferStart)])
                let isLast = nextSegment == plan.count - 1
                let task = SegmentTask(spec: spec, source: parameters, sourceTimeBase: timeBase, packets: slice,
                                       settings: settings, encoderInput: encoding.encoderInput,
                                       processing: encoding.processing,
                                       endTick: isLast ? lastEnd : spec.timeMap.output(spec.presentationRange.upperBound),
                                       sourcePath: reader.path, threads: threadsPerSegment)
                guard tasks.push(task) else { return }
                nextSegment += 1
                // Drop packets no later segment needs.
                if nextSegment < plan.count {
                    let keep = plan[nextSegment].decodePackets.lowerBound
                    if keep > bufferStart {
                        buffer.removeFirst(min(buffer.count, keep - bufferStart))
                        bufferStart = keep
                    }
                }
            }
        }
        guard nextSegment == plan.count else {
            throw MediaError(.corrupt, path: reader.path, "the file ended before segment \(nextSegment)'s packets")
        }
    }

    /// Cores shared among the segments in flight: several codecs each spawning a thread per core would
    /// oversubscribe the machine, and frame threading costs CPU that parallel segments do not need.
    private var threadsPerSegment: Int {
        max(1, ProcessInfo.processInfo.activeProcessorCount / max(1, config.parallel))
    }

    private func waitFailure(_ stages: [StageThread]) -> MediaError {
        for stage in stages { stage.wait() }
        return failure.error ?? MediaError(.ffmpeg, path: reader.path, "segment workers stopped without a result")
    }

    var report: ExportReport {
        var r = audioPlan?.report ?? ExportReport(source: "", output: "", fileType: "", preset: nil, passthrough: false,
                                                  timeRange: nil, duration: .zero, video: nil, audio: nil, bytes: 0,
                                                  wallSeconds: 0, framesPerSecond: 0)
        if let input = videoInput {
            let c = input.stream.pointee.codecpar.pointee
            r.video = .init(codec: codec.rawValue, width: Int(c.width), height: Int(c.height),
                            pixelFormat: PixelFormat(AVPixelFormat(rawValue: c.format)).rawValue,
                            frames: input.packetCount, rotation: rotation.degrees, processor: processorName)
        }
        r.duration = MediaTime(value: Int64((videoEnd * 1_000_000).rounded()), timescale: 1_000_000)
        r.segments = segmentCount
        return r
    }

    func progress(total: Double, elapsed: Double) -> ExportProgress {
        let s = done.snapshot
        return ExportProgress(frames: s.frames, seconds: s.seconds, totalSeconds: total, elapsedSeconds: elapsed)
    }
}

/// Finished segments, waiting to be stitched in order.
final class ResultBoard: @unchecked Sendable {
    private var results: [Int: SegmentResult] = [:]
    private var cancelled = false
    private let condition = NSCondition()

    func post(_ result: SegmentResult) {
        condition.withLock {
            results[result.index] = result
            condition.broadcast()
        }
    }

    /// Waits for segment `index`; nil if the job was cancelled or failed first.
    func take(_ index: Int) -> SegmentResult? {
        condition.lock()
        defer { condition.unlock() }
        while results[index] == nil && !cancelled { condition.wait() }
        return results.removeValue(forKey: index)
    }

    func cancel() {
        condition.withLock {
            cancelled = true
            condition.broadcast()
        }
    }
}
