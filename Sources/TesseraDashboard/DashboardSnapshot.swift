import TesseraCore

/// What the page shows, built once a second; `DashboardPage` renders each top-level section to HTML,
/// for the first load and for the event stream alike, and an update replaces a section whole.
public struct DashboardSnapshot: Sendable, Codable, Equatable {
    /// A worker's row.
    public struct Worker: Sendable, Codable, Equatable {
        public var id: String
        public var host: String
        /// The backend its `auto` chose (or the backends it offers, before its first choice).
        public var backend: String
        public var job: String?
        public var segment: Int?
        /// Frames it finished over the last ten seconds, per second.
        public var framesPerSecond: Double
        /// idle, busy, draining, paused, quarantined or lost.
        public var state: WorkerState
        /// Seconds since the coordinator last heard from it; 0 within two heartbeats (shown as "now").
        public var lastSeenSeconds: Double
        /// Frames of the segments it finished that the farm kept.
        public var frames: Int
    }

    /// A job's row.
    public struct Job: Sendable, Codable, Equatable {
        public var id: String
        /// The source's file name.
        public var source: String
        public var state: JobState
        public var framesDone: Int
        public var framesTotal: Int
        public var framesPerSecond: Double
        /// Seconds left, as a range: the remaining frames at the fastest and the slowest rate observed (the
        /// job's rate over its life and over the last ten seconds). Nil when finished or not yet moving.
        public var etaLow: Double?
        public var etaHigh: Double?
        public var error: String?
        /// Why its queued segments are taken by no worker (`JobStatus.waiting`).
        public var waiting: String? = nil
    }

    /// The farm's output rate: now (over the last ten seconds), and one point per `RateBook.pointInterval`
    /// interval for the last hour as `[unix seconds, frames/s, × real time]`.
    public struct Throughput: Sendable, Codable, Equatable {
        public var framesPerSecond: Double
        public var realtime: Double
        public var points: [[Double]]
        /// Backup attempts since the coordinator started.
        public var backups = FarmSummary.BackupCounts()
    }

    /// A running job's segment map, compact enough to send every second for a job of thousands of
    /// segments: one letter per segment, and each segment's worker as an index into `workers`. The
    /// whole map of any job, with each segment's attempts, errors and thumbnail, is its page
    /// (`/jobs/{id}`).
    public struct SegmentMap: Sendable, Codable, Equatable {
        public var job: String
        /// One letter per segment in plan order (`letters`): queued, running, done, failed, retried,
        /// racing (out at two workers), backup (finished by a backup attempt).
        public var cells: String
        /// The workers `by` names, each once.
        public var workers: [String]
        /// Per segment, the index in `workers` of the worker that did it or holds it; -1 for none yet.
        public var by: [Int]

        public static let letters: [SegmentStatus.State: Character] = [
            .queued: "q", .running: "r", .done: "d", .failed: "f", .retried: "t", .racing: "a", .backup: "b",
        ]

        public init(job: String, segments: [SegmentStatus]) {
            self.job = job
            var workers: [String] = [], index: [String: Int] = [:]
            cells = String(segments.map { Self.letters[$0.state]! })
            by = segments.map { s in
                guard let w = s.worker else { return -1 }
                if let i = index[w] { return i }
                index[w] = workers.count
                workers.append(w)
                return workers.count - 1
            }
            self.workers = workers
        }
    }

    /// An error with its cause: which job and segment, which worker, and what was said.
    public struct Failure: Sendable, Codable, Equatable {
        public var job: String
        public var segment: Int?
        public var message: String
    }

    /// Unix seconds when it was built.
    public var at: Double
    public var workers: [Worker]
    /// Running and queued jobs first, then the last `finishedShown` finished ones, newest first.
    public var jobs: [Job]
    public var throughput: Throughput
    public var maps: [SegmentMap]
    public var errors: [Failure]
    /// Seconds of silence after which the coordinator counts a worker as lost (heartbeat × liveness).
    /// Between messages the page applies the same rule to each row's last heartbeat, so a dead worker
    /// shows as lost when the window closes, not up to a message gap later. Nil: the page waits for the
    /// coordinator's word.
    public var livenessSeconds: Double?

    /// Finished jobs on the first page; older ones are paged (`/?page=2`, …).
    public static let finishedShown = 50
}

extension DashboardSnapshot.Worker {
    /// A worker's row: its rate is the coordinator's rate book's (`WorkerStatus.framesPerSecond`).
    init(_ w: WorkerStatus) {
        // The first task is the one running.
        let task = w.tasks.first
        let backends = w.backendChoices.isEmpty ? w.backends : w.backendChoices.map(\.chosen)
        // A worker that reads sources itself gets its tasks by reference: said beside its backend.
        let reads = (w.mediaRoots ?? []).isEmpty ? "" : " · reads the source"
        self.init(
            id: w.id, host: w.hostname, backend: backends.map(\.rawValue).joined(separator: ",") + reads,
            job: task?.job,
            segment: task?.segment, framesPerSecond: w.framesPerSecond ?? 0, state: w.state,
            lastSeenSeconds: w.lastSeenSeconds.rounded(places: 1), frames: w.framesDone)
    }
}

extension DashboardSnapshot.Job {
    /// A job's row: its rate is the coordinator's (recent while it runs); the time left is a range
    /// between that rate and the job's average over its life.
    init(_ j: JobStatus) {
        let average = j.elapsedSeconds.map { $0 > 0 ? Double(j.framesDone) / $0 : 0 } ?? 0
        let rates = [j.framesPerSecond, average].filter { $0 > 0 }
        let remaining = Double(max(0, j.framesTotal - j.framesDone))
        let moving = !j.state.isTerminal && j.framesTotal > 0 && !rates.isEmpty
        // A crawling rate can make an estimate infinite, which JSON cannot carry: none then.
        func finite(_ value: Double) -> Double? { value.isFinite ? value : nil }
        self.init(
            id: j.id, source: j.source.split(separator: "/").last.map(String.init) ?? j.source, state: j.state,
            framesDone: j.framesDone, framesTotal: j.framesTotal, framesPerSecond: j.framesPerSecond,
            etaLow: moving ? finite((remaining / rates.max()!).rounded()) : nil,
            etaHigh: moving ? finite((remaining / rates.min()!).rounded()) : nil, error: j.error,
            waiting: j.waiting)
    }
}
