import Foundation
import Synchronization
import TesseraCore
import TesseraMedia

/// The scheduling model: how long a film takes on N workers that are not alike, and where the rest of
/// the time goes. It drives the coordinator's own scheduling code on a virtual clock: the `TaskBoard`
/// (queue, fairness, back-pressure, requeue, completion), the dispatcher's lease rules (`leaseRound`),
/// backup attempts (`BackupPolicy`) and the planner's tail re-cut (`SegmentPlanner.balanceTail`). What
/// is simulated is only what lies outside that code: workers encoding at their speed, the coordinator's
/// link, its spool disk and its stitching, from segment costs measured on real runs
/// (Benchmarks/farm-sim/measure.py).
///
/// ```
///  plan ─▶ producer (index) ─ add ─▶ TaskBoard ─ leaseRound ─▶ disk+link / storage ─▶ worker (speed) ─▶ link ─▶ spool ─▶ complete ─▶ stitch
///                                      ▲  progress every 0.5 s, requeue (lost workers), backups, withdrawals ◀─┘
/// ```
public enum FarmModel {
    /// Costs measured on real runs (`measure.py`'s JSON): one entry per measured segment.
    public struct Input: Sendable, Decodable {
        /// Wall seconds each measured segment took to transcode on one worker.
        public var segmentSeconds: [Double]
        /// CPU seconds of the same (`Options.cpuTimes`).
        public var segmentCPUSeconds: [Double]?
        /// Seconds of content in each measured segment (default `segmentDuration`).
        public var segmentContentSeconds: [Double]?
        /// Source packet bytes of each measured segment (what the coordinator sends a worker).
        public var segmentInputBytes: [Double]?
        /// Encoded bytes of each measured segment (what comes back).
        public var segmentOutputBytes: [Double]?
        public var segmentDuration: Double?
        /// Content seconds of the measured clip (planning and audio scale from it to the film).
        public var contentSeconds: Double?
        public var planningSeconds: Double?
        /// Planning the same clip looped (`planningLongContentSeconds` of it): with `planningSeconds`, the
        /// fixed part of planning (opening, probing) and the part per content second (every packet read).
        public var planningLongSeconds: Double?
        public var planningLongContentSeconds: Double?
        /// Bytes of the file planning read, for the clip and the looped clip (less what a command that
        /// does nothing reads). Without them planning is taken to read every byte of the film, as it did
        /// before it read MP4 sample tables alone (`InputFile(indexing:)`).
        public var planningReadBytes: Double?
        public var planningLongReadBytes: Double?
        /// What the measuring commands spent starting up (not part of a long-running coordinator's work).
        public var startupSeconds: Double?
        public var audioSeconds: Double?
        /// The share of `audioSeconds` that chunks do not spread (reading, decoding and converting the
        /// sound, muxing): measured with perf on `Benchmarks/audio.sh`'s encode (about 0.2).
        public var audioSerialShare: Double?
        public var stitchSeconds: Double?
        public var stitchedBytes: Double?
        public var stitchBytesPerSecond: Double?

        public init(segmentSeconds: [Double]) { self.segmentSeconds = segmentSeconds }
    }

    /// How a worker gets a segment's source: its packets from the coordinator, or a byte range it reads
    /// from shared storage itself (the coordinator then sends a small task).
    public enum Transport: String, Sendable, CaseIterable, Codable {
        case packets, source
    }

    /// Workers that are not alike: shares at half and a tenth of the speed, and a share that die
    /// mid-segment (the rest run at full speed).
    public struct Mix: Sendable, Equatable {
        public var halfSpeed: Double
        public var tenthSpeed: Double
        public var dying: Double

        public init(halfSpeed: Double, tenthSpeed: Double, dying: Double) {
            self.halfSpeed = halfSpeed
            self.tenthSpeed = tenthSpeed
            self.dying = dying
        }

        public static let alike = Mix(halfSpeed: 0, tenthSpeed: 0, dying: 0)
        /// Half the workers at 0.5×, 2 % at 0.1×, 1 % dying mid-segment.
        public static let unlike = Mix(halfSpeed: 0.5, tenthSpeed: 0.02, dying: 0.01)
    }

