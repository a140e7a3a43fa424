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
