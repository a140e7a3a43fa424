import GRDB
import TesseraCore

/// Where a segment is: waiting, held by a worker, finished (spooled), or failed for good.
public enum SegmentState: String, Sendable, Hashable, Codable, CaseIterable {
    case pending, leased, done, failed
}

/// One segment of a job as the store keeps it: one row of `segments`.
public struct SegmentRecord: Sendable, Hashable, Codable {
    public var jobID: String
    /// 0-based position in the job's plan.
    public var index: Int
    public var state: SegmentState
    /// Output frames the plan gives this segment.
    public var frames: Int
    /// The last attempt number handed out; 0 = never leased.
    public var attempt: Int
    /// Counted failures (returned, unstarted tasks do not count).
    public var failures: Int
    /// The worker the latest attempt was leased to.
    public var worker: String?
    /// Unix seconds; set only while `leased`.
    public var leaseDeadline: Double?
    /// Path of the spooled result once `done`.
    public var spoolFile: String?
    public var encodeSeconds: Double?
    /// The frame processor that produced the result ("cpu", "vulkan").
    public var processor: String?
    public var lastError: String?
    /// Every counted failure, oldest first, as "attempt N on WORKER: message".
    public var errors: [String]
    /// The attempt whose result was accepted.
    public var doneAttempt: Int?
    /// The accepted result's measured quality.
    public var quality: SegmentQuality?
    /// Backup attempts handed out (`JobStore.leaseBackup`).
    public var backups: Int
    /// Whether the accepted result came from a backup attempt.
    public var doneByBackup: Bool

    init(row: Row) throws {
        let stateName: String = row["state"]
        guard let state = SegmentState(rawValue: stateName) else {
            throw CorruptRow(
                message: "segment \(row["idx"] as Int) of \(row["jobID"] as String) "
                    + "has unknown state '\(stateName)'")
        }
        jobID = row["jobID"]
        index = row["idx"]
        self.state = state
        frames = row["frames"]
        attempt = row["attempt"]
        failures = row["failures"]
        worker = row["worker"]
        leaseDeadline = row["leaseDeadline"]
        spoolFile = row["spoolFile"]
        encodeSeconds = row["encodeSeconds"]
        processor = row["processor"]
        lastError = row["lastError"]
        errors = try StoreJSON.decode([String].self, row["errors"] as String)
        doneAttempt = row["doneAttempt"]
        // Informative: a row whose figures cannot be read shows none rather than failing its job's status.
        quality = (row["quality"] as String?).flatMap { try? StoreJSON.decode(SegmentQuality.self, $0) }
        backups = row["backups"] ?? 0
        doneByBackup = (row["doneByBackup"] as Int?) == 1
    }

    /// Every column, with the segment's backup attempts from `attempts`.
    static let selection = """
        SELECT s.*,
            (SELECT COUNT(*) FROM attempts a WHERE a.jobID = s.jobID AND a.idx = s.idx AND a.backup = 1) AS backups,
            (SELECT a.backup FROM attempts a WHERE a.jobID = s.jobID AND a.idx = s.idx AND a.attempt = s.doneAttempt)
                AS doneByBackup
        FROM segments s
        """

    static func fetchOne(_ db: Database, jobID: String, index: Int) throws -> SegmentRecord? {
        try Row.fetchOne(db, sql: selection + " WHERE s.jobID = ? AND s.idx = ?", arguments: [jobID, index])
            .map(SegmentRecord.init(row:))
    }

    static func fetchAll(_ db: Database, jobID: String) throws -> [SegmentRecord] {
        try Row.fetchAll(db, sql: selection + " WHERE s.jobID = ? ORDER BY s.idx", arguments: [jobID])
            .map(SegmentRecord.init(row:))
    }

    public var lease: Lease? {
        guard state == .leased, let worker, let leaseDeadline else { return nil }
        return Lease(jobID: jobID, segment: index, attempt: attempt, worker: worker, deadline: leaseDeadline)
    }
}
