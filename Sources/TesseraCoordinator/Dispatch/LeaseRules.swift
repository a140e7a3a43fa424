import TesseraCore

/// The dispatcher's lease rules, one round at a time: the coordinator's dispatcher runs them at every
/// wake-up against its worker sessions, and the scheduling model (`FarmModel`) against simulated
/// workers on a virtual clock, so the model measures the code that runs.
///
/// Workers holding the fewest tasks go first. Each takes ready work (`TaskBoard.next`: priority, then
/// fairness between jobs) while it has credit, a prefetch only while what it holds stays within
/// `prefetchBytes` of source packets; one that can take nothing queued and holds nothing may take a
/// backup attempt of a segment out at a slow worker (`TaskBoard.backup`, `BackupPolicy`). A job's stitch
/// frontier stuck at a slow worker is backed up first, even while work is queued.
extension TaskBoard {
    /// A worker as the rules see it.
    struct Seat: Sendable {
        var id: String
        /// Free slots it announced and was not given work for.
        var credit: Int
        /// Tasks it holds now.
        var holding: Int
        /// Source packet bytes of the tasks it holds.
        var heldBytes = 0
    }

    /// A lease the rules made.
    struct Grant: Sendable {
        var job: String
        var work: SegmentWork
        var attempt: Int
        /// Seconds the segment waited in the queue (0 for a backup).
        var waited: Double
        /// The attempt a backup races; nil for ready work.
        var backupOf: InFlight?
    }

    /// Leases what `seats` can take, in the rules' order.
    /// - Parameters:
    ///   - prefetchBytes: a worker already holding a task is given another (a prefetch) only while the
    ///     source packets of what it holds stay within this; one holding nothing takes any segment.
    ///   - rate: a worker's measured frames per second (nil: not known yet), for backup decisions.
    ///   - farmRates: the workers' measured rates. With backups on, a worker slower than their median by
    ///     more than the backup multiplier gets no prefetch: a second segment queued behind its first
    ///     would hold the job's in-order stitching until a backup rescued it at the end. Nor does a worker
    ///     not measured yet, which takes no backup either while it holds a task. A stitch
    ///     frontier's backup goes only to a worker that would finish it about as soon as the fastest
    ///     quarter would (another asks within moments), and only when the farm, at their summed rate, would
    ///     make the rest of the job first (`TaskBoard.FrontierRule`).
    ///   - workers: the live workers, measured or not (the farm's capacity counts the ones not measured
    ///     yet at the median rate).
    ///   - accepts: whether a worker can and should run a job's segment (its codecs, past failures).
    ///   - number: the attempt number the store gives a lease (`backup`: a backup attempt); nil when it
    ///     could not record it.
    ///   - grant: hands the lease to its worker; false when it could not (nothing more for that worker
    ///     this round).
    func leaseRound(
        _ seats: [Seat], now: Double, prefetchBytes: Int = .max, backups policy: BackupPolicy?,
        rate: (String) -> Double?, farmRates: [Double] = [], workers: Int = 0,
        accepts: (_ worker: String, _ job: String, SegmentWork) -> Bool,
        number: (_ backup: Bool, _ worker: String, _ job: String, _ segment: Int) -> Int?,
        grant: (_ worker: String, Grant) -> Bool
    ) {
        let ready = hasReadyWork
        guard ready || policy != nil else { return }
        let farmRate = BackupPolicy.quantile(farmRates, 0.5)
        let fastRate = BackupPolicy.quantile(farmRates, 0.75)
        // Workers not measured yet count at the median: early in a job most are, and the measured few
        // alone would make the rest of the job look far longer than it is.
        let capacity = farmRates.reduce(0, +) + Double(max(0, workers - farmRates.count)) * (farmRate ?? 0)
        for var seat in seats.sorted(by: { ($0.holding, $0.id) < ($1.holding, $1.id) }) {
            let slow =
                policy.flatMap { p in farmRate.flatMap { f in rate(seat.id).map { $0 * p.multiplier < f } } } ?? false
            // Nor does one not measured yet, and it races nobody while it holds a task: until its first
            // segment shows its rate, a tenth-speed worker looks like any other, and a segment queued behind
            // its first, or a frontier's backup given to it, holds the stitching for the whole job.
            let unmeasured = policy != nil && rate(seat.id) == nil
            while seat.credit > 0, seat.holding == 0 || !(slow || unmeasured) {
                var granted: Grant?
                let held = seat
                if !slow, !unmeasured, let policy, let fastRate,
                    let b = backup(
                        worker: seat.id, now: now, policy: policy, rate: rate,
                        frontier: .init(secondsPerFrame: (1 + policy.multiplier) / fastRate, capacity: capacity),
                        accepts: { accepts(seat.id, $0, $1) }, attempt: { number(true, seat.id, $0, $1) })
                {
                    granted = Grant(job: b.job, work: b.work, attempt: b.attempt, waited: 0, backupOf: b.of)
                } else if ready,
                    let n = next(
                        worker: seat.id, now: now,
                        accepts: { job, work in
                            (held.holding == 0 || held.heldBytes + work.payloadBytes <= prefetchBytes)
                                && accepts(held.id, job, work)
                        },
                        attempt: { number(false, seat.id, $0, $1) })
                {
                    granted = Grant(job: n.job, work: n.work, attempt: n.attempt, waited: n.waited)
                } else if seat.holding == 0, let policy,
                    let b = backup(
                        worker: seat.id, now: now, policy: policy, rate: rate, accepts: { accepts(seat.id, $0, $1) },
                        attempt: { number(true, seat.id, $0, $1) })
                {
                    granted = Grant(job: b.job, work: b.work, attempt: b.attempt, waited: 0, backupOf: b.of)
                }
                guard let granted, grant(seat.id, granted) else { break }
                seat.credit -= 1
                seat.holding += 1
                seat.heldBytes += granted.work.payloadBytes
            }
        }
    }
}

extension BackupPolicy {
    /// The middle of `values` (the upper one of an even count); nil for none.
    static func median(_ values: [Double]) -> Double? { quantile(values, 0.5) }

    /// The value a share `q` (0…1) of `values` lies below (rounded up to a member); nil for none.
    static func quantile(_ values: [Double], _ q: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        // A share outside 0…1 (or NaN) is held to its ends; the index is converted with `exactly`, so no
        // value can trap (one that does not convert takes the last).
        let share = q.isNaN ? 0 : min(1, max(0, q))
        let index = Int(exactly: (Double(sorted.count) * share).rounded(.down)) ?? sorted.count - 1
        return sorted[min(sorted.count - 1, max(0, index))]
    }

    /// Faster than any encoder runs (a thumbnail-sized ultrafast encode makes a few thousand frames/s).
    static let maximumRate = 100_000.0

    /// A worker's measured rate after it finished a segment of `frames` in `seconds`: each segment's rate
    /// averaged with weight ½ on the newest (what `TaskBoard.backup` expects of the worker).
    /// The figures come from the worker (`encodeSeconds`): a claim of more than `maximumRate` frames per
    /// second, which would make it every backup's first choice, is ignored.
    static func rate(after previous: Double?, frames: Int, seconds: Double) -> Double? {
        guard seconds > 0, seconds.isFinite, frames > 0, Double(frames) / seconds <= maximumRate else {
            return previous
        }
        let rate = Double(frames) / seconds
        return previous.map { ($0 + rate) / 2 } ?? rate
    }
}
