import CFFmpeg
import Foundation
import Synchronization
import TesseraAV
import TesseraCompute
import TesseraCore

/// Exports a `Composition` of several assets (`tessera transcode --spec job.json`), as
/// AVAssetExportSession with a video composition and an audio mix. In one pass its timeline's runs
/// (`CompositionRuns`) are the input of the one `TranscodePipeline` a source's export uses:
///
/// ```
///  video, run after run (one asset, continuous source; or a gap):
///    AssetReader(range) ─▶ FrameRetimer (its instants of the grid) ─▶ LayerRenderer (upright, fitted or
///    transformed by a FrameProcessor, placed on the background, faded by the opacity) ─▶ video input
///  sound, run after run: AssetReader(range) ─▶ AudioRetimer (its pieces) ─▶ rate, layout, volume ─▶ audio input
///  a gap: background frames and silence
/// ```
///
/// The output has exactly ⌈duration / frameDuration⌉ frames at k·frameDuration, each showing the
/// frame the selection chooses at the composition's source time for k; the audio is stretched along the
/// same pieces, silent in freezes and empty ranges, and ends with the video. Segmented
/// (`exportSegmented`), each run's instants are cut into segments and the same pipeline makes the sound.
public final class CompositionExport: @unchecked Sendable {
    public let spec: CompositionSpec
    /// Each asset's file, by index of `spec.assets`.
    public let assetPaths: [String]
    public let outputPath: String
    public var overwrite = false
    /// Verify the output (frame grid, A/V end, decodable) before it is put in place.
    public var verifyOutput = true
    /// Cut the composition into segments about this many seconds of output long (each run of the
    /// timeline on its own), transcoded by `makeSegmentExecutor`'s farm or `parallel` local threads; nil
    /// renders it in one pass.
    public var segmentDuration: Double?
    public var parallel = 1
    public var backend = ProcessingBackend.auto
    /// How a segmented export proves its video: `.decode` has each segment decoded where it was made.
    public var verificationLevel = VerificationLevel.decode
    public var targetQuality: TargetQuality?
    /// Whether each asset's interlaced video is deinterlaced before it is placed, as a source's is.
    public var deinterlace = Deinterlace.auto
    /// A PQ or HLG asset is tone-mapped to BT.709 SDR (the render is 8-bit SDR); `.keep` refuses one.
    public var hdr = HDRHandling.auto
    /// Deliver a streaming package to the folder `outputPath` instead of one file: the render's renditions
    /// and the mixed sound as CMAF tracks, with HLS and/or DASH manifests (always segmented).
    public var package: PackageRequest?
    public var makeSegmentExecutor: (@Sendable (_ plan: [SegmentSpec]) throws(MediaError) -> any SegmentExecutor)?
    public var phaseHandler: (@Sendable (ExportPhase) -> Void)?
    /// A segmented export's frames stitched so far.
    public var progressHandler: (@Sendable (ExportProgress) -> Void)?
    let cancelled = Atomic<Bool>(false)
    /// A segmented export's stages, stopped by `cancel()`.
    let running = Mutex<PipelineFailure?>(nil)

    public init(spec: CompositionSpec, assetPaths: [String], outputPath: String) {
        self.spec = spec
        self.assetPaths = assetPaths
        self.outputPath = outputPath
    }

    /// Stops a running export; it throws `.cancelled` and leaves no output.
    public func cancel() {
        cancelled.store(true, ordering: .relaxed)
        running.withLock { $0 }?.record(MediaError(.cancelled, "export cancelled"))
    }

