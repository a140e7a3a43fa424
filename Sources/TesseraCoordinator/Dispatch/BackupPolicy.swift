/// When an idle worker runs a second attempt of a segment already out at a slower one (a backup, as
/// MapReduce's backup tasks; the choice of segment as the LATE scheduler makes it: the longest expected
/// time to end). The first result that verifies wins; the other attempt is withdrawn.
///
/// A backup is considered for an attempt at least `minimumAge` old, and started only when that attempt's
/// expected time left is more than `multiplier` times what the backing worker needs for the whole segment,
/// plus the wait before it could start. Any segment out may be backed up once nothing is queued that the
/// idle worker could do; while work is queued, only a job's stitch frontier (its lowest unfinished
/// segment): every finished segment after it waits for it to be stitched, so at a slow worker it holds
/// the whole job's tail, not one segment's.
public struct BackupPolicy: Sendable, Equatable {
    /// Spark's `spark.speculation.multiplier` default. Rates here come from progress every 0.5 s and
    /// from finished segments; on shared machines they wander by about ±20 %, so a backup must be
    /// expected to finish at least a third earlier than the running attempt to be worth a second
    /// encode, and a worker only a little slower than the rest is left alone.
    public var multiplier: Double
    /// Seconds an attempt runs before it may be backed up: its first progress reports say too little.
    public var minimumAge: Double

    public init(multiplier: Double = 1.5, minimumAge: Double = 2) {
        self.multiplier = multiplier
        self.minimumAge = minimumAge
    }

    /// What is known of one attempt out at a worker.
    public struct Attempt: Sendable, Equatable {
        /// Frames the segment makes.
        public var frames: Int
        /// Frames encoded so far (from the worker's progress).
        public var framesDone: Int
        /// When the worker started it (from its first progress report), nil while it waits behind
        /// another task on the worker or has reported nothing yet.
        public var startedAt: Double?
        public var leasedAt: Double
        /// The worker's last sign of progress on what it holds (nil: not known).
        public var lastProgress: Double?

        public init(frames: Int, framesDone: Int, startedAt: Double?, leasedAt: Double, lastProgress: Double? = nil) {
            self.frames = frames
            self.framesDone = framesDone
            self.startedAt = startedAt
            self.leasedAt = leasedAt
            self.lastProgress = lastProgress
        }
    }

    /// Seconds without a sign of progress after which an attempt's rate says nothing of its end: workers
    /// report every 0.5 s while they encode, so a silent one is stopped, dead or cut off, and its age
    /// stands in (until the liveness timeout drops it and its segments go back to the queue).
    public static let silentAfter = 2.0

    /// Seconds until `attempt` finishes: from its own progress rate once it has frames done; for one not
    /// started, after what runs before it on the same worker (`ahead`), at the worker's measured rate
    /// (`holderRate`, frames per second). 0 once every frame is made. Nil when neither is known, or the
    /// worker has been silent for `silentAfter`.
    public static func timeLeft(
        _ attempt: Attempt, ahead: [Attempt] = [], holderRate: Double?, now: Double
    ) -> Double? {
        // Every frame made: its result is in hand or on its way (waiting for its check, perhaps for longer
        // than `silentAfter`), and nothing is left to run.
        let left = Double(max(0, attempt.frames - attempt.framesDone))
        if left == 0 { return 0 }
        if let last = attempt.lastProgress, now - last > silentAfter { return nil }
        if let started = attempt.startedAt, attempt.framesDone > 0, now > started {
            return left / (Double(attempt.framesDone) / (now - started))
        }
        var before = 0.0
        for a in ahead {
            guard let t = timeLeft(a, holderRate: holderRate, now: now) else { return nil }
            before += t
        }
        guard let rate = holderRate, rate > 0 else { return nil }
        return before + left / rate
    }

    /// Whether a worker running at `idleRate` frames per second, free to start in `startsIn` seconds,
    /// should back up `attempt`, whose expected time left is `timeLeft` (nil: unknown; then its age
    /// stands in for it, as Spark compares a task's run time with the others').
    public func shouldBackUp(
        _ attempt: Attempt, timeLeft: Double?, idleRate: Double, startsIn: Double = 0, now: Double
    ) -> Bool {
        guard idleRate > 0, startsIn >= 0, now - attempt.leasedAt >= minimumAge else { return false }
        let need = Double(attempt.frames) / idleRate
        return (timeLeft ?? (now - attempt.leasedAt)) > startsIn + multiplier * need
    }
}
