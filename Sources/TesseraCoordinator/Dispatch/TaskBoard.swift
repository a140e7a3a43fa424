import Foundation
import TesseraCore
import TesseraHTTP
import TesseraWire

/// The work of every running job, in memory: segments ready to lease, segments out at workers, and the
/// finished ones' spool files. Job threads add work and wait for outputs; the dispatcher thread leases,
/// requeues and completes. One lock; waiting uses its condition.
///
/// ```
///  job thread: add ─▶ ready ──── next: leased to a worker (store: attempt + 1) ───▶ in flight
///                       │  ▲                                                         │  │
///                       │  └──── requeue: worker dead or gone, stalled, failed ──────┘  │ complete
///                       └─ reserved after a restart ── adopt: its worker's claim ──▶ ┘   ▼
///                          (until claimed, released, or `reservedUntil`)            finished (spool file)
///  fail(job): ready and in-flight work dropped, the job's threads wake with the failure
/// ```
///
/// Fairness (`next`): highest priority first; among equal priorities the job with the fewest segments
/// out at workers, then the oldest job; within a job the lowest segment index.
final class TaskBoard: @unchecked Sendable {
    struct InFlight: Sendable {
        var work: SegmentWork
        var attempt: Int
        var worker: String
        var leasedAt: Double
        var lastProgress: Double
        var framesDone: Int
    }

    private final class JobWork {
        let id: String
        let priority: Int
        let created: Double
        var ready: [Int: SegmentWork] = [:]
        /// When each ready segment last became ready (Unix seconds), for its queue wait.
        var readySince: [Int: Double] = [:]
        var inFlight: [Int: InFlight] = [:]
        /// Spool files of finished segments (including those finished before a restart).
        var finished: [Int: URL] = [:]
        var framesFinished = 0
        var failure: String?
        /// Segments out at a worker when the coordinator last stopped: held back for that worker (which
        /// may still be encoding them) until it claims them, says it no longer holds them, or `reservedUntil`.
        var reserved: [Int: Reservation] = [:]
        var reservedUntil = 0.0
        init(id: String, priority: Int, created: Double) {
            self.id = id
            self.priority = priority
            self.created = created
        }
    }

    /// A segment held back for the worker that had its latest attempt.
    struct Reservation: Sendable, Equatable {
        var worker: String
        var attempt: Int
    }

    /// What became of a worker's claim to a task it kept (see `adopt`).
    enum Claim: Equatable {
        /// Leased to it again under its attempt.
        case adopted
        /// Finished, or out at another attempt: the worker should stop it.
        case superseded
        /// Not on the board (yet): the job is still being planned, or its producer has not reached it.
        case unknown
    }

    /// Ready (not yet leased) segments a job may queue before its producer waits.
    let readyLimit: Int
    private var jobs: [String: JobWork] = [:]
    private let condition = NSCondition()
    /// Called (outside the lock) whenever new work becomes ready, to wake the dispatcher.
    private let onReady: @Sendable () -> Void

    init(readyLimit: Int = 6, onReady: @escaping @Sendable () -> Void) {
        self.readyLimit = readyLimit
        self.onReady = onReady
    }

    // MARK: Job threads

    /// - Parameter reserved: segments leased when the coordinator stopped, held for their workers until
    ///   `reservedUntil` (Unix seconds).
    func open(
        job: String, priority: Int, created: Double, finished: [Int: URL], framesFinished: Int,
        reserved: [Int: Reservation] = [:], reservedUntil: Double = 0
    ) {
        condition.withLock {
            let w = JobWork(id: job, priority: priority, created: created)
            w.finished = finished
            w.framesFinished = framesFinished
            w.reserved = reserved
            w.reservedUntil = reservedUntil
            jobs[job] = w
        }
    }

    /// Queues a segment; waits while the job already has `readyLimit` segments waiting. False when the
    /// job was closed or failed meanwhile.
    func add(job: String, _ work: SegmentWork) -> Bool {
        let added: Bool = condition.withLock {
            while let w = jobs[job], w.failure == nil, w.ready.count >= readyLimit { condition.wait() }
            guard let w = jobs[job], w.failure == nil else { return false }
            w.ready[work.spec.index] = work
            w.readySince[work.spec.index] = Date().timeIntervalSince1970
            return true
        }
        if added { onReady() }
        return added
    }

