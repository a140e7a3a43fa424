import Foundation
import Logging
import NIOConcurrencyHelpers

/// What the coordinator's parts share: the store, the spool, the board of work in memory, the metrics and
/// the rate book, and a way to reach the dispatcher thread.
final class CoordinatorContext: @unchecked Sendable {
    let store: JobStore
    let spool: SegmentSpool
    let logger: Logger
    let defaultSegmentDuration: Double
    /// Threads each job's audio encode may use (`CoordinatorConfiguration.audioThreads`).
    let audioThreads: Int
    let board: TaskBoard
    let metrics: FarmMetrics
    /// The farm's, each worker's and each job's rates, sampled by the dispatcher.
    let rates = RateBook()
    /// How long a restarted coordinator holds back segments that were out at workers, for those workers
    /// to claim (two liveness periods).
    let claimGrace: Double
    private let dispatcher: NIOLockedValueBox<Dispatcher?>

    init(
        store: JobStore, spool: SegmentSpool, logger: Logger, defaultSegmentDuration: Double,
        claimGrace: Double = 10, metrics: FarmMetrics = FarmMetrics(), audioThreads: Int = 1
    ) {
        self.audioThreads = max(1, audioThreads)
        self.metrics = metrics
        self.claimGrace = claimGrace
        self.store = store
        self.spool = spool
        self.logger = logger
        self.defaultSegmentDuration = defaultSegmentDuration
        let dispatcher = NIOLockedValueBox<Dispatcher?>(nil)
        self.dispatcher = dispatcher
        board = TaskBoard { dispatcher.withLockedValue { $0 }?.wake() }
    }

    func attach(_ d: Dispatcher?) { dispatcher.withLockedValue { $0 = d } }

    /// Fails a job's work on the board (its waiting threads wake) and withdraws what was out at workers.
    func stopJob(_ job: String, _ message: String, reason: String) {
        for (segment, flight) in board.fail(job: job, message) {
            withdraw(job: job, segment: segment, attempt: flight.attempt, worker: flight.worker, reason: reason)
        }
    }

    /// Tells the worker holding a segment's attempt to stop it.
    func withdraw(job: String, segment: Int, attempt: Int, worker: String, reason: String) {
        dispatcher.withLockedValue { $0 }?.withdraw(
            job: job, segment: segment, attempt: attempt, worker: worker, reason: reason)
    }

}
