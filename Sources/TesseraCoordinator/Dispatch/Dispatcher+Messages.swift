import Foundation
import TesseraCore
import TesseraWire

/// The dispatcher's protocol rules: what each message does, and the periodic checks.
extension Dispatcher {
    func handle(from routingID: Data, _ data: Data) {
        let envelope: Tessera_V1_Envelope
        do throws(WireError) {
            envelope = try WireCodec.decode(data, maxBytes: configuration.maxMessageBytes)
        } catch {
            logger.warning("dropped a message from \(Self.describe(routingID)): \(error)")
            return
        }
        let now = Date().timeIntervalSince1970
        if case .hello(let hello)? = envelope.body {
            welcome(routingID, hello, now: now)
            return
        }
        // A result is valid content whoever sends it (e.g. a worker finishing after its session was
        // dropped): keep it if the segment is still wanted.
        if case .result(let result)? = envelope.body { accept(result, envelope: data, from: routingID, now: now) }
        guard sessions[routingID] != nil else {
            reject(routingID, .unknownWorker, "no session: send Hello")
            return
        }
        sessions[routingID]!.lastSeen = now
        switch envelope.body {
        case .ready(let ready)?:
            var s = sessions[routingID]!
            s.credit = min(s.slots - s.holding.count, s.credit + Int(ready.credit))
            if !ready.backendChoices.isEmpty {
                s.backendChoices = ready.backendChoices
                for c in ready.backendChoices { logger.info("worker \(s.id): backend \(c.requested) → \(c.chosen): \(c.reason)") }
            }
            sessions[routingID] = s
        case .progress(let p)?:
            farm.board.progress(job: p.ref.jobID, segment: Int(p.ref.segment), attempt: Int(p.ref.attempt),
                                frames: Int(p.framesDone), now: now)
            farm.board.touch(worker: sessions[routingID]!.id, now: now)
        case .failed(let f)?:
            failed(f, from: routingID)
            farm.board.touch(worker: sessions[routingID]?.id ?? "", now: now)
        case .goodbye(let g)?:
            logger.info("worker \(sessions[routingID]!.id) left: \(g.reason)")
            drop(routingID, why: "left")
        case .heartbeat?, .result?:
            break
        default:
            logger.warning("dropped an unexpected message from worker \(sessions[routingID]!.id)")
        }
    }

    private func welcome(_ routingID: Data, _ hello: Tessera_V1_Hello, now: Double) {
        guard hello.versions.contains(WireCodec.version) else {
            reject(routingID, .unsupportedVersion, "this coordinator speaks protocol version \(WireCodec.version) only")
            return
        }
        guard !hello.workerID.isEmpty else {
            reject(routingID, .badMessage, "Hello needs a worker_id")
            return
        }
        // A worker reconnecting (new socket or same id) starts afresh: what it held goes back to the queue.
        for (rid, s) in sessions where rid == routingID || s.id == hello.workerID { drop(rid, why: "reconnected") }
        let slots = max(1, min(Int(hello.capabilities.slots == 0 ? 2 : hello.capabilities.slots), 8))
        sessions[routingID] = WorkerSession(routingID: routingID, id: hello.workerID, capabilities: hello.capabilities,
                                            slots: slots, lastSeen: now, lastSent: 0,
                                            backendChoices: hello.capabilities.backendChoices)
        send(.welcome(heartbeatIntervalMilliseconds: UInt32(configuration.heartbeatInterval * 1000),
                      liveness: UInt32(configuration.liveness), maxMessageBytes: UInt64(configuration.maxMessageBytes)),
             to: routingID)
        logger.info("worker \(hello.workerID) joined (\(hello.capabilities.hostname), \(hello.capabilities.cores) cores, backends \(hello.capabilities.backends.joined(separator: ",")))")
    }

    private func reject(_ routingID: Data, _ code: Tessera_V1_ErrorCode, _ message: String) {
        send(.reject(code: code, message: message), to: routingID)
    }

    /// Spools a result (the envelope as received, fsync'd) before acknowledging it; a duplicate,
    /// unwanted or unusable result is acknowledged and discarded. Only the small fields are checked
    /// here: the packets are read once, by the job's stitcher, from the spool.
    private func accept(_ result: Tessera_V1_TaskResult, envelope data: Data, from routingID: Data, now: Double) {
        let key = TaskKey(result.ref)
        sessions[routingID]?.holding.remove(key)
        if farm.board.wants(job: key.job, segment: key.segment) {
            do {
                let output = result.output
                _ = try CodecConfiguration(wire: output.parameters, field: "result.output.parameters")
                guard output.frames > 0, !output.packets.isEmpty else {
                    throw WireError(.malformed, "result.output holds no frames")
                }
                let file = try farm.spool.write(jobID: key.job, segment: key.segment, attempt: key.attempt, data: data)
                switch try farm.store.complete(jobID: key.job, segment: key.segment, attempt: key.attempt,
                                                spoolFile: file.path, encodeSeconds: output.encodeSeconds,
                                                processor: output.processor) {
                case .accepted:
                    logger.info("segment \(key) spooled (\(output.frames) frames)")
                    if let superseded = farm.board.complete(job: key.job, segment: key.segment, attempt: key.attempt,
                                                            spool: file, frames: Int(output.frames)) {
                        withdraw(job: key.job, segment: key.segment, attempt: superseded.attempt,
                                 worker: superseded.worker, reason: "superseded")
                    }
                    if let id = sessions[routingID]?.id { farm.board.touch(worker: id, now: now) }
                    sessions[routingID]?.segmentsDone += 1
                case .duplicate, .unknown:
                    break
                }
            } catch {
                logger.error("result \(key) could not be kept: \(error)")
                requeueOrFail(key, error: "result unusable: \(error)", counts: true)
            }
        }
        send(.ack(key.ref), to: routingID)
    }

