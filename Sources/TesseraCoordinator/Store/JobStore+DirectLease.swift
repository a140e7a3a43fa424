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
            return Lease(jobID: jobID, segment: segment, attempt: attempt, worker: worker, deadline: deadline)
        }
    }
}

extension JobStore {
    /// The worker and attempt of a segment's latest lease (nil worker when it was never leased).
    /// - Throws: `StoreError.notFound` for an unknown segment.
    public func currentLease(jobID: String, segment: Int) throws(StoreError) -> (worker: String?, attempt: Int) {
        try read("read the lease of segment \(segment) of \(jobID)") { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT worker, attempt FROM segments WHERE jobID = ? AND idx = ?",
                                             arguments: [jobID, segment])
            else { throw StoreError.notFound("\(jobID) segment \(segment)") }
            return (row["worker"], row["attempt"])
        }
    }
}
