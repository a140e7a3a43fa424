/// One attempt at one segment, handed to one worker until `deadline` (Unix seconds).
///
/// Mirrors the wire's `TaskRef` (job_id, segment, attempt) plus who holds it and until when.
/// Attempts start at 1 and grow by one with every lease of the same segment.
public struct Lease: Sendable, Hashable, Codable {
    public var jobID: String
    public var segment: Int
    public var attempt: Int
    public var worker: String
    public var deadline: Double

    public init(jobID: String, segment: Int, attempt: Int, worker: String, deadline: Double) {
        self.jobID = jobID
        self.segment = segment
        self.attempt = attempt
        self.worker = worker
        self.deadline = deadline
    }
}

/// What `JobStore.complete` made of a finished segment.
public enum CompletionOutcome: Sendable, Hashable {
    /// The segment is now done with this result.
    case accepted
    /// The segment was already done; the first result stands (acknowledge, keep nothing).
    case duplicate
    /// No such job or segment, an attempt never handed out, or the job is already finished.
    case unknown
}

/// What `JobStore.failAttempt` made of a failed or returned task.
public enum FailOutcome: Sendable, Hashable {
    /// The segment is pending again.
    case requeued
    /// The segment failed `maxFailures` times; the job must fail with this message, which names the
    /// job, the segment and every counted error.
    case exhausted(String)
    /// That attempt no longer holds the segment (re-leased, done, or the job is gone); nothing changed.
    case stale
}