    public struct Options: Sendable {
        public var workers: Int
        public var filmSeconds = 7200.0
        /// Tasks a worker holds at once (one running, the rest prefetched), as `tessera worker` announces.
        public var slots = 2
        public var mix = Mix.unlike
        public var transport = Transport.packets
        public var backups: BackupPolicy? = BackupPolicy()
        /// The planner's tail re-cut for `workers` slots (as the farm plans: parallelism = workers).
        public var recutTail = true
        /// Segment costs from CPU seconds instead of wall seconds.
        public var cpuTimes = false
        /// The coordinator's link, each way (10 GbE).
        public var linkBytesPerSecond = 1.25e9
        /// Shared storage the `source` transport reads from, all workers together.
        public var storageBytesPerSecond = 1.25e9
        /// The coordinator's disk: reading source packets (for tasks that go with them) and the spool.
        public var diskBytesPerSecond = 500e6
        /// A task message without its packets.
        public var taskBytes = 4096.0
        /// Seconds of silence after which the coordinator drops a worker (heartbeat × liveness).
        public var livenessSeconds = 5.0
        /// Seconds between a worker's progress reports.
        public var progressInterval = 0.5
        public var gopSeconds = 2.0
        public var frameRate = 30.0
        /// Ready segments the job's producer keeps on the board (`TaskBoard.readyLimit`).
        public var readyLimit = 6
        /// The coordinator's cores: its audio encode runs in chunks on that many threads
        /// (`CoordinatorConfiguration.audioThreads`, every core by default); 1 encodes it whole.
        public var coordinatorCores = 16
        /// The coordinator's CPU seconds to check a second of a worker's result (`SegmentResultCheck`: it
        /// decodes the result, and the source's frames at the segment's ends) before the result is spooled and
        /// acknowledged, on `coordinatorCores` threads as `ResultChecker` runs them; 0 leaves the check out.
        public var checkSecondsPerContentSecond = 0.0
        public var seed: UInt64 = 1

        public init(workers: Int) { self.workers = workers }
    }

    public struct Report: Sendable, Encodable {
        public var workers: Int
        public var transport: Transport
        public var segments: Int
        /// Seconds from submission to the stitched output.
        public var makespan: Double
        /// Every segment's cost over the workers' summed speed: the makespan of a perfect farm.
        public var ideal: Double
        /// Useful work over the capacity of the live workers during the makespan.
        public var efficiency: Double
        /// Where the rest of that capacity went, as shares of it: `plan` (before the first lease), `feed`
        /// (idle while the producer was still adding segments), `link` (waiting for a task's bytes, read
        /// from the coordinator's disk and sent, or for a result's acknowledgement), `tail` (idle with nothing left to lease), `wasted` (attempts
        /// whose result was not used: backup races lost, work of workers that died), `stitch` (after
        /// the last segment, until the output is stitched), `audio` (then until the coordinator's audio
        /// encode is done).
        public var lost: [String: Double]
        public var backups: FarmSummary.BackupCounts
        /// Bytes the coordinator sent and received per segment.
        public var sentBytesPerSegment: Double
        public var receivedBytesPerSegment: Double
        public var deadWorkers: Int
    }

    public struct ModelError: Error, CustomStringConvertible {
        public var description: String
    }

    public static func run(_ input: Input, _ options: Options) throws(ModelError) -> Report {
        var model = try Simulation(input, options)
        return try model.run()
    }
}

/// The model's time, read by the board for its queue waits.
private final class VirtualClock: Sendable {
    private let value = Mutex(0.0)
    var now: Double {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}

private struct Simulation {
    typealias Options = FarmModel.Options

    struct Segment {
        var work: SegmentWork
        /// Seconds at full speed, lead-in decoding included.
        var cost: Double
        var inputBytes: Double
        var outputBytes: Double
    }

    struct Held {
        var segment: Int
        var attempt: Int
        var arrivesAt: Double
    }