    /// The resolved job: the timeline, the picture and the sound.
    struct Plan {
        var composition: Composition
        var assets: [Asset]
        /// Each asset's layer transform over composition time (`assets[i].transform`, `.transformRamps`).
        var transforms: [LayerTransformTrack]
        var renderWidth: Int
        var renderHeight: Int
        var frameDuration: Rational
        var selection: FrameSelection
        var background: (r: Int, g: Int, b: Int)
        var opacity: [CompositionSpec.RampSpan]
        var volume: [CompositionSpec.RampSpan]
        var timePitch: TimePitchAlgorithm
        var settings: OutputSettings
        /// How each asset's decoded frames are prepared before they are placed.
        var preparation: [AssetPreparation]
        var frameCount: Int64 { (composition.duration / frameDuration).ceiling ?? 0 }
        /// How asset `asset`'s frames reach the render; nil, a gap.
        func layer(asset: Int?) -> SegmentLayer {
            SegmentLayer(
                renderWidth: renderWidth, renderHeight: renderHeight,
                background: background.r << 16 | background.g << 8 | background.b, isGap: asset == nil,
                transforms: asset.map { transforms[$0] } ?? LayerTransformTrack(base: nil), opacity: opacity)
        }
        var videoEnd: Rational { Rational(frameCount) * frameDuration }
        /// Frame `k`'s time, exactly (the frame duration was checked to fit 32-bit terms).
        func time(ofFrame k: Int64) throws(MediaError) -> MediaTime {
            guard let num = Int64(exactly: frameDuration.numerator), let den = Int32(exactly: frameDuration.denominator)
            else { throw MediaError(.internal, "frame duration \(frameDuration) does not fit a time base") }
            return MediaTime(value: k * num, timescale: den)
        }
    }

    /// How an asset's decoded frames are prepared before they are placed, as a source's are: deinterlaced
    /// as `deinterlace` asks for its field order (`SourceFilter`), and a PQ or HLG asset tone-mapped to
    /// BT.709 SDR by its layer's processor, since the render is 8-bit SDR.
    struct AssetPreparation {
        /// The deinterlacer, by name; nil when the frames are left as decoded.
        var deinterlacer: String?
        var toneMap: ToneMap?
        /// The libavfilter chain; nil when nothing is done.
        var filter: String?
        /// What the report says of the asset's pictures.
        var notes: [String]
    }

    /// Each asset's preparation, as `deinterlace` and `hdr` ask.
    /// - Throws: `hdr` `.keep` with an HDR asset, which the render cannot carry.
    private func prepare(_ assets: [Asset]) throws(JobRequestError) -> [AssetPreparation] {
        var prepared: [AssetPreparation] = []
        for (i, asset) in assets.enumerated() {
            guard let v = asset.firstVideoTrack?.video else {
                prepared.append(AssetPreparation(deinterlacer: nil, toneMap: nil, filter: nil, notes: []))
                continue
            }
            let name = "asset \(i) (\(asset.path))"
            let curve = [TransferFunction.smpte2084: "PQ", .aribStdB67: "HLG"][v.color.transfer]
            var notes: [String] = []
            let toneMap = curve.map { _ in ToneMap(transfer: v.color.transfer, hdr: v.hdr) }
            if let curve, let toneMap {
                guard hdr != .keep else {
                    throw JobRequestError(
                        field: "hdr",
                        "keep: \(name) is HDR (\(curve)) and a composition renders 8-bit SDR; let it be tone-mapped")
                }
                notes.append(
                    "\(name) is HDR (\(curve)): tone-mapped to BT.709 SDR (\(toneMap.summary)) for the 8-bit render; "
                        + "its HDR metadata is not kept")
            }
            let deinterlacer = deinterlace.filterName(for: v.fieldOrder)
            if let order = v.fieldOrder, order.isInterlaced, deinterlacer == nil {
                notes.append(
                    "\(name) is interlaced (\(order.rawValue)) and --deinterlace off keeps its fields: a vertical "
                        + "scale blends them")
            }
            prepared.append(
                AssetPreparation(
                    deinterlacer: deinterlacer, toneMap: toneMap,
                    filter: deinterlace.filter(for: v.fieldOrder, fields: true),
                    notes: notes))
        }
        return prepared
    }

