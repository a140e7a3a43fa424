/// A connected worker as the API reports it.
public struct WorkerStatus: Sendable, Hashable, Codable {
    public var id: String
    public var hostname: String
    public var cores: Int
    public var memoryBytes: UInt64
    public var backends: [String]
    public var encoders: [String]
    public var state: WorkerState
    /// Tasks held, as "JOB/segment#attempt".
    public var tasks: [String]
    public var segmentsDone: Int
    /// Output frames of the segments it finished that the farm kept (one result per segment).
    public var framesDone: Int
    /// Seconds since its last message.
    public var lastSeenSeconds: Double
    /// How each requested backend resolved on it, e.g. "auto → cpu: vulkan 12.0 frames/s vs cpu 624.0 …".
    public var backendChoices: [String]

    public init(
        id: String, hostname: String, cores: Int, memoryBytes: UInt64, backends: [String], encoders: [String],
        state: WorkerState, tasks: [String], segmentsDone: Int, lastSeenSeconds: Double, backendChoices: [String] = [],
        framesDone: Int = 0
    ) {
        self.id = id
        self.hostname = hostname
        self.cores = cores
        self.memoryBytes = memoryBytes
        self.backends = backends
        self.encoders = encoders
        self.state = state
        self.tasks = tasks
        self.segmentsDone = segmentsDone
        self.lastSeenSeconds = lastSeenSeconds
        self.backendChoices = backendChoices
        self.framesDone = framesDone
    }
}
