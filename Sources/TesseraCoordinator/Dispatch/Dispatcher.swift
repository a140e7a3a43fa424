import Foundation
import Logging
import Synchronization
import TesseraAV
import TesseraCore
import TesseraHTTP
import TesseraWire

/// The coordinator's data plane: one dedicated thread owns the ROUTER socket and speaks the wire
/// protocol (Protocols/PROTOCOL.md) with every worker — sessions, credit, leases, heartbeats, liveness,
/// stalls, results. Other threads talk to it through `withdraw` (a locked queue plus a wake-up socket).
///
/// ```
///  workers ⇄ ROUTER ─┐                      ┌─ TaskBoard (work from job threads, outputs back)
///  wake (inproc) ────┴─ poll ─ dispatcher ──┼─ JobStore (leases, attempts, completions)
///                                            └─ SegmentSpool (results, fsync'd before the ack)
/// ```
final class Dispatcher: @unchecked Sendable {
    enum Command: Sendable {
        case cancelTask(TaskKey, worker: String, reason: String)
        case control(worker: String, WorkerControl)
        case checked(ResultChecker.Pending, ResultChecker.Verdict)
        case loaded(TaskLoader.Pending, Result<SegmentWork, MediaError>)
    }

    let configuration: CoordinatorConfiguration
    let context: ZMQContext
    let farm: CoordinatorContext
    let logger: Logger
    private var wakeUp: ZMQWakeUp?
    private let commands = Mutex<[Command]>([])
    private let running = Mutex(true)
    private let snapshot = Mutex<[WorkerStatus]>([])
    /// `waitingReasons()` as of the last tick, for any thread.
    private let waiting = Mutex<[String: String]>([:])
    private let finished = DispatchSemaphore(value: 0)
    private var authenticator: ZAPAuthenticator?
    /// Checks results before they are kept (`SegmentResultCheck`), off this thread.
    private(set) lazy var checker = ResultChecker(metrics: farm.metrics) { [weak self] pending, verdict in
        guard let self else { return }
        commands.withLock { $0.append(.checked(pending, verdict)) }
        wake()
    }
    /// Reads the packets of tasks that go with them, off this thread.
    private(set) lazy var loader = TaskLoader { [weak self] pending, result in
        guard let self else { return }
        commands.withLock { $0.append(.loaded(pending, result)) }
        wake()
    }

    // Dispatcher thread only.
    var router: ZMQSocket!
    var sessions: [Data: WorkerSession] = [:]
    var lastHousekeeping = 0.0
    var lastWaitingCheck = 0.0
    /// Who each attempt leased in this run went to: `isHolder` looks here before asking the store (which
    /// also knows the attempts of earlier runs). Entries go when their segment is no longer wanted.
    var leaseHolders: [TaskKey: String] = [:]
    /// Whether workers connect with CURVE (then each message carries its sender's public key).
    var curve: Bool { configuration.curveSecretFile != nil }
    /// With CURVE, the key each worker id first said Hello with: that id is refused to any other key.
    var idKeys: [String: String] = [:]
    /// One warning per peer and kind a minute about messages that were refused or dropped.
    var refusals = RefusalLog()
    /// The workers each segment failed on in this run: a retry goes to another worker when one can take it.
    var failedOn: [SegmentID: Set<String>] = [:]
    /// Workers that could not read a job's source themselves: its tasks go to them with their packets.
    var readFailures: Set<JobWorker> = []
    /// Attempts withdrawn from their workers (superseded, cancelled) whose end the worker may still
    /// report, with when: kept a minute.
    var withdrawn: [TaskKey: Double] = [:]
    /// Results arriving in parts, under one budget for every worker together.
    lazy var inbound = InboundResults(
        budget: configuration.inboundBudgetBytes, maxResultBytes: configuration.maxMessageBytes,
        partBytes: configuration.resultPartBytes)
    /// Counted failures in a row, per worker id; a success resets it.
    var failureStreaks: [String: Int] = [:]
    /// Workers that failed `quarantineAfter` attempts in a row get no new work until then (Unix seconds).
    var quarantinedUntil: [String: Double] = [:]
    static let quarantineAfter = 3
    /// Messages libzmq queues per peer before it stops reading that peer's connection.
    static let receiveQueue: Int32 = 16
    static let quarantineSeconds = 300.0
    /// Workers an operator drained or paused, by id (so the mode outlasts a reconnect): leased nothing new.
    var operatorHolds: [String: WorkerControl] = [:]
    /// Workers that went silent (or came back as a new session while holding work), as last seen, with
    /// when they were lost: shown as `lost` for `lostShownSeconds`, or until their id says Hello again.
    var lost: [String: (status: WorkerStatus, at: Double)] = [:]
    static let lostShownSeconds = 3600.0
    static let lostShownMax = 64

