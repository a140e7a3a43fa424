/// One attempt at one segment of one job, as a hashable value: what both sides key leases, held
/// tasks and unacknowledged results by (`Tessera_V1_TaskRef` on the wire).
public struct TaskKey: Hashable, Sendable, CustomStringConvertible {
    public var job: String
    public var segment: Int
    public var attempt: Int

    public init(job: String, segment: Int, attempt: Int) {
        self.job = job
        self.segment = segment
        self.attempt = attempt
    }

    public init(_ ref: Tessera_V1_TaskRef) {
        self.init(job: ref.jobID, segment: Int(ref.segment), attempt: Int(ref.attempt))
    }

    public var ref: Tessera_V1_TaskRef {
        Tessera_V1_TaskRef(jobID: job, segment: UInt32(segment), attempt: UInt32(attempt))
    }

    /// "JOB/SEGMENT#ATTEMPT", as logs and `tessera workers` show it.
    public var description: String { "\(job)/\(segment)#\(attempt)" }
}
