import GRDB
import TesseraCore

/// Reads: blocking ones for the dispatcher and job threads, `…Async` ones for Swift concurrency (the HTTP layer).
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

    /// One segment of a job; nil for an unknown job or index.
    /// - Throws: `StoreError.database`.
    public func segment(of jobID: String, index: Int) throws(StoreError) -> SegmentRecord? {
        try read("read segment \(index) of job \(jobID)") { db in
            try SegmentRecord.fetchOne(db, jobID: jobID, index: index)
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

    /// Jobs not finished (newest first), and `limit` finished ones from `offset`, most recently finished
    /// first: what a page of history needs, read without counting the segments of every job ever run.
    /// - Throws: `StoreError.database`.
    public func recentJobsAsync(
        finishedLimit limit: Int, offset: Int
    ) async throws(StoreError) -> (
        active: [JobRecord], finished: [JobRecord]
    ) {
        let terminal = [JobState.completed, .failed, .cancelled].map { "'\($0.rawValue)'" }.joined(separator: ",")
        return try await readAsync("list recent jobs") { db in
            let active = try JobRecord.fetchAll(db, where: "jobs.state NOT IN (\(terminal))")
            // The page is chosen on the bare table; the segment counts are made for its rows alone.
            let finished = try Row.fetchAll(
                db,
                sql: JobRecord.selectSQL + """
                     WHERE jobs.rowid IN (SELECT rowid FROM jobs WHERE state IN (\(terminal))
                        ORDER BY updatedAt DESC, rowid DESC LIMIT ? OFFSET ?)
                    ORDER BY jobs.updatedAt DESC, jobs.rowid DESC
                    """, arguments: [max(0, limit), max(0, offset)]
            ).map(JobRecord.init(row:))
            return (active, finished)
        }
    }

    /// How many jobs are in each state, counted by the database (a scrape reads this, not every job).
    /// - Throws: `StoreError.database`.
    public func jobCountsAsync() async throws(StoreError) -> [JobState: Int] {
        try await readAsync("count jobs by state") { db in
            var counts: [JobState: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT state, COUNT(*) AS n FROM jobs GROUP BY state") {
                if let state = JobState(rawValue: row["state"]) { counts[state] = row["n"] }
            }
            return counts
        }
    }

    /// `limit` jobs from `offset`, newest first, with their segment counts made for those rows alone.
    /// - Throws: `StoreError.database`.
    public func jobsAsync(limit: Int, offset: Int) async throws(StoreError) -> [JobRecord] {
        try await readAsync("list jobs \(offset)+\(limit)") { db in
            try Row.fetchAll(
                db,
                sql: JobRecord.selectSQL + """
                     WHERE jobs.rowid IN (SELECT rowid FROM jobs ORDER BY createdAt DESC, rowid DESC LIMIT ? OFFSET ?)
                    ORDER BY jobs.createdAt DESC, jobs.rowid DESC
                    """, arguments: [max(0, limit), max(0, offset)]
            ).map(JobRecord.init(row:))
        }
    }
}
