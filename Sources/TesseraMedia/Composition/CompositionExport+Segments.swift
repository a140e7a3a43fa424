import CFFmpeg
import Foundation
import TesseraAV
import TesseraCompute
import TesseraCore

/// A composition cut into segments for local threads or a farm's workers:
///
/// ```
///  for each run (one asset, continuous source; or empty), in order:
///    its instants of the composition's grid cut like a retimed export's (SegmentPlanner.planRetimed),
///    each segment carrying the run's time map and the asset's layer; a gap's segments, the layer alone
///  [demux thread] ─ work ─▶ SegmentExecutor ─ outputs in order ─▶ stitched into the video input ─┐
///  [audio thread] the one TranscodePipeline, the sound alone, over the whole timeline ─▶ audio input ┴▶ AssetWriter
/// ```
///
/// Every segment chooses its frames as the one-pass render does (the same range read, the same map, the
/// same `LayerRenderer`), so the file shows the same pictures; it is verified against the same grid.
extension CompositionExport {
    /// Plans every run's segments, numbered on across runs.
    /// - Throws: `.invalidArgument` for a run whose range holds no frame or a frame duration that does not
    ///   fit a time base; the assets' read errors.
    func planSegments(_ plan: Plan, seconds: Double) throws(MediaError) -> [(asset: Int?, run: SegmentedEngine.Run)] {
        guard seconds.isFinite, seconds > 0, let ms = Int64(exactly: (seconds * 1000).rounded(.down)), ms < 1 << 40
        else { throw MediaError(.invalidArgument, "segment duration \(seconds) s is out of range") }
        let target = Rational(max(ms, 1), 1000)
        let fd = plan.frameDuration
        guard Int(exactly: fd.numerator) != nil, Int(exactly: fd.denominator) != nil else {
            throw MediaError(.invalidArgument, "frame duration \(fd) does not fit a time base")
        }
        var result: [(asset: Int?, run: SegmentedEngine.Run)] = []
        var next = 0
        var gapTemplate: SegmentWork?
        var indexes = CompositionRuns.PacketIndexes()
        let runs = CompositionRuns.runs(plan.composition)
        for (i, run) in runs.enumerated() {
            let first = (run.start / fd).ceiling ?? 0
            let end = i == runs.count - 1 ? plan.frameCount : max(first, (run.end / fd).ceiling ?? 0)
            guard end > first else { continue }
            guard let asset = run.asset else {
                // A gap: its instants cut every `target` of output, nothing to decode.
                let step = Int64(clamping: max(1, (target / fd).floor ?? 1))
                var specs: [SegmentSpec] = []
                var a = first
                while a < end {
                    let b = end - a < step + step / 3 ? end : a + step
                    specs.append(
                        SegmentSpec(
                            index: next, outputFrames: Int(a)..<Int(b), presentationRange: 0..<0, decodePackets: 0..<0,
                            timeMap: TimeMapPiece(sourceStart: 0, outputStart: 0)))
                    next += 1
                    a = b
                }
                if gapTemplate == nil {
                    gapTemplate = try sourceTemplate(plan, asset: 0, run: nil, indexes: &indexes).template
                }
                var template = gapTemplate!
                template.timeBase = fd
                template.frameRate = Rational.one / fd
                template.rotation = .none
                template.sourceName = "the gap at \(run.start.seconds) s"
                template.retime = nil
                template.layer = plan.layer(asset: nil)
                template.deinterlace = .off
                template.toneMap = nil
                result.append((nil, SegmentedEngine.Run(specs: specs, template: template, source: nil)))
                continue
            }
            let (template, index, range, videoID) = try sourceTemplate(plan, asset: asset, run: run, indexes: &indexes)
            guard let index, let retime = template.retime, retime.firstFrame == first, retime.frameCount == end else {
                throw MediaError(.internal, "run \(i)'s map does not make instants \(first)..<\(end)")
            }
            var cut = SegmentPlanner.cut(
                index, start: range.start, end: range.end, .retimed(retime, targetSeconds: target)
            ).segments
            guard !cut.isEmpty else {
                throw MediaError(
                    .invalidArgument, path: assetPaths[asset],
                    "holds no video frame in \(run.pieces[0].sourceStart.seconds) s onwards, which the composition plays"
                )
            }
            // A deinterlacer reads each frame's neighbours: the run's segments decode them, as its one-pass
            // reader does.
            if plan.preparation[asset].deinterlacer != nil { cut = SegmentPlanner.withNeighbours(cut, index: index) }
            for j in cut.indices {
                cut[j].index = next
                next += 1
            }
            result.append(
                (asset, SegmentedEngine.Run(specs: cut, template: template, source: (assetPaths[asset], videoID))))
        }
        return result
    }

