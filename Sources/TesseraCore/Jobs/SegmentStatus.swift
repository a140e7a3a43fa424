/// One segment of a job as the segment map shows it (`GET /v1/jobs/{id}/segments`).
public struct SegmentStatus: Sendable, Hashable, Codable {
    /// Where a segment is, in the words of the map.
    public enum State: String, Sendable, Hashable, Codable, CaseIterable {
        /// Waiting for a worker (never leased, or back in the queue).
        case queued
        /// Leased to a worker now.
        case running
        /// Finished on its first attempt.
        case done
        /// Failed for good: it failed its job.
        case failed
        /// Finished, after at least one attempt that failed or was lost.
        case retried
        /// Leased to a slow worker and, as a backup, to an idle one: the first result wins.
        case racing
        /// Finished by a backup attempt, ahead of the slower worker's.
        case backup
    }

    /// 0-based position in the job's plan.
    public var index: Int
    public var state: State
    /// Output frames the plan gives it.
    public var frames: Int
    /// Attempts handed out so far (0: never leased).
    public var attempts: Int
    /// The worker of the latest attempt (the one that finished it, once done).
    public var worker: String?
    /// Seconds the accepted attempt took to encode.
    public var encodeSeconds: Double?
    /// Every counted failure, oldest first, as "attempt N on WORKER: message".
    public var errors: [String]
    /// The accepted result's measured quality, once done (nil when it was not measured).
    public var quality: SegmentQuality?

    public init(
        index: Int, state: State, frames: Int, attempts: Int, worker: String?, encodeSeconds: Double?,
        errors: [String], quality: SegmentQuality? = nil
    ) {
        self.quality = quality
        self.index = index
        self.state = state
        self.frames = frames
        self.attempts = attempts
        self.worker = worker
        self.encodeSeconds = encodeSeconds
        self.errors = errors
    }
}
