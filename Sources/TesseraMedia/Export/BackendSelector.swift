import Foundation
import Synchronization
import TesseraAV
import TesseraCompute
import TesseraCore

/// Makes a job's (or a worker's) FrameProcessors. The backend is chosen once (`auto` calibrates on the
/// first frame that needs processing, or recalls what it measured before); every later processor, such as one per segment, reuses that choice.
public final class BackendSelector: @unchecked Sendable {
    public let requested: ProcessingBackend
    private let box = Mutex<BackendChoice?>(nil)
    /// Segments starting together must not all calibrate: the first decides, the others wait.
    private let deciding = NSLock()

    /// Where `auto` remembers its measurements between runs (`CalibrationMemory.standard()` by default).
    public let memory: CalibrationMemory?

    public init(requested: ProcessingBackend, memory: CalibrationMemory? = CalibrationMemory.standard()) {
        self.requested = requested
        self.memory = memory
    }

    /// Why the backend was chosen, once a frame needing processing has been seen.
    public var choice: BackendChoice? { box.withLock { $0 } }

    public func makeProcessor(_ spec: ProcessingSpec, _ frame: Frame) throws(MediaError) -> any FrameProcessor {
        deciding.lock()
        defer { deciding.unlock() }
        if let decided = box.withLock({ $0 }) {
            return try makeFrameProcessor(backend: decided.chosen, spec: spec, calibrationFrame: nil)
        }
        let selection = try selectFrameProcessor(
            backend: requested, spec: spec, calibrationFrame: frame, memory: memory)
        box.withLock { $0 = selection.choice }
        return selection.processor
    }

    public var factory: SegmentRunner.MakeProcessor {
        { [self] spec, frame throws(MediaError) in try makeProcessor(spec, frame) }
    }
}
