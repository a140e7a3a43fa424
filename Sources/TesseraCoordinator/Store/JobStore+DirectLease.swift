import GRDB
import TesseraCore

extension JobStore {
    /// Leases one chosen segment to `worker` (the dispatcher picks segments itself, among those whose
    /// packets are in memory); its attempt number grows by one.
    /// - Throws: `StoreError.notFound` when the segment is not pending (done, leased or unknown).
    public func lease(jobID: String, segment: Int, worker: String, deadline: Double) throws(StoreError) -> Lease {
        try write("lease segment \(segment) of \(jobID) to \(worker)") { db in
            try db.execute(
                sql: """
                    UPDATE segments SET state = 'leased', attempt = attempt + 1, worker = ?, leaseDeadline = ?
                    WHERE jobID = ? AND idx = ? AND state = 'pending'
                    """,
                arguments: [worker, deadline, jobID, segment])
            guard db.changesCount > 0 else { throw StoreError.notFound("\(jobID) segment \(segment) (pending)") }
            let attempt = try Int.fetchOne(
                db, sql: "SELECT attempt FROM segments WHERE jobID = ? AND idx = ?", arguments: [jobID, segment]) ?? 0
            try db.execute(sql: "INSERT OR REPLACE INTO attempts (jobID, idx, attempt, worker) VALUES (?, ?, ?, ?)",
                           arguments: [jobID, segment, attempt, worker])
            return Lease(jobID: jobID, segment: segment, attempt: attempt, worker: worker, deadline: deadline)
        }
    }
}

extension JobStore {
    /// The worker `attempt` of a segment was leased to; nil when it never was.
    /// - Throws: `StoreError.database`.
    public func holder(jobID: String, segment: Int, attempt: Int) throws(StoreError) -> String? {
        try read("read who holds \(jobID)/\(segment)#\(attempt)") { db in
            try String.fetchOne(db, sql: "SELECT worker FROM attempts WHERE jobID = ? AND idx = ? AND attempt = ?",
                                arguments: [jobID, segment, attempt])
        }
    }
}

extension JobStore {
    /// Gives a pending segment back to the worker still running its latest attempt (a worker that kept
    /// its tasks across a coordinator restart, or a reconnect): leased again under the same attempt
    /// number, so nothing is encoded twice. False when that attempt is no longer the segment's latest,
    /// was leased to another worker, or the segment is not pending.
    /// - Throws: `StoreError.database`.
    public func adopt(jobID: String, segment: Int, attempt: Int, worker: String, deadline: Double) throws(StoreError) -> Bool {
        try write("give segment \(segment) of \(jobID) back to \(worker)") { db in
            try db.execute(
                sql: """
                    UPDATE segments SET state = 'leased', worker = ?, leaseDeadline = ?
                    WHERE jobID = ? AND idx = ? AND state = 'pending' AND attempt = ?
                        AND (SELECT a.worker FROM attempts a WHERE a.jobID = ? AND a.idx = ? AND a.attempt = ?) = ?
                    """,
                arguments: [worker, deadline, jobID, segment, attempt, jobID, segment, attempt, worker])
            return db.changesCount > 0
        }
    }
}