    func isFinished(job: String, segment: Int) -> Bool {
        condition.withLock { jobs[job]?.finished[segment] != nil }
    }

    /// Waits for a segment's spool file. Throws the job's failure, or a cancellation once closed.
    func waitFinished(job: String, segment: Int) throws(FarmError) -> URL {
        condition.lock()
        defer { condition.unlock() }
        while true {
            guard let w = jobs[job] else { throw FarmError(.conflict, "job \(job) was stopped") }
            if let url = w.finished[segment] { return url }
            if let failure = w.failure { throw FarmError(.internalError, failure) }
            condition.wait()
        }
    }

    /// Fails the job: waiting threads wake with `message`; its work is dropped. Returns what was out at
    /// workers so they can be told to stop.
    @discardableResult
    func fail(job: String, _ message: String) -> [(segment: Int, InFlight)] {
        condition.withLock {
            guard let w = jobs[job] else { return [] }
            if w.failure == nil { w.failure = message }
            let out = w.inFlight.map { ($0.key, $0.value) }
            w.ready.removeAll()
            w.readySince.removeAll()
            w.inFlight.removeAll()
            condition.broadcast()
            return out
        }
    }

    /// Forgets the job once its thread is done with it.
    func close(job: String) {
        condition.withLock {
            jobs[job] = nil
            condition.broadcast()
        }
    }

    // MARK: Dispatcher thread

    /// The next segment to lease, by the fairness rule, among the work `worker` can do (`accepts`: its
    /// codecs and backends); moves it to in-flight for `worker`. `attempt` is asked for once the segment
    /// is chosen (the store numbers attempts). `waited`: seconds the segment was ready before this lease.
    func next(
        worker: String, now: Double, accepts: (String, SegmentWork) -> Bool = { _, _ in true },
        attempt: (String, Int) -> Int?
    ) -> (job: String, work: SegmentWork, attempt: Int, waited: Double)? {
        condition.withLock {
            let candidates = jobs.values.filter { !$0.ready.isEmpty && $0.failure == nil }
                .sorted { a, b in
                    if a.priority != b.priority { return a.priority > b.priority }
                    if a.inFlight.count != b.inFlight.count { return a.inFlight.count < b.inFlight.count }
                    if a.created != b.created { return a.created < b.created }
                    return a.id < b.id
                }
            for w in candidates {
                if now >= w.reservedUntil { w.reserved.removeAll() }
                guard let index = w.ready.keys.filter({ w.reserved[$0] == nil }).min(), let ready = w.ready[index],
                    accepts(w.id, ready)
                else { continue }
                w.ready[index] = nil
                let work = ready
                guard let n = attempt(w.id, index) else { continue }
                w.inFlight[index] = InFlight(
                    work: work, attempt: n, worker: worker, leasedAt: now, lastProgress: now,
                    framesDone: 0)
                let waited = max(0, now - (w.readySince.removeValue(forKey: index) ?? now))
                condition.broadcast()  // room for the producer
                return (w.id, work, n, waited)
            }
            return nil
        }
    }

    var hasReadyWork: Bool { condition.withLock { jobs.values.contains { !$0.ready.isEmpty && $0.failure == nil } } }

    /// Puts an in-flight segment back in the queue if `attempt` still holds it.
    @discardableResult
    func requeue(job: String, segment: Int, attempt: Int) -> Bool {
        let done: Bool = condition.withLock {
            guard let w = jobs[job], let f = w.inFlight[segment], f.attempt == attempt else { return false }
            w.inFlight[segment] = nil
            w.ready[segment] = f.work
            w.readySince[segment] = Date().timeIntervalSince1970
            return true
        }
        if done { onReady() }
        return done
    }

    func progress(job: String, segment: Int, attempt: Int, frames: Int, now: Double) {
        condition.withLock {
            guard let w = jobs[job], var f = w.inFlight[segment], f.attempt == attempt else { return }
            f.framesDone = frames
            f.lastProgress = now
            w.inFlight[segment] = f
        }
    }

    /// Records a spooled segment; wakes the job's stitching thread. Returns the attempt it supersedes
    /// when another attempt of the segment is still out at a worker (to withdraw it).
    @discardableResult
    func complete(job: String, segment: Int, attempt: Int, spool: URL, frames: Int) -> InFlight? {
        condition.withLock {
            guard let w = jobs[job], w.finished[segment] == nil else { return nil }
            w.finished[segment] = spool
            w.framesFinished += frames
            let other = w.inFlight.removeValue(forKey: segment)
            w.ready[segment] = nil
            w.readySince[segment] = nil
            w.reserved[segment] = nil
            condition.broadcast()
            return other.flatMap { $0.attempt == attempt ? nil : $0 }
        }
    }

