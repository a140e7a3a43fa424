import GRDB
import TesseraCore

/// Segments as the store keeps them through their attempts. The dispatcher chooses which segment goes
/// out next (`TaskBoard`, in memory); the store records each lease, result and failure durably, so a
/// restarted coordinator knows what is done and who held what.
///
/// ```
///            lease (attempt + 1)        complete (first result wins)
///  pending ──────────────────▶ leased ───────────────────────────────▶ done
///     ▲  ◀── adopt (same attempt) ─┘│ failAttempt (not exhausted), a job's setPlan after a restart
///     └─────────────────────────────┘
///                                   └── failAttempt, maxFailures counted ──▶ failed (the job must fail)
/// ```
extension JobStore {
    /// Leases one chosen segment to `worker` (the dispatcher picks segments itself, among those whose
    /// packets are in memory); its attempt number grows by one.
    /// - Throws: `StoreError.notFound` when the segment is not pending (done, leased or unknown).
    public func lease(jobID: String, segment: Int, worker: String, deadline: Double) throws(StoreError) -> Lease {
        try newAttempt(jobID: jobID, segment: segment, worker: worker, deadline: deadline, backup: false)
    }

    /// Leases a backup attempt of a segment already out (leased) at another worker: its attempt number
    /// grows by one and the new attempt's worker becomes the segment's; the earlier attempt's result
    /// still counts (`complete`: the first result wins).
    /// - Throws: `StoreError.notFound` when the segment is not leased (done, pending or unknown).
    public func leaseBackup(jobID: String, segment: Int, worker: String, deadline: Double) throws(StoreError) -> Lease {
        try newAttempt(jobID: jobID, segment: segment, worker: worker, deadline: deadline, backup: true)
    }

    /// The next attempt of a pending segment, or (`backup`) of one leased already; its holder recorded.
    private func newAttempt(
        jobID: String, segment: Int, worker: String, deadline: Double, backup: Bool
    ) throws(StoreError) -> Lease {
        let from = backup ? SegmentState.leased : .pending
        return try write("lease \(backup ? "a backup of " : "")segment \(segment) of \(jobID) to \(worker)") { db in
            try db.execute(
                sql: """
                    UPDATE segments SET state = 'leased', attempt = attempt + 1, worker = ?, leaseDeadline = ?
                    WHERE jobID = ? AND idx = ? AND state = ?
                    """,
                arguments: [worker, deadline, jobID, segment, from.rawValue])
            guard db.changesCount > 0 else {
                throw StoreError.notFound("\(jobID) segment \(segment) (\(from.rawValue))")
            }
            let attempt =
                try Int.fetchOne(
                    db, sql: "SELECT attempt FROM segments WHERE jobID = ? AND idx = ?", arguments: [jobID, segment])
                ?? 0
            try db.execute(
                sql: "INSERT OR REPLACE INTO attempts (jobID, idx, attempt, worker, backup) VALUES (?, ?, ?, ?, ?)",
                arguments: [jobID, segment, attempt, worker, backup ? 1 : 0])
            return Lease(jobID: jobID, segment: segment, attempt: attempt, worker: worker, deadline: deadline)
        }
    }

    /// The worker `attempt` of a segment was leased to; nil when it never was.
    /// - Throws: `StoreError.database`.
    public func holder(jobID: String, segment: Int, attempt: Int) throws(StoreError) -> String? {
        try read("read who holds \(jobID)/\(segment)#\(attempt)") { db in
            try String.fetchOne(
                db, sql: "SELECT worker FROM attempts WHERE jobID = ? AND idx = ? AND attempt = ?",
                arguments: [jobID, segment, attempt])
        }
    }
    /// Gives a pending segment back to the worker still running its latest attempt (a worker that kept
    /// its tasks across a coordinator restart, or a reconnect): leased again under the same attempt
    /// number, so nothing is encoded twice. False when that attempt is no longer the segment's latest
    /// (not counting attempts that ended while it ran on, `endRacingAttempt`), was leased to another
    /// worker, or the segment is not pending.
    /// - Throws: `StoreError.database`.
    public func adopt(
        jobID: String, segment: Int, attempt: Int, worker: String, deadline: Double
    ) throws(StoreError) -> Bool {
        try write("give segment \(segment) of \(jobID) back to \(worker)") { db in
            // The latest attempt that has not ended: a backup that failed while the first attempt ran on
            // leaves the first attempt's worker the one to claim the segment.
            try db.execute(
                sql: """
                    UPDATE segments SET state = 'leased', worker = ?, leaseDeadline = ?
                    WHERE jobID = ? AND idx = ? AND state = 'pending'
                        AND ? = (SELECT MAX(a.attempt) FROM attempts a WHERE a.jobID = ? AND a.idx = ? AND a.ended = 0)
                        AND (SELECT a.worker FROM attempts a WHERE a.jobID = ? AND a.idx = ? AND a.attempt = ?) = ?
                    """,
                arguments: [
                    worker, deadline, jobID, segment, attempt, jobID, segment, jobID, segment, attempt, worker,
                ])
            return db.changesCount > 0
        }
    }

