import Foundation
import TesseraAV
import TesseraCore

/// Who transcodes a segmented job's segments: local threads (`LocalSegmentExecutor`) or a farm's
/// workers (the coordinator's dispatcher). The job's producer thread hands over each segment's work in
/// order; its stitching thread takes the outputs back in order.
public protocol SegmentExecutor: AnyObject, Sendable {
    /// Queues one segment. May block to hold back the producer (back-pressure); returns false once the
    /// job has stopped, telling the producer to quit.
    func schedule(_ work: SegmentWork) -> Bool
    /// Whether segment `index` is already finished (e.g. spooled before a restart): its work need not
    /// be scheduled again.
    func isFinished(_ index: Int) -> Bool
    /// Blocks until segment `index`'s output is ready.
    /// - Throws: the segment's error, or `.cancelled` when the job was stopped first.
    func output(_ index: Int) throws(MediaError) -> SegmentOutput
    /// Stops the job's segments: blocked calls return, queued work is dropped.
    func cancel(_ error: MediaError)
    /// Called once the job has finished (successfully or not), so resources can be released.
    func finish()
}

/// Runs segments on `parallel` dedicated threads of this process.
final class LocalSegmentExecutor: SegmentExecutor, @unchecked Sendable {
    private let tasks: BoundedQueue<SegmentWork>
    private let board = OutputBoard()
    private var threads: [Thread] = []

    /// - Parameter threadsPerSegment: codec threads each segment may use.
    init(parallel: Int, threadsPerSegment: Int, makeProcessor: @escaping SegmentRunner.MakeProcessor) {
        tasks = BoundedQueue(capacity: max(1, parallel))
        for n in 0..<max(1, parallel) {
            let thread = Thread { [tasks, board] in
                let decoders = SegmentDecoders()
                while let work = tasks.pop() {
                    do throws(MediaError) {
                        board.post(
                            work.spec.index,
                            .success(
                                try SegmentRunner.run(
                                    work, threads: threadsPerSegment, decoders: decoders,
                                    makeProcessor: makeProcessor, isCancelled: { board.isCancelled })))
                    } catch {
                        board.post(work.spec.index, .failure(error))
                    }
                }
            }
            thread.name = "tessera.segments.worker\(n)"
            thread.stackSize = 8 << 20
            threads.append(thread)
            thread.start()
        }
    }

    func schedule(_ work: SegmentWork) -> Bool { !board.isCancelled && tasks.push(work) }
    func isFinished(_ index: Int) -> Bool { false }
    func output(_ index: Int) throws(MediaError) -> SegmentOutput { try board.take(index) }

    func cancel(_ error: MediaError) {
        board.cancel(error)
        tasks.close()
    }

    func finish() { tasks.close() }
}

/// Finished segments (or their errors), waiting to be stitched in order.
final class OutputBoard: @unchecked Sendable {
    private var results: [Int: Result<SegmentOutput, MediaError>] = [:]
    private var stopped: MediaError?
    private let condition = NSCondition()

    func post(_ index: Int, _ result: Result<SegmentOutput, MediaError>) {
        condition.withLock {
            results[index] = result
            condition.broadcast()
        }
    }

    /// Waits for segment `index`; throws its error, or the job's when it was stopped first.
    func take(_ index: Int) throws(MediaError) -> SegmentOutput {
        condition.lock()
        defer { condition.unlock() }
        while results[index] == nil && stopped == nil { condition.wait() }
        if let stopped { throw stopped }
        return try results.removeValue(forKey: index)!.get()
    }

    var isCancelled: Bool { condition.withLock { stopped != nil } }

    func cancel(_ error: MediaError) {
        condition.withLock {
            if stopped == nil { stopped = error }
            condition.broadcast()
        }
    }
}
