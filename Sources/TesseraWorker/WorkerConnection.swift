import Foundation
import Logging
import Synchronization
import TesseraCore
import TesseraWire

/// The worker's side of the protocol, on the worker's network thread: connect, Hello, credit,
/// heartbeats, liveness, reconnect with back-off, results kept until acknowledged, draining.
struct WorkerConnection {
    private let worker: Worker
    private let context: ZMQContext
    private var socket: ZMQSocket?
    private var welcomed = false
    private var helloSentAt = 0.0
    private var lastHeard = 0.0
    private var lastSent = 0.0
    private var interval = 1.0
    private var liveness = 5
    private var backoff: Double
    private var connections = 0
    /// Results offered but not yet acknowledged, as their envelopes' bytes: offered again after a
    /// reconnect, and sent in parts when the coordinator grants them room (PROTOCOL.md §8).
    private var unacked: [TaskKey: Data] = [:]
    /// The most bytes of a result in one part, as the coordinator's Welcome says.
    private var partBytes = WireCodec.defaultPartBytes
    /// The backend choices the coordinator has heard (in Hello or a Ready).
    private var announcedChoices: [Tessera_V1_BackendChoice] = []
    private var returnedForDrain = false

    init(worker: Worker, context: ZMQContext) {
        self.worker = worker
        self.context = context
        backoff = worker.configuration.backoffInitial
    }

    private var log: Logger { worker.logger }

    mutating func run(wake: ZMQWakeUp) throws(WireError) -> Worker.Exit {
        defer { socket?.close() }
        while true {
            if worker.stopping.load(ordering: .acquiring) { return .stopped }
            if socket == nil { try connect() }
            let now = Date().timeIntervalSince1970
            let ready = try ZMQPoller([socket!, wake.socket]).poll(
                timeoutMilliseconds: Int32(min(interval / 2, 0.25) * 1000))
            if ready[1] { wake.drain() }
            if ready[0], let exit = try drainSocket() { return exit }
            let outgoing = worker.outbox.withLock { outbox in
                defer { outbox = [] }
                return outbox
            }
            for e in outgoing { sendOutcome(e) }
            if worker.draining.load(ordering: .acquiring), let exit = drainStep() { return exit }
            let t = Date().timeIntervalSince1970
            if welcomed, t - lastSent >= interval { sendHeartbeat(t) }
            let silentFor = t - max(lastHeard, helloSentAt)
            if silentFor > interval * Double(liveness) {
                log.warning(
                    "coordinator silent for \(String(format: "%.1f", silentFor)) s; reconnecting in \(backoff) s")
                reconnectAfterBackoff()
            }
            _ = now
        }
    }

    private mutating func connect() throws(WireError) {
        let s = try ZMQSocket(context, .dealer)
        connections += 1
        try s.set(.linger(milliseconds: 1000))  // a Goodbye or result leaves before close gives up
        try s.set(.routingID(Data("\(worker.configuration.id)/\(connections)".utf8)))
        try s.set(.maxMessageSize(Int64(WireCodec.defaultMaxMessageBytes)))
        try s.set(.sendHighWaterMark(0))
        try s.set(.receiveHighWaterMark(0))
        if let keys = worker.configuration.keyPair, let server = worker.configuration.coordinatorPublicKey {
            try s.makeCurveClient(serverPublicKey: server, keyPair: keys)
        }
        try s.connect(worker.configuration.coordinator)
        socket = s
        welcomed = false
        sendHello()
    }

    private mutating func sendHello() {
        let capabilities = worker.capabilities
        announcedChoices = capabilities.backendChoices
        send(.hello(workerID: worker.configuration.id, capabilities: capabilities))
        helloSentAt = Date().timeIntervalSince1970
    }

    private mutating func reconnectAfterBackoff() {
        socket?.close()
        socket = nil
        welcomed = false
        // Tasks not started yet will be re-leased by the coordinator; the running one may still finish
        // and its result is offered again after the next Welcome.
        _ = worker.codec.takeWaiting()
        let deadline = Date().addingTimeInterval(backoff)
        while Date() < deadline && !worker.stopping.load(ordering: .acquiring) { Thread.sleep(forTimeInterval: 0.05) }
        backoff = min(backoff * 2, worker.configuration.backoffMax)
        lastHeard = Date().timeIntervalSince1970
    }

    private mutating func drainSocket() throws(WireError) -> Worker.Exit? {
        while let socket, let frames = try socket.receive(timeoutMilliseconds: 0) {
            guard let data = frames.last else { continue }
            let envelope: Tessera_V1_Envelope
            do throws(WireError) {
                envelope = try WireCodec.decode(data, maxBytes: WireCodec.defaultMaxMessageBytes)
            } catch {
                log.warning("dropped a message from the coordinator: \(error)")
                continue
            }
            lastHeard = Date().timeIntervalSince1970
            if let exit = handle(envelope) { return exit }
        }
        return nil
    }

