import Foundation
import TesseraAV
import TesseraCore

/// The CPU path with several frames in flight: each of `lanes` dedicated threads owns a
/// `CPUProcessor` (one slice thread) and converts whole frames, and results come back in the order
/// they were submitted — the same `submit`/`receive` contract as `VulkanProcessor`.
///
/// ```
///  submit ─▶ lane 0 [CPUProcessor] ─┐
///        ─▶ lane 1 [CPUProcessor] ─┼─▶ receive (oldest first)
///        ─▶ …                          ─┘
/// ```
///
/// Whole frames on separate threads share nothing, so throughput follows the cores; libswscale's own
/// slice threading stopped near 1.4× one thread on 2 cores (hand-offs on every frame, uneven slices).
/// For a pipeline whose decode and encode already fill the cores, `CPUProcessor` with one thread
/// stays the better choice; this is for when conversion is the bottleneck.
public final class FrameParallelProcessor: PipelinedFrameProcessor, @unchecked Sendable {
    public let spec: ProcessingSpec
    public var kind: ProcessorKind { .swscale }
    /// Frames converted at once: one per lane.
    public var framesInFlight: Int { lanes.count }
    /// Frames submitted and not yet received.
    public private(set) var pendingCount = 0

    private let lanes: [Lane]
    /// The lane the next submitted frame goes to, and the lane holding the oldest pending one.
    private var nextLane = 0
    private var oldestLane = 0

    /// - Parameter lanes: threads converting frames; 0 means one per core.
    /// - Throws: what `CPUProcessor.init` throws for the spec.
    public init(spec: ProcessingSpec, lanes: Int = 0) throws(MediaError) {
        self.spec = spec
        let count = lanes > 0 ? lanes : ProcessInfo.processInfo.activeProcessorCount
        var made: [Lane] = []
        for i in 0..<max(1, count) { made.append(Lane(try CPUProcessor(spec: spec, threads: 1), index: i)) }
        self.lanes = made
    }

    deinit { lanes.forEach { $0.stop() } }

    public func process(_ input: Frame) throws(MediaError) -> Frame {
        while pendingCount > 0 { _ = try receive() }
        try submit(input)
        guard let output = try receive() else { throw MediaError(.internal, "CPU: submitted frame vanished") }
        return output
    }

    /// Hands `input` to the next lane, which starts converting it at once. With `framesInFlight` frames
    /// pending, first `receive()` one.
    ///
    /// - Throws: `.invalidArgument` when every lane is busy.
    public func submit(_ input: Frame) throws(MediaError) {
        guard pendingCount < lanes.count else {
            throw MediaError(.invalidArgument, "all \(lanes.count) CPU lanes are busy; receive a frame first")
        }
        lanes[nextLane].start(input)
        nextLane = (nextLane + 1) % lanes.count
        pendingCount += 1
    }

    /// Waits for the oldest submitted frame and returns it converted; nil when nothing is pending.
    ///
    /// - Throws: what the lane's `CPUProcessor.process` threw for that frame.
    public func receive() throws(MediaError) -> Frame? {
        guard pendingCount > 0 else { return nil }
        let lane = lanes[oldestLane]
        oldestLane = (oldestLane + 1) % lanes.count
        pendingCount -= 1
        return try lane.finish().get()
    }

    /// One thread and its processor; holds at most one frame.
    final class Lane: @unchecked Sendable {
        private let processor: CPUProcessor
        private let condition = NSCondition()
        private var job: Frame?
        private var result: Result<Frame, MediaError>?
        private var stopped = false

        init(_ processor: CPUProcessor, index: Int) {
            self.processor = processor
            let thread = Thread { [self] in loop() }
            thread.name = "tessera.cpu.lane\(index)"
            thread.start()
        }

        func start(_ frame: Frame) {
            condition.withLock {
                job = frame
                condition.broadcast()
            }
        }

        func finish() -> Result<Frame, MediaError> {
            condition.withLock {
                while result == nil { condition.wait() }
                defer { result = nil }
                return result!
            }
        }

        func stop() {
            condition.withLock {
                stopped = true
                condition.broadcast()
            }
        }

        private func loop() {
            while true {
                let frame: Frame? = condition.withLock {
                    while job == nil && !stopped { condition.wait() }
                    defer { job = nil }
                    return job
                }
                guard let frame else { return }
                let outcome = Result { () throws(MediaError) in try processor.process(frame) }
                condition.withLock {
                    result = outcome
                    condition.broadcast()
                }
            }
        }
    }
}