    struct Running {
        var segment: Int
        var attempt: Int
        var startedAt: Double
        var endsAt: Double
    }

    struct Worker {
        var id: String
        var speed: Double
        var credit: Int
        var queue: [Held] = []
        var running: Running?
        var unacked = 0
        var rate: Double?
        var diesAt: Double?
        var dead = false
        var noticed = false
        var diedAt = 0.0
    }

    enum Event {
        case planned, produce, arrive(Int), finish(Int, Running), kept(Int, Running), progress, death(Int), noticed(Int)
    }

    static let job = "film"
    let options: Options
    let segments: [Segment]
    let planSeconds: Double
    /// Whether the source's packets are known from its index alone (an MP4's sample tables: the input
    /// gives what planning read), so the producer reads no packets.
    let indexed: Bool
    let audioSeconds: Double
    let stitchBytesPerSecond: Double
    var workers: [Worker] = []
    let clock = VirtualClock()
    let board: TaskBoard
    var events = EventQueue<Event>()
    var now = 0.0
    var planned = false
    var produced = 0
    var producerWaiting = false
    var producerFree = 0.0
    var attempts: [Int]
    var finished: [Bool]
    var keptCount = 0
    var stitchedUpTo = 0
    var stitchFree = 0.0
    var linkOut = 0.0, linkIn = 0.0, storage = 0.0, disk = 0.0
    /// When the coordinator's reads of tasks' packets from the source are done (packets transport).
    var sourceRead = 0.0
    /// When each of the coordinator's result-check threads is next free.
    var checkers: [Double]
    var sent = 0.0, received = 0.0
    var buckets: [String: Double] = [:]
    var useful = 0.0
    var backups = FarmSummary.BackupCounts()
    var end: Double?
    /// When the coordinator's audio encode ends (it starts when planning ends).
    var audioEnd: Double?

