import Foundation
import Synchronization
import TesseraAV
import TesseraCore
import TesseraHTTP
import TesseraMedia
import TesseraWire

/// A job's segments transcoded by the farm: work goes onto the `TaskBoard` for the dispatcher to lease
/// to workers; outputs come back from the spool, where the dispatcher put them before acknowledging.
/// Segments spooled before a coordinator restart are read back, not redone.
final class RemoteSegmentExecutor: SegmentExecutor, @unchecked Sendable {
    private let job: String
    private let farm: CoordinatorContext
    private var board: TaskBoard { farm.board }
    /// Seconds each output read back from the spool took, until it is stitched.
    private let readSeconds = Mutex<[Int: Double]>([:])

    init(job: String, farm: CoordinatorContext) {
        self.job = job
        self.farm = farm
    }

    func schedule(_ work: SegmentWork) -> Bool { board.add(job: job, work) }

    /// A worker that reads the source itself needs no bytes from the coordinator; the dispatcher reads
    /// them for one that does (`TaskLoader`), and a result's check reads the packets it decodes.
    var takesIndexedPackets: Bool { true }

    func isFinished(_ index: Int) -> Bool { board.isFinished(job: job, segment: index) }

    func output(_ index: Int) throws(MediaError) -> SegmentOutput {
        let url: URL
        do throws(FarmError) { url = try board.waitFinished(job: job, segment: index) } catch {
            throw MediaError(.cancelled, error.message)
        }
        do {
            let reading = Date()
            // The spool holds the TaskResult envelope exactly as the worker sent it.
            let envelope = try WireCodec.decode(try farm.spool.read(url), maxBytes: Int.max)
            let output = try SegmentOutput(wire: envelope.result.output, index: index)
            readSeconds.withLock { $0[index] = Date().timeIntervalSince(reading) }
            return output
        } catch {
            throw MediaError(.corrupt, path: url.path, "spooled segment \(index) cannot be read back: \(error)")
        }
    }

    /// The job failed or was cancelled: segments still out at workers are withdrawn.
    func cancel(_ error: MediaError) { farm.stopJob(job, error.message, reason: "job stopped: \(error.message)") }

    func finish() {}

    /// The stitch's share of the coordinator's work: reading the result back and writing it out.
    func stitched(_ index: Int, seconds: Double, bytes: Int) {
        let read = readSeconds.withLock { $0.removeValue(forKey: index) } ?? 0
        farm.metrics.segmentStitched(seconds: read + seconds, bytes: bytes)
    }
}
