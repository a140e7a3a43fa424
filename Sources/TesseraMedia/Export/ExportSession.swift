import CFFmpeg
import Foundation
import Synchronization
import TesseraAV
import TesseraCompute
import TesseraCore

/// Transcodes one file to another, as AVAssetExportSession: a source, a preset or custom settings,
/// an optional time range, an output file.
///
/// ```
///  AssetReader                     process thread           encode thread          AssetWriter
///  [demux]─▶[video decode]─frames─▶ FrameProcessor ─queue(8)─▶ video input ─packets─┐
///        └─▶[audio decode]─frames────────────── audio thread ─▶ audio input ─packets─┴▶ mux ─▶ file
/// ```
///
/// `export()` blocks until the file is written; call it from a thread of your own (the CLI's main
/// thread, a worker thread), never from Swift's cooperative pool.
public final class ExportSession: @unchecked Sendable {
    public let sourcePath: String
    public let outputPath: String
    public var settings: OutputSettings
    /// The preset the settings came from, for reports.
    public var presetName: String?
    /// On the source's timeline (0 = the container's start); nil exports everything.
    public var timeRange: TimeRange?
    /// Replace an existing output instead of refusing.
    public var overwrite = false
    /// Which colour/scale backend runs the job: `auto` calibrates both on the first frame that needs
    /// processing and keeps the faster.
    public var backend: ProcessingBackend = .auto
    /// Why the backend was chosen, once the first frame needing processing has been seen.
    public var backendChoice: BackendChoice? { selectorBox.withLock { $0 }?.choice }
    private let selectorBox = Mutex<BackendSelector?>(nil)
    /// Cut the video into segments about this many seconds long, transcode them on `parallel`
    /// threads and stitch them (the farm's path on one machine); nil transcodes in one pass.
    public var segmentDuration: Double?
    /// Segments transcoded at once on the segmented path.
    public var parallel = 2
    /// Threads an AAC track's encode may use (`ChunkedAudioEncoder`) where it is the job's critical path: a
    /// segmented export's audio, encoded beside the segments, and an export with no video. A one-pass video
    /// export encodes its audio on one thread beside the video's.
    public var audioThreads = 1
    /// Who transcodes the segments on the segmented path: nil runs them on `parallel` local threads; a
    /// farm coordinator passes its dispatcher. Called once per export with the job's segment plan.
    public var makeSegmentExecutor: (@Sendable (_ plan: [SegmentSpec]) throws(MediaError) -> any SegmentExecutor)?
    /// Called from the thread running `export()` as the job moves through its phases.
    public var phaseHandler: (@Sendable (ExportPhase) -> Void)?
    /// Verify a one-pass transcode's output before it is put in place (segmented exports always are).
    public var verifyOutput = false
    /// How a segmented export proves its video: `.decode` has every segment decoded where it was
    /// encoded; `.timing` checks packets and timestamps only (see `VerificationLevel`).
    public var verificationLevel = VerificationLevel.decode
    public var targetQuality: TargetQuality?
    public var deinterlace = Deinterlace.auto
    public var hdr = HDRHandling.auto
    /// Deliver a streaming package to the folder `outputPath` instead of one file: the video's renditions
    /// and every audio track as CMAF segments, with HLS and/or DASH manifests.
    public var package: PackageRequest?
    /// Called a few times a second from the thread running `export()`.
    public var progressHandler: (@Sendable (ExportProgress) -> Void)?

    private let cancelLock = NSLock()
    /// Called once the source's video has been indexed (before any segment is encoded on the segmented
    /// path; at verification on the one-pass path) with how much later each source audio track (by track
    /// number) ends than the video in the exported range: the gap the verifier holds the output to.
    public var audioEndGapsHandler: (@Sendable ([Int: MediaTime]) -> Void)?
    /// Told of the output file's writer as soon as it is made (before its header, on the segmented path):
    /// what tests watch the writer's early packets through.
    var writerMade: (@Sendable (AssetWriter) -> Void)?
    /// The tracks the export running writes, and what it does not carry (for its report).
    private var tracks = ExportTracks()
    private var cancelled = false
    private var activeFailure: PipelineFailure?
    /// Retime the export (scaled ranges, ramps, freezes) to a constant frame rate, the audio stretched
    /// along the same map, in one pass or segmented; or with passthrough settings, every frame kept with
    /// its time mapped (one pass).
    public var retiming: Retiming?