    /// What every segment of a run of asset `asset` carries (its decoder, time base, map and layer), and
    /// the file's packet index and the run's range in its ticks. Without a run, the asset's decoder only.
    private func sourceTemplate(
        _ plan: Plan, asset: Int, run: CompositionRuns.Run?, indexes: inout CompositionRuns.PacketIndexes
    ) throws(MediaError) -> (template: SegmentWork, index: VideoPacketIndex?, range: TickRange, videoID: Int) {
        let path = assetPaths[asset]
        let range = run.map { CompositionRuns.sourceRange(of: $0, assetDuration: plan.assets[asset].duration) }
        let reader = try AssetReader(path: path, timeRange: range)
        defer { reader.cancelReading() }
        guard let videoID = reader.videoTrackID else {
            throw MediaError(.invalidArgument, path: path, "has no video track")
        }
        let stream = reader.input.streams[videoID]
        let source = StreamDescription(stream: stream)
        let tb = source.timeBase
        let ticks = reader.ticks(for: stream)
        let index = run == nil ? nil : try indexes.index(of: asset, path: path, videoID: videoID)
        let retime = run.map {
            CompositionRuns.segmentRetime($0, plan: plan, origin: Rational(range!.start), rangeStartTick: ticks.start)
        }
        var template = SegmentWork(
            spec: SegmentSpec(
                index: 0, outputFrames: 0..<0, presentationRange: 0..<0, decodePackets: 0..<0,
                timeMap: TimeMapPiece(sourceStart: 0, outputStart: 0)),
            source: try CodecParameters(copying: stream.pointee.codecpar).configuration,
            timeBase: Rational(tb), frameRate: Rational(source.frameRate), rotation: source.rotation,
            packets: [], settings: plan.settings.video!, endTick: nil, sourceName: path, backend: backend,
            checkDecodes: verificationLevel.decodesSegments, retime: retime, layer: plan.layer(asset: asset),
            targetQuality: targetQuality,
            deinterlace: plan.preparation[asset].deinterlacer == nil ? .off : deinterlace,
            toneMap: plan.preparation[asset].toneMap)
        template.sourceStream = videoID
        return (template, index, ticks, videoID)
    }

    /// One segment of a composition's plan, in both timelines (`tessera plan --spec`).
    public struct PlannedSegment: Sendable, Encodable {
        public var index: Int
        /// The asset's id; nil for a gap.
        public var asset: String?
        public var firstFrame: Int
        public var endFrame: Int
        /// Composition seconds: the first frame's start and the last one's end.
        public var start: Double
        public var end: Double
        /// The asset's time the first and the last frame show; nil for a gap.
        public var sourceStart: Double?
        public var sourceEnd: Double?
        /// The source packets decoded (decode order); empty for a gap.
        public var decodePackets: [Int]
    }

    /// How the composition would be cut into segments about `seconds` of output long, checked against its
    /// assets as the export is.
    /// - Returns: the frame duration and the segments in order.
    public func segmentPlan(seconds: Double) throws(MediaError) -> (frameDuration: Rational, segments: [PlannedSegment])
    {
        let plan = try plan()
        let fd = plan.frameDuration
        var rows: [PlannedSegment] = []
        for (asset, run) in try planSegments(plan, seconds: seconds) {
            for s in run.specs {
                let (a, b) = (Int64(s.outputFrames.lowerBound), Int64(s.outputFrames.upperBound))
                let source = run.template.retime.map { r in (r.sourceTime(ofFrame: a), r.sourceTime(ofFrame: b - 1)) }
                rows.append(
                    PlannedSegment(
                        index: s.index, asset: asset.map { spec.assets[$0].id },
                        firstFrame: s.outputFrames.lowerBound, endFrame: s.outputFrames.upperBound,
                        start: (Rational(a) * fd).seconds, end: (Rational(b) * fd).seconds,
                        sourceStart: source?.0.seconds, sourceEnd: source?.1.seconds,
                        decodePackets: run.source == nil
                            ? [] : [s.decodePackets.lowerBound, s.decodePackets.upperBound]))
            }
        }
        return (fd, rows)
    }