    private mutating func handle(_ envelope: Tessera_V1_Envelope) -> Worker.Exit? {
        switch envelope.body {
        case .welcome(let w)?:
            welcomed = true
            backoff = worker.configuration.backoffInitial
            interval = max(0.05, Double(w.heartbeatIntervalMs) / 1000)
            liveness = max(2, Int(w.liveness))
            partBytes = w.resultPartBytes
            log.info("connected to \(worker.configuration.coordinator) (protocol \(w.version))")
            for (key, bytes) in unacked { send(.offer(key.ref, bytes: bytes.count)) }
            // Tasks kept across the reconnect are claimed at once, before any credit: the coordinator
            // leases them back rather than to another worker (PROTOCOL.md §4).
            if !worker.codec.holding.isEmpty { sendHeartbeat(Date().timeIntervalSince1970) }
            if !worker.draining.load(ordering: .acquiring) {
                let credit = worker.configuration.slots - worker.codec.holding.count - unacked.count
                if credit > 0 { sendReady(credit) }
            }
        case .reject(let r)?:
            if r.code == .unknownWorker {
                // The coordinator restarted or declared this worker dead: one new Hello, then nothing but
                // waiting for the Welcome. Every message still in flight is rejected too; answering each
                // with a Hello made the coordinator see a join (and re-lease) per message.
                if welcomed {
                    welcomed = false
                    sendHello()
                }
                return nil
            }
            if r.code == .workerIDInUse {
                log.error("coordinator refused this worker's id: \(r.message); saying Hello again in \(backoff) s")
                reconnectAfterBackoff()
                return nil
            }
            log.error("coordinator refused this worker: \(r.message)")
            return .rejected(r.message)
        case .assign(let a)?:
            let key = TaskKey(a.ref)
            if worker.draining.load(ordering: .acquiring) {
                sendFailed(key, .returned, "worker draining")
            } else {
                worker.codec.enqueue(.init(key: key, task: a.task))
            }
        case .cancel(let c)?:
            let key = TaskKey(c.ref)
            switch worker.codec.cancel(key) {
            case .dropped:
                log.info("segment \(key) withdrawn before it started: \(c.reason)")
                if !worker.draining.load(ordering: .acquiring) { sendReady(1) }
            case .stopping:
                log.info("segment \(key) withdrawn while running: \(c.reason)")
            case .notHeld:
                break
            }
        case .ack(let a)?:
            if unacked.removeValue(forKey: TaskKey(a.ref)) != nil, !worker.draining.load(ordering: .acquiring) {
                sendReady(1)
            }
        case .grant(let g)?:
            // Granted room: every part goes now (ZeroMQ keeps their order on the connection).
            if let bytes = unacked[TaskKey(g.ref)] {
                for part in Tessera_V1_Envelope.parts(g.ref, of: bytes, partBytes: partBytes) { send(part) }
            }
        case .heartbeat?:
            break
        default:
            log.warning("dropped an unexpected message from the coordinator")
        }
        return nil
    }

    /// Sends what the codec thread produced; results are kept until acknowledged.
    private mutating func sendOutcome(_ e: Tessera_V1_Envelope) {
        switch e.body {
        case .result(let r)?:
            let bytes = WireCodec.encode(e)
            unacked[TaskKey(r.ref)] = bytes
            if welcomed { send(.offer(r.ref, bytes: bytes.count)) }
        case .failed?:
            if welcomed {
                send(e)
                if !worker.draining.load(ordering: .acquiring) { sendReady(1) }
            }
        default:
            if welcomed { send(e) }
        }
    }

    /// Draining: hand back waiting tasks once, then leave when nothing is running or unacknowledged.
    private mutating func drainStep() -> Worker.Exit? {
        if !returnedForDrain {
            returnedForDrain = true
            for key in worker.codec.takeWaiting() { sendFailed(key, .returned, "worker draining") }
            log.info("draining: finishing the running segment, then leaving")
        }
        // The codec thread posts a segment's outcome before it counts as idle: idle and an empty outbox
        // (checked in that order) mean every outcome has been taken and sent.
        guard worker.codec.isIdle, worker.outbox.withLock({ $0.isEmpty }), unacked.isEmpty || !welcomed else {
            return nil
        }
        send(.goodbye(reason: "drained"))
        return .stopped
    }

    /// Ready, with the backend choices when they changed since the coordinator last heard them.
    private mutating func sendReady(_ credit: Int) {
        var envelope = Tessera_V1_Envelope.ready(credit: UInt32(credit))
        let choices = worker.codec.backendChoices
        if choices != announcedChoices {
            envelope.ready.backendChoices = choices
            announcedChoices = choices
        }
        send(envelope)
    }

    private mutating func sendFailed(_ key: TaskKey, _ code: Tessera_V1_ErrorCode, _ message: String) {
        send(.failed(key.ref, code: code, message: message))
    }

    private mutating func sendHeartbeat(_ now: Double) {
        send(.heartbeat(holding: worker.codec.holding.map(\.ref), sentUnixMilliseconds: Int64(now * 1000)))
    }

    /// Serialized straight into libzmq's buffer (results are megabytes).
    private mutating func send(_ envelope: Tessera_V1_Envelope) {
        guard let socket else { return }
        do {
            try socket.send(envelope, dontWait: true)
            lastSent = Date().timeIntervalSince1970
        } catch {
            log.debug("send failed: \(error)")
        }
    }
}
