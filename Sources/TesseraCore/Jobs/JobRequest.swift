/// A transcode job as a client submits it to a coordinator (HTTP API, `tessera submit`, `tessera run`).
///
/// The source is either a path the coordinator can read (it must lie under one of the coordinator's
/// media roots) or an upload made first through the API. The output is a path relative to the
/// coordinator's output root, or nil to keep the result for `tessera fetch`.
public struct JobRequest: Sendable, Hashable, Codable {
    /// A path on the coordinator's machine (absolute, under a media root).
    public var source: String?
    /// An id returned by the upload endpoint, instead of `source`.
    public var uploadID: String?
    /// Relative to the output root; nil keeps the result in the coordinator's data folder.
    public var output: String?
    /// Container; nil infers it from `output`'s extension (mp4 when there is none).
    public var fileType: FileType?
    /// An `ExportPreset` name; ignored when `settings` is given.
    public var preset: String?
    /// Custom settings (as `tessera transcode`'s codec options build them).
    public var settings: OutputSettings?
    /// On the source's timeline; nil is the whole asset.
    public var timeRange: TimeRange?
    /// Seconds per segment (default 4).
    public var segmentDuration: Double?
    /// The frame processor the workers use; nil is `.auto`.
    public var backend: ProcessingBackend?
    /// Higher runs first; equal priorities share workers fairly.
    /// Segments expected to run at once. The last round of segments is re-cut so they all finish
    /// together; the coordinator fills in its connected workers when a request leaves it out, and keeps
    /// the value with the job so a restarted coordinator plans the same segments.
    public var parallelism: Int?
    public var priority: Int
    /// Replace an existing file at the output path.
    public var overwrite: Bool
    /// How the finished video is proven; nil is `.decode`.
    public var verification: VerificationLevel?

    public init(source: String? = nil, uploadID: String? = nil, output: String? = nil, fileType: FileType? = nil,
                preset: String? = nil, settings: OutputSettings? = nil, timeRange: TimeRange? = nil,
                segmentDuration: Double? = nil, backend: ProcessingBackend? = nil, parallelism: Int? = nil, priority: Int = 0,
                overwrite: Bool = false, verification: VerificationLevel? = nil) {
        self.source = source
        self.uploadID = uploadID
        self.output = output
        self.fileType = fileType
        self.preset = preset
        self.settings = settings
        self.timeRange = timeRange
        self.segmentDuration = segmentDuration
        self.backend = backend
        self.parallelism = parallelism
        self.priority = priority
        self.overwrite = overwrite
        self.verification = verification
    }

    private enum CodingKeys: String, CodingKey {
        case source, uploadID, output, fileType, preset, settings, timeRange, segmentDuration, backend, parallelism, priority
        case overwrite, verification
    }

    /// Every field is optional on the wire: `priority` defaults to 0 and `overwrite` to false.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(source: try c.decodeIfPresent(String.self, forKey: .source),
                  uploadID: try c.decodeIfPresent(String.self, forKey: .uploadID),
                  output: try c.decodeIfPresent(String.self, forKey: .output),
                  fileType: try c.decodeIfPresent(FileType.self, forKey: .fileType),
                  preset: try c.decodeIfPresent(String.self, forKey: .preset),
                  settings: try c.decodeIfPresent(OutputSettings.self, forKey: .settings),
                  timeRange: try c.decodeIfPresent(TimeRange.self, forKey: .timeRange),
                  segmentDuration: try c.decodeIfPresent(Double.self, forKey: .segmentDuration),
                  backend: try c.decodeIfPresent(ProcessingBackend.self, forKey: .backend),
                  parallelism: try c.decodeIfPresent(Int.self, forKey: .parallelism),
                  priority: try c.decodeIfPresent(Int.self, forKey: .priority) ?? 0,
                  overwrite: try c.decodeIfPresent(Bool.self, forKey: .overwrite) ?? false,
                  verification: try c.decodeIfPresent(VerificationLevel.self, forKey: .verification))
    }
}

/// Where a job is in its life. Terminal states are `completed`, `failed` and `cancelled`.
///
/// ```
/// queued → planning → running → stitching → verifying → completed
///    └────────┴──────────┴──────────┴───────────┴──→ failed | cancelled
/// ```
public enum JobState: String, Sendable, Hashable, Codable, CaseIterable {
    case queued, planning, running, stitching, verifying, completed, failed, cancelled

    public var isTerminal: Bool { self == .completed || self == .failed || self == .cancelled }

    /// Whether the state machine allows `self → next`.
    public func canMove(to next: JobState) -> Bool {
        switch (self, next) {
        case (.queued, .planning), (.planning, .running), (.running, .stitching), (.stitching, .verifying),
             (.verifying, .completed):
            return true
        case (_, .failed), (_, .cancelled):
            return !isTerminal
        // A coordinator restarted mid-job starts that job's pipeline over from planning; finished
        // segments stay spooled and are not redone.
        case (.running, .planning), (.stitching, .planning), (.verifying, .planning):
            return true
        default:
            return false
        }
    }
}

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

    public init(id: String, state: JobState, priority: Int, source: String, output: String, segmentsTotal: Int,
                segmentsDone: Int, framesTotal: Int, framesDone: Int, framesPerSecond: Double,
                elapsedSeconds: Double?, etaSeconds: Double?, error: String?, createdAt: Double, updatedAt: Double) {
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
    /// Seconds since its last message.
    public var lastSeenSeconds: Double
    /// How each requested backend resolved on it, e.g. "auto → cpu: vulkan 12.0 frames/s vs cpu 624.0 …".
    public var backendChoices: [String]

    public init(id: String, hostname: String, cores: Int, memoryBytes: UInt64, backends: [String], encoders: [String],
                state: WorkerState, tasks: [String], segmentsDone: Int, lastSeenSeconds: Double, backendChoices: [String] = []) {
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
    }
}
