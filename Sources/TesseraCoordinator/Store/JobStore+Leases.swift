import GRDB
import TesseraCore

/// Leasing segments to workers and recording what came of each attempt.
///
/// ```
///            leaseNext            complete (first result wins)
///  pending ───────────▶ leased ───────────────────────────────▶ done
///     ▲                   │ expired / requeue / releaseAll / failAttempt (not exhausted)
///     └───────────────────┘
///                         └── failAttempt, maxFailures counted ──▶ failed (the job must fail)
/// ```
extension JobStore {
    /// Leases the next pending segment to `worker` until `deadline`, or nil when none waits.
    ///
    /// Fair among jobs in state `running`: the highest priority first; among equal priorities the job
    /// with the fewest segments leased right now, then the oldest job; within a job the lowest index.
    /// The segment's attempt number grows by one. `now` stamps the job's `updatedAt`.
    /// - Throws: `StoreError.database`.
    public func leaseNext(worker: String, deadline: Double, now: Double) throws(StoreError) -> Lease? {
        try write("lease a segment to \(worker)") { db in
            // Picks the job first (one row per running job, not per pending segment), then its segment.
            guard let next = try Row.fetchOne(db, sql: """
                WITH chosen AS (
                    SELECT j.id FROM jobs j
                    WHERE j.state = 'running'
                        AND EXISTS (SELECT 1 FROM segments p WHERE p.jobID = j.id AND p.state = 'pending')
                    ORDER BY j.priority DESC,
                        (SELECT COUNT(*) FROM segments l WHERE l.jobID = j.id AND l.state = 'leased'),
                        j.createdAt, j.rowid
                    LIMIT 1)
                SELECT chosen.id AS jobID,
                    (SELECT MIN(s.idx) FROM segments s WHERE s.jobID = chosen.id AND s.state = 'pending') AS idx
                FROM chosen
                """)
            else { return nil }
            let jobID: String = next["jobID"]
            let index: Int = next["idx"]
            try db.execute(
                sql: """
                    UPDATE segments SET state = 'leased', attempt = attempt + 1, worker = ?, leaseDeadline = ?
                    WHERE jobID = ? AND idx = ?
                    """,
                arguments: [worker, deadline, jobID, index])
            try db.execute(sql: "UPDATE jobs SET updatedAt = ? WHERE id = ?", arguments: [now, jobID])
            let attempt = try Int.fetchOne(
                db, sql: "SELECT attempt FROM segments WHERE jobID = ? AND idx = ?", arguments: [jobID, index]) ?? 0
            return Lease(jobID: jobID, segment: index, attempt: attempt, worker: worker, deadline: deadline)
        }
    }

    /// Moves a lease's deadline (the worker reported progress). False when that attempt no longer holds
    /// the segment: it expired and was re-leased, finished, or the job ended.
    /// - Throws: `StoreError.database`.
    public func extendLease(_ lease: Lease, deadline: Double) throws(StoreError) -> Bool {
        try write("extend the lease on \(Self.name(lease))") { db in
            try db.execute(
                sql: """
                    UPDATE segments SET leaseDeadline = ?
                    WHERE jobID = ? AND idx = ? AND state = 'leased' AND attempt = ? AND worker = ?
                    """,
                arguments: [deadline, lease.jobID, lease.segment, lease.attempt, lease.worker])
            return db.changesCount > 0
        }
    }

    /// Records a finished segment whose result is already spooled at `spoolFile`.
    ///
    /// The first result wins, whatever attempt produced it: a late result from an older attempt is
    /// valid content and is accepted if the segment is not done yet (a newer attempt still running is
    /// then superseded); once done, every later result is `.duplicate` and changes nothing.
    /// - Returns: `.unknown` for a job that is missing or finished, a missing segment, or an attempt
    ///   never handed out.
    /// - Throws: `StoreError.database`.
    public func complete(jobID: String, segment: Int, attempt: Int, spoolFile: String, encodeSeconds: Double,
                         processor: String) throws(StoreError) -> CompletionOutcome
    {
        let now = clock()
        return try write("complete segment \(segment) of job \(jobID)") { db in
            guard try Self.isActive(db, jobID),
                  let stored = try SegmentRecord.fetchOne(db, jobID: jobID, index: segment),
                  attempt >= 1, attempt <= stored.attempt
            else { return .unknown }
            if stored.state == .done { return .duplicate }
            try db.execute(
                sql: """
                    UPDATE segments SET state = 'done', doneAttempt = ?, spoolFile = ?, encodeSeconds = ?,
                        processor = ?, leaseDeadline = NULL
                    WHERE jobID = ? AND idx = ?
                    """,
                arguments: [attempt, spoolFile, encodeSeconds, processor, jobID, segment])
            try db.execute(sql: "UPDATE jobs SET updatedAt = ? WHERE id = ?", arguments: [now, jobID])
            return .accepted
        }
    }