    /// Runs the segmented export: into `writer`, or with no writer into a streaming package (`package`);
    /// nothing is left at `outputPath` on any error.
    func exportSegmented(
        _ plan: Plan, writer: AssetWriter?, fileType: FileType, seconds: Double, started: Date
    ) throws(MediaError) -> ExportReport {
        phaseHandler?(.planning)
        var runs = try planSegments(plan, seconds: seconds).map(\.run)
        let specs = runs.flatMap(\.specs)
        guard !specs.isEmpty else { throw MediaError(.invalidArgument, path: outputPath, "the composition is empty") }
        let fd = plan.frameDuration
        // A package: each rendition's settings on every segment, and where its media segments start.
        var ladder: [SegmentedExport.Rung] = []
        var mediaStarts: [MediaTime] = []
        if let package, writer == nil {
            ladder = try SegmentedExport.renditionSettings(
                package, base: plan.settings.video!, display: (plan.renderWidth, plan.renderHeight),
                frameRate: try AVRational(Rational.one / fd, "the frame rate"), path: outputPath)
            guard !ladder.isEmpty else {
                throw MediaError(.invalidArgument, path: outputPath, "the package names no rendition")
            }
            for i in runs.indices {
                runs[i].template.settings = ladder[0].settings
                runs[i].template.targetQuality = ladder[0].target ?? targetQuality
                runs[i].template.renditions = ladder.dropFirst().map(\.settings)
                if ladder.dropFirst().contains(where: { $0.target != nil }) {
                    runs[i].template.renditionTargets = ladder.dropFirst().map(\.target)
                }
            }
            // Whole milliseconds of a duration `PackageRequest.check` held to 1–30 s; refused otherwise.
            guard let ms = Int64(exactly: (package.segmentDuration * 1000).rounded()), ms > 0 else {
                throw MediaError(.invalidArgument, path: outputPath, "package segment duration is out of range")
            }
            let length = max(1, (Rational(ms, 1000) / fd).floor ?? 1)
            for k in SegmentPlanner.mediaSegmentStarts(
                specs.map { (Int64($0.outputFrames.lowerBound), $0.outputFrames.lowerBound) }, length: length)
            {
                mediaStarts.append(try plan.time(ofFrame: Int64(k)))
            }
        }
        let failure = PipelineFailure()
        running.withLock { $0 = failure }
        defer { running.withLock { $0 = nil } }
        if cancelled.load(ordering: .relaxed) { failure.record(MediaError(.cancelled, "export cancelled")) }
        let selector = BackendSelector(requested: backend)
        let engine = try SegmentedEngine(
            runs: runs, failure: failure, parallel: parallel, makeExecutor: makeSegmentExecutor,
            makeProcessor: selector.factory)
        phaseHandler?(.running)
        var sound: TranscodePipeline?
        var packageWriter: PackageWriter?
        do {
            let total = plan.videoEnd.seconds
            let stitched = try engine.run(
                open: { [self] (first) throws(MediaError) in
                    let input = try LayerRenderer.encoderInput(
                        width: plan.renderWidth, height: plan.renderHeight, frameDuration: fd)
                    var videoInputs: [AssetWriterInput] = []
                    let soundWriter: AssetWriter?
                    if let writer {
                        let reference = try CodecParameters(first.parameters)
                        videoInputs = [
                            try writer.addPassthroughInput(
                                parameters: reference.pointer, timeBase: input.timeBase, frameRate: input.frameRate,
                                sideDataFrom: nil, ownEncode: true)
                        ]
                        withExtendedLifetime(reference) {}
                        soundWriter = writer
                    } else {
                        let made = try PackageWriter(
                            outputPath: outputPath, formats: package!.formats,
                            boundaries: Array(mediaStarts.dropFirst()),
                            segmentDuration: package!.segmentDuration, overwrite: overwrite)
                        packageWriter = made
                        for (rung, output) in zip(ladder, [first] + first.renditions) {
                            let track = try made.addVideo(name: rung.name, frameRate: Rational.one / fd)
                            let reference = try CodecParameters(output.parameters)
                            videoInputs.append(
                                try track.addPassthroughInput(
                                    parameters: reference.pointer, timeBase: input.timeBase,
                                    frameRate: input.frameRate, sideDataFrom: nil, ownEncode: true))
                            withExtendedLifetime(reference) {}
                        }
                        let hasSound = plan.settings.audio != nil && plan.assets.contains { $0.firstAudioTrack != nil }
                        soundWriter =
                            hasSound ? try made.addAudio(name: "audio0", language: nil, title: nil, endGap: .zero) : nil
                    }
                    let pipeline = try soundWriter.map { (w) throws(MediaError) in
                        try CompositionRuns.pipeline(
                            plan, writer: w, paths: assetPaths, makeProcessor: nil, measureVideo: false)
                    }
                    sound = pipeline
                    if let writer { try writer.startWriting() } else { try packageWriter!.startWriting() }
                    return .init(
                        input: videoInputs[0], renditionInputs: Array(videoInputs.dropFirst()),
                        timeBase: input.timeBase,
                        stages: pipeline?.start(failure: failure) ?? [], path: outputPath)
                },
                progress: { [progressHandler] frames, seconds in
                    progressHandler?(
                        ExportProgress(
                            frames: frames, seconds: seconds, totalSeconds: total,
                            elapsedSeconds: Date().timeIntervalSince(started)))
                })
            phaseHandler?(.stitching)
            var made =
                sound?.report
                ?? ExportReport(
                    source: "", output: "", fileType: "", preset: nil, passthrough: false, timeRange: nil,
                    duration: .zero,
                    video: nil, audio: nil, bytes: 0, wallSeconds: 0, framesPerSecond: 0)
            var verification: VerificationReport?
            let decoding: OutputVerifier.VideoDecoding = verificationLevel.decodesSegments ? .bySegments : .skipped
            var packaged: PackageReport?
            if let packageWriter {
                let end = try plan.time(ofFrame: plan.frameCount)
                packaged = try packageWriter.finish(segmentStarts: mediaStarts, videoEnd: end) {
                    [self] (temporary) throws(MediaError) in
                    phaseHandler?(.verifying)
                    verification = try verify(temporary, plan, hasAudio: false, decoding: decoding, cmafTrack: true)
                }
            } else if let writer {
                try writer.finishWriting { [self] (temporary) throws(MediaError) in
                    phaseHandler?(.verifying)
                    verification = try verify(temporary, plan, hasAudio: made.audio != nil, decoding: decoding)
                }
            }
            made.video = ExportReport.Video(
                codec: (ladder.first?.settings ?? plan.settings.video!).codec.rawValue, width: plan.renderWidth,
                height: plan.renderHeight, pixelFormat: PixelFormat.yuv420p.rawValue, frames: stitched.frames,
                rotation: 0, processor: stitched.processor.rawValue)
            var report = finishReport(made, plan, fileType: fileType, started: started, selector: selector)
            report.segments = specs.count
            report.verification = verification
            report.quality = QualityReport(segments: stitched.quality, target: stitched.target)
            if let packaged {
                let targets = [stitched.target] + (runs.first?.template.renditionTargets ?? [])
                report.add(
                    packaged, processors: [stitched.processor] + stitched.renditionProcessors,
                    quality: stitched.renditionQuality(segments: specs.count, targets: targets), targets: targets)
                report.bytes = ExportReport.bytes(under: outputPath)
            }
            return report
        } catch {
            packageWriter?.cancel()
            throw error
        }
    }
}
