import CFFmpeg
import Foundation
import TesseraAV
import TesseraCompute
import TesseraCore

/// A rendition's worst segment: the lowest of its segments' mean SSIM and mean PSNR.
/// The one segmented loop, whatever the job: a plain transcode, a retimed export and a composition are
/// all runs of segments to it.
///
/// ```
///  [demux thread] each run in order ─ work ─▶ SegmentExecutor (local threads | farm workers) ─ outputs ─┐
///  prepare(): stages that need no segment (a file's audio, from the end of planning) ───────────┐       │
///  open(first output): the writer, its video input, and the stages that make the rest ─────────┤       │
///  calling thread: stitch the outputs in segment order into the video input ◀────────────────────┴───────┘
/// ```
///
/// The caller plans (`SegmentPlanner`), says what the writer's side is once the first segment shows the
/// encoder's parameters, and finishes and verifies the file; the engine runs the executor, the demux
/// stage and the stitching, and stops everything on the first error.
final class SegmentedEngine {
    /// A stretch of the output made from one file's video (or from nothing: a composition's gap).
    struct Run {
        var specs: [SegmentSpec]
        /// What every segment of the run carries besides its spec and packets.
        var template: SegmentWork
        /// The file and its video track; nil for a gap, whose segments carry no packets.
        var source: (path: String, videoID: Int)?
        /// The last segment's end tick (`SegmentWork.endTick`); nil: its presentation range's end.
        var lastEnd: Int64? = nil
    }

    /// The writer's side, opened once the first segment's output is in.
    struct Opened {
        var input: AssetWriterInput
        /// A ladder's other renditions' inputs, in `SegmentWork.renditions`' order.
        var renditionInputs: [AssetWriterInput] = []
        /// The video input's time base, which the segments' packets are on.
        var timeBase: AVRational
        /// Threads making the file's other tracks; waited for before the engine returns.
        var stages: [StageThread]
        var path: String
    }

    /// What was stitched.
    struct Result {
        var frames: Int
        var endSeconds: Double
        /// The first segment's processor, and each of its other renditions'.
        var processor: ProcessorKind
        var renditionProcessors: [ProcessorKind] = []
        /// Each of the other renditions' measured segments (their rate factors and probes), in order.
        var renditionSegments: [[SegmentQuality]] = []
        /// Every segment's measured quality, in order (empty when the segments were not decoded).
        var quality: [SegmentQuality]
        /// The quality the segments were asked to reach.
        var target: TargetQuality?

        /// Each rendition's quality (the first, then the others) against its target, from its `count`
        /// segments; nil for a rendition a segment of which was not measured.
        func renditionQuality(segments count: Int, targets: [TargetQuality?]) -> [QualityReport?] {
            let measured = [quality] + renditionSegments
            return measured.indices.map { i in
                let target = i < targets.count ? targets[i] : nil
                return measured[i].count == count ? QualityReport(segments: measured[i], target: target) : nil
            }
        }
    }

    private let runs: [Run]
    private let failure: PipelineFailure
    private let executor: any SegmentExecutor
    /// Every run's segments, in order.
    private let specs: [SegmentSpec]

    /// - Parameters:
    ///   - makeExecutor: a farm's executor for the plan; nil runs the segments on `parallel` local threads,
    ///     each converting frames with `makeProcessor`.
    /// - Throws: `.invalidArgument` when the runs hold no segment; the executor's errors.
    init(
        runs: [Run], failure: PipelineFailure, parallel: Int,
        makeExecutor: (@Sendable ([SegmentSpec]) throws(MediaError) -> any SegmentExecutor)?,
        makeProcessor: @escaping SegmentRunner.MakeProcessor
    ) throws(MediaError) {
        let specs = runs.flatMap(\.specs)
        guard !specs.isEmpty else { throw MediaError(.invalidArgument, "the job holds no video frame to make") }
        self.runs = runs
        self.specs = specs
        self.failure = failure
        // Cores shared among the segments in flight: several codecs each spawning a thread per core would
        // oversubscribe the machine, and frame threading costs CPU that parallel segments do not need.
        executor =
            try makeExecutor?(specs)
            ?? LocalSegmentExecutor(
                parallel: parallel,
                threadsPerSegment: max(1, ProcessInfo.processInfo.activeProcessorCount / max(1, parallel)),
                makeProcessor: makeProcessor)
    }

