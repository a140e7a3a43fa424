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
/// A segment out at a slow worker may get one backup attempt on an idle one (`backup`, `BackupPolicy`):
/// both run until the first result completes it (`complete` returns the other, to withdraw) or one
/// ends without a result (`endRacing`: the other carries on alone).
///
/// Fairness (`next`): highest priority first; among equal priorities the job with the fewest segments
/// out at workers, then the oldest job; within a job the lowest segment index.
final class TaskBoard: @unchecked Sendable {
    struct InFlight: Sendable {
        /// The segment's work (its settings, spec and packets), shared by reference: the board's scans copy
        /// attempts on every lease round, and a copied `SegmentWork` is over a kilobyte.
        private let shared: SharedWork
        var work: SegmentWork { shared.work }
        var attempt: Int
        var worker: String
        var leasedAt: Double
        var lastProgress: Double
        var framesDone: Int
        /// When the worker started it (from its progress reports); nil until it reports frames.
        var startedAt: Double? = nil
        /// A second attempt leased while another ran (`backup`).
        var isBackup = false
        /// Lease order on the board: a worker runs what it holds in this order.
        var sequence = 0

        init(
            work: SegmentWork, attempt: Int, worker: String, leasedAt: Double, lastProgress: Double, framesDone: Int,
            isBackup: Bool = false, sequence: Int = 0
        ) {
            shared = SharedWork(work: work)
            self.attempt = attempt
            self.worker = worker
            self.leasedAt = leasedAt
            self.lastProgress = lastProgress
            self.framesDone = framesDone
            self.isBackup = isBackup
            self.sequence = sequence
        }

        private final class SharedWork: Sendable {
            let work: SegmentWork
            init(work: SegmentWork) { self.work = work }
        }

        var estimate: BackupPolicy.Attempt {
            .init(
                frames: work.spec.frameCount, framesDone: framesDone, startedAt: startedAt, leasedAt: leasedAt,
                lastProgress: lastProgress)
        }
    }

    private final class JobWork {
        let id: String
        let priority: Int
        let created: Double
        var ready: [Int: SegmentWork] = [:]
        /// When each ready segment last became ready (Unix seconds), for its queue wait.
        var readySince: [Int: Double] = [:]
        var inFlight: [Int: InFlight] = [:]
        /// Backup attempts of segments in `inFlight`, at most one each.
        var backups: [Int: InFlight] = [:]
        /// Spool files of finished segments (including those finished before a restart).
        var finished: [Int: URL] = [:]
        var framesFinished = 0
        /// Every frame the job makes, when its plan is known.
        var framesTotal: Int?
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

        /// Every attempt out, backups included.
        var attempts: [(segment: Int, flight: InFlight)] {
            inFlight.map { ($0.key, $0.value) } + backups.map { ($0.key, $0.value) }
        }

        /// The lowest segment not finished, when it is out at a worker: the job's in-order stitching waits
        /// for it (a segment not yet added comes after every one on the board).
        var stitchFrontier: Int? {
            let lowest = [inFlight.keys.min(), ready.keys.min(), reserved.keys.min()].compactMap { $0 }.min()
            return lowest.flatMap { inFlight[$0] != nil ? $0 : nil }
        }

        /// Frames encoded so far in running segments: a racing segment's furthest attempt.
        var framesInFlight: Int {
            inFlight.reduce(0) { $0 + max($1.value.framesDone, backups[$1.key]?.framesDone ?? 0) }
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
    /// And the source packet bytes they may hold together: a mezzanine's segments are hundreds of
    /// megabytes each, so the count alone does not bound the coordinator's memory. One segment is always
    /// allowed, however large.
    let readyBytesLimit: Int
    private var jobs: [String: JobWork] = [:]
    /// The next lease's `InFlight.sequence`.
    private var leases = 0
    private let condition = NSCondition()
    /// Called (outside the lock) whenever new work becomes ready, to wake the dispatcher.
    private let onReady: @Sendable () -> Void
    /// Unix seconds now (a virtual clock in the scheduling model).
    private let clock: @Sendable () -> Double

    init(
        readyLimit: Int = 6, readyBytesLimit: Int = 256 << 20,
        clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 },
        onReady: @escaping @Sendable () -> Void
    ) {
        self.readyLimit = readyLimit
        self.readyBytesLimit = readyBytesLimit
        self.clock = clock
        self.onReady = onReady
    }

