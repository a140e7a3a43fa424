import Foundation
import TesseraAV
import TesseraCore

/// Runs segments on `parallel` dedicated threads of this process.
final class LocalSegmentExecutor: SegmentExecutor, @unchecked Sendable {
    private let tasks: BoundedQueue<SegmentWork>
    private let finished = FinishedSegments()
    private var threads: [Thread] = []

    /// - Parameter threadsPerSegment: codec threads each segment may use.
    init(parallel: Int, threadsPerSegment: Int, makeProcessor: @escaping SegmentRunner.MakeProcessor) {
        tasks = BoundedQueue(capacity: max(1, parallel))
        for n in 0..<max(1, parallel) {
            let thread = Thread { [tasks, finished] in
                let decoders = SegmentDecoders()
                while let work = tasks.pop() {
                    do throws(MediaError) {
                        finished.post(
                            work.spec.index,
                            .success(
                                try SegmentRunner.run(
                                    work, threads: threadsPerSegment, decoders: decoders,
                                    makeProcessor: makeProcessor, isCancelled: { finished.isCancelled })))
                    } catch {
                        finished.post(work.spec.index, .failure(error))
                    }
                }
            }
            thread.name = "tessera.segments.worker\(n)"
            thread.stackSize = 8 << 20
            threads.append(thread)
            thread.start()
        }
    }

    func schedule(_ work: SegmentWork) -> Bool { !finished.isCancelled && tasks.push(work) }
    func isFinished(_ index: Int) -> Bool { false }
    func output(_ index: Int) throws(MediaError) -> SegmentOutput { try finished.take(index) }

    func cancel(_ error: MediaError) {
        finished.cancel(error)
        tasks.close()
    }

    func finish() { tasks.close() }
}
