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
        let timeBase = AVRational(num: Int32(work.timeBase.numerator), den: Int32(work.timeBase.denominator))
        let outputTB = work.outputTimeBase
        // A retimed segment's encoder counts in frames of the output frame duration.
        let frameRate =
            work.retime == nil
            ? AVRational(num: Int32(work.frameRate.numerator), den: Int32(work.frameRate.denominator))
            : AVRational(num: Int32(outputTB.denominator), den: Int32(outputTB.numerator))
        // A composition's segment encodes the render (its layer places each frame); any other, the source's
        // frames as the settings convert them.
        let encoderInput: Encoder.VideoInput
        let processing: ProcessingSpec?
        var layer = try work.layer.map { l throws(MediaError) in
            try LayerRenderer(
                layer: l, rotation: work.rotation,
                frameDuration: Rational(Int64(outputTB.numerator), Int64(outputTB.denominator)))
        }
        if let l = work.layer {
            // The worker holds its own line: a task from the wire asking more than a segment may is refused.
            do throws(JobRequestError) {
                try SegmentLayer.checkMemory(
                    width: l.renderWidth, height: l.renderHeight, frames: spec.frameCount, field: "task.layer")
            } catch {
                throw MediaError(.invalidArgument, path: work.sourceName, "segment \(spec.index): \(error)")
            }
            encoderInput = try LayerRenderer.encoderInput(
                width: l.renderWidth, height: l.renderHeight,
                frameDuration: Rational(Int64(outputTB.numerator), Int64(outputTB.denominator)))
            processing = nil
        } else {
            let encoding = try VideoEncoding(
                work.settings, parameters: source.pointer.pointee,
                timeBase: AVRational(num: Int32(outputTB.numerator), den: Int32(outputTB.denominator)),
                frameRate: frameRate, rotation: work.rotation)
            (encoderInput, processing) = (encoding.encoderInput, encoding.processing)
        }
        let sourceKey = SegmentDecoders.Key(
            configuration: work.source, timeBase: work.timeBase, threads: threads,
            checkOnly: false)
        // A gap's segment decodes nothing.
        let isGap = work.layer?.isGap ?? false
        let decoder = isGap ? nil : try decoders.take(sourceKey, parameters: source, path: work.sourceName)
        let encoder = try Encoder(video: work.settings, input: encoderInput, globalHeader: true, threads: threads)
        let range = spec.presentationRange
        var gate = VideoGate(range: TickRange(start: range.lowerBound, end: range.upperBound, offset: 0))
        let shift = spec.timeMap.output(range.lowerBound)
        // A retimed segment chooses its frames along the time map (see `SegmentRetime`).
        let sourceTB = Rational(Int64(timeBase.num), Int64(timeBase.den))
        var retimer = work.retime.map {
            FrameRetimer(
                map: $0.map, frameDuration: $0.frameDuration, selection: $0.selection, timeBase: timeBase,
                origin: $0.sourceTime(ofTick: range.lowerBound, timeBase: sourceTB),
                instants: Int64(spec.outputFrames.lowerBound)..<Int64(spec.outputFrames.upperBound))
        }
        var processor: (any FrameProcessor)? = nil
        var timing = FrameDurations()
        var out: [EncodedPacket] = []
        var durations: [Int64: Int64] = [:]
        var encodedPTS: [Int64] = []
        var frames = 0

        func encode(_ frame: Frame?) throws(MediaError) {
            if let frame {
                durations[frame.pts] = frame.pointer.pointee.pkt_duration
                encodedPTS.append(frame.pts)
                frame.pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE
                frames += 1
            }
            try encoder.encode(frame) { packet in
                var p = EncodedPacket(packet)
                if let d = durations.removeValue(forKey: p.pts) { p.duration = d }
                out.append(p)
            }
        }
        /// Encodes the frame before this output frame (see `FrameDurations`); a composition's frame is
        /// first placed on the render.
        func place(_ chosen: Frame) throws(MediaError) {
            let frame = try layer?.render(chosen, k: chosen.pts) ?? chosen
            guard let previous = timing.push(frame) else { return }
            try encode(previous)
            if frames % 8 == 0 {
                progress(SegmentProgress(segment: spec.index, framesDone: frames, framesTotal: spec.frameCount))
            }
        }
        /// Processes a source frame once, then places it on the output timeline: shifted, or shown as often
        /// as the time map says.
        func accept(_ decoded: Frame) throws(MediaError) -> Bool {
            var frame = decoded
            if let pspec = processing {
                if processor == nil { processor = try makeProcessor(pspec, decoded) }
                frame = try processor!.process(decoded)
            }
            if retimer != nil {
                frame.pts = decoded.pts
                for shown in try retimer!.push(frame) { try place(shown) }
            } else {
                frame.pts = try TickRange.end(decoded.pts, plus: shift)
                try place(frame)
            }
            return true
        }

        // The gate's emit closure cannot throw: keep the first error and stop, then rethrow it.
        var failure: MediaError? = nil
        let emit: (Frame) -> Bool = { g in
            do throws(MediaError) { return try accept(g) } catch {
                failure = error
                return false
            }
        }
        var more = true
        // A segment cut inside a GOP decodes from the keyframe before it; of those lead-in frames, the
        // ones no other frame refers to need not be decoded at all. (Not in the first segment, which
        // may show the frame on screen at its start.)
        // (Nor in a retimed segment still showing the frame on screen at the export's start.)
        let showsStart = work.retime.map { range.lowerBound <= $0.rangeStartTick } ?? false
        let leadInEnd = spec.index > 0 && !showsStart ? range.lowerBound : Int64.min
        // A retimed segment shows only some of its source frames (a 240 fps source at 30 fps, one in
        // eight): the others no frame refers to need not be decoded either.
        let shown = work.retime?.framesShown(
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
                more = try decoder.decode(packet) { (f) throws(MediaError) in try gate.accept(f, emit) }
            }
            if more { _ = try decoder.decode(nil) { (f) throws(MediaError) in try gate.accept(f, emit) } }
        } else {
            // A gap: the background at each of its instants.
            for k in spec.outputFrames {
                if isCancelled() {
                    throw MediaError(.cancelled, path: work.sourceName, "segment \(spec.index) cancelled")
                }
                let blank = try layer!.render(nil, k: Int64(k))
                guard let previous = timing.push(blank) else { continue }
                try encode(previous)
            }
        }
        if let failure { throw failure }
        for shown in try retimer?.finish() ?? [] { try place(shown) }
        let endTick = retimer.map(\.frameCount) ?? (isGap ? Int64(spec.outputFrames.upperBound) : work.endTick)
        guard let last = timing.finish(endTick: endTick) else {
            throw MediaError(.corrupt, path: work.sourceName, "segment \(spec.index) decoded no frame")
        }
        try encode(last)
        try encode(nil)
        guard frames == spec.frameCount else {
            throw MediaError(
                .corrupt, path: work.sourceName,
                "segment \(spec.index) produced \(frames) frames, planned \(spec.frameCount)")
        }
        let parameters = try CodecParameters(encoder: encoder.context)
        if isCancelled() { throw MediaError(.cancelled, path: work.sourceName, "segment \(spec.index) cancelled") }
        if let decoder { decoders.keep(decoder, for: sourceKey) }
        let configuration = parameters.configuration
        if work.checkDecodes {
            try checkDecodes(
                out, parameters: parameters, configuration: configuration, timeBase: outputTB,
                encodedPTS: encodedPTS, segment: spec.index, decoders: decoders)
        }
        progress(SegmentProgress(segment: spec.index, framesDone: frames, framesTotal: spec.frameCount))
        return SegmentOutput(
            index: spec.index, parameters: configuration,
            packets: out, frames: frames, seconds: Date().timeIntervalSince(started),
            processor: processor?.kind ?? (work.layer != nil ? .libavfilter : ProcessorKind.none))
    }

    /// Decodes the segment's own output (loop filter skipped: timing and decodability, not pixels) and
    /// checks it yields exactly the frames encoded. Every segment is checked where it was made, so the
    /// stitched file's video needs no second decode (see `OutputVerifier.VideoDecoding.bySegments`).
    /// Skipped when the job asked for `VerificationLevel.timing` (`SegmentWork.checkDecodes`).
    static func checkDecodes(
        _ packets: [EncodedPacket], parameters: CodecParameters, configuration: CodecConfiguration,
        timeBase: Fraction, encodedPTS: [Int64], segment: Int,
        decoders: SegmentDecoders
    ) throws(MediaError) {
        let key = SegmentDecoders.Key(configuration: configuration, timeBase: timeBase, threads: 1, checkOnly: true)
        let decoder = try decoders.take(key, parameters: parameters, path: "segment \(segment) output")
        var decoded: [Int64] = []
        do throws(MediaError) {
            for p in packets {
                _ = try decoder.decode(try p.makePacket()) { (f) throws(MediaError) in
                    decoded.append(f.pts)
                    return true
                }
            }
            _ = try decoder.decode(nil) { (f) throws(MediaError) in
                decoded.append(f.pts)
                return true
            }
        } catch {
            throw MediaError(
                .verificationFailed, "segment \(segment)'s encoded output does not decode: \(error.message)")
        }
        guard decoded.sorted() == encodedPTS.sorted() else {
            throw MediaError(
                .verificationFailed,
                "segment \(segment)'s encoded output decodes to \(decoded.count) frames, "
                    + "\(encodedPTS.count) were encoded (or their times differ)")
        }
        decoders.keep(decoder, for: key)
    }
}