    init(_ input: FarmModel.Input, _ options: Options) throws(FarmModel.ModelError) {
        self.options = options
        let costs = options.cpuTimes ? (input.segmentCPUSeconds ?? []) : input.segmentSeconds
        guard !costs.isEmpty, costs.allSatisfy({ $0 > 0 && $0.isFinite }) else {
            throw .init(
                description:
                    "segment\(options.cpuTimes ? "CPU" : "")Seconds must be a non-empty list of positive seconds")
        }
        for (name, list) in [
            ("segmentContentSeconds", input.segmentContentSeconds), ("segmentInputBytes", input.segmentInputBytes),
            ("segmentOutputBytes", input.segmentOutputBytes),
        ] {
            guard let list else { continue }
            guard list.count == costs.count, list.allSatisfy({ $0 >= 0 && $0.isFinite }) else {
                throw .init(description: "\(name) must list \(costs.count) non-negative numbers, one per segment")
            }
        }
        let scalars = [
            input.segmentDuration, input.contentSeconds, input.planningSeconds, input.startupSeconds,
            input.planningLongSeconds, input.planningLongContentSeconds, input.planningReadBytes,
            input.planningLongReadBytes, input.audioSeconds, input.stitchSeconds, input.stitchedBytes,
            input.stitchBytesPerSecond,
        ].compactMap { $0 }
        guard scalars.allSatisfy({ $0 >= 0 && $0.isFinite }) else {
            throw .init(description: "the input's durations, sizes and rates must be non-negative numbers")
        }
        let rates = [
            options.filmSeconds, options.frameRate, options.gopSeconds, options.linkBytesPerSecond,
            options.storageBytesPerSecond, options.diskBytesPerSecond, options.livenessSeconds,
            options.progressInterval,
        ]
        guard (1...100_000).contains(options.workers), (1...64).contains(options.slots), options.readyLimit >= 1,
            rates.allSatisfy({ $0 > 0 && $0.isFinite }), options.taskBytes >= 0, options.taskBytes.isFinite,
            options.checkSecondsPerContentSecond >= 0, options.checkSecondsPerContentSecond.isFinite,
            (1...4096).contains(options.coordinatorCores)
        else {
            throw .init(
                description:
                    "workers (1…100000), slots (1…64), coordinator cores (1…4096), the film's length, rates and "
                    + "intervals must be positive"
            )
        }
        let duration = input.segmentDuration ?? input.segmentContentSeconds?.first ?? 4
        let content = input.segmentContentSeconds ?? Array(repeating: duration, count: costs.count)
        guard duration > 0, content.allSatisfy({ $0 > 0 }), (input.contentSeconds ?? 1) > 0 else {
            throw .init(description: "segment content seconds must be positive")
        }
        // Every frame of the film is on the planner's list: a bound on its length in frames.
        let frameLimit = 20_000_000.0
        guard duration * options.frameRate >= 1, options.gopSeconds * options.frameRate >= 1,
            options.filmSeconds * options.frameRate <= frameLimit, duration * options.frameRate <= frameLimit,
            options.gopSeconds * options.frameRate <= frameLimit
        else {
            throw .init(description: "segments and GOPs of at least a frame, and a film of at most 20,000,000 frames")
        }
        let fps = options.frameRate
        let measuredSeconds = input.contentSeconds ?? content.reduce(0, +)
        let scale = options.filmSeconds / measuredSeconds
        audioSeconds = FarmModel.audioSeconds(
            (input.audioSeconds ?? 0) * scale, film: options.filmSeconds, threads: options.coordinatorCores,
            serial: min(1, input.audioSerialShare ?? 0.2))
        let outputBytes = input.segmentOutputBytes ?? content.map { $0 * 2e6 / 8 }
        let inputBytes = input.segmentInputBytes ?? content.map { $0 * 8e6 / 8 }
        if let rate = input.stitchBytesPerSecond, rate > 0 {
            stitchBytesPerSecond = rate
        } else if let seconds = input.stitchSeconds.map({ $0 - (input.startupSeconds ?? 0) }),
            let bytes = input.stitchedBytes, seconds > 0, bytes > 0
        {
            stitchBytesPerSecond = bytes / seconds
        } else {
            stitchBytesPerSecond = .infinity
        }

        // The film: measured segments drawn at random, then cut as the planner cuts (whole GOPs, the
        // last round re-cut for the workers).
        var generator = SeededGenerator(seed: options.seed)
        let framesPerSegment = max(1, Int((duration * fps).rounded()))
        let count = max(1, Int((options.filmSeconds / duration).rounded()))
        let frames = count * framesPerSegment
        var cost = [0.0], sentBytes = [0.0], back = [0.0]
        cost.reserveCapacity(frames + 1)
        for _ in 0..<count {
            let d = Int(generator.next() % UInt64(costs.count))
            let perFrame = 1 / (content[d] * fps)
            for _ in 0..<framesPerSegment {
                cost.append(cost.last! + costs[d] * perFrame)
                sentBytes.append(sentBytes.last! + inputBytes[d] * perFrame)
                back.append(back.last! + outputBytes[d] * perFrame)
            }
        }
        // Planning goes through every packet of the film before the first lease: a fixed part and a part per
        // content second (the clip, and the clip looped), or, where what it reads from the coordinator's
        // disk takes longer, that read (the parsing keeps pace with it). An MP4's planning reads its sample
        // tables, not its samples: the bytes read, measured the same two ways; without them, every byte.
        let startup = input.startupSeconds ?? 0
        var planCPU = max(0, (input.planningSeconds ?? 0) - startup) * scale
        if let short = input.planningSeconds, let long = input.planningLongSeconds,
            let longContent = input.planningLongContentSeconds, longContent > measuredSeconds
        {
            let rate = max(0, (long - short) / (longContent - measuredSeconds))
            planCPU = max(0, short - startup - rate * measuredSeconds) + rate * options.filmSeconds
        }
        var planBytes = sentBytes.last!
        var indexed = false
        if let short = input.planningReadBytes, let long = input.planningLongReadBytes,
            let longContent = input.planningLongContentSeconds, longContent > measuredSeconds
        {
            let rate = max(0, (long - short) / (longContent - measuredSeconds))
            planBytes = max(0, short - rate * measuredSeconds) + rate * options.filmSeconds
            indexed = true
        }
        planSeconds = max(planCPU, planBytes / options.diskBytesPerSecond)
        self.indexed = indexed
        let gop = max(1, Int((options.gopSeconds * fps).rounded()))
        var cuts = (1..<count).map { Int64($0 * framesPerSegment) }
        if options.recutTail && options.workers > 1 {
            cuts = SegmentPlanner.balanceTail(
                cuts, framePTS: (0..<frames).map(Int64.init), isKeyframe: (0..<frames).map { $0 % gop == 0 },
                parallel: options.workers)
        }
        let bounds = [0] + cuts.map(Int.init) + [frames]
        segments = zip(bounds, bounds.dropFirst()).enumerated().map { index, range in
            let (a, b) = range
            let lead = a - a / gop * gop
            let leadCost = Double(lead) * SegmentPlanner.decodeOnlyCost * (cost[a + 1] - cost[a])
            let spec = SegmentSpec(
                index: index, outputFrames: a..<b, presentationRange: Int64(a)..<Int64(b),
                decodePackets: (a - lead)..<b, timeMap: TimeMapPiece(sourceStart: 0, outputStart: 0))
            let work = SegmentWork(
                spec: spec,
                source: CodecConfiguration(codec: "h264", width: 1920, height: 1080, pixelFormat: "yuv420p"),
                timeBase: Rational(1, 30), frameRate: Rational(30), rotation: .none, packets: [],
                settings: VideoSettings(codec: .h264), endTick: nil, sourceName: Self.job, backend: .cpu)
            return Segment(
                work: work, cost: cost[b] - cost[a] + leadCost,
                inputBytes: sentBytes[b] - sentBytes[a - lead], outputBytes: back[b] - back[a])
        }
        attempts = Array(repeating: 0, count: segments.count)
        finished = Array(repeating: false, count: segments.count)
        checkers = Array(repeating: 0, count: options.coordinatorCores)
        let clock = self.clock
        board = TaskBoard(readyLimit: options.readyLimit, clock: { clock.now }) {}

        // The workers: speeds shuffled over the ids, the dying ones chosen at random too.
        let n = options.workers
        let tenth = Int((Double(n) * options.mix.tenthSpeed).rounded())
        let half = Int((Double(n) * options.mix.halfSpeed).rounded())
        var speeds = (0..<n).map { $0 < tenth ? 0.1 : $0 < tenth + half ? 0.5 : 1.0 }
        speeds.shuffle(using: &generator)
        workers = speeds.enumerated().map { i, speed in
            Worker(id: String(format: "w%04d", i), speed: speed, credit: options.slots)
        }
        let dying = min(n - 1, Int((Double(n) * options.mix.dying).rounded()))
        let encode = segments.reduce(0) { $0 + $1.cost } / speeds.reduce(0, +)
        for i in (0..<n).shuffled(using: &generator).prefix(dying) {
            workers[i].diesAt = planSeconds + encode * Double.random(in: 0.1...0.8, using: &generator)
        }
    }