    /// Checks the spec against its assets before any work.
    /// - Throws: `.invalidArgument` naming the spec's field; the assets' open errors.
    func plan() throws(MediaError) -> Plan {
        guard assetPaths.count == spec.assets.count else {
            throw MediaError(.internal, "\(assetPaths.count) paths for \(spec.assets.count) assets")
        }
        var assets: [Asset] = []
        for path in assetPaths { assets.append(try Asset.load(path, scanPackets: false)) }
        func refuse(_ error: JobRequestError) -> MediaError {
            MediaError(.invalidArgument, path: outputPath, "spec: \(error)")
        }
        do throws(JobRequestError) {
            for (i, asset) in assets.enumerated() where asset.firstVideoTrack?.video == nil {
                throw JobRequestError(field: "assets[\(i)]", "\(asset.path) has no video track")
            }
            let composition = try spec.composition(assetDurations: assets.map { Rational($0.duration) })
            let vc = spec.videoComposition
            let first = assets[0].firstVideoTrack!.video!
            let (w, h): (Int, Int)
            if let size = vc?.renderSize {
                let sides = SegmentLayer.renderSides
                guard let parsed = MediaText.size(size), sides.contains(parsed.width), sides.contains(parsed.height)
                else {
                    throw JobRequestError(
                        field: "videoComposition.renderSize",
                        "\(JobRequestError.quoted(size)) is not WxH, \(sides.lowerBound) to \(sides.upperBound)")
                }
                // 4:2:0 pictures have even sides: an odd one is refused, not quietly rendered a pixel smaller.
                guard parsed.width % 2 == 0, parsed.height % 2 == 0 else {
                    throw JobRequestError(
                        field: "videoComposition.renderSize",
                        "\(JobRequestError.quoted(size)) has an odd side; 4:2:0 output needs even sides, e.g. "
                            + "\(parsed.width & ~1)x\(parsed.height & ~1)")
                }
                (w, h) = (parsed.width, parsed.height)
            } else {
                (w, h) = first.rotation.swapsDimensions ? (first.height, first.width) : (first.width, first.height)
            }
            let request = RetimeRequest(frameRate: vc?.frameRate, frameDuration: vc?.frameDuration)
            let fd =
                try request.retiming(naming: .json(prefix: "videoComposition"))?.frameDuration
                ?? Rational(first.nominalFrameDuration)
            try Retiming.checkFrameDuration(fd, field: "videoComposition.frameRate")
            guard ((composition.duration / fd).ceiling ?? Int64.max) <= SegmentRetime.maxFrames else {
                throw JobRequestError(field: "videoComposition.frameRate", "the output would have too many frames")
            }
            var background = (r: 0, g: 0, b: 0)
            if let text = vc?.backgroundColor {
                let hex = text.hasPrefix("#") ? String(text.dropFirst()) : text
                guard hex.count == 6, let value = Int(hex, radix: 16) else {
                    throw JobRequestError(
                        field: "videoComposition.backgroundColor", "\(JobRequestError.quoted(text)) is not #RRGGBB")
                }
                background = ((value >> 16) & 255, (value >> 8) & 255, value & 255)
            }
            var settings =
                spec.settings ?? spec.preset.flatMap(ExportPreset.init(name:))?.settings ?? OutputSettings.standard
            if spec.settings == nil, let name = spec.preset, ExportPreset(name: name) == nil {
                throw JobRequestError(field: "preset", "unknown preset \(JobRequestError.quoted(name))")
            }
            guard settings.video != nil, !settings.passthrough else {
                throw JobRequestError(
                    field: "preset", "a composition is rendered: it needs video settings, not passthrough")
            }
            try settings.validate(field: "settings")
            if let format = settings.video?.pixelFormat, format != .yuv420p {
                throw JobRequestError(
                    field: "settings.video.pixelFormat", "a composition renders 8-bit 4:2:0 (yuv420p), not \(format)")
            }
            settings.video?.maxWidth = nil
            settings.video?.maxHeight = nil
            let transforms = try spec.layerTransforms()
            try Self.checkLayerSizes(transforms, assets: assets)
            return Plan(
                composition: composition, assets: assets, transforms: transforms,
                renderWidth: w & ~1, renderHeight: h & ~1,
                frameDuration: fd, selection: vc?.frameSelection ?? .hold, background: background,
                opacity: try CompositionSpec.ramps(vc?.opacity, bounds: 0...1, field: "videoComposition.opacity"),
                volume: try CompositionSpec.ramps(spec.audioMix?.volume, bounds: 0...4, field: "audioMix.volume"),
                timePitch: spec.audioMix?.timePitch ?? .spectral, settings: settings,
                preparation: try prepare(assets))
        } catch {
            throw refuse(error)
        }
    }

