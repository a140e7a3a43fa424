import GRDB
import TesseraCore

/// Reads: blocking ones for the scheduler thread, `…Async` ones for Swift concurrency (the HTTP layer).
extension JobStore {
    /// - Throws: `StoreError.database`.
    public func job(_ id: String) throws(StoreError) -> JobRecord? {
        try read("read job \(id)") { db in try JobRecord.fetchOne(db, id: id) }
    }

    /// Every job, newest first.
    /// - Throws: `StoreError.database`.
    public func jobs() throws(StoreError) -> [JobRecord] {
        try read("list jobs") { db in try JobRecord.fetchAll(db) }
    }

    /// A job's segments in plan order (empty before it is planned or for an unknown job).
    /// - Throws: `StoreError.database`.
    public func segments(of jobID: String) throws(StoreError) -> [SegmentRecord] {
        try read("read the segments of job \(jobID)") { db in try SegmentRecord.fetchAll(db, jobID: jobID) }
    }

    /// The leases a job's segments are held under now (to withdraw them before cancelling it).
    /// - Throws: `StoreError.database`.
    public func activeLeases(of jobID: String) throws(StoreError) -> [Lease] {
        try segments(of: jobID).compactMap(\.lease)
    }

    /// Segments of running jobs waiting for a worker (what the autoscaler scales on).
    /// - Throws: `StoreError.database`.
    public func pendingCount() throws(StoreError) -> Int {
        try read("count pending segments") { db in
            try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM segments s JOIN jobs j ON j.id = s.jobID
                WHERE s.state = 'pending' AND j.state = 'running'
                """) ?? 0
        }
    }

    /// Segments held by workers now.
    /// - Throws: `StoreError.database`.
    public func leasedCount() throws(StoreError) -> Int {
        try read("count leased segments") { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM segments WHERE state = 'leased'") ?? 0
        }
    }

    /// How many jobs are in each state (states with none are absent).
    /// - Throws: `StoreError.database`.
    public func jobCounts() throws(StoreError) -> [JobState: Int] {
        try read("count jobs by state") { db in
            var counts: [JobState: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT state, COUNT(*) AS n FROM jobs GROUP BY state") {
                if let state = JobState(rawValue: row["state"]) { counts[state] = row["n"] }
            }
            return counts
        }
    }

    /// Segments done and their planned frames, over every job in the store (for `/metrics`).
    /// - Throws: `StoreError.database`.
    public func completedTotals() throws(StoreError) -> (segments: Int, frames: Int) {
        try read("count completed segments") { db in
            let row = try Row.fetchOne(
                db, sql: "SELECT COUNT(*) AS n, COALESCE(SUM(frames), 0) AS f FROM segments WHERE state = 'done'")
            return (row?["n"] ?? 0, row?["f"] ?? 0)
        }
    }

    /// `job(_:)` without blocking a thread.
    /// - Throws: `StoreError.database`.
    public func jobAsync(_ id: String) async throws(StoreError) -> JobRecord? {
        try await readAsync("read job \(id)") { db in try JobRecord.fetchOne(db, id: id) }
    }

    /// `jobs()` without blocking a thread: every job, newest first.
    /// - Throws: `StoreError.database`.
    public func jobsAsync() async throws(StoreError) -> [JobRecord] {
        try await readAsync("list jobs") { db in try JobRecord.fetchAll(db) }
    }

    /// `segments(of:)` without blocking a thread.
    /// - Throws: `StoreError.database`.
    public func segmentsAsync(of jobID: String) async throws(StoreError) -> [SegmentRecord] {
        try await readAsync("read the segments of job \(jobID)") { db in try SegmentRecord.fetchAll(db, jobID: jobID) }
    }
}