    private func failed(_ f: Tessera_V1_TaskFailed, from routingID: Data) {
        let key = TaskKey(f.ref)
        sessions[routingID]?.holding.remove(key)
        let worker = sessions[routingID]?.id ?? "?"
        let counts = f.code != .returned && f.code != .cancelled
        if counts { logger.warning("segment \(key) failed on worker \(worker): \(f.message)") }
        requeueOrFail(key, error: "on worker \(worker): \(f.message)", counts: counts)
    }

    /// Gives the segment another attempt, or fails its job when it has failed too often.
    func requeueOrFail(_ key: TaskKey, error: String, counts: Bool) {
        let outcome: FailOutcome
        do {
            outcome = try farm.store.failAttempt(jobID: key.job, segment: key.segment, attempt: key.attempt,
                                                 error: error, counts: counts, maxFailures: configuration.maxAttempts)
        } catch {
            logger.error("job store: \(error)")
            return
        }
        switch outcome {
        case .requeued:
            farm.board.requeue(job: key.job, segment: key.segment, attempt: key.attempt)
        case .exhausted(let message):
            farm.stopJob(key.job, message, reason: "job failed")
        case .stale:
            break
        }
    }

    /// Forgets a worker; everything it held goes back to the queue without counting as a failure.
    func drop(_ routingID: Data, why: String) {
        guard let s = sessions.removeValue(forKey: routingID) else { return }
        for key in s.holding {
            requeueOrFail(key, error: "worker \(s.id) \(why)", counts: false)
        }
        if !s.holding.isEmpty { logger.warning("worker \(s.id) \(why); re-leasing \(s.holding.map(\.description).sorted())") }
    }

    /// Heartbeats out, dead workers out, stalled segments re-leased.
    func housekeeping(now: Double) {
        let interval = configuration.heartbeatInterval
        for (rid, s) in sessions {
            if now - s.lastSeen > interval * Double(configuration.liveness) {
                logger.warning("worker \(s.id) silent for \(String(format: "%.1f", now - s.lastSeen)) s: dead")
                drop(rid, why: "went silent")
            } else if now - s.lastSent >= interval {
                send(.heartbeat(sentUnixMilliseconds: Int64(now * 1000)), to: rid)
            }
        }
        for stalled in farm.board.stalled(before: now - configuration.stallTimeout) {
            let key = TaskKey(job: stalled.job, segment: stalled.segment, attempt: stalled.flight.attempt)
            logger.warning("segment \(key) made no progress for \(Int(configuration.stallTimeout)) s on \(stalled.flight.worker): re-leasing")
            if let (rid, _) = sessions.first(where: { $0.value.id == stalled.flight.worker }) {
                sessions[rid]?.holding.remove(key)
                send(.cancel(key.ref, reason: "stalled"), to: rid)
            }
            requeueOrFail(key, error: "stalled on worker \(stalled.flight.worker)", counts: true)
        }
    }

    /// Leases ready segments to workers with credit, fairly between jobs.
    func dispatch(now: Double) {
        guard farm.board.hasReadyWork else { return }
        for rid in sessions.keys.sorted(by: { sessions[$0]!.holding.count < sessions[$1]!.holding.count }) {
            while let s = sessions[rid], s.credit > 0, !s.draining {
                let deadline = now + configuration.stallTimeout
                guard let next = farm.board.next(worker: s.id, now: now, accepts: { Self.canRun($0, s.capabilities) },
                                                 attempt: { job, segment in
                    try? self.farm.store.lease(jobID: job, segment: segment, worker: s.id, deadline: deadline).attempt
                }) else { break }  // nothing this worker can do; the next worker may
                let key = TaskKey(job: next.job, segment: next.work.spec.index, attempt: next.attempt)
                let task: Tessera_V1_SegmentTask
                do { task = try Tessera_V1_SegmentTask(next.work) } catch {
                    logger.error("segment \(key) cannot be sent: \(error)")
                    farm.board.fail(job: key.job, "segment \(key.segment) cannot be sent: \(error)")
                    continue
                }
                sessions[rid]!.credit -= 1
                sessions[rid]!.holding.insert(key)
                send(.assign(key.ref, task: task, leaseDeadlineUnixMilliseconds: Int64(deadline * 1000)), to: rid)
            }
        }
    }

    /// Whether a worker's announced capabilities cover a segment: its decoder, its encoder, and the
    /// Vulkan backend when the job insists on it. A worker that announced no codec lists is trusted.
    static func canRun(_ work: SegmentWork, _ c: Tessera_V1_Capabilities) -> Bool {
        if !c.videoDecoders.isEmpty && !c.videoDecoders.contains(work.source.codec) { return false }
        if !c.videoEncoders.isEmpty && !c.videoEncoders.contains(work.settings.codec.rawValue) { return false }
        if work.backend == "vulkan" && !c.backends.contains("vulkan") { return false }
        return true
    }

    static func describe(_ routingID: Data) -> String {
        String(decoding: routingID, as: UTF8.self).filter { $0.isASCII && !$0.isNewline }
    }
}
