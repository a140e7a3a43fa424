import CFFmpeg
import Foundation
import TesseraAV
import TesseraCompute
import TesseraCore

/// One output of a segment: what turns the decoded source frames into that output's packets.
///
/// ```
///  decoded source frame ─▶ FrameProcessor (its size and format) ─▶ FrameRetimer (its instants)
///      ─▶ FrameDurations ─▶ Encoder ─▶ packets
///  a composition's: decoded source frame ─▶ FrameRetimer ─▶ LayerRenderer (its own FrameProcessor, the
///      placement on the render) ─▶ (a smaller rendition's: the render scaled) ─▶ FrameDurations ─▶ Encoder
///  each packet ─▶ EncodedOutputCheck: decoded at once, measured against the frame the encoder was given
///  with a target quality: the encoder's frames held, encoded once per probe of the CRFSearch
/// ```
///
/// `SegmentRunner` reads and decodes a segment once and feeds every leg; a job's outputs are a list of
/// legs (today one per segment; a ladder's renditions and quality measured on the processed frames plug
/// in here, not in a second loop).
final class SegmentEncodeLeg {
    private let processing: ProcessingSpec?
    private let shared: SharedProcessing
    private var layer: LayerRenderer?
    /// A composition's rendition smaller than the render: the render scaled into its box, and by what.
    private var renderScale: ProcessingSpec?
    private var renderScaler: (any FrameProcessor)?
    private let makeProcessor: SegmentRunner.MakeProcessor
    private var retimer: FrameRetimer?
    private var timing = FrameDurations()
    /// Source ticks to the output timeline for a segment that is not retimed.
    private let shift: Int64
    /// The encode the frames stream into; with a target quality, the probe delivered, once chosen.
    private var pass: SegmentEncodePass?
    /// With a target quality: what it searches for and from which factor; then the search, and the frames
    /// it encodes once per probe (held by reference).
    private let target: (quality: TargetQuality, codec: VideoCodec, start: Int)?
    private var search: CRFSearch?
    private var held: [Frame] = []
    private let makePass: (_ crf: Double?) throws(MediaError) -> SegmentEncodePass
    private let segment: Int
    /// What the decoded frames go through before they are processed (a deinterlacer), as a libavfilter
    /// chain; `SegmentRunner` runs each distinct chain once for the legs that share it.
    let filterChain: String?
    /// Whether the frames are deinterlaced: the decoder must then give every frame, the deinterlacer
    /// reading each one's neighbours.
    let deinterlaces: Bool

