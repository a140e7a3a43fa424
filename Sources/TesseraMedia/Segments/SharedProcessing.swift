import TesseraAV
import TesseraCompute
import TesseraCore

/// What a segment's legs share of each decoded frame: its processing to one size and format is done once,
/// whichever legs want it (a ladder's renditions of one size and several codecs), with one processor per
/// distinct `ProcessingSpec`; and a composition's render at each instant is made once, whichever legs place
/// it (a ladder's renditions of one render). The source filters (deinterlacing, tone mapping) are shared by
/// `SegmentRunner`.
final class SharedProcessing {
    private let makeProcessor: SegmentRunner.MakeProcessor
    private var processors: [ProcessingSpec: any FrameProcessor] = [:]
    /// The frame last processed (held, so its identity cannot pass to a new frame) and what it became.
    private var last: (source: Frame, outputs: [ProcessingSpec: Frame])?

    init(makeProcessor: @escaping SegmentRunner.MakeProcessor) { self.makeProcessor = makeProcessor }

    /// `frame` processed as `spec` asks; the same object for every leg that asks it of this frame, so a leg
    /// that changes what it is given works on its own reference (`Frame.clone`).
    func process(_ frame: Frame, _ spec: ProcessingSpec) throws(MediaError) -> Frame {
        if last?.source !== frame { last = (frame, [:]) }
        if let done = last?.outputs[spec] { return done }
        let processor: any FrameProcessor
        if let made = processors[spec] {
            processor = made
        } else {
            processor = try makeProcessor(spec, frame)
            processors[spec] = processor
        }
        let output = try processor.process(frame)
        last?.outputs[spec] = output
        return output
    }

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