    public init(sourcePath: String, outputPath: String, settings: OutputSettings) {
        self.sourcePath = sourcePath
        self.outputPath = outputPath
        self.settings = settings
    }

    public convenience init(sourcePath: String, outputPath: String, preset: ExportPreset) {
        self.init(sourcePath: sourcePath, outputPath: outputPath, settings: preset.settings)
        presetName = preset.rawValue
    }

    /// Stops a running export; it throws `.cancelled` and leaves no output.
    public func cancel() {
        let failure: PipelineFailure? = cancelLock.withLock {
            cancelled = true
            return activeFailure
        }
        failure?.record(MediaError(.cancelled, path: outputPath, "export cancelled"))
    }

    /// Runs the export.
    ///
    /// - Throws: the reader's errors for the source (`.notFound`, `.emptyFile`, `.notMedia`, `.corrupt`,
    ///   `.unsupported`); `.outputExists`/`.outputLocation` for the destination; `.invalidArgument` for a
    ///   time range outside the asset or settings the container cannot hold; `.cancelled`. On any error
    ///   nothing is left at `outputPath`.
    public func export() throws(MediaError) -> ExportReport {
        let started = Date()
        let fileType = try resolveFileType()
        guard URL(fileURLWithPath: sourcePath).standardized.path != URL(fileURLWithPath: outputPath).standardized.path
        else { throw MediaError(.invalidArgument, path: outputPath, "output would overwrite the source") }

        let selector = BackendSelector(requested: backend)
        selectorBox.withLock { $0 = selector }
        let reader = try AssetReader(path: sourcePath)
        let assetDuration = reader.duration
        let range = try resolveRange(assetDuration: assetDuration)
        reader.timeRange = range
        tracks = try ExportTracks.choose(reader, settings: settings, fileType: fileType, hdrHandling: hdr)
        let retime = try resolveRetime(reader, range: range, assetDuration: assetDuration)
        if retime != nil && settings.passthrough { tracks.dropAudioForPassthroughRetime(reader.input) }
        let failure = reader.failure
        cancelLock.lock()
        activeFailure = failure
        let cancelledEarly = cancelled
        cancelLock.unlock()
        if cancelledEarly { throw MediaError(.cancelled, path: outputPath, "export cancelled") }
        let makeWriter = { [self] () throws(MediaError) -> AssetWriter in
            let writer = try AssetWriter(
                outputPath: outputPath, fileType: fileType, overwrite: overwrite,
                optimizeForNetworkUse: settings.optimizeForNetworkUse)
            writer.metadata = Self.copyableMetadata(reader.input)
            writer.timecode = tracks.timecode
            writer.hdr = tracks.hdr
            writerMade?(writer)
            return writer
        }
        let total = retime?.map.outputDuration.seconds ?? range.map { $0.duration.seconds } ?? assetDuration.seconds
        if let targetQuality {
            do throws(JobRequestError) {
                try targetQuality.check(against: settings, field: "target quality")
            } catch {
                throw MediaError(.invalidArgument, path: sourcePath, error.description)
            }
        }
        let segmentSeconds =
            package?.segmentDuration ?? segmentDuration
            ?? (targetQuality == nil ? nil : TargetQuality.defaultSegmentSeconds)
        if package != nil {
            guard tracks.video != nil else {
                throw MediaError(.invalidArgument, path: sourcePath, "has no video track to package")
            }
            tracks.keepForPackage(reader.input.streams)
        }
        if let seconds = segmentSeconds, !settings.passthrough, settings.video != nil, tracks.video != nil {
            return try exportSegmented(
                reader: reader, fileType: fileType, range: range, seconds: seconds, retime: retime,
                total: total, started: started, makeWriter: makeWriter)
        }
        let writer = try makeWriter()
        // A retimed export decodes only the frames it shows, unless they are deinterlaced (each frame's
        // neighbours are read).
        let fieldOrder = tracks.video.flatMap {
            FieldOrder(reader.input.streams[$0].pointee.codecpar.pointee.field_order)
        }
        let deinterlaces = !settings.passthrough && settings.video != nil && deinterlace.filter(for: fieldOrder) != nil
        if let fieldOrder, fieldOrder.isInterlaced, deinterlace == .off, !settings.passthrough, settings.video != nil {
            tracks.notCarried.append(
                "the source is interlaced (\(fieldOrder.rawValue)) and --deinterlace off keeps its fields: the output "
                    + "is flagged progressive, and a vertical scale blends the fields")
        }
        if let retime, retime.frameTiming == .constant, !settings.passthrough, !deinterlaces {
            reader.shownVideoFrames = try shownFrames(reader, retime)
        }
        let verifies = verifyOutput && !settings.passthrough && settings.video != nil && fileType != .m4a
        let videoTimeBase =
            tracks.video.map { reader.input.streams[$0].pointee.time_base } ?? AVRational(num: 1, den: 1)

        let pipeline: ExportPipeline
        if settings.passthrough {
            pipeline = try PassthroughPipeline.make(reader: reader, writer: writer, tracks: tracks, retime: retime)
        } else {
            // A one-pass export that verifies decodes and measures its video as it is encoded: the
            // verifier then reads the packets only.
            pipeline = try TranscodePipeline.make(
                reader: reader, writer: writer, settings: settings, tracks: tracks, retime: retime,
                measureVideo: verifies, deinterlace: deinterlace,
                audioThreads: settings.video == nil || tracks.video == nil ? audioThreads : 1, selector.factory)
        }
        try writer.startWriting()
        try reader.startReading()
        pipeline.run(failure: failure, total: total, started: started, progress: progressHandler)
        reader.cancelReading()  // ends the demuxer if the pipeline stopped early; no-op error once done
        reader.waitUntilFinished()
        if let error = failure.error, error.kind != .cancelled || cancelLock.withLock({ cancelled }) {
            writer.cancelWriting()
            throw error
        }
        var verification: VerificationReport? = nil
        do throws(MediaError) {
            try pipeline.checkComplete(expectedSeconds: total, source: sourcePath)
            // A retimed export's frames are the time map's constant grid, or with passthrough timing the
            // source's frames at their mapped times; its audio ends with its video.
            let planned = verifies && retime?.frameTiming != .constant ? try plannedVideo(reader) : nil
            if let planned, retime == nil { audioEndGapsHandler?(planned.audioEndGaps) }
            try writer.finishWriting { (temporary) throws(MediaError) in
                if let retime, verifies {
                    let expected =
                        retime.frameTiming == .passthrough
                        ? try Self.mapped(planned?.outputTimes ?? [], retime, timeBase: videoTimeBase)
                        : retime.outputTimes
                    verification = try verify(
                        temporary, expected: expected, audioEndGaps: [:], videoDecoding: .byEncoder)
                } else if let planned {
                    verification = try verify(
                        temporary, expected: planned.outputTimes, audioEndGaps: planned.audioEndGaps,
                        videoDecoding: .byEncoder)
                }
            }
        } catch {
            writer.cancelWriting()
            throw error
        }
        progressHandler?(pipeline.progress(total: total, elapsed: Date().timeIntervalSince(started)))
        var report = finishReport(pipeline.report, fileType: fileType, range: range, started: started)
        report.verification = verification
        return report
    }

