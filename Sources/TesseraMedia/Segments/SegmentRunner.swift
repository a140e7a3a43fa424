import CFFmpeg
import Foundation
import TesseraAV
import TesseraCompute
import TesseraCore

/// Runs one segment: decode its packets, keep the frames it presents, process, encode. What a worker
/// does with each `SegmentWork`, on a farm machine or on a local thread.
///
/// Each segment's encoder starts fresh, so the segment begins with a keyframe; every segment of a job
/// uses the same settings, so their packets concatenate. Runs on the calling (dedicated) thread.
public enum SegmentRunner {
    public typealias MakeProcessor = @Sendable (ProcessingSpec, Frame) throws(MediaError) -> any FrameProcessor

    /// - Parameters:
    ///   - threads: codec threads (decoder and encoder each).
    ///   - decoders: decoders kept from this thread's previous segment, reused when they fit.
    ///   - progress: called every few frames with the frames encoded so far.
    ///   - isCancelled: polled between packets; when it turns true the run throws `.cancelled`.
    /// - Throws: `.corrupt` for damaged source data, `.unsupported` for codecs or formats that cannot be
    ///   decoded or encoded, `.cancelled`, `.ffmpeg` for other library failures.
    public static func run(
        _ work: SegmentWork, threads: Int, decoders: SegmentDecoders = SegmentDecoders(),
        makeProcessor: @escaping MakeProcessor, progress: @escaping (SegmentProgress) -> Void = { _ in },
        isCancelled: () -> Bool = { false }
    ) throws(MediaError) -> SegmentOutput {
        let started = Date()
        let spec = work.spec
        let source = try CodecParameters(work.source)
        // One read and decode of the segment feeds every output: the job's, then a ladder's other renditions.
        let shared = SharedProcessing(makeProcessor: makeProcessor)
        // Each output's target: the job's for its own, each rendition's for a ladder's others.
        let targets =
            [work.targetQuality]
            + (work.renditionTargets.count == work.renditions.count
                ? work.renditionTargets : work.renditions.map { _ in nil })
        let legs = try zip([work.settings] + work.renditions, targets).map { (settings, target) throws(MediaError) in
            try SegmentEncodeLeg(
                work, settings: settings, target: target, source: source, threads: threads,
                decoders: work.checkDecodes ? decoders : nil, shared: shared, makeProcessor: makeProcessor)
        }
        // Each distinct source filter chain (deinterlacing, tone mapping) runs once for the legs that use it.
        let sourceTimeBase = try AVRational(work.timeBase, "\(work.sourceName): the time base")
        var groups: [(filter: SourceFilter?, legs: [SegmentEncodeLeg])] = []
        for leg in legs {
            if let g = groups.firstIndex(where: { $0.legs[0].filterChain == leg.filterChain }) {
                groups[g].legs.append(leg)
            } else {
                groups.append((leg.filterChain.map { SourceFilter(filter: $0, timeBase: sourceTimeBase) }, [leg]))
            }
        }
        let rangeLength = spec.presentationRange.upperBound &- spec.presentationRange.lowerBound
        /// Hands a decoded frame (or, with nil, what the filters still hold) to every leg, through its group's
        /// filter; a deinterlacer's neighbours outside the range are read, not kept.
        func feed(_ decoded: Frame?) throws(MediaError) {
            shared.nextFrame()
            for group in groups {
                guard let filter = group.filter else {
                    if let decoded { for leg in group.legs { try leg.accept(decoded) } }
                    continue
                }
                let frames: [Frame]
                if let decoded { frames = try filter.push(decoded) } else { frames = try filter.finish() }
                for frame in frames where frame.pts >= 0 && frame.pts < rangeLength {
                    for leg in group.legs { try leg.accept(frame) }
                }
            }
        }
        let sourceKey = SegmentDecoders.Key(
            configuration: work.source, timeBase: work.timeBase, threads: threads, output: false)
        // A gap's segment decodes nothing.
        let isGap = work.layer?.isGap ?? false
        let decoder = isGap ? nil : try decoders.take(sourceKey, parameters: source, path: work.sourceName)
        let range = spec.presentationRange
        // A deinterlaced segment also hands its legs the frames just outside its range (`NeighbourGate`).
        let deinterlaces = legs.contains(where: \.deinterlaces)
        let gateRange = TickRange(start: range.lowerBound, end: range.upperBound, offset: 0)
        var gate = VideoGate(range: gateRange)
        // A retimed segment still showing the frame on screen at its reader's start (the export's, or a
        // composition's run's) is the first of its run.
        let showsStart = work.retime.map { range.lowerBound <= $0.rangeStartTick } ?? false
        // The first segment of a run takes no previous neighbour: the one pass's reader gives none.
        var neighbours =
            deinterlaces ? NeighbourGate(range: gateRange, wantsPrevious: spec.index > 0 && !showsStart) : nil
        let sourceTB = work.timeBase
        var reported = 0
        func report() {
            let frames = legs[0].frames
            guard frames >= reported + 8 else { return }
            reported = frames - frames % 8
            progress(SegmentProgress(segment: spec.index, framesDone: frames, framesTotal: spec.frameCount))
        }

        // The gate's emit closure cannot throw: keep the first error and stop, then rethrow it.
        var failure: MediaError? = nil
        let emit: (Frame) -> Bool = { g in
            do throws(MediaError) {
                try feed(g)
                report()
                return true
            } catch {
                failure = error
                return false
            }
        }
        func gated(_ f: Frame) throws(MediaError) -> Bool {
            if neighbours != nil { return try neighbours!.accept(f, emit) }
            return try gate.accept(f, emit)
        }
        var more = true
        // A segment cut inside a GOP decodes from the keyframe before it; of those lead-in frames, the
        // ones no other frame refers to need not be decoded at all. (Not in the first segment, which
        // may show the frame on screen at its start.)
        // (Nor in a retimed segment still showing the frame on screen at the export's start.)
        // (Nor, when deinterlacing, the frame just before the range: the deinterlacer reads it.)
        let leadInEnd =
            spec.index > 0 && !showsStart
            ? (deinterlaces
                ? work.packets.map(\.pts).filter { $0 < range.lowerBound }.max() ?? Int64.min : range.lowerBound)
            : Int64.min
        // A retimed segment shows only some of its source frames (a 240 fps source at 30 fps, one in
        // eight): the others no frame refers to need not be decoded either.
        // (Nor, when deinterlacing, any frame: the deinterlacer reads each frame's neighbours.)
        let shown =
            deinterlaces
            ? nil
            : work.retime?.framesShown(
                ticks: work.packets.map(\.pts), timeBase: sourceTB,
                instants: Int64(spec.outputFrames.lowerBound)..<Int64(spec.outputFrames.upperBound))
        if let decoder {
            for encoded in work.packets where more {
                if isCancelled() {
                    throw MediaError(.cancelled, path: work.sourceName, "segment \(spec.index) cancelled")
                }
                let packet = try encoded.makePacket()
                let unseen = encoded.pts < leadInEnd || shown.map { !$0.contains(encoded.pts) } ?? false
                decoder.context.pointee.skip_frame = unseen ? AVDISCARD_NONREF : AVDISCARD_DEFAULT
                more = try decoder.decode(packet, gated)
            }
            if more { _ = try decoder.decode(nil, gated) }
        } else {
            // A gap: the background at each of its instants.
            for k in spec.outputFrames {
                if isCancelled() {
                    throw MediaError(.cancelled, path: work.sourceName, "segment \(spec.index) cancelled")
                }
                shared.nextFrame()
                for leg in legs { try leg.acceptBlank(Int64(k)) }
            }
        }
        if let failure { throw failure }
        if decoder != nil { try feed(nil) }
        let endTick = isGap ? Int64(spec.outputFrames.upperBound) : work.endTick
        var outputs: [SegmentOutput] = []
        for leg in legs {
            let quality = try leg.finish(endTick: endTick, segment: spec.index, path: work.sourceName)
            guard leg.frames == spec.frameCount else {
                throw MediaError(
                    .corrupt, path: work.sourceName,
                    "segment \(spec.index) produced \(leg.frames) frames, planned \(spec.frameCount)")
            }
            if isCancelled() { throw MediaError(.cancelled, path: work.sourceName, "segment \(spec.index) cancelled") }
            outputs.append(
                SegmentOutput(
                    index: spec.index, parameters: try leg.parameters().configuration, packets: leg.packets,
                    frames: leg.frames, seconds: Date().timeIntervalSince(started), processor: leg.kind,
                    quality: quality, crf: leg.crf, probes: leg.probes))
        }
        if let decoder { decoders.keep(decoder, for: sourceKey) }
        progress(SegmentProgress(segment: spec.index, framesDone: outputs[0].frames, framesTotal: spec.frameCount))
        var output = outputs[0]
        output.renditions = Array(outputs.dropFirst())
        return output
    }
}