    mutating func run() throws(FarmModel.ModelError) -> FarmModel.Report {
        board.open(
            job: Self.job, priority: 0, created: 0, finished: [:], framesFinished: 0,
            framesTotal: segments.reduce(0) { $0 + $1.work.spec.frameCount })
        events.add(.planned, at: planSeconds)
        for (i, w) in workers.enumerated() { if let t = w.diesAt { events.add(.death(i), at: t) } }
        while end == nil, let (at, event) = events.next() {
            account(until: at)
            now = at
            clock.now = at
            handle(event)
            dispatch()
        }
        guard let end else {
            throw .init(
                description:
                    "the farm stopped with \(segments.count - keptCount) segments unfinished (every worker lost?)")
        }
        account(until: end)
        let capacity = workers.reduce(0.0) { $0 + $1.speed * (($1.dead ? min($1.diedAt, end) : end)) }
        let lost = buckets.mapValues { $0 / capacity }
        let speeds = workers.reduce(0) { $0 + $1.speed }
        return FarmModel.Report(
            workers: options.workers, transport: options.transport, segments: segments.count, makespan: end,
            ideal: segments.reduce(0) { $0 + $1.cost } / speeds, efficiency: useful / capacity, lost: lost,
            backups: backups, sentBytesPerSegment: sent / Double(segments.count),
            receivedBytesPerSegment: received / Double(segments.count),
            deadWorkers: workers.filter(\.dead).count)
    }