    /// - Parameters:
    ///   - settings: this output's video settings.
    ///   - target: the quality this output searches its rate factor for (the job's, or a rendition's).
    ///   - source: the segment's decoder parameters (the source's size, format and colour).
    ///   - decoders: where the output's check takes its decoder; nil skips the check (and the quality).
    ///   - shared: the segment's processing, shared with its other legs.
    ///   - makeProcessor: a composition's layer's own processors.
    init(
        _ work: SegmentWork, settings: VideoSettings, target: TargetQuality?, source: CodecParameters, threads: Int,
        decoders: SegmentDecoders?, shared: SharedProcessing, makeProcessor: @escaping SegmentRunner.MakeProcessor
    ) throws(MediaError) {
        let spec = work.spec
        let outputTB = work.outputTimeBase
        let frameDuration = outputTB
        // A retimed segment's encoder counts in frames of the output frame duration.
        let frameRate =
            work.retime == nil
            ? try AVRational(work.frameRate, "\(work.sourceName): the frame rate")
            : try AVRational(outputTB, "\(work.sourceName): the frame duration").inverse
        // A composition's segment encodes the render (its layer places each frame); any other, the source's
        // frames as the settings convert them.
        let encoderInput: Encoder.VideoInput
        if let l = work.layer {
            // The worker holds its own line: a task from the wire asking more than a segment may is refused.
            do throws(JobRequestError) {
                try SegmentLayer.checkMemory(
                    width: l.renderWidth, height: l.renderHeight, frames: spec.frameCount, field: "task.layer")
            } catch {
                throw MediaError(.invalidArgument, path: work.sourceName, "segment \(spec.index): \(error)")
            }
            layer = try LayerRenderer(
                layer: l, rotation: work.rotation, frameDuration: frameDuration, toneMap: work.toneMap,
                makeProcessor: makeProcessor)
            // A package's rendition smaller than the render is the render scaled into its box.
            let fitted = LayerRenderer.outputSize(of: l, settings: settings)
            encoderInput = try LayerRenderer.encoderInput(
                width: fitted.width, height: fitted.height, frameDuration: frameDuration)
            processing = nil
            if fitted.width != l.renderWidth || fitted.height != l.renderHeight {
                renderScale = ProcessingSpec(
                    outputWidth: fitted.width, outputHeight: fitted.height, outputFormat: .yuv420p)
            }
        } else {
            let encoding = try VideoEncoding(
                settings, parameters: source.pointer.pointee,
                timeBase: try AVRational(outputTB, "\(work.sourceName): the output time base"),
                frameRate: frameRate, rotation: work.rotation, hdr: work.hdr, toneMap: work.toneMap)
            (encoderInput, processing) = (encoding.encoderInput, encoding.processing)
        }
        segment = spec.index
        self.makeProcessor = makeProcessor
        filterChain = work.deinterlaceFilter
        deinterlaces = work.deinterlaceFilter != nil
        // A search measures every probe, whatever the job's verification level.
        let checkDecoders = target == nil ? decoders : (decoders ?? SegmentDecoders())
        makePass = { (crf) throws(MediaError) in
            try SegmentEncodePass(
                settings: settings, input: encoderInput, threads: threads, timeBase: outputTB, segment: spec.index,
                decoders: checkDecoders, search: target, rateFactor: crf)
        }
        if let target {
            guard case .crf(let start) = settings.rateControl else {
                throw MediaError(
                    .invalidArgument, path: work.sourceName,
                    "segment \(spec.index): a target quality searches the rate factor; the settings ask a bit rate")
            }
            // The search holds the segment's frames: a worker refuses more than it can hold.
            let frameBytes = Int64(
                max(
                    0,
                    av_image_get_buffer_size(
                        encoderInput.pixelFormat, Int32(clamping: encoderInput.width),
                        Int32(clamping: encoderInput.height), 1)))
            let (held, overflow) = frameBytes.multipliedReportingOverflow(by: Int64(spec.frameCount))
            guard !overflow, held <= Self.heldBytesLimit else {
                throw MediaError(
                    .invalidArgument, path: work.sourceName,
                    "segment \(spec.index): a target quality holds the segment's \(spec.frameCount) frames "
                        + "(\(held >> 20) MiB, more than \(Self.heldBytesLimit >> 20) MiB): give shorter segments")
            }
            self.target = (target, settings.codec, start)
        } else {
            self.target = nil
            pass = try makePass(nil)
        }
        self.shared = shared
        let range = spec.presentationRange
        shift = spec.timeMap.output(range.lowerBound)
        // A retimed segment chooses its frames along the time map (see `SegmentRetime`).
        let timeBase = try AVRational(work.timeBase, "\(work.sourceName): the time base")
        let sourceTB = work.timeBase
        retimer = work.retime.map {
            FrameRetimer(
                map: $0.map, frameDuration: $0.frameDuration, selection: $0.selection, timeBase: timeBase,
                origin: $0.sourceTime(ofTick: range.lowerBound, timeBase: sourceTB),
                instants: Int64(spec.outputFrames.lowerBound)..<Int64(spec.outputFrames.upperBound))
        }
    }

    /// The most a target-quality segment may hold of its processed frames: about 5 s of 2160p60, 45 s of
    /// 1080p30 (8-bit 4:2:0).
    static let heldBytesLimit: Int64 = 4 << 30

    /// Which processor made this output's pictures.
    var kind: ProcessorKind { processing.flatMap(shared.kind) ?? (layer != nil ? shared.renderKind : .none) }

    /// Processes a decoded source frame (already through `filterChain`) once and places it on the output
    /// timeline: shifted, or shown as often as the time map says.
    func accept(_ decoded: Frame) throws(MediaError) {
        // The decoded and processed frames are every leg's (a ladder's renditions): this leg times its own
        // reference.
        var own = decoded
        if let processing { own = try shared.process(decoded, processing) }
        let frame = try own.clone()
        if retimer != nil {
            frame.pts = decoded.pts
            for shown in try retimer!.push(frame) { try place(shown) }
        } else {
            frame.pts = try TickRange.end(decoded.pts, plus: shift)
            try place(frame)
        }
    }

