import Foundation
import TesseraAV

/// The stages an `ExportSession` runs between starting its reader and finishing its writer.
protocol ExportPipeline: AnyObject, Sendable {
    /// Starts the pipeline's threads; they end when their inputs are drained or `failure` is recorded.
    func start(failure: PipelineFailure) -> [StageThread]
    func progress(total: Double, elapsed: Double) -> ExportProgress
    /// Fails when the source ended well before it said it would (a truncated file).
    func checkComplete(expectedSeconds: Double, source: String) throws(MediaError)
    /// The report so far (the session fills in paths and timings).
    var report: ExportReport { get }
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
