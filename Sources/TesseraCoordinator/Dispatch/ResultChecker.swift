import Foundation
import TesseraAV
import TesseraCore
import TesseraMedia
import TesseraWire

#if canImport(Glibc)
import Glibc
#endif

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

        var label: CheckVerdict {
            switch self {
            case .passed: .passed
            case .refused: .refused
            case .unchecked: .unchecked
            }
        }
    }

    private let queue: OperationQueue
    private let deliver: @Sendable (Pending, Verdict) -> Void
    /// Checks waiting and done, their verdicts and CPU seconds (`tessera_result_check*`).
    private let metrics: FarmMetrics

    init(metrics: FarmMetrics, deliver: @escaping @Sendable (Pending, Verdict) -> Void) {
        self.metrics = metrics
        self.deliver = deliver
        queue = OperationQueue()
        queue.name = "tessera.result-check"
        queue.maxConcurrentOperationCount = max(1, ProcessInfo.processInfo.activeProcessorCount)
    }

    func check(_ pending: Pending) {
        let deliver = self.deliver
        let metrics = self.metrics
        metrics.resultCheckQueued()
        queue.addOperation {
            let started = Date()
            let cpu = Self.threadCPUSeconds()
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
            metrics.resultChecked(verdict.label, cpuSeconds: Self.threadCPUSeconds() - cpu)
            deliver(pending, verdict)
        }
    }

    /// CPU seconds this thread has used: a check decodes on its own thread (one-thread decoders), so the
    /// difference is the check's CPU, however busy the machine's cores are.
    static func threadCPUSeconds() -> Double {
        var t = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) == 0 else { return 0 }
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    func stop() { queue.cancelAllOperations() }
}