    /// Charges the time up to `t` to each live worker's state: running is counted when its attempt ends.
    mutating func account(until t: Double) {
        let span = t - now
        guard span > 0 else { return }
        if keptCount == segments.count {
            // Every segment is in: the stitch's backlog, then the audio.
            let stitching = min(t, max(now, stitchFree)) - now
            let live = workers.reduce(0.0) { $0 + ($1.dead ? 0 : $1.speed) }
            buckets["stitch", default: 0] += stitching * live
            buckets["audio", default: 0] += (span - stitching) * live
            return
        }
        for w in workers where !w.dead && w.running == nil {
            let bucket =
                !planned
                ? "plan"
                : !w.queue.isEmpty
                    ? "link"
                    : w.unacked > 0 && w.credit == 0
                        ? (checkers.allSatisfy { $0 > now } ? "check" : "link")
                        : produced < segments.count ? "feed" : "tail"
            buckets[bucket, default: 0] += span * w.speed
        }
    }

    mutating func handle(_ event: Event) {
        switch event {
        case .planned:
            planned = true
            // The audio is encoded from the end of planning (`SegmentedEngine`'s prepare); its packets wait
            // in the writer for the first result's parameters (a two-hour film's are ~15 MB by then, under
            // `SegmentedExport.earlyPacketBytes`).
            audioEnd = now + audioSeconds
            events.add(.produce, at: now)
            events.add(.progress, at: now + options.progressInterval)
        case .produce:
            guard produced < segments.count else { return }
            guard board.hasRoom(job: Self.job, for: segments[produced].work) else {
                producerWaiting = true
                return
            }
            _ = board.add(job: Self.job, segments[produced].work)
            // The job's thread reads an MP4's index again, not its packets (`takesIndexedPackets`): at
            // planning's pace, a share of it a segment; the packets are read when a task goes with them.
            // Another file's packets are read here, as planning read every byte.
            let read =
                indexed
                ? planSeconds / Double(segments.count) : segments[produced].inputBytes / options.diskBytesPerSecond
            produced += 1
            producerFree = now + read
            events.add(.produce, at: producerFree)
        case .arrive(let w):
            start(w)
        case .finish(let w, let r):
            guard !workers[w].dead, let running = workers[w].running, running.segment == r.segment,
                running.attempt == r.attempt
            else { return }
            workers[w].running = nil
            workers[w].queue.removeFirst()
            workers[w].unacked += 1
            // The result crosses the link, then is spooled (fsync'd) before it is acknowledged.
            let bytes = segments[r.segment].outputBytes
            board.touch(worker: workers[w].id, now: now)
            linkIn = max(now, linkIn) + bytes / options.linkBytesPerSecond
            // Checked on the first free check thread, then spooled.
            var checked = linkIn
            if options.checkSecondsPerContentSecond > 0,
                let c = checkers.indices.min(by: { checkers[$0] < checkers[$1] })
            {
                // As the dispatcher does when a result goes to its check: every frame of the attempt is made.
                let frames = segments[r.segment].work.spec.frameCount
                board.progress(job: Self.job, segment: r.segment, attempt: r.attempt, frames: frames, now: now)
                let content = Double(frames) / options.frameRate
                checkers[c] = max(linkIn, checkers[c]) + content * options.checkSecondsPerContentSecond
                checked = checkers[c]
            }
            disk = max(checked, disk) + bytes / options.diskBytesPerSecond
            received += bytes
            events.add(.kept(w, r), at: disk)
            start(w)
        case .kept(let w, let r):
            kept(w, r)
        case .progress:
            guard keptCount < segments.count else { return }
            for w in workers where !w.dead {
                guard let r = w.running, now > r.startedAt else { continue }
                let share = (now - r.startedAt) / (r.endsAt - r.startedAt)
                let frames = Int(Double(segments[r.segment].work.spec.frameCount) * min(1, share))
                guard frames > 0 else { continue }
                board.progress(
                    job: Self.job, segment: r.segment, attempt: r.attempt, frames: frames,
                    framesPerSecond: Double(frames) / (now - r.startedAt), now: now)
                // As the dispatcher does: a report is a sign of progress for every task the worker holds.
                board.touch(worker: w.id, now: now)
            }
            events.add(.progress, at: now + options.progressInterval)
        case .death(let w):
            if let r = workers[w].running { buckets["wasted", default: 0] += (now - r.startedAt) * workers[w].speed }
            workers[w].running = nil
            workers[w].dead = true
            workers[w].diedAt = now
            events.add(.noticed(w), at: now + options.livenessSeconds)
        case .noticed(let w):
            // The dispatcher drops the silent worker: each attempt it held goes back to the queue, unless
            // another attempt of the segment races it.
            workers[w].noticed = true
            for held in workers[w].queue where !finished[held.segment] {
                if board.endRacing(job: Self.job, segment: held.segment, attempt: held.attempt) == nil {
                    board.requeue(job: Self.job, segment: held.segment, attempt: held.attempt)
                }
            }
            workers[w].queue.removeAll()
            workers[w].credit = 0
        }
    }