    private func exportSegmented(
        reader: AssetReader, fileType: FileType, range: TimeRange?, seconds: Double, retime: ExportRetime?,
        total: Double, started: Date,
        makeWriter: () throws(MediaError) -> AssetWriter
    ) throws(MediaError) -> ExportReport {
        guard seconds > 0, parallel > 0 else {
            throw MediaError(.invalidArgument, "segment duration and parallelism must be positive")
        }
        let segmented = SegmentedExport(
            reader: reader,
            configuration: .init(
                settings: settings, tracks: tracks, fileType: fileType, segmentSeconds: seconds, parallel: parallel,
                makeProcessor: selectorBox.withLock { $0 }!.factory, backend: backend, verification: verificationLevel,
                targetQuality: targetQuality, deinterlace: deinterlace,
                makeExecutor: makeSegmentExecutor,
                phase: phaseHandler ?? { _ in }, audioEndGaps: audioEndGapsHandler ?? { _ in }, retime: retime,
                package: package.map { .init(request: $0, outputPath: outputPath, overwrite: overwrite) },
                audioThreads: audioThreads))
        let handler = progressHandler
        let made: AssetWriter?
        do throws(MediaError) {
            made = try segmented.run(makeWriter: makeWriter, progress: { handler?($0) }, total: total, started: started)
        } catch {
            segmented.packageWriter?.cancel()
            throw error
        }
        reader.cancelReading()
        reader.waitUntilFinished()
        if let error = reader.failure.error, error.kind != .cancelled || cancelLock.withLock({ cancelled }) {
            made?.cancelWriting()
            segmented.packageWriter?.cancel()
            throw error
        }
        var verification: VerificationReport? = nil
        phaseHandler?(.stitching)
        if let packageWriter = segmented.packageWriter {
            let decoding: OutputVerifier.VideoDecoding = verificationLevel.decodesSegments ? .bySegments : .skipped
            let expected = segmented.expectedTimes
            let end = segmented.videoEndTime
            let package = try packageWriter.finish(segmentStarts: segmented.segmentStarts, videoEnd: end) {
                [phaseHandler] (temporary) throws(MediaError) in
                phaseHandler?(.verifying)
                verification = try verify(
                    temporary, expected: expected, audioEndGaps: nil, videoDecoding: decoding, cmafTrack: true)
            }
            var report = finishReport(segmented.report, fileType: fileType, range: range, started: started)
            report.verification = verification
            report.add(
                package, processors: segmented.renditionProcessors, quality: segmented.renditionQuality,
                targets: segmented.renditionTargets)
            report.bytes = ExportReport.bytes(under: outputPath)
            return report
        }
        guard let writer = made else { throw MediaError(.internal, "the segments were stitched without a writer") }
        try writer.finishWriting { [phaseHandler] (temporary) throws(MediaError) in
            phaseHandler?(.verifying)
            verification = try verify(
                temporary, expected: segmented.expectedTimes, audioEndGaps: segmented.sourceAudioEndGaps,
                videoDecoding: verificationLevel.decodesSegments ? .bySegments : .skipped)
        }
        var report = finishReport(segmented.report, fileType: fileType, range: range, started: started)
        report.verification = verification
        return report
    }

