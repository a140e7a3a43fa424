import Foundation
import TesseraAV
import TesseraCore
import TesseraMedia
import TesseraWire

/// Checks workers' results off the dispatcher thread (`SegmentResultCheck`: each decodes, holds the
/// task's frames at the task's size, and shows the source's pictures), one per core at a time, and hands
/// each verdict back to the dispatcher, which keeps the result or gives the segment to another worker.
final class ResultChecker: @unchecked Sendable {
    /// A result waiting for its verdict, with what the dispatcher needs to keep it or refuse it.
    struct Pending: @unchecked Sendable {
        var key: TaskKey
        var routingID: Data
        var worker: String?
        var result: Tessera_V1_TaskResult
        var envelope: Data
        var work: SegmentWork
        var received: Double
    }

    enum Verdict: Sendable {
        case passed(SegmentResultCheck.Report, seconds: Double)
        /// The result is wrong: the worker is to blame.
        case refused(String)
        /// The coordinator could not check it (its own failure): kept unchecked, nobody blamed.
        case unchecked(String)
    }

    private let queue: OperationQueue
    private let deliver: @Sendable (Pending, Verdict) -> Void

    init(deliver: @escaping @Sendable (Pending, Verdict) -> Void) {
        self.deliver = deliver
        queue = OperationQueue()
        queue.name = "tessera.result-check"
        queue.maxConcurrentOperationCount = max(1, ProcessInfo.processInfo.activeProcessorCount)
    }

    func check(_ pending: Pending) {
        let deliver = self.deliver
        queue.addOperation {
            let started = Date()
            let verdict: Verdict
            do {
                let output = try SegmentOutput(wire: pending.result.output, index: pending.key.segment)
                let report = try SegmentResultCheck.check(output, against: pending.work)
                verdict = .passed(report, seconds: Date().timeIntervalSince(started))
            } catch let error as MediaError where error.kind == .verificationFailed {
                verdict = .refused(error.message)
            } catch let error as WireError {
                verdict = .refused("\(error)")
            } catch {
                verdict = .unchecked("\(error)")
            }
            deliver(pending, verdict)
        }
    }

    func stop() { queue.cancelAllOperations() }
}