    /// Runs the segments and stitches them in order; `prepare` is called once the segments are being made,
    /// `open` once, with the first output.
    /// - Throws: the first error of any segment, stage, of `prepare` or of `open`; everything has stopped
    ///   by then.
    func run(
        prepare: () throws(MediaError) -> [StageThread] = { [] },
        open: (SegmentOutput) throws(MediaError) -> Opened, progress: (_ frames: Int, _ seconds: Double) -> Void
    ) throws(MediaError) -> Result {
        defer { executor.finish() }
        failure.watchCancel { [failure, executor] in
            executor.cancel(failure.error ?? MediaError(.cancelled, "export cancelled"))
        }
        let (runs, executor) = (runs, executor)
        var stages = [
            StageThread("tessera.segments.demux", failure: failure) { () throws(MediaError) in
                for run in runs {
                    guard let source = run.source else {
                        for spec in run.specs where !executor.isFinished(spec.index) {
                            var work = run.template
                            work.spec = spec
                            guard executor.schedule(work) else { return }
                        }
                        continue
                    }
                    guard
                        try SegmentWorkProducer.produce(
                            path: source.path, videoID: source.videoID, plan: run.specs, template: run.template,
                            lastEnd: run.lastEnd, into: executor)
                    else { return }
                }
            }
        ]
        func stop(_ error: MediaError) -> MediaError {
            failure.record(error)
            for stage in stages { stage.wait() }
            return failure.error ?? error
        }
        let specs = self.specs
        do throws(MediaError) {
            stages += try prepare()
            // The writer can only be started once segment 0 shows the encoder's parameters.
            let first = try executor.output(specs[0].index)
            let opened = try open(first)
            stages += opened.stages
            let stitcher = SegmentStitcher(reference: first.parameters, timeBase: opened.timeBase, path: opened.path)
            guard first.renditions.count == opened.renditionInputs.count else {
                throw MediaError(
                    .internal, path: opened.path,
                    "segment \(first.index) made \(first.renditions.count) renditions, "
                        + "\(opened.renditionInputs.count) expected")
            }
            let renditionStitchers = first.renditions.map {
                SegmentStitcher(reference: $0.parameters, timeBase: opened.timeBase, path: opened.path)
            }
            var frames = 0
            var quality: [SegmentQuality] = []
            var renditionSegments: [[SegmentQuality]] = first.renditions.map { _ in [] }
            let template = runs[0].template
            let (rateControl, target) = (template.settings.rateControl, template.targetQuality)
            for spec in specs {
                let output = spec.index == first.index ? first : try executor.output(spec.index)
                let appending = Date()
                try stitcher.append(output, to: opened.input)
                guard output.renditions.count == renditionStitchers.count else {
                    throw MediaError(
                        .verificationFailed, path: opened.path,
                        "segment \(output.index) holds \(output.renditions.count) renditions, "
                            + "\(renditionStitchers.count) asked")
                }
                for (k, rendition) in output.renditions.enumerated() {
                    guard rendition.frames == output.frames else {
                        throw MediaError(
                            .verificationFailed, path: opened.path,
                            "segment \(output.index) rendition \(k + 1): \(rendition.frames) frames, "
                                + "the first rendition \(output.frames)")
                    }
                    try renditionStitchers[k].append(rendition, to: opened.renditionInputs[k])
                    if let q = SegmentQuality(
                        rendition, timeBase: Rational(opened.timeBase),
                        rateControl: k < template.renditions.count
                            ? template.renditions[k].rateControl : rateControl,
                        target: k < template.renditionTargets.count ? template.renditionTargets[k] : nil)
                    {
                        renditionSegments[k].append(q)
                    }
                }
                executor.stitched(
                    output.index, seconds: Date().timeIntervalSince(appending), bytes: output.payloadBytes)
                frames += output.frames
                if let q = SegmentQuality(
                    output, timeBase: Rational(opened.timeBase), rateControl: rateControl, target: target)
                {
                    quality.append(q)
                }
                progress(frames, stitcher.endSeconds)
            }
            for stage in stages { stage.wait() }
            try failure.check()
            return Result(
                frames: frames, endSeconds: stitcher.endSeconds, processor: first.processor,
                renditionProcessors: first.renditions.map(\.processor), renditionSegments: renditionSegments,
                quality: quality, target: target)
        } catch {
            throw stop(error)
        }
    }
}