    /// The source frames a retimed one-pass export shows (`SegmentRetime.framesShown`), from an index of
    /// the video's packets (one pass over the file, no decoding); nil without a video track.
    private func shownFrames(_ reader: AssetReader, _ retime: ExportRetime) throws(MediaError) -> Set<Int64>? {
        guard let id = tracks.video else { return nil }
        let stream = reader.input.streams[id]
        let tb = stream.pointee.time_base
        let index = try VideoPacketIndex.build(try InputFile(indexing: reader.path), trackID: id)
        let timing = retime.segmentRetime(rangeStartTick: reader.ticks(for: stream).start)
        return timing.framesShown(
            ticks: index.entries.map(\.pts), timeBase: Rational(tb),
            instants: 0..<timing.frameCount)
    }

    /// Checks the finished temporary file against the expected frame times; throws when it fails.
    /// - Parameter gaps: how much later each exported audio track ends than the video; nil for a file
    ///   holding the video alone (a package's rendition).
    /// - Parameter cmafTrack: the file is a package's fragmented track (`durationsFromDecodeTimes`).
    private func verify(
        _ temporary: String, expected: [MediaTime], audioEndGaps gaps: [Int: MediaTime]?,
        videoDecoding: OutputVerifier.VideoDecoding = .verifier, cmafTrack: Bool = false
    )
        throws(MediaError) -> VerificationReport
    {
        var verifier = OutputVerifier(path: temporary)
        verifier.durationsFromDecodeTimes = cmafTrack
        verifier.expectation = .presentationTimes(expected)
        verifier.expectedStart = expected.first ?? .zero
        verifier.expectationSource = sourcePath
        verifier.expectedAudioEndGaps = gaps.map { g in tracks.audio.map { g[$0] ?? .zero } } ?? []
        verifier.videoDecoding = videoDecoding
        return try verifier.verifyPassing(outputPath: outputPath)
    }

