import GRDB
import TesseraCore

/// A job as the store keeps it: one row of `jobs`, plus its finished-segment totals.
public struct JobRecord: Sendable, Hashable, Codable {
    /// Short random id, e.g. `j-4f9c2a7b`.
    public var id: String
    public var state: JobState
    /// Higher runs first.
    public var priority: Int
    /// As submitted.
    public var request: JobRequest
    /// Resolved absolute source path.
    public var source: String
    /// Resolved absolute final output path.
    public var output: String
    /// 0 until the job is planned.
    public var segmentsTotal: Int
    public var framesTotal: Int
    /// Segments in state `done` and their planned frames (computed, not stored).
    public var segmentsDone: Int
    public var framesDone: Int
    /// Why the job failed or was cancelled.
    public var error: String?
    /// Free-form JSON (the verifier's report, once there is one).
    public var report: String?
    /// Unix seconds.
    public var createdAt: Double
    public var updatedAt: Double
    /// When the job was first planned.
    public var startedAt: Double?
    /// When it reached a terminal state.
    public var finishedAt: Double?

    /// The columns `init(row:)` reads: every `jobs` column plus the done totals.
    static let selectSQL = """
        SELECT jobs.*,
            (SELECT COUNT(*) FROM segments s WHERE s.jobID = jobs.id AND s.state = 'done') AS segmentsDone,
            (SELECT COALESCE(SUM(s.frames), 0) FROM segments s
                WHERE s.jobID = jobs.id AND s.state = 'done') AS framesDone
        FROM jobs
        """

    init(row: Row) throws {
        let stateName: String = row["state"]
        guard let state = JobState(rawValue: stateName) else {
            throw CorruptRow(message: "job \(row["id"] as String) has unknown state '\(stateName)'")
        }
        id = row["id"]
        self.state = state
        priority = row["priority"]
        request = try StoreJSON.decode(JobRequest.self, row["request"] as String)
        source = row["source"]
        output = row["output"]
        segmentsTotal = row["segmentsTotal"]
        framesTotal = row["framesTotal"]
        segmentsDone = row["segmentsDone"]
        framesDone = row["framesDone"]
        error = row["error"]
        report = row["report"]
        createdAt = row["createdAt"]
        updatedAt = row["updatedAt"]
        startedAt = row["startedAt"]
        finishedAt = row["finishedAt"]
    }

    static func fetchOne(_ db: Database, id: String) throws -> JobRecord? {
        try Row.fetchOne(db, sql: selectSQL + " WHERE jobs.id = ?", arguments: [id]).map(JobRecord.init(row:))
    }

    /// Newest first; ties (same clock reading) by insertion order, newest first.
    static func fetchAll(_ db: Database, where condition: String = "1") throws -> [JobRecord] {
        try Row.fetchAll(db, sql: selectSQL + " WHERE \(condition) ORDER BY jobs.createdAt DESC, jobs.rowid DESC")
            .map(JobRecord.init(row:))
    }
}

/// A stored value the store cannot read back (a file edited by hand, or written by a newer version).
struct CorruptRow: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