    // MARK: Job threads

    /// - Parameters:
    ///   - framesTotal: the frames the job's plan makes (for `backup`'s frontier rule).
    ///   - reserved: segments leased when the coordinator stopped, held for their workers until
    ///     `reservedUntil` (Unix seconds).
    func open(
        job: String, priority: Int, created: Double, finished: [Int: URL], framesFinished: Int,
        framesTotal: Int? = nil, reserved: [Int: Reservation] = [:], reservedUntil: Double = 0
    ) {
        condition.withLock {
            let w = JobWork(id: job, priority: priority, created: created)
            w.finished = finished
            w.framesFinished = framesFinished
            w.framesTotal = framesTotal
            w.reserved = reserved
            w.reservedUntil = reservedUntil
            jobs[job] = w
        }
    }

    /// Queues a segment; waits while the job's ready segments are at `readyLimit` or would pass
    /// `readyBytesLimit` with it. False when the job was closed or failed meanwhile.
    func add(job: String, _ work: SegmentWork) -> Bool {
        let added: Bool = condition.withLock {
            while let w = jobs[job], w.failure == nil, !hasRoom(w, for: work) { condition.wait() }
            guard let w = jobs[job], w.failure == nil else { return false }
            w.ready[work.spec.index] = work
            w.readySince[work.spec.index] = clock()
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
            let out = w.attempts
            w.ready.removeAll()
            w.readySince.removeAll()
            w.inFlight.removeAll()
            w.backups.removeAll()
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
                    framesDone: 0, sequence: leases)
                leases += 1
                let waited = max(0, now - (w.readySince.removeValue(forKey: index) ?? now))
                condition.broadcast()  // room for the producer
                return (w.id, work, n, waited)
            }
            return nil
        }
    }

    /// Whether `add` would queue `work` now, without waiting.
    func hasRoom(job: String, for work: SegmentWork) -> Bool {
        condition.withLock { jobs[job].map { hasRoom($0, for: work) } ?? true }
    }

    private func hasRoom(_ w: JobWork, for work: SegmentWork) -> Bool {
        w.ready.isEmpty
            || (w.ready.count < readyLimit
                && w.ready.values.reduce(work.loadedBytes) { $0 + $1.loadedBytes } <= readyBytesLimit)
    }

    /// Each job's lowest queued segment, for jobs with one (what a worker would be leased next).
    func firstReady() -> [(job: String, work: SegmentWork)] {
        condition.withLock {
            jobs.values.compactMap { w in
                guard w.failure == nil, let index = w.ready.keys.min(), let work = w.ready[index] else { return nil }
                return (w.id, work)
            }
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
            w.readySince[segment] = clock()
            return true
        }
        if done { onReady() }
        return done
    }

    /// A worker's progress report: `framesPerSecond` is its own measure since it started the attempt.
    func progress(job: String, segment: Int, attempt: Int, frames: Int, framesPerSecond: Double = 0, now: Double) {
        condition.withLock {
            guard let w = jobs[job] else { return }
            func update(_ f: inout InFlight) {
                f.framesDone = frames
                f.lastProgress = now
                if f.startedAt == nil, frames > 0, framesPerSecond > 0, framesPerSecond <= BackupPolicy.maximumRate {
                    f.startedAt = max(f.leasedAt, now - Double(frames) / framesPerSecond)
                }
            }
            if var f = w.inFlight[segment], f.attempt == attempt {
                update(&f)
                w.inFlight[segment] = f
            } else if var f = w.backups[segment], f.attempt == attempt {
                update(&f)
                w.backups[segment] = f
            }
        }
    }

    /// Records a spooled segment; wakes the job's stitching thread. Returns the attempts it supersedes
    /// that are still out at workers (to withdraw them), and whether the winner was a backup.
    @discardableResult
    func complete(
        job: String, segment: Int, attempt: Int, spool: URL, frames: Int
    ) -> (superseded: [InFlight], byBackup: Bool) {
        condition.withLock {
            guard let w = jobs[job], w.finished[segment] == nil else { return ([], false) }
            w.finished[segment] = spool
            w.framesFinished += frames
            let out = [w.inFlight.removeValue(forKey: segment), w.backups.removeValue(forKey: segment)].compactMap {
                $0
            }
            w.ready[segment] = nil
            w.readySince[segment] = nil
            w.reserved[segment] = nil
            condition.broadcast()
            return (out.filter { $0.attempt != attempt }, out.contains { $0.attempt == attempt && $0.isBackup })
        }
    }

    /// One attempt of a racing segment (out twice: `backup`) ended without a result (failed, lost,
    /// stalled, withdrawn): it is dropped and the other carries on alone, as the segment's attempt.
    /// Returns the dropped attempt; nil when the segment was not racing (or `attempt` is not out).
    func endRacing(job: String, segment: Int, attempt: Int) -> InFlight? {
        condition.withLock {
            guard let w = jobs[job], let backup = w.backups[segment], let first = w.inFlight[segment] else {
                return nil
            }
            if backup.attempt == attempt {
                w.backups[segment] = nil
                return backup
            }
            guard first.attempt == attempt else { return nil }
            w.backups[segment] = nil
            w.inFlight[segment] = backup
            return first
        }
    }

    /// Whether `attempt` is the only attempt of the segment out at a worker in this run.
    func isSoleAttempt(job: String, segment: Int, attempt: Int) -> Bool {
        condition.withLock {
            jobs[job].map { $0.inFlight[segment]?.attempt == attempt && $0.backups[segment] == nil } ?? false
        }
    }

    /// Segments of the job out at two workers at once.
    func racing(job: String) -> Set<Int> { condition.withLock { jobs[job].map { Set($0.backups.keys) } ?? [] } }

    /// A backup attempt for `worker`: of the segments out at other workers that it can run (`accepts`) and
    /// that have no backup yet, the one with the longest expected time left, if `policy` finds it worth a
    /// second encode after what `worker` already holds. With `frontier` (work is queued), only each job's
    /// stitch frontier is considered (`FrontierRule`). `rate` gives a worker's measured frames per second
    /// (nil: not known yet); `attempt` numbers the backup (the store).
    func backup(
        worker: String, now: Double, policy: BackupPolicy, rate: (String) -> Double?, frontier: FrontierRule? = nil,
        accepts: (String, SegmentWork) -> Bool = { _, _ in true }, attempt: (String, Int) -> Int?
    ) -> (job: String, work: SegmentWork, attempt: Int, of: InFlight)? {
        condition.withLock {
            var candidates: [(job: JobWork, segment: Int, flight: InFlight)] = []
            for w in jobs.values where w.failure == nil {
                let segments = frontier != nil ? w.stitchFrontier.map { [$0] } ?? [] : Array(w.inFlight.keys)
                for segment in segments {
                    guard let f = w.inFlight[segment], w.backups[segment] == nil, f.worker != worker,
                        now - f.leasedAt >= policy.minimumAge, accepts(w.id, f.work)
                    else { continue }
                    candidates.append((w, segment, f))
                }
            }
            guard !candidates.isEmpty else { return nil }
            // The farm's median rate stands in for a worker not measured yet.
            guard
                let idleRate = rate(worker).flatMap({ $0 > 0 ? $0 : nil })
                    ?? BackupPolicy.median(
                        Set(jobs.values.flatMap { $0.attempts.map(\.flight.worker) } + [worker]).compactMap(rate)
                            .filter { $0 > 0 })
            else { return nil }
            // Each worker's attempts in lease order (it runs them one after another). This runs for every idle
            // worker on every lease round: with few candidates (a frontier each) only the workers asked about
            // are gathered, with many every worker at once.
            typealias Held = (sequence: Int, estimate: BackupPolicy.Attempt)
            var queues: [String: [Held]] = [:]
            func gather(_ holder: String?) {
                for w in jobs.values {
                    for f in w.inFlight.values where holder == nil || f.worker == holder {
                        queues[f.worker, default: []].append((f.sequence, f.estimate))
                    }
                    for f in w.backups.values where holder == nil || f.worker == holder {
                        queues[f.worker, default: []].append((f.sequence, f.estimate))
                    }
                }
                for key in holder.map({ [$0] }) ?? Array(queues.keys) {
                    queues[key]?.sort { $0.sequence < $1.sequence }
                }
            }
            let gatheredAll = candidates.count > 4
            if gatheredAll { gather(nil) }
            func queue(_ holder: String) -> [Held] {
                if let q = queues[holder] { return q }
                if gatheredAll { return [] }
                gather(holder)
                return queues[holder] ?? []
            }
            // What `worker` holds runs first; unknown (no progress and no rate) counts as never.
            var startsIn = 0.0
            for f in queue(worker) {
                guard let t = BackupPolicy.timeLeft(f.estimate, holderRate: idleRate, now: now) else { return nil }
                startsIn += t
            }
            var best: (job: JobWork, segment: Int, flight: InFlight, left: Double)?
            for (w, segment, f) in candidates {
                let ahead = queue(f.worker).prefix { $0.sequence < f.sequence }
                let left = BackupPolicy.timeLeft(
                    f.estimate, ahead: ahead.map(\.estimate), holderRate: rate(f.worker), now: now)
                let finishesIn = startsIn + Double(f.work.spec.frameCount) / idleRate
                guard
                    policy.shouldBackUp(f.estimate, timeLeft: left, idleRate: idleRate, startsIn: startsIn, now: now),
                    frontier.map({ allows($0, f, in: w, timeLeft: left, finishesIn: finishesIn) }) ?? true
                else { continue }
                let score = left ?? .infinity
                // Ties (two unknown ends) go to the lower segment, so the choice does not hang on hash order.
                if best.map({ score > $0.left || (score == $0.left && segment < $0.segment) }) ?? true {
                    best = (w, segment, f, score)
                }
            }
            guard let best, let n = attempt(best.job.id, best.segment) else { return nil }
            best.job.backups[best.segment] = InFlight(
                work: best.flight.work, attempt: n, worker: worker, leasedAt: now, lastProgress: now,
                framesDone: 0, isBackup: true, sequence: leases)
            leases += 1
            return (best.job.id, best.flight.work, n, best.flight)
        }
    }

    /// When a job's stitch frontier (its lowest unfinished segment, which every finished one after it waits
    /// for) is backed up while work is queued: by a worker that would finish it within `secondsPerFrame`,
    /// and only when it would still be out after the job's other unfinished frames are made at the farm's
    /// `capacity` (frames per second, all measured workers): sooner, the stitching catches up anyway and
    /// the second encode is lost to the queue.
    struct FrontierRule {
        var secondsPerFrame: Double
        var capacity: Double
    }

    /// Whether `rule` lets a worker that would finish in `finishesIn` seconds back up frontier `f` of `w`.
    private func allows(
        _ rule: FrontierRule, _ f: InFlight, in w: JobWork, timeLeft: Double?, finishesIn: Double
    ) -> Bool {
        let frames = f.work.spec.frameCount
        guard rule.capacity > 0, finishesIn <= rule.secondsPerFrame * Double(frames), let total = w.framesTotal else {
            return false
        }
        let rest = max(0, total - w.framesFinished - w.framesInFlight - frames + f.framesDone)
        return (timeLeft ?? .infinity) > Double(rest) / rule.capacity
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
                for (index, var f) in w.backups where f.worker == worker {
                    f.lastProgress = now
                    w.backups[index] = f
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
                let b = w.backups[segment]
                return (f.attempt == attempt && f.worker == worker) || (b?.attempt == attempt && b?.worker == worker)
                    ? .adopted : .superseded
            }
            guard let work = w.ready[segment] else { return .unknown }
            guard confirm() else { return .superseded }
            w.ready[segment] = nil
            w.readySince[segment] = nil
            w.reserved[segment] = nil
            w.inFlight[segment] = InFlight(
                work: work, attempt: attempt, worker: worker, leasedAt: now, lastProgress: now,
                framesDone: 0, sequence: leases)
            leases += 1
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
                w.attempts.filter { $0.flight.lastProgress < before }.map { (w.id, $0.segment, $0.flight) }
            }
        }
    }

    /// Frames finished plus frames encoded so far in running segments, for a job's progress.
    func frames(job: String) -> (finished: Int, inFlight: Int, segmentsFinished: Int)? {
        condition.withLock {
            guard let w = jobs[job] else { return nil }
            return (w.framesFinished, w.framesInFlight, w.finished.count)
        }
    }

    /// Every open job's frames finished plus frames encoded so far in running segments (the rate book's
    /// samples).
    var jobFrames: [String: Int] {
        condition.withLock {
            jobs.mapValues { w in w.framesFinished + w.framesInFlight }
        }
    }

    var counts: (ready: Int, inFlight: Int) {
        condition.withLock {
            (jobs.values.reduce(0) { $0 + $1.ready.count }, jobs.values.reduce(0) { $0 + $1.inFlight.count })
        }
    }
}