    /// Checks the spec against its assets (each probed: its header, not a scan) and the settings, as the
    /// export does before any work; a farm runs it at submission.
    /// - Throws: `.invalidArgument` naming the spec's field; the assets' open errors.
    /// - Returns: the output's end (its last frame's end), its frame duration and its render size.
    @discardableResult public func check() throws(MediaError) -> (
        end: Rational, frameDuration: Rational, width: Int, height: Int
    ) {
        let plan = try plan()
        return (plan.videoEnd, plan.frameDuration, plan.renderWidth, plan.renderHeight)
    }

    /// Refuses a transform that would make a picture too large to render, naming the field, before any
    /// work (the layer would otherwise allocate gigabytes).
    static func checkLayerSizes(_ tracks: [LayerTransformTrack], assets: [Asset]) throws(JobRequestError) {
        for (i, (track, asset)) in zip(tracks, assets).enumerated() {
            guard let v = asset.firstVideoTrack?.video else { continue }
            let sar =
                v.sampleAspectRatio.numerator > 0 && v.sampleAspectRatio.denominator > 0
                ? Double(v.sampleAspectRatio.numerator) / Double(v.sampleAspectRatio.denominator) : 1
            let side = max(Double(v.width) * min(max(sar, 1e-3), 1e3), Double(v.height))
            var named: [(String, CompositionSpec.Transform)] = track.base.map { [("assets[\(i)].transform", $0)] } ?? []
            for (j, r) in track.ramps.enumerated() {
                named += [
                    ("assets[\(i)].transformRamps[\(j)].from", r.from), ("assets[\(i)].transformRamps[\(j)].to", r.to),
                ]
            }
            for (field, t) in named {
                let largest = t.extent(ofSide: side)
                guard largest <= CompositionSpec.Transform.maxExtent else {
                    throw JobRequestError(
                        field: "\(field).scale",
                        "makes \(asset.path)'s picture \(String(format: "%.0f", largest)) px across; at most \(String(format: "%.0f", CompositionSpec.Transform.maxExtent))"
                    )
                }
            }
        }
    }

    /// Checks the finished temporary file against the composition's grid and the A/V end (unless
    /// `verifyOutput` is off); throws when it fails.
    /// - Parameter cmafTrack: the file is a package's fragmented track (`durationsFromDecodeTimes`).
    func verify(
        _ temporary: String, _ plan: Plan, hasAudio: Bool, decoding: OutputVerifier.VideoDecoding,
        cmafTrack: Bool = false
    ) throws(MediaError) -> VerificationReport? {
        guard verifyOutput else { return nil }
        var verifier = OutputVerifier(path: temporary)
        verifier.durationsFromDecodeTimes = cmafTrack
        var times: [MediaTime] = []
        for k in 0..<plan.frameCount { times.append(try plan.time(ofFrame: k)) }
        verifier.expectation = .presentationTimes(times)
        verifier.expectedStart = .zero
        verifier.expectationSource = assetPaths.joined(separator: ", ")
        verifier.expectedAudioEndGaps = hasAudio ? [.zero] : []
        verifier.videoDecoding = decoding
        return try verifier.verifyPassing(outputPath: outputPath)
    }

