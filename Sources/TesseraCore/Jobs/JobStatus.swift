/// A job as the API reports it.
public struct JobStatus: Sendable, Hashable, Codable {
    public var id: String
    public var state: JobState
    public var priority: Int
    public var source: String
    /// Where the result is (or will be) on the coordinator's machine.
    public var output: String
    public var segmentsTotal: Int
    public var segmentsDone: Int
    public var framesTotal: Int
    /// Frames finished, including the running segments' progress.
    public var framesDone: Int
    /// Output frames per second over the last few seconds.
    public var framesPerSecond: Double
    /// Seconds since the job started running; nil while queued.
    public var elapsedSeconds: Double?
    /// Estimated seconds left; nil when unknown.
    public var etaSeconds: Double?
    /// Why the job failed, naming the segment and worker when one was at fault.
    public var error: String?
    /// Unix seconds.
    public var createdAt: Double
    public var updatedAt: Double
    /// The measured quality of the segments finished so far, and of them as a whole (only in a single
    /// job's status, `GET /v1/jobs/{id}`; nil in lists and before any segment was measured).
    public var quality: QualityReport? = nil
    /// Set for a streaming package: what it was asked to hold; once completed, its files are served at
    /// `GET /v1/jobs/{id}/package/{path}`.
    public var package: PackageRequest? = nil
    /// Why segments of a job that is not finished sit in the queue with no worker taking them: no worker
    /// is connected, or none can run them (each worker's reason: a codec, the Vulkan backend, a feature).
    /// Nil while a worker can take them.
    public var waiting: String? = nil

    public init(
        id: String, state: JobState, priority: Int, source: String, output: String, segmentsTotal: Int,
        segmentsDone: Int, framesTotal: Int, framesDone: Int, framesPerSecond: Double,
        elapsedSeconds: Double?, etaSeconds: Double?, error: String?, createdAt: Double, updatedAt: Double
    ) {
        self.id = id
        self.state = state
        self.priority = priority
        self.source = source
        self.output = output
        self.segmentsTotal = segmentsTotal
        self.segmentsDone = segmentsDone
        self.framesTotal = framesTotal
        self.framesDone = framesDone
        self.framesPerSecond = framesPerSecond
        self.elapsedSeconds = elapsedSeconds
        self.etaSeconds = etaSeconds
        self.error = error
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