    /// The retiming resolved against the source, or nil without one. What is not built yet is refused
    /// before any work, naming the option: audio, passthrough timing, segments.
    private func resolveRetime(
        _ reader: AssetReader, range: TimeRange?, assetDuration: MediaTime
    ) throws(MediaError) -> ExportRetime? {
        guard let retiming else { return nil }
        func refuse(_ message: String) -> MediaError { MediaError(.invalidArgument, path: sourcePath, message) }
        // Passthrough frame timing: every video packet once, its times mapped; audio cannot be stretched
        // without re-encoding it.
        guard !settings.passthrough || settings.audio == nil || tracks.audio.isEmpty else {
            throw refuse("passthrough retiming copies the video only; add --no-audio, or re-encode")
        }
        guard !settings.passthrough || (retiming.frameDuration == nil && retiming.selection == .hold) else {
            throw refuse("passthrough keeps every source frame; --frame-rate and --frame-selection need re-encoding")
        }
        // Passthrough timing (copied, or re-encoded with --frame-timing passthrough) is made in one pass.
        let passthroughTiming = settings.passthrough || retiming.frameTiming == .passthrough
        if passthroughTiming {
            if segmentDuration != nil {
                throw refuse("passthrough timing runs in one pass; leave out --segment-duration")
            }
            if targetQuality != nil {
                throw refuse("passthrough timing runs in one pass; a target quality is searched segment by segment")
            }
            if package != nil { throw refuse("passthrough timing runs in one pass; a streaming package is segmented") }
        }
        guard settings.video != nil || settings.passthrough, let video = tracks.video else {
            throw refuse("retiming needs a video track")
        }
        do throws(JobRequestError) {
            return try reader.resolve(
                retiming, videoTrack: video, range: range, assetDuration: assetDuration,
                passthrough: passthroughTiming)
        } catch {
            throw refuse("\(error)")
        }
    }

    /// A plain export's frame times (relative to the range start) where passthrough timing puts them: the
    /// tick where the map reaches each, a frame on the tick of the one before not shown.
    /// - Parameter timeBase: the source video's, which sets the output's ticks (`ExportRetime.timescale`).
    private static func mapped(
        _ times: [MediaTime], _ retime: ExportRetime, timeBase: AVRational
    ) throws(MediaError) -> [MediaTime] {
        let scale = ExportRetime.timescale(for: timeBase)
        var result: [MediaTime] = []
        for t in times {
            guard
                let tick = retime.outputTick(
                    relative: t.value, tb: AVRational(num: 1, den: t.timescale), timescale: scale)
            else {
                throw MediaError(.internal, "frame time \(t.seconds) s does not fit the time map")
            }
            if let last = result.last, tick <= last.value { continue }
            result.append(MediaTime(value: tick, timescale: Int32(clamping: scale)))
        }
        return result
    }

    /// The output frame times a one-pass export must produce (the planner's, as one segment), and the
    /// source's audio end gaps, from one pass over the source.
    private func plannedVideo(_ reader: AssetReader) throws(MediaError) -> AssetReader.VideoPlan? {
        guard reader.videoTrackID != nil else { return nil }
        return try reader.planVideo(segmentSeconds: nil)
    }