    /// The worker starts the first task it holds once its bytes are there.
    mutating func start(_ w: Int) {
        guard !workers[w].dead, workers[w].running == nil, let head = workers[w].queue.first, head.arrivesAt <= now
        else { return }
        let r = Running(
            segment: head.segment, attempt: head.attempt, startedAt: now,
            endsAt: now + segments[head.segment].cost / workers[w].speed)
        workers[w].running = r
        events.add(.finish(w, r), at: r.endsAt)
    }

    mutating func kept(_ w: Int, _ r: Running) {
        let seconds = r.endsAt - r.startedAt
        let speed = workers[w].speed
        if !workers[w].dead {
            workers[w].unacked -= 1
            workers[w].credit += 1
        }
        guard !finished[r.segment] else {
            buckets["wasted", default: 0] += seconds * speed
            return
        }
        let completion = board.complete(
            job: Self.job, segment: r.segment, attempt: r.attempt, spool: URL(fileURLWithPath: "/model"),
            frames: segments[r.segment].work.spec.frameCount)
        finished[r.segment] = true
        keptCount += 1
        useful += seconds * speed
        workers[w].rate = BackupPolicy.rate(
            after: workers[w].rate, frames: segments[r.segment].work.spec.frameCount, seconds: seconds)
        if completion.byBackup { backups.won += 1 }
        for other in completion.superseded {
            if other.isBackup { backups.wasted += 1 }
            withdraw(other.worker, segment: r.segment, attempt: other.attempt)
        }
        // Stitched in order as soon as a segment and all before it are in (read back from the spool).
        while stitchedUpTo < segments.count, finished[stitchedUpTo] {
            let bytes = segments[stitchedUpTo].outputBytes
            stitchFree =
                max(now, stitchFree) + bytes / stitchBytesPerSecond + bytes / options.diskBytesPerSecond
            stitchedUpTo += 1
        }
        if keptCount == segments.count { end = max(stitchFree, audioEnd ?? now) }
    }

    /// TaskCancel: the worker stops the attempt (its work so far is wasted) and frees the slot.
    mutating func withdraw(_ id: String, segment: Int, attempt: Int) {
        guard let w = workers.firstIndex(where: { $0.id == id }), !workers[w].dead,
            let i = workers[w].queue.firstIndex(where: { $0.segment == segment && $0.attempt == attempt })
        else { return }
        if let r = workers[w].running, r.segment == segment, r.attempt == attempt {
            buckets["wasted", default: 0] += (now - r.startedAt) * workers[w].speed
            workers[w].running = nil
        }
        workers[w].queue.remove(at: i)
        workers[w].credit += 1
        start(w)
    }