    /// The report of a finished export, from what its pipeline made (the render's video, or a farm's
    /// stitched one put in by the caller, and the sound).
    func finishReport(
        _ made: ExportReport, _ plan: Plan, fileType: FileType, started: Date, selector: BackendSelector
    ) -> ExportReport {
        let wall = Date().timeIntervalSince(started)
        var report = made
        report.source = assetPaths.joined(separator: ", ")
        report.output = outputPath
        report.fileType = fileType.rawValue
        report.preset = spec.preset
        report.duration = MediaTime(seconds: plan.videoEnd.seconds, preferredTimescale: 1_000_000)
        report.bytes = (try? FileManager.default.attributesOfItem(atPath: outputPath)[.size] as? Int) ?? 0
        report.wallSeconds = wall
        report.framesPerSecond = Double(report.video?.frames ?? 0) / max(wall, 1e-9)
        report.notCarried += plan.preparation.flatMap(\.notes)
        report.video?.deinterlaced = plan.preparation.lazy.compactMap(\.deinterlacer).first
        // A local export's choice; a farm's workers each make their own (their status shows it).
        report.video?.processorChoice = selector.choice?.description
        return report
    }

    /// Runs the export; nothing is left at `outputPath` on any error.
    public func export() throws(MediaError) -> ExportReport {
        let started = Date()
        let plan = try plan()
        if let targetQuality {
            do throws(JobRequestError) {
                try targetQuality.check(against: plan.settings, field: "target quality")
            } catch {
                throw MediaError(.invalidArgument, path: outputPath, error.description)
            }
        }
        if let package {
            do throws(JobRequestError) { try package.check(field: "package") } catch {
                throw MediaError(.invalidArgument, path: outputPath, error.description)
            }
            if let a = plan.settings.audio, !FileType.mp4.canHold(a.codec) {
                throw MediaError(.invalidArgument, path: outputPath, "a package cannot hold \(a.codec.rawValue) audio")
            }
            // Farm segments of at most the keyframe interval, as a source's package is cut.
            return try exportSegmented(
                plan, writer: nil, fileType: .mp4,
                seconds: package.segmentDuration / Double(package.farmSegmentsPerMediaSegment), started: started)
        }
        guard let fileType = plan.settings.fileType ?? FileType.inferred(fromPath: outputPath), fileType != .m4a else {
            throw MediaError(.invalidArgument, path: outputPath, "cannot tell a video container from the extension")
        }
        let writer = try AssetWriter(
            outputPath: outputPath, fileType: fileType, overwrite: overwrite,
            optimizeForNetworkUse: plan.settings.optimizeForNetworkUse)
        do throws(MediaError) {
            if let seconds = segmentDuration ?? (targetQuality == nil ? nil : TargetQuality.defaultSegmentSeconds) {
                return try exportSegmented(plan, writer: writer, fileType: fileType, seconds: seconds, started: started)
            }
            let selector = BackendSelector(requested: backend)
            // A render that verifies decodes and measures its video as it is encoded; the verifier then
            // reads the packets only.
            let pipeline = try CompositionRuns.pipeline(
                plan, writer: writer, paths: assetPaths, makeProcessor: selector.factory, measureVideo: verifyOutput)
            try writer.startWriting()
            let failure = PipelineFailure()
            running.withLock { $0 = failure }
            defer { running.withLock { $0 = nil } }
            if cancelled.load(ordering: .relaxed) { failure.record(MediaError(.cancelled, "export cancelled")) }
            pipeline.run(failure: failure, total: plan.videoEnd.seconds, started: started, progress: progressHandler)
            try failure.check()
            let made = pipeline.report
            var verification: VerificationReport?
            try writer.finishWriting { [self] (temporary) throws(MediaError) in
                verification = try verify(
                    temporary, plan, hasAudio: made.audio != nil, decoding: verifyOutput ? .byEncoder : .verifier)
            }
            var report = finishReport(made, plan, fileType: fileType, started: started, selector: selector)
            report.verification = verification
            return report
        } catch {
            writer.cancelWriting()
            throw error
        }
    }
}