    private func finishReport(
        _ planReport: ExportReport, fileType: FileType, range: TimeRange?,
        started: Date
    ) -> ExportReport {
        let wall = Date().timeIntervalSince(started)
        let bytes = (try? FileManager.default.attributesOfItem(atPath: outputPath)[.size] as? Int) ?? 0
        var report = planReport
        report.source = sourcePath
        report.output = outputPath
        report.fileType = fileType.rawValue
        report.preset = presetName
        report.timeRange = range
        report.bytes = bytes ?? 0
        report.wallSeconds = wall
        report.video?.processorChoice = backendChoice?.description
        report.notCarried = tracks.notCarried + planReport.notCarried
        report.attachments = tracks.attachments.count
        report.chapters = tracks.chapters.count
        report.framesPerSecond = wall > 0 ? Double(report.video?.frames ?? 0) / wall : 0
        return report
    }

    private func resolveFileType() throws(MediaError) -> FileType {
        if let package {
            // CMAF: fragmented MP4, whatever the folder is called.
            do throws(JobRequestError) { try package.check(field: "package") } catch {
                throw MediaError(.invalidArgument, path: outputPath, error.description)
            }
            guard !settings.passthrough, settings.video != nil else {
                throw MediaError(.invalidArgument, path: outputPath, "a package re-encodes the video: no passthrough")
            }
            if let a = settings.audio, !FileType.mp4.canHold(a.codec) {
                throw MediaError(.invalidArgument, path: outputPath, "a package cannot hold \(a.codec.rawValue) audio")
            }
            return .mp4
        }
        guard let type = settings.fileType ?? FileType.inferred(fromPath: outputPath) else {
            throw MediaError(
                .invalidArgument, path: outputPath,
                "cannot tell the container from the extension (use .mp4, .mov, .mkv, .webm or .m4a)")
        }
        if let v = settings.video, !settings.passthrough, !type.canHold(v.codec), type != .m4a {
            throw MediaError(
                .invalidArgument, path: outputPath, "\(type.rawValue) cannot hold \(v.codec.rawValue) video")
        }
        if let a = settings.audio, !settings.passthrough, !type.canHold(a.codec) {
            throw MediaError(
                .invalidArgument, path: outputPath, "\(type.rawValue) cannot hold \(a.codec.rawValue) audio")
        }
        return type
    }

    /// Clamps the range's end to the asset; refuses a range that starts outside it or is empty.
    private func resolveRange(assetDuration: MediaTime) throws(MediaError) -> TimeRange? {
        guard let range = timeRange else { return nil }
        let start = range.start.seconds, end = start + range.duration.seconds, total = assetDuration.seconds
        guard range.start.isNumeric, range.duration.isNumeric || range.duration.flags.contains(.positiveInfinity),
            start >= 0, range.duration.value > 0 || range.duration.flags.contains(.positiveInfinity)
        else {
            throw MediaError(.invalidArgument, path: sourcePath, "time range must start at or after 0 and not be empty")
        }
        guard total <= 0 || start < total else {
            throw MediaError(
                .invalidArgument, path: sourcePath,
                String(format: "time range starts at %.3fs, after the asset ends (%.3fs)", start, total))
        }
        if total > 0 && end > total {
            // Exact clamp: the asset's duration is microseconds.
            let startUS = TickMath.ceilTicks(range.start, AVRational(num: 1, den: 1_000_000))
            return TimeRange(
                start: range.start,
                duration: MediaTime(value: assetDuration.value - startUS, timescale: 1_000_000))
        }
        return range
    }

    /// Container metadata worth keeping (title, dates, location, …), not the old muxer's own tags.
    private static func copyableMetadata(_ input: InputFile) -> [String: String] {
        var result: [String: String] = [:]
        var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        let skip: Set<String> = ["encoder", "major_brand", "minor_version", "compatible_brands", "duration"]
        while let e = av_dict_get(input.context.pointee.metadata, "", entry, AV_DICT_IGNORE_SUFFIX) {
            let key = String(cString: e.pointee.key)
            if !skip.contains(key.lowercased()) { result[key] = String(cString: e.pointee.value) }
            entry = e
        }
        return result
    }
}
