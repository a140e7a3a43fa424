import Foundation
import TesseraAV
import TesseraCore
import TesseraMedia

/// Reads the packets of a task leased to a worker that does not read the source itself, off the
/// dispatcher thread: a farm's producer reads the source's index alone (`EncodedPacket.indexedSize`), so
/// a task that goes with its packets reads them from the coordinator's copy first
/// (`SourcePacketReader.load`), and the dispatcher sends it when they are in.
final class TaskLoader: @unchecked Sendable {
    /// A lease whose task waits for its packets.
    struct Pending: @unchecked Sendable {
        var key: TaskKey
        var routingID: Data
        var worker: String
        var work: SegmentWork
        var deadline: Double
    }

    private let queue: OperationQueue
    private let deliver: @Sendable (Pending, Result<SegmentWork, MediaError>) -> Void

    init(deliver: @escaping @Sendable (Pending, Result<SegmentWork, MediaError>) -> Void) {
        self.deliver = deliver
        queue = OperationQueue()
        queue.name = "tessera.task-load"
        // Reads, mostly: two keep a disk busy without taking every core from the checks.
        queue.maxConcurrentOperationCount = 2
    }

    /// Queues a read; an `urgent` one (a backup, racing a late attempt) goes before those queued.
    func load(_ pending: Pending, urgent: Bool = false) {
        let deliver = self.deliver
        let operation = BlockOperation {
            let work = pending.work
            let result: Result<SegmentWork, MediaError>
            do throws(MediaError) {
                var loaded = work
                loaded.packets = try SourcePacketReader.load(
                    work.packets, from: work.sourceName, stream: work.sourceStream ?? 0, sourceBytes: work.sourceBytes)
                result = .success(loaded)
            } catch {
                result = .failure(error)
            }
            deliver(pending, result)
        }
        operation.queuePriority = urgent ? .veryHigh : .normal
        queue.addOperation(operation)
    }

    func stop() { queue.cancelAllOperations() }
}