    struct SegmentID: Hashable {
        var job: String
        var segment: Int
    }

    struct JobWorker: Hashable {
        var job: String
        var worker: String
    }

    init(configuration: CoordinatorConfiguration, context: ZMQContext, farm: CoordinatorContext) {
        self.configuration = configuration
        self.context = context
        self.farm = farm
        logger = farm.logger
    }

    /// Binds the sockets and starts the thread; returns the endpoint actually bound.
    func start() throws(WireError) -> String {
        let router = try ZMQSocket(context, .router)
        try router.set(.linger(milliseconds: 0))
        try router.set(.routerMandatory(true))
        try router.set(.routerHandover(true))
        // No frame is larger than a result's part: what libzmq holds for one peer is a few parts (the frame
        // being read and `receiveQueue` queued), and a peer past the queue is not read until it drains.
        try router.set(.maxMessageSize(Int64(clamping: configuration.frameLimitBytes)))
        try router.set(.sendHighWaterMark(0))
        try router.set(.receiveHighWaterMark(Self.receiveQueue))
        if let secretFile = configuration.curveSecretFile {
            let keys = try CurveKeyPair.load(secretFile: secretFile)
            let allowed =
                try configuration.allowedKeysPath.map { (p) throws(WireError) in try CurveKeyPair.loadPublicKeys(p) }
                ?? []
            let log = logger
            let auth = ZAPAuthenticator(context: context, allowedPublicKeys: allowed) { log.warning("\($0)") }
            try auth.start()
            authenticator = auth
            try router.makeCurveServer(secretKey: keys.secretKey)
        }
        let bound = try router.bind(configuration.listen)
        self.router = router
        let wakeUp = try ZMQWakeUp(context: context)
        self.wakeUp = wakeUp
        let thread = Thread { [self] in
            loop(wake: wakeUp)
            router.close()
            finished.signal()
        }
        thread.name = "tessera.dispatcher"
        thread.stackSize = 8 << 20
        thread.start()
        return bound
    }

    /// Stops the thread (workers see silence and reconnect to the next coordinator).
    func stop() {
        guard
            running.withLock({
                let was = $0
                $0 = false
                return was
            })
        else { return }
        wake()
        finished.wait()
        checker.stop()
        loader.stop()
        wakeUp?.close()
        authenticator?.stop()
    }

    /// Asks the worker holding `segment`'s attempt to stop it (job cancelled or failed).
    func withdraw(job: String, segment: Int, attempt: Int, worker: String, reason: String) {
        commands.withLock {
            $0.append(
                .cancelTask(TaskKey(job: job, segment: segment, attempt: attempt), worker: worker, reason: reason))
        }
        wake()
    }

    /// Drains, pauses or resumes a worker (applied on the dispatcher thread at its next wake-up; the
    /// snapshot `workers` shows it from the next tick).
    func control(worker: String, _ action: WorkerControl) {
        commands.withLock { $0.append(.control(worker: worker, action)) }
        wake()
    }

    /// Wakes the dispatcher thread (new work, a command, stop). Safe from any thread.
    func wake() { wakeUp?.signal() }

    var workers: [WorkerStatus] { snapshot.withLock { $0 } }

    /// Why the job's queued segments are taken by no worker (see `waitingReasons`), as of the last tick.
    func waitingReason(job: String) -> String? { waiting.withLock { $0[job] } }

