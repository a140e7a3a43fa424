import Foundation
import GRDB
import TesseraCore

/// Jobs and their segments in one SQLite file, so a restarted coordinator resumes every job without
/// redoing finished segments.
///
/// ```
///  dispatcher, jobs ─sync write (one transaction per call)──▶ ┐
///                                                              ├─ DatabasePool (WAL) ── tessera.sqlite
///  HTTP handlers ──async read (snapshot, never blocks a write)─▶ ┘
/// ```
///
/// A `DatabasePool` rather than a `DatabaseQueue`: in WAL mode its readers work on a snapshot beside
/// the single writer, so the HTTP layer's reads never wait behind the dispatcher's and the jobs' writes
/// (and the reverse). `synchronous = FULL` makes every commit durable before the call returns, because the
/// coordinator acknowledges a segment to its worker only after `complete` has returned.
///
/// The synchronous API blocks its caller (the dispatcher's or a job's own thread); the `…Async` reads
/// suspend instead and are the ones to use from Swift concurrency. Thread-safe: GRDB serialises the writes.
public final class JobStore: Sendable {
    /// The database file.
    public let path: String
    private let pool: DatabasePool
    /// Unix seconds, for the jobs' timestamps.
    let clock: @Sendable () -> Double

    /// Opens (creating if needed) the store at `path` and brings its schema up to date.
    /// - Throws: `StoreError.database` when the file cannot be opened or migrated.
    public init(
        path: String, clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }
    )
        throws(StoreError)
    {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            // After the pool's own WAL set-up, which chooses NORMAL; only the writer connection commits.
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            try StoreSchema.migrator.migrate(pool)
        } catch {
            throw .database(operation: "open \(path)", underlying: error)
        }
        self.path = path
        self.clock = clock
    }

    /// Closes the database; every later call throws. Optional: the store also closes when released.
    public func close() throws(StoreError) {
        do { try pool.close() } catch { throw .database(operation: "close \(path)", underlying: error) }
    }

    /// Records a new job in state `queued`.
    /// - Parameters:
    ///   - source: the resolved absolute source path.
    ///   - output: the resolved absolute final output path.
    /// - Throws: `StoreError.database`.
    public func insertJob(
        request: JobRequest, source: String, output: String, priority: Int
    )
        throws(StoreError) -> JobRecord
    {
        let now = clock()
        return try write("insert a job for \(source)") { db in
            try Self.insertJob(db, request: request, source: source, output: output, priority: priority, now: now)
        }
    }

    /// `insertJob` for Swift concurrency (the HTTP API): GRDB's async write, no thread blocked.
    /// - Throws: `StoreError.database`.
    public func insertJobAsync(
        request: JobRequest, source: String, output: String, priority: Int
    )
        async throws(StoreError) -> JobRecord
    {
        let now = clock()
        return try await writeAsync("insert a job for \(source)") { db in
            try Self.insertJob(db, request: request, source: source, output: output, priority: priority, now: now)
        }
    }

    private static func insertJob(
        _ db: Database, request: JobRequest, source: String, output: String, priority: Int, now: Double
    ) throws -> JobRecord {
        var id = newJobID()
        while try Bool.fetchOne(db, sql: "SELECT 1 FROM jobs WHERE id = ?", arguments: [id]) != nil {
            id = newJobID()
        }
        try db.execute(
            sql: """
                INSERT INTO jobs (id, state, priority, request, source, output, createdAt, updatedAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                id, JobState.queued.rawValue, priority, try StoreJSON.encode(request), source, output,
                now, now,
            ])
        return try requireJob(db, id)
    }

    /// Moves a job to `next` if `JobState.canMove(to:)` allows it. Sets `startedAt` when the job is first
    /// planned and `finishedAt` when it becomes terminal; `error` (when given) replaces the stored one.
    /// A terminal job's leases are dropped (its leased segments go back to pending); the dispatcher
    /// withdraws its tasks from the workers (`TaskBoard.fail`).
    /// - Throws: `StoreError.notFound`, `.illegalTransition`, `.database`.
    @discardableResult
    public func transition(_ jobID: String, to next: JobState, error: String? = nil) throws(StoreError) -> JobRecord {
        let now = clock()
        return try write("move job \(jobID) to \(next.rawValue)") { db in
            try Self.transition(db, jobID, to: next, error: error, now: now)
        }
    }

    /// `transition` for Swift concurrency (the HTTP API): GRDB's async write, no thread blocked.
    /// - Throws: `StoreError.notFound`, `.illegalTransition`, `.database`.
    @discardableResult
    public func transitionAsync(
        _ jobID: String, to next: JobState, error: String? = nil
    ) async throws(StoreError)
        -> JobRecord
    {
        let now = clock()
        return try await writeAsync("move job \(jobID) to \(next.rawValue)") { db in
            try Self.transition(db, jobID, to: next, error: error, now: now)
        }
    }

    private static func transition(
        _ db: Database, _ jobID: String, to next: JobState, error: String?, now: Double
    )
        throws -> JobRecord
    {
        let job = try requireJob(db, jobID)
        guard job.state.canMove(to: next) else {
            throw StoreError.illegalTransition(from: job.state, to: next)
        }
        try db.execute(
            sql: """
                UPDATE jobs SET state = ?, updatedAt = ?, error = COALESCE(?, error),
                    startedAt = CASE WHEN ? AND startedAt IS NULL THEN ? ELSE startedAt END,
                    finishedAt = CASE WHEN ? THEN ? ELSE finishedAt END
                WHERE id = ?
                """,
            arguments: [next.rawValue, now, error, next == .planning, now, next.isTerminal, now, jobID])
        if next.isTerminal {
            try db.execute(
                sql: """
                    UPDATE segments SET state = 'pending', leaseDeadline = NULL WHERE jobID = ? AND state = 'leased'
                    """,
                arguments: [jobID])
        }
        return try requireJob(db, jobID)
    }

    /// Stores the job's plan: one segment per entry of `segmentFrames` (its planned output frames).
    ///
    /// On a job planned before (a restarted coordinator), the stored plan must be the same: `done`
    /// segments stay done and every other segment goes back to pending with its attempt and failure
    /// counts kept.
    /// - Throws: `StoreError.invalidPlan` for an empty plan, a segment of no frames, a finished job, or
    ///   a plan that differs from the stored one (the source changed since: resubmit the job);
    ///   `.notFound`; `.database`.
    public func setPlan(_ jobID: String, segmentFrames: [Int], framesTotal: Int) throws(StoreError) {
        guard !segmentFrames.isEmpty, segmentFrames.allSatisfy({ $0 > 0 }) else {
            throw .invalidPlan("job \(jobID): a plan needs at least one segment and frames in every segment")
        }
        let now = clock()
        try write("store the plan of job \(jobID)") { db in
            let job = try Self.requireJob(db, jobID)
            guard !job.state.isTerminal else {
                throw StoreError.invalidPlan("job \(jobID) is \(job.state.rawValue); it cannot be planned again")
            }
            let stored = try Int.fetchAll(
                db, sql: "SELECT frames FROM segments WHERE jobID = ? ORDER BY idx", arguments: [jobID])
            if stored.isEmpty {
                for (index, frames) in segmentFrames.enumerated() {
                    try db.execute(
                        sql: "INSERT INTO segments (jobID, idx, state, frames) VALUES (?, ?, 'pending', ?)",
                        arguments: [jobID, index, frames])
                }
            } else if stored != segmentFrames {
                throw StoreError.invalidPlan(
                    "job \(jobID) was planned as \(stored.count) segments of \(stored.reduce(0, +)) frames "
                        + "but now plans \(segmentFrames.count) segments of \(segmentFrames.reduce(0, +)) frames: "
                        + "its source changed since it was submitted; cancel it and submit it again")
            } else {
                try db.execute(
                    sql: """
                        UPDATE segments SET state = 'pending', leaseDeadline = NULL WHERE jobID = ? AND state != 'done'
                        """,
                    arguments: [jobID])
            }
            try db.execute(
                sql: "UPDATE jobs SET segmentsTotal = ?, framesTotal = ?, updatedAt = ? WHERE id = ?",
                arguments: [segmentFrames.count, framesTotal, now, jobID])
        }
    }

    /// Stores free-form JSON about the job (the verifier's report).
    /// - Throws: `StoreError.notFound`, `.database`.
    public func setReport(jobID: String, json: String) throws(StoreError) {
        let now = clock()
        try write("store the report of job \(jobID)") { db in
            try db.execute(
                sql: "UPDATE jobs SET report = ?, updatedAt = ? WHERE id = ?", arguments: [json, now, jobID])
            guard db.changesCount > 0 else { throw StoreError.notFound(jobID) }
        }
    }

    // MARK: - Shared by the extensions

    /// Runs `body` in one write transaction, rolled back when it throws.
    func write<T>(_ operation: String, _ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try pool.write(body)
        } catch let error as StoreError {
            throw error
        } catch {
            throw .database(operation: operation, underlying: error)
        }
    }

    /// `write` without blocking a thread (GRDB's async API), for the HTTP layer.
    func writeAsync<T: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (Database) throws -> T
    )
        async throws(StoreError) -> T
    {
        do {
            return try await pool.write(body)
        } catch let error as StoreError {
            throw error
        } catch {
            throw .database(operation: operation, underlying: error)
        }
    }

    func read<T>(_ operation: String, _ body: (Database) throws -> T) throws(StoreError) -> T {
        do { return try pool.read(body) } catch { throw .database(operation: operation, underlying: error) }
    }

    func readAsync<T: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (Database) throws -> T
    )
        async throws(StoreError) -> T
    {
        do { return try await pool.read(body) } catch { throw .database(operation: operation, underlying: error) }
    }

    static func requireJob(_ db: Database, _ jobID: String) throws -> JobRecord {
        guard let job = try JobRecord.fetchOne(db, id: jobID) else { throw StoreError.notFound(jobID) }
        return job
    }

    /// "j-" and 8 hex digits: short enough to type, 2³² values so a clash (retried) is rare.
    static func newJobID() -> String {
        let hex = String(UInt32.random(in: .min ... .max), radix: 16)
        return "j-" + String(repeating: "0", count: 8 - hex.count) + hex
    }
}