    /// An attempt ended without a result while another attempt of its segment ran on (a failed, lost or
    /// stalled backup, or the slow attempt a backup outlived): it is no longer the one to claim back.
    /// - Throws: `StoreError.database`.
    public func endRacingAttempt(jobID: String, segment: Int, attempt: Int) throws(StoreError) {
        try write("end \(jobID)/\(segment)#\(attempt) beside its race") { db in
            try db.execute(
                sql: "UPDATE attempts SET ended = 1 WHERE jobID = ? AND idx = ? AND attempt = ?",
                arguments: [jobID, segment, attempt])
        }
    }

    /// For each segment still leased, its latest attempt that has not ended and that attempt's worker:
    /// whom a restarted coordinator holds the segment back for.
    /// - Throws: `StoreError.database`.
    public func liveAttempts(of jobID: String) throws(StoreError) -> [Int: (attempt: Int, worker: String)] {
        try read("read the live attempts of \(jobID)") { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT a.idx, a.attempt, a.worker FROM attempts a JOIN segments s ON s.jobID = a.jobID AND s.idx = a.idx
                    WHERE a.jobID = ? AND s.state = 'leased' AND a.ended = 0
                        AND a.attempt = (SELECT MAX(b.attempt) FROM attempts b
                                         WHERE b.jobID = a.jobID AND b.idx = a.idx AND b.ended = 0)
                    """,
                arguments: [jobID])
            var out: [Int: (attempt: Int, worker: String)] = [:]
            for row in rows { out[row["idx"]] = (row["attempt"], row["worker"]) }
            return out
        }
    }
    /// Records a finished segment whose result is already spooled at `spoolFile`.
    ///
    /// The first result wins, whatever attempt produced it: a late result from an older attempt is
    /// valid content and is accepted if the segment is not done yet (a newer attempt still running is
    /// then superseded); once done, every later result is `.duplicate` and changes nothing.
    /// - Parameter quality: the result's measured quality, as the job's status lists it.
    /// - Returns: `.unknown` for a job that is missing or finished, a missing segment, or an attempt
    ///   never handed out.
    /// - Throws: `StoreError.database`.
    public func complete(
        jobID: String, segment: Int, attempt: Int, spoolFile: String, encodeSeconds: Double,
        processor: String, quality: SegmentQuality? = nil
    ) throws(StoreError) -> CompletionOutcome {
        let now = clock()
        // Finite figures only (`SegmentQuality` rounds a non-number to 0), so the encoding cannot fail.
        let qualityJSON = quality.flatMap { try? StoreJSON.encode($0) }
        return try write("complete segment \(segment) of job \(jobID)") { db in
            guard try Self.isActive(db, jobID),
                let stored = try SegmentRecord.fetchOne(db, jobID: jobID, index: segment),
                attempt >= 1, attempt <= stored.attempt
            else { return .unknown }
            if stored.state == .done { return .duplicate }
            try db.execute(
                sql: """
                    UPDATE segments SET state = 'done', doneAttempt = ?, spoolFile = ?, encodeSeconds = ?,
                        processor = ?, quality = ?, leaseDeadline = NULL
                    WHERE jobID = ? AND idx = ?
                    """,
                arguments: [attempt, spoolFile, encodeSeconds, processor, qualityJSON, jobID, segment])
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
    /// - Parameter current: the caller knows `attempt` is the segment's only attempt still out, though a
    ///   later one was handed out (a backup that ended first): it counts as the segment's latest.
    public func failAttempt(
        jobID: String, segment: Int, attempt: Int, error: String, counts: Bool,
        maxFailures: Int, current: Bool = false
    ) throws(StoreError) -> FailOutcome {
        try write("record the failure of \(jobID)/\(segment)#\(attempt)") { db in
            guard try Self.isActive(db, jobID),
                let stored = try SegmentRecord.fetchOne(db, jobID: jobID, index: segment),
                stored.state == .leased, stored.attempt == attempt || (current && attempt < stored.attempt)
            else { return .stale }
            guard counts else {
                try db.execute(
                    sql: "UPDATE segments SET state = 'pending', leaseDeadline = NULL WHERE jobID = ? AND idx = ?",
                    arguments: [jobID, segment])
                return .requeued
            }
            let holder = try String.fetchOne(
                db, sql: "SELECT worker FROM attempts WHERE jobID = ? AND idx = ? AND attempt = ?",
                arguments: [jobID, segment, attempt])
            let errors = stored.errors + ["attempt \(attempt) on \(holder ?? "an unknown worker"): \(error)"]
            let failures = stored.failures + 1
            let exhausted = failures >= maxFailures
            try db.execute(
                sql: """
                    UPDATE segments SET state = ?, failures = ?, lastError = ?, errors = ?, leaseDeadline = NULL
                    WHERE jobID = ? AND idx = ?
                    """,
                arguments: [
                    exhausted ? SegmentState.failed.rawValue : SegmentState.pending.rawValue, failures,
                    error, try StoreJSON.encode(errors), jobID, segment,
                ])
            guard exhausted else { return .requeued }
            return .exhausted(
                "segment \(segment) of job \(jobID) failed \(failures) times: "
                    + errors.joined(separator: "; "))
        }
    }

    /// The unfinished jobs after a coordinator restart, oldest first, for the coordinator to drive again
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
}
