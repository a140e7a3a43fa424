import Foundation
import TesseraAV

/// The stages a one-pass export runs between starting its reader and finishing its writer: the one
/// `TranscodePipeline` (a source, a composition) or a `PassthroughPipeline` (packets copied).
protocol ExportPipeline: AnyObject, Sendable {
    /// Starts the pipeline's threads; they end when their inputs are drained or `failure` is recorded.
    func start(failure: PipelineFailure) -> [StageThread]
    func progress(total: Double, elapsed: Double) -> ExportProgress
    /// Fails when the source ended well before it said it would (a truncated file).
    func checkComplete(expectedSeconds: Double, source: String) throws(MediaError)
    /// The report so far (the session fills in paths and timings).
    var report: ExportReport { get }
}

extension ExportPipeline {
    /// Runs the stages to their end on their own threads, reporting progress a few times a second from
    /// the calling one. What failed is in `failure`.
    func run(
        failure: PipelineFailure, total: Double, started: Date, progress: (@Sendable (ExportProgress) -> Void)?
    ) {
        let stages = start(failure: failure)
        while !stages.allSatisfy({ $0.wait(seconds: 0.25) }) {
            progress?(self.progress(total: total, elapsed: Date().timeIntervalSince(started)))
        }
    }
}

/// Counters shared between stage threads and the progress poller.
final class ProgressCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var frames = 0
    private var seconds = 0.0

    func advance(frames count: Int = 1, to seconds: Double) {
        lock.withLock {
            frames += count
            self.seconds = max(self.seconds, seconds)
        }
    }

    var snapshot: (frames: Int, seconds: Double) { lock.withLock { (frames, seconds) } }
}