    /// The dispatcher's wake-up: one round of the lease rules over the live workers with credit.
    mutating func dispatch() {
        guard planned, keptCount < segments.count else { return }
        let seats = workers.filter { !$0.dead && $0.credit > 0 }.map {
            TaskBoard.Seat(id: $0.id, credit: $0.credit, holding: $0.queue.count)
        }
        if !seats.isEmpty {
            let rates = Dictionary(uniqueKeysWithValues: workers.compactMap { w in w.rate.map { (w.id, $0) } })
            let index = Dictionary(uniqueKeysWithValues: workers.indices.map { (workers[$0].id, $0) })
            var attempts = self.attempts
            var granted: [(Int, TaskBoard.Grant)] = []
            board.leaseRound(
                seats, now: now, backups: options.backups, rate: { rates[$0] },
                farmRates: Array(rates.values), workers: workers.count { !$0.noticed },
                accepts: { _, _, _ in true },
                number: { _, _, _, segment in
                    attempts[segment] += 1
                    return attempts[segment]
                },
                grant: { worker, grant in
                    granted.append((index[worker]!, grant))
                    return true
                })
            self.attempts = attempts
            for (w, grant) in granted { give(grant, to: w) }
        }
        if producerWaiting, produced < segments.count, board.hasRoom(job: Self.job, for: segments[produced].work) {
            producerWaiting = false
            events.add(.produce, at: max(now, producerFree))
        }
    }

    /// A lease reaches its worker once its bytes are through: the source packets read from the
    /// coordinator's disk and sent over its link, or a small task over it and the source range from shared
    /// storage.
    mutating func give(_ grant: TaskBoard.Grant, to w: Int) {
        let segment = grant.work.spec.index
        let payload = options.transport == .packets ? segments[segment].inputBytes : options.taskBytes
        // A task that goes with its packets reads them from the coordinator's disk first (`TaskLoader`),
        // a backup's ahead of the others queued (it races a late attempt).
        var ready = now
        if options.transport == .packets && indexed {
            let read = segments[segment].inputBytes / options.diskBytesPerSecond
            sourceRead = max(now, sourceRead) + read
            ready = grant.backupOf != nil ? now + read : sourceRead
        }
        linkOut = max(ready, linkOut) + payload / options.linkBytesPerSecond
        var arrives = linkOut
        if options.transport == .source {
            storage = max(linkOut, storage) + segments[segment].inputBytes / options.storageBytesPerSecond
            arrives = storage
        }
        sent += payload
        if grant.backupOf != nil { backups.started += 1 }
        workers[w].credit -= 1
        workers[w].queue.append(Held(segment: segment, attempt: grant.attempt, arrivesAt: arrives))
        events.add(.arrive(w), at: arrives)
    }
}

extension FarmModel {
    /// The coordinator's audio encode on `threads` (`ChunkedAudioEncoder`): the serial share as it is; the
    /// rest spread over the chunks (20.48 s each, plus 34 frames of pre- and postroll), at most `threads`
    /// at once. A film of one chunk, or one thread, is encoded whole.
    public static func audioSeconds(_ whole: Double, film: Double, threads: Int, serial: Double) -> Double {
        let chunk = Double(ChunkedAudioEncoder.chunkFrames) * 1024 / 48_000
        let chunks = (film / chunk).rounded(.up)
        guard threads >= 2, chunks >= 2 else { return whole }
        let overhead =
            1 + Double(ChunkedAudioEncoder.preroll + ChunkedAudioEncoder.postroll)
            / Double(ChunkedAudioEncoder.chunkFrames)
        let rounds = (chunks / Double(threads)).rounded(.up)
        return whole * (serial + (1 - serial) * overhead * rounds / chunks)
    }
}
