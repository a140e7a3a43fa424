import TesseraAV
import TesseraCompute
import TesseraCore

/// What a segment's legs share of each decoded frame: its processing to one size and format is done once,
/// whichever legs want it (a ladder's renditions of one size and several codecs), with one processor per
/// distinct `ProcessingSpec`; and a composition's render at each instant is made once, whichever legs place
/// it (a ladder's renditions of one render). Sizes whose processors can share a frame's read
/// (`MultiOutputFrameProcessor`: Vulkan) share one processor, so each frame is uploaded once for all of
/// them. The source filters (deinterlacing, tone mapping) are shared by `SegmentRunner`.
final class SharedProcessing {
    private let makeProcessor: SegmentRunner.MakeProcessor
    private var processors: [ProcessingSpec: any FrameProcessor] = [:]
    /// The processor making every size that shares an upload, once two do.
    private(set) var joint: (any MultiOutputFrameProcessor)?
    /// The frame last processed (held, so its identity cannot pass to a new frame) and what it became.
    private var last: (source: Frame, outputs: [ProcessingSpec: Frame])?

    init(makeProcessor: @escaping SegmentRunner.MakeProcessor) { self.makeProcessor = makeProcessor }

    /// `frame` processed as `spec` asks; the same object for every leg that asks it of this frame, so a leg
    /// that changes what it is given works on its own reference (`Frame.clone`).
    func process(_ frame: Frame, _ spec: ProcessingSpec) throws(MediaError) -> Frame {
        if last?.source !== frame { last = (frame, [:]) }
        if let done = last?.outputs[spec] { return done }
        if processors[spec] == nil { try add(spec, frame) }
        guard let processor = processors[spec] else { throw MediaError(.invalidArgument, "no processor") }
        if let joint, processor === joint {
            for (s, output) in zip(joint.specs, try joint.processAll(frame)) where last?.outputs[s] == nil {
                last?.outputs[s] = output
            }
            if let done = last?.outputs[spec] { return done }
        }
        let output = try processor.process(frame)
        last?.outputs[spec] = output
        return output
    }

    /// Makes `spec`'s processor; one that can share uploads joins the others that can (of the same kind).
    private func add(_ spec: ProcessingSpec, _ frame: Frame) throws(MediaError) {
        let made = try makeProcessor(spec, frame)
        processors[spec] = made
        guard let multi = made as? any MultiOutputFrameProcessor else { return }
        let others = processors.values.compactMap { $0 as? any MultiOutputFrameProcessor }.filter { $0 !== multi }
        guard let partner = joint ?? others.first, partner.kind == multi.kind else { return }
        let joined = try partner.adding(spec)
        for s in joined.specs { processors[s] = joined }
        joint = joined
    }

    /// How many distinct processors the legs' sizes use (one for all the sizes that share an upload).
    var processorCount: Int { Set(processors.values.map { ObjectIdentifier($0) }).count }

    /// Which processor serves `spec`, once it has made a frame.
    func kind(_ spec: ProcessingSpec) -> ProcessorKind? { processors[spec]?.kind }

    /// A composition's output frames by instant, made by the first leg that asks; every leg of a segment
    /// places the same layer at the same instants. Emptied as each decoded frame is handed on
    /// (`nextFrame`), when every leg has asked for the instants it decided.
    private var renders: [Int64: Frame] = [:]
    /// Which processor made the renders' pictures.
    private(set) var renderKind = ProcessorKind.none

    /// The render at instant `k`, made by `make` the first time: a reference of its own to each caller
    /// (`Frame.clone`), which times it as it likes.
    func render(
        _ k: Int64, _ make: () throws(MediaError) -> (frame: Frame, kind: ProcessorKind)
    ) throws(MediaError) -> Frame {
        if let made = renders[k] { return try made.clone() }
        let made = try make()
        if made.kind != .none { renderKind = made.kind }
        renders[k] = made.frame
        return try made.frame.clone()
    }

    /// A new decoded frame goes to the legs: the renders of the last one have been placed by all.
    func nextFrame() { renders.removeAll(keepingCapacity: true) }
}
