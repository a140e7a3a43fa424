import Foundation
import TesseraAV
import TesseraCore
import TesseraMedia
import TesseraWire

/// A job's segments transcoded by the farm: work goes onto the `TaskBoard` for the dispatcher to lease
/// to workers; outputs come back from the spool, where the dispatcher put them before acknowledging.
/// Segments spooled before a coordinator restart are read back, not redone.
final class RemoteSegmentExecutor: SegmentExecutor, @unchecked Sendable {
    private let job: String
    private let board: TaskBoard
    private let spool: SegmentSpool

    init(job: String, board: TaskBoard, spool: SegmentSpool) {
        self.job = job
        self.board = board
        self.spool = spool
    }

    func schedule(_ work: SegmentWork) -> Bool { board.add(job: job, work) }

    func isFinished(_ index: Int) -> Bool { board.isFinished(job: job, segment: index) }

    func output(_ index: Int) throws(MediaError) -> SegmentOutput {
        let url: URL
        do throws(FarmError) { url = try board.waitFinished(job: job, segment: index) } catch {
            throw MediaError(.cancelled, error.message)
        }
        do {
            let data = try spool.read(url)
            let message = try Tessera_V1_SegmentOutput(serializedBytes: data)
            return try SegmentOutput(wire: message, index: index)
        } catch {
            throw MediaError(.corrupt, path: url.path, "spooled segment \(index) cannot be read back: \(error)")
        }
    }

    func cancel(_ error: MediaError) { board.fail(job: job, error.message) }

    func finish() {}
}
