/// The farm at a glance (`GET /v1/farm`): its output rates from the coordinator's one rate book, and
/// its queue, workers and jobs. `tessera top`'s header and the dashboard's throughput read it.
public struct FarmSummary: Sendable, Hashable, Codable {
    /// Output frames per second over the last ten seconds.
    public var framesPerSecond: Double
    /// Seconds of media out per second over the last ten seconds (× real time).
    public var realTime: Double
    /// Segments of running jobs waiting for a worker.
    public var queuedSegments: Int
    /// Segments leased to workers now.
    public var runningSegments: Int
    /// Workers connected (lost ones not counted).
    public var workers: Int
    /// Workers holding at least one task (`WorkerStatus.isBusy`).
    public var busyWorkers: Int
    /// Jobs by state, every state present (0 for none).
    public var jobs: [String: Int]
    /// The last hour at one point per five seconds, oldest first: `[unix seconds, frames/s, × real time]`.
    public var points: [[Double]]
    /// Backup attempts since the coordinator started (segments out at slow workers run again on idle ones).
    public var backups: BackupCounts

    public struct BackupCounts: Sendable, Hashable, Codable {
        public var started: Int
        /// Taken first: the slow worker's attempt was withdrawn.
        public var won: Int
        /// The slower attempt finished first, or the backup failed.
        public var wasted: Int

        public init(started: Int = 0, won: Int = 0, wasted: Int = 0) {
            self.started = started
            self.won = won
            self.wasted = wasted
        }
    }

    public init(
        framesPerSecond: Double, realTime: Double, queuedSegments: Int, runningSegments: Int, workers: Int,
        busyWorkers: Int, jobs: [String: Int], points: [[Double]], backups: BackupCounts = .init()
    ) {
        self.backups = backups
        self.framesPerSecond = framesPerSecond
        self.realTime = realTime
        self.queuedSegments = queuedSegments
        self.runningSegments = runningSegments
        self.workers = workers
        self.busyWorkers = busyWorkers
        self.jobs = jobs
        self.points = points
    }

    private enum CodingKeys: String, CodingKey {
        case framesPerSecond, realTime, queuedSegments, runningSegments, workers, busyWorkers, jobs, points, backups
    }

    /// A coordinator older than backup attempts sends no `backups`: none, then.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            framesPerSecond: try c.decode(Double.self, forKey: .framesPerSecond),
            realTime: try c.decode(Double.self, forKey: .realTime),
            queuedSegments: try c.decode(Int.self, forKey: .queuedSegments),
            runningSegments: try c.decode(Int.self, forKey: .runningSegments),
            workers: try c.decode(Int.self, forKey: .workers),
            busyWorkers: try c.decode(Int.self, forKey: .busyWorkers),
            jobs: try c.decode([String: Int].self, forKey: .jobs),
            points: try c.decode([[Double]].self, forKey: .points),
            backups: try c.decodeIfPresent(BackupCounts.self, forKey: .backups) ?? .init())
    }
}
