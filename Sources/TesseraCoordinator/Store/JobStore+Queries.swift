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
}