    private func loop(wake: ZMQWakeUp) {
        let poller = ZMQPoller([router, wake.socket])
        let tick = max(0.01, min(configuration.heartbeatInterval / 2, 0.25))
        while running.withLock({ $0 }) {
            let ready: [Bool]
            do {
                ready = try poller.poll(timeoutMilliseconds: Int32(tick * 1000))
            } catch {
                logger.error("dispatcher poll failed: \(error)")
                Thread.sleep(forTimeInterval: tick)
                continue
            }
            if ready[1] { wake.drain() }
            if ready[0] { drainRouter() }
            runCommands()
            let now = Date().timeIntervalSince1970
            if now - lastHousekeeping >= tick {
                lastHousekeeping = now
                housekeeping(now: now)
                // For `tessera workers` and the rate book: refreshed each tick, not on every message.
                let now = Date().timeIntervalSince1970
                let sessionStatuses = sessions.values.map { session in
                    var status = session.status
                    switch operatorHolds[session.id] {
                    case .drain?: status.state = .draining
                    case .pause?: status.state = .paused
                    case .resume?, nil: break
                    }
                    if (quarantinedUntil[session.id] ?? 0) > now { status.state = .quarantined }
                    return status
                }
                farm.rates.record(
                    produced: farm.metrics.produced,
                    workers: Dictionary(sessionStatuses.map { ($0.id, $0.framesDone) }, uniquingKeysWith: max),
                    jobs: farm.board.jobFrames, now: now)
                let live = sessionStatuses.map { status in
                    var status = status
                    status.framesPerSecond = farm.rates.worker(status.id)
                    return status
                }
                let liveIDs = Set(live.map(\.id))
                let gone = lost.values.filter { !liveIDs.contains($0.status.id) }.map { entry in
                    var status = entry.status
                    status.lastSeenSeconds += now - entry.at
                    return status
                }
                snapshot.withLock { $0 = (live + gone).sorted { $0.id < $1.id } }
                // Once a second: with every job waiting on a worker no one has, it asks each job of each worker.
                if now - lastWaitingCheck >= 1 {
                    lastWaitingCheck = now
                    let reasons = waitingReasons()
                    waiting.withLock { $0 = reasons }
                }
            }
            dispatch(now: now)
        }
    }

    /// Reads every message waiting on the ROUTER socket without blocking.
    private func drainRouter() {
        while true {
            let received: (frames: [Data], property: String?)?
            // With CURVE, "User-Id" is the public key the ZAP handler accepted for the connection.
            do { received = try router.receive(timeoutMilliseconds: 0, property: curve ? "User-Id" : nil) } catch {
                logger.warning("receive failed: \(error)")
                return
            }
            guard let (frames, key) = received else { return }
            guard frames.count == 2 else {
                logger.warning("dropped a message of \(frames.count) frames (expected routing id + envelope)")
                continue
            }
            handle(from: frames[0], frames[1], key: key.flatMap { $0.isEmpty ? nil : $0 })
        }
    }

    private func runCommands() {
        for command in commands.withLock({
            let c = $0
            $0 = []
            return c
        }) {
            switch command {
            case .cancelTask(let key, let worker, let reason):
                guard let (rid, _) = sessions.first(where: { $0.value.id == worker }) else { continue }
                if sessions[rid]?.holding.remove(key) != nil { withdrawn[key] = Date().timeIntervalSince1970 }
                send(.cancel(key.ref, reason: reason), to: rid)
            case .control(let worker, let action):
                operatorHolds[worker] = action == .resume ? nil : action
                logger.info("worker \(worker): \(action.rawValue) (operator)")
            case .checked(let pending, let verdict):
                checked(pending, verdict, now: Date().timeIntervalSince1970)
            case .loaded(let pending, let result):
                loaded(pending, result)
            }
        }
    }

    /// Sends one envelope to a worker (serialized straight into libzmq's buffer: tasks are megabytes);
    /// a worker that vanished is dropped at the next liveness check. Returns the bytes sent.
    @discardableResult
    func send(_ envelope: Tessera_V1_Envelope, to routingID: Data) -> Int {
        do {
            let bytes = try router.send(envelope, to: routingID, dontWait: true)
            sessions[routingID]?.lastSent = Date().timeIntervalSince1970
            return bytes ?? 0
        } catch {
            logger.debug("send to a worker failed: \(error)")
            return 0
        }
    }
}
