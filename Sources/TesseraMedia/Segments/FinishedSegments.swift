import Foundation
import TesseraAV
import TesseraCore

/// Finished segments (or their errors), waiting to be stitched in order.
final class FinishedSegments: @unchecked Sendable {
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
