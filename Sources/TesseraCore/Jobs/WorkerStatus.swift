/// A connected worker as the API reports it.
public struct WorkerStatus: Sendable, Hashable, Codable {
    public var id: String
    public var hostname: String
    public var cores: Int
    public var memoryBytes: UInt64
    /// The backends it can run (`cpu`, and `vulkan` where it has a device).
    public var backends: [ProcessingBackend]
    public var encoders: [String]
    public var state: WorkerState
    /// Tasks held, the running one first (JSON: "JOB/segment#attempt").
    public var tasks: [TaskKey]
    public var segmentsDone: Int
    /// Output frames of the segments it finished that the farm kept (one result per segment).
    public var framesDone: Int
    /// Seconds since its last message.
    public var lastSeenSeconds: Double
    /// How each requested backend resolved on it (JSON: "auto → cpu: vulkan 12.0 frames/s vs cpu 624.0 …").
    public var backendChoices: [Resolution]
    /// Frames it finished over the last ten seconds, per second (the coordinator's rate book); absent
    /// from a coordinator that does not measure it.
    public var framesPerSecond: Double?
    /// Folders (the coordinator's paths) whose sources it reads itself, and `httpSource` when it reads any
    /// other over the coordinator's HTTP API: its tasks for them come by reference, without their packets.
    /// Absent (nil) or empty: every task carries its packets.
    public var mediaRoots: [String]?
    /// The `mediaRoots` entry of a worker that reads sources over HTTP (`tessera worker --media-url`).
    public static let httpSource = "http"

    /// Holds at least one task (whatever its state: a draining worker finishing its last is busy too).
    public var isBusy: Bool { !tasks.isEmpty }

    public init(
        id: String, hostname: String, cores: Int, memoryBytes: UInt64, backends: [ProcessingBackend],
        encoders: [String], state: WorkerState, tasks: [TaskKey], segmentsDone: Int, lastSeenSeconds: Double,
        backendChoices: [Resolution] = [],
        framesDone: Int = 0, framesPerSecond: Double? = nil, mediaRoots: [String]? = nil
    ) {
        self.mediaRoots = mediaRoots
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
        self.framesPerSecond = framesPerSecond
    }
}

extension WorkerStatus {
    /// What a requested backend resolved to on the worker, and why. In JSON one string,
    /// "REQUESTED → CHOSEN: REASON".
    public struct Resolution: Sendable, Hashable, TextCodable {
        public static let textForm = "REQUESTED → CHOSEN: REASON"
        public var requested: ProcessingBackend
        /// What runs: `.cpu` or `.vulkan`.
        public var chosen: ProcessingBackend
        public var reason: String

        public init(requested: ProcessingBackend, chosen: ProcessingBackend, reason: String) {
            self.requested = requested
            self.chosen = chosen
            self.reason = reason
        }

        public var description: String { "\(requested.rawValue) → \(chosen.rawValue): \(reason)" }

        /// Reads "REQUESTED → CHOSEN: REASON"; nil for anything else.
        public init?(_ text: String) {
            let arrow = text.range(of: " → ")
            let colon = arrow.flatMap { text[$0.upperBound...].range(of: ": ") }
            guard let arrow, let colon, let requested = ProcessingBackend(rawValue: String(text[..<arrow.lowerBound])),
                let chosen = ProcessingBackend(rawValue: String(text[arrow.upperBound..<colon.lowerBound]))
            else { return nil }
            self.init(requested: requested, chosen: chosen, reason: String(text[colon.upperBound...]))
        }
    }
}