    /// A worker showed it is moving (progress, a result, a failure): every segment it holds counts as
    /// progressing, so a prefetched segment waiting behind a long one does not look stalled.
    func touch(worker: String, now: Double) {
        condition.withLock {
            for w in jobs.values {
                for (index, var f) in w.inFlight where f.worker == worker {
                    f.lastProgress = now
                    w.inFlight[index] = f
                }
            }
        }
    }

    /// A worker that kept a task across a coordinator restart (or its own reconnect) claims it: when the
    /// segment is waiting and `confirm` (the store) agrees this is its latest attempt and was leased to
    /// this worker, it goes back to the worker under that attempt instead of being encoded again.
    func adopt(
        job: String, segment: Int, attempt: Int, worker: String, now: Double,
        confirm: () -> Bool
    ) -> Claim {
        condition.withLock {
            guard let w = jobs[job], w.failure == nil else { return .unknown }
            if w.finished[segment] != nil { return .superseded }
            if let f = w.inFlight[segment] {
                return f.attempt == attempt && f.worker == worker ? .adopted : .superseded
            }
            guard let work = w.ready[segment] else { return .unknown }
            guard confirm() else { return .superseded }
            w.ready[segment] = nil
            w.readySince[segment] = nil
            w.reserved[segment] = nil
            w.inFlight[segment] = InFlight(
                work: work, attempt: attempt, worker: worker, leasedAt: now, lastProgress: now,
                framesDone: 0)
            condition.broadcast()  // room for the producer
            return .adopted
        }
    }

    /// A worker said which tasks it holds: its reservations for anything else are released.
    func releaseReservations(worker: String, keeping held: Set<TaskKey>) -> Bool {
        let released: Bool = condition.withLock {
            var any = false
            for w in jobs.values {
                for (segment, r) in w.reserved
                where r.worker == worker
                    && !held.contains(TaskKey(job: w.id, segment: segment, attempt: r.attempt))
                {
                    w.reserved[segment] = nil
                    any = true
                }
            }
            return any
        }
        if released { onReady() }
        return released
    }

    /// A segment's work while it is waiting or out at a worker (any attempt: they share it).
    func work(job: String, segment: Int) -> SegmentWork? {
        condition.withLock { jobs[job].flatMap { $0.inFlight[segment]?.work ?? $0.ready[segment] } }
    }

    /// Whether the job is open on the board (planned and not yet closed).
    func knows(job: String) -> Bool { condition.withLock { jobs[job] != nil } }

    /// Whether (job, segment) is still wanted: the job is open and the segment not finished.
    func wants(job: String, segment: Int) -> Bool {
        condition.withLock { jobs[job].map { $0.failure == nil && $0.finished[segment] == nil } ?? false }
    }

    /// In-flight segments with no progress since `before`.
    func stalled(before: Double) -> [(job: String, segment: Int, flight: InFlight)] {
        condition.withLock {
            jobs.values.flatMap { w in
                w.inFlight.filter { $0.value.lastProgress < before }.map { (w.id, $0.key, $0.value) }
            }
        }
    }

    /// Frames finished plus frames encoded so far in running segments, for a job's progress.
    func frames(job: String) -> (finished: Int, inFlight: Int, segmentsFinished: Int)? {
        condition.withLock {
            guard let w = jobs[job] else { return nil }
            return (w.framesFinished, w.inFlight.values.reduce(0) { $0 + $1.framesDone }, w.finished.count)
        }
    }

    /// Every open job's frames finished plus frames encoded so far in running segments (the rate book's
    /// samples).
    var jobFrames: [String: Int] {
        condition.withLock {
            jobs.mapValues { w in w.framesFinished + w.inFlight.values.reduce(0) { $0 + $1.framesDone } }
        }
    }

    var counts: (ready: Int, inFlight: Int) {
        condition.withLock {
            (jobs.values.reduce(0) { $0 + $1.ready.count }, jobs.values.reduce(0) { $0 + $1.inFlight.count })
        }
    }
}