    /// A gap's instant `k`: the background alone.
    func acceptBlank(_ k: Int64) throws(MediaError) {
        let blank = try shared.render(k) { () throws(MediaError) in (try layer!.render(nil, k: k), .none) }
        guard let previous = timing.push(blank) else { return }
        try encode(previous)
    }

    /// Encodes what the retimer and the duration tracker still hold, then drains the encoder and finishes
    /// the output's check; with a target quality, runs the search over the held frames. Returns the
    /// delivered output's quality when it was checked and measured.
    /// - Throws: `.corrupt` when the segment decoded no frame; `.verificationFailed` when the output does
    ///   not decode to the frames encoded; `.unsupported` when a target's quality cannot be measured.
    func finish(endTick: Int64?, segment: Int, path: String) throws(MediaError) -> QualityStats? {
        for shown in try retimer?.finish() ?? [] { try place(shown) }
        let end = retimer.map(\.frameCount) ?? endTick
        guard let last = timing.finish(endTick: end) else {
            throw MediaError(.corrupt, path: path, "segment \(segment) decoded no frame")
        }
        try encode(last)
        guard let target else {
            try pass!.encode(nil)
            return try pass!.finish()
        }
        var search = CRFSearch(target: target.quality, codec: target.codec, start: target.start, frames: held.count)
        var made: [Double: (SegmentEncodePass, QualityStats)] = [:]
        while let next = search.next {
            // A sample encodes runs across the segment, each from a keyframe; only whole encodes can be
            // delivered.
            let runs = next.sample ? search.sampleRuns : [held.indices]
            let probe = try makePass(next.crf)
            for run in runs {
                for i in run { try probe.encode(held[i], keyframe: i == run.lowerBound) }
            }
            try probe.encode(nil)
            guard let stats = try probe.finish() else {
                throw MediaError(
                    .unsupported, path: path,
                    "segment \(segment): a target quality is measured on YUV or grey pictures; this output's "
                        + "format cannot be measured")
            }
            search.record(
                QualityProbe(
                    crf: next.crf, value: search.target.metric.value(of: stats), bytes: probe.bytes,
                    sampleFrames: next.sample ? runs.reduce(0) { $0 + $1.count } : nil))
            if !next.sample { made[next.crf] = (probe, stats) }
        }
        self.search = search
        guard let chosen = search.chosen, let delivered = made[chosen.crf] else {
            throw MediaError(.internal, path: path, "segment \(segment): the rate-factor search made no probe")
        }
        pass = delivered.0
        held = []
        return delivered.1
    }

    /// The delivered encode's packets, in decode order.
    var packets: [EncodedPacket] { pass?.packets ?? [] }
    /// Frames encoded (delivered).
    var frames: Int { pass?.frames ?? held.count }
    /// The rate factor a search chose, and every probe it encoded.
    var crf: Double? { search?.chosen?.crf }
    var probes: [QualityProbe] { search?.probes ?? [] }

    /// The delivered encoder's output parameters, once finished.
    func parameters() throws(MediaError) -> CodecParameters {
        guard let pass else { throw MediaError(.internal, "segment \(segment) has no finished encode") }
        return try pass.parameters()
    }

    /// Encodes the frame before this output frame (see `FrameDurations`); a composition's frame is first
    /// placed on the render.
    private func place(_ chosen: Frame) throws(MediaError) {
        var frame = chosen
        if layer != nil {
            frame = try shared.render(chosen.pts) { () throws(MediaError) in
                let made = try layer!.render(chosen, k: chosen.pts)
                return (made, layer!.kind)
            }
        }
        if let renderScale {
            if renderScaler == nil { renderScaler = try makeProcessor(renderScale, frame) }
            let scaled = try renderScaler!.process(frame)
            scaled.pts = frame.pts
            scaled.pointer.pointee.pkt_duration = frame.pointer.pointee.pkt_duration
            frame = scaled
        }
        guard let previous = timing.push(frame) else { return }
        try encode(previous)
    }

    /// Streams the frame into the encode, or holds it for the search's probes.
    private func encode(_ frame: Frame) throws(MediaError) {
        if let pass { try pass.encode(frame) } else { held.append(frame) }
    }
}