    /// Records that an attempt failed (`counts: true`) or came back unstarted (`counts: false`, e.g. a
    /// draining worker returned it), if that attempt still holds the segment.
    ///
    /// A counted failure that brings the segment to `maxFailures` marks it `failed` and returns
    /// `.exhausted` with a message naming the job, the segment and every counted error with its
    /// attempt and worker; otherwise the segment is pending again.
    /// - Throws: `StoreError.database`.
    public func failAttempt(jobID: String, segment: Int, attempt: Int, error: String, counts: Bool,
                            maxFailures: Int) throws(StoreError) -> FailOutcome
    {
        try write("record the failure of \(jobID)/\(segment)#\(attempt)") { db in
            guard try Self.isActive(db, jobID),
                  let stored = try SegmentRecord.fetchOne(db, jobID: jobID, index: segment),
                  stored.state == .leased, stored.attempt == attempt
            else { return .stale }
            guard counts else {
                try db.execute(
                    sql: "UPDATE segments SET state = 'pending', leaseDeadline = NULL WHERE jobID = ? AND idx = ?",
                    arguments: [jobID, segment])
                return .requeued
            }
            let errors = stored.errors + ["attempt \(attempt) on \(stored.worker ?? "an unknown worker"): \(error)"]
            let failures = stored.failures + 1
            let exhausted = failures >= maxFailures
            try db.execute(
                sql: """
                    UPDATE segments SET state = ?, failures = ?, lastError = ?, errors = ?, leaseDeadline = NULL
                    WHERE jobID = ? AND idx = ?
                    """,
                arguments: [exhausted ? SegmentState.failed.rawValue : SegmentState.pending.rawValue, failures,
                            error, try StoreJSON.encode(errors), jobID, segment])
            guard exhausted else { return .requeued }
            return .exhausted("segment \(segment) of job \(jobID) failed \(failures) times: "
                + errors.joined(separator: "; "))
        }
    }

    /// Leases whose deadline is before `now`, earliest first. Nothing changes until `requeue`.
    /// - Throws: `StoreError.database`.
    public func expiredLeases(now: Double) throws(StoreError) -> [Lease] {
        try read("list expired leases") { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM segments WHERE state = 'leased' AND leaseDeadline < ? ORDER BY leaseDeadline",
                arguments: [now]
            ).compactMap { try SegmentRecord(row: $0).lease }
        }
    }

    /// Puts the segment back to pending if `lease`'s attempt still holds it; returns whether it did.
    /// - Throws: `StoreError.database`.
    @discardableResult
    public func requeue(_ lease: Lease) throws(StoreError) -> Bool {
        try write("requeue \(Self.name(lease))") { db in
            try db.execute(
                sql: """
                    UPDATE segments SET state = 'pending', leaseDeadline = NULL
                    WHERE jobID = ? AND idx = ? AND state = 'leased' AND attempt = ?
                    """,
                arguments: [lease.jobID, lease.segment, lease.attempt])
            return db.changesCount > 0
        }
    }

    /// Puts every segment `worker` holds back to pending (the worker died or left) and returns the
    /// leases it held.
    /// - Throws: `StoreError.database`.
    public func releaseAll(worker: String) throws(StoreError) -> [Lease] {
        try write("release the leases of \(worker)") { db in
            let held = try Row.fetchAll(
                db, sql: "SELECT * FROM segments WHERE state = 'leased' AND worker = ? ORDER BY jobID, idx",
                arguments: [worker]
            ).compactMap { try SegmentRecord(row: $0).lease }
            try db.execute(
                sql: """
                    UPDATE segments SET state = 'pending', leaseDeadline = NULL WHERE state = 'leased' AND worker = ?
                    """,
                arguments: [worker])
            return held
        }
    }

    /// The unfinished jobs after a coordinator restart, oldest first, for the scheduler to drive again
    /// (from `planning`). Their segments stay as they were: a segment still `leased` names the worker
    /// that may still be encoding it, so the job can hold it back for that worker's claim (PROTOCOL.md
    /// §4); `setPlan` then puts every segment that is not done back to pending, attempt numbers kept.
    /// - Throws: `StoreError.database`.
    public func recoverAfterRestart() throws(StoreError) -> [JobRecord] {
        try read("recover after a restart") { db in
            let terminal = JobState.allCases.filter(\.isTerminal).map { "'\($0.rawValue)'" }.joined(separator: ", ")
            return try JobRecord.fetchAll(db, where: "jobs.state NOT IN (\(terminal))").reversed()
        }
    }

    /// Whether the job exists and is not finished.
    static func isActive(_ db: Database, _ jobID: String) throws -> Bool {
        let state = try String.fetchOne(db, sql: "SELECT state FROM jobs WHERE id = ?", arguments: [jobID])
        return state.flatMap(JobState.init(rawValue:)).map { !$0.isTerminal } ?? false
    }

    /// "JOB/segment#attempt", as logs and the API name a task.
    static func name(_ lease: Lease) -> String { "\(lease.jobID)/\(lease.segment)#\(lease.attempt)" }
}
