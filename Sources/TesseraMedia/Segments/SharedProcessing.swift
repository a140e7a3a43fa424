import TesseraAV
import TesseraCompute
import TesseraCore

/// What a segment's legs share of each decoded frame: its processing to one size and format is done once,
/// whichever legs want it (a ladder's renditions of one size and several codecs), with one processor per
/// distinct `ProcessingSpec`. The source filters (deinterlacing, tone mapping) are shared by `SegmentRunner`.
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
}
