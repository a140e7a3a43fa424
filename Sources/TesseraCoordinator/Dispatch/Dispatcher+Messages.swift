import Foundation
import TesseraAV
import TesseraCore
import TesseraWire

/// The dispatcher's protocol rules: what each message does, and the periodic checks.
extension Dispatcher {
    /// - Parameter key: the sender's CURVE public key, when CURVE is on.
    func handle(from routingID: Data, _ data: Data, key: String? = nil) {
        let envelope: Tessera_V1_Envelope
        do throws(WireError) {
            envelope = try WireCodec.decode(data, maxBytes: configuration.maxMessageBytes)
        } catch {
            warnOnce(routingID, "bad-message", "dropped a message from \(Self.describe(routingID)): \(error)")
            // PROTOCOL.md §3: a version this side does not speak is answered, not ignored.
            if error.kind == .unsupportedVersion {
                reject(
                    routingID, .unsupportedVersion, "this coordinator speaks protocol version \(WireCodec.version) only"
                )
            }
            return
        }
        let now = Date().timeIntervalSince1970
        if case .hello(let hello)? = envelope.body {
            welcome(routingID, hello, key: key, now: now)
            return
        }
        // Results and failures are taken from a session only, and only for attempts leased to it
        // (`accept`, `failed`): a peer without a session learns to say Hello; a worker that finished
        // while it had no session re-sends its result after the new Welcome (§8).
        guard sessions[routingID] != nil else {
            warnOnce(routingID, "no-session", "refused a message from \(Self.describe(routingID)): no session")
            reject(routingID, .unknownWorker, "no session: send Hello")
            return
        }
        switch envelope.body {
        case .offer(let offer)?: offered(offer, from: routingID, now: now)
        case .part(let part)?: received(part, from: routingID, now: now)
        default: break
        }
        guard sessions[routingID] != nil else { return }
        sessions[routingID]!.lastSeen = now
        farm.metrics.workerSeen(id: sessions[routingID]!.id, now: now)
        switch envelope.body {
        case .ready(let ready)?:
            var s = sessions[routingID]!
            s.credit = min(s.slots - s.holding.count, s.credit + Int(ready.credit))
            if !ready.backendChoices.isEmpty {
                s.backendChoices = ready.backendChoices
                for c in ready.backendChoices {
                    logger.info(
                        "worker \(s.id): backend \(c.requested.logSafe()) → \(c.chosen.logSafe()): \(c.reason.logSafe(limit: 200))"
                    )
                }
            }
            sessions[routingID] = s
        case .progress(let p)?:
            farm.board.progress(
                job: p.ref.jobID, segment: Int(p.ref.segment), attempt: Int(p.ref.attempt),
                frames: Int(p.framesDone), framesPerSecond: p.framesPerSecond, now: now)
            farm.board.touch(worker: sessions[routingID]!.id, now: now)
        case .failed(let f)?:
            failed(f, from: routingID)
            farm.board.touch(worker: sessions[routingID]?.id ?? "", now: now)
        case .goodbye(let g)?:
            logger.info("worker \(sessions[routingID]!.id) left: \(g.reason.logSafe(limit: 200))")
            drop(routingID, why: "left", failure: nil)
        case .heartbeat(let beat)?:
            claim(beat.holding.map(TaskKey.init), from: routingID, now: now)
        case .offer?, .part?:
            break
        default:
            warnOnce(routingID, "unexpected", "dropped an unexpected message from worker \(sessions[routingID]!.id)")
        }
    }

    private func welcome(_ routingID: Data, _ hello: Tessera_V1_Hello, key: String?, now: Double) {
        guard hello.versions.contains(WireCodec.version) else {
            reject(routingID, .unsupportedVersion, "this coordinator speaks protocol version \(WireCodec.version) only")
            return
        }
        guard Self.isValidWorkerID(hello.workerID) else {
            warnOnce(
                routingID, "bad-id",
                "refused a Hello from \(Self.describe(routingID)): worker id \(hello.workerID.logSafe())")
            reject(
                routingID, .badMessage,
                "Hello needs a worker_id of 1…\(Self.maxWorkerIDBytes) letters, digits, '.', '_' or '-'")
            return
        }
        if let allowed = configuration.allowedWorkerIDs, !allowed.contains(hello.workerID) {
            warnOnce(
                routingID, "not-ours",
                "refused a Hello from \(Self.describe(routingID)): worker id \(hello.workerID.logSafe()) is not "
                    + "one of this farm's own")
            reject(routingID, .unauthorized, "this coordinator takes only its own workers")
            return
        }
        // With CURVE an id belongs to the key it first came with: another key cannot take it over.
        if let key {
            if let owner = idKeys[hello.workerID], owner != key {
                warnOnce(
                    routingID, "id-key",
                    "refused worker id \(hello.workerID) from CURVE key \(key): it belongs to \(owner)")
                reject(routingID, .unauthorized, "worker id \(hello.workerID) belongs to another CURVE key")
                return
            }
            idKeys[hello.workerID] = key
        }
        // A live session keeps its id: another peer saying Hello with it (a second worker configured with
        // the same id, or someone taking over a session) waits until that session ends. The same worker
        // reconnecting (its own key under CURVE, or a session gone quiet) starts afresh instead.
        let quiet = configuration.heartbeatInterval * 2
        if key == nil,
            let live = sessions.first(where: {
                $0.key != routingID && $0.value.id == hello.workerID
                    && now - $0.value.lastSeen < quiet
            })
        {
            warnOnce(
                routingID, "id-in-use",
                "refused a Hello for worker id \(hello.workerID) from \(Self.describe(routingID)): "
                    + "live session \(Self.describe(live.key)) holds it")
            reject(routingID, .workerIDInUse, "worker id \(hello.workerID) is held by a live session; try again later")
            return
        }
        // A worker reconnecting (new socket or same id) starts afresh: what it held goes back to the queue.
        for (rid, s) in sessions where rid == routingID || s.id == hello.workerID {
            drop(rid, why: "reconnected", failure: .workerReconnected)
        }
        let slots = max(1, min(Int(hello.capabilities.slots == 0 ? 2 : hello.capabilities.slots), 8))
        var capabilities = hello.capabilities
        Self.bound(&capabilities)
        lost[hello.workerID] = nil
        sessions[routingID] = WorkerSession(
            routingID: routingID, id: hello.workerID, capabilities: capabilities,
            slots: slots, lastSeen: now, lastSent: 0,
            backendChoices: capabilities.backendChoices, busySince: now)
        farm.metrics.workerJoined(
            id: hello.workerID, hostname: capabilities.hostname, backends: capabilities.backends, slots: slots,
            now: now)
        send(
            .welcome(
                heartbeatIntervalMilliseconds: UInt32(clamping: Self.milliseconds(configuration.heartbeatInterval)),
                liveness: UInt32(clamping: configuration.liveness),
                maxMessageBytes: UInt64(clamping: configuration.frameLimitBytes),
                maxResultBytes: UInt64(clamping: configuration.maxMessageBytes),
                partBytes: UInt64(clamping: configuration.resultPartBytes)),
            to: routingID)
        logger.info(
            "worker \(hello.workerID) joined (\(capabilities.hostname), \(capabilities.cores) cores, backends \(capabilities.backends.joined(separator: ",")))"
        )
    }

    static let maxWorkerIDBytes = 64

    /// Worker ids go into logs, the API and the store: short, and from a plain alphabet.
    static func isValidWorkerID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= maxWorkerIDBytes
            && id.unicodeScalars.allSatisfy {
                $0.isASCII
                    && ($0.properties.isAlphabetic || ("0"..."9").contains($0)
                        || $0 == "." || $0 == "_" || $0 == "-")
            }
    }

    /// Capabilities are shown to people (`/v1/workers`, logs): every string bounded and escaped, every
    /// list bounded, so a 100 MB hostname stays a short line.
    static func bound(_ c: inout Tessera_V1_Capabilities) {
        // A codec list names every decoder of an FFmpeg build (about 250): room for that, not for a flood.
        func list(_ values: [String]) -> [String] { values.prefix(1024).map { $0.logSafe(limit: 64) } }
        c.hostname = c.hostname.logSafe(limit: 255)
        c.backends = list(c.backends)
        c.videoEncoders = list(c.videoEncoders)
        c.videoDecoders = list(c.videoDecoders)
        c.features = Array(c.features.prefix(64)).map { $0.logSafe(limit: 64) }
        // Paths, compared with sources' paths: a root that is not one is dropped rather than shortened.
        c.readableRoots = c.readableRoots.prefix(64).filter { $0.utf8.count <= 4096 && MediaRootMapping($0) != nil }
        c.backendChoices = Array(c.backendChoices.prefix(8)).map { choice in
            var choice = choice
            choice.requested = choice.requested.logSafe()
            choice.chosen = choice.chosen.logSafe()
            choice.reason = choice.reason.logSafe(limit: 200)
            return choice
        }
    }

    /// Logs `message` unless this peer had a warning of this kind within the last minute.
    func warnOnce(_ routingID: Data, _ kind: String, _ message: @autoclosure () -> String) {
        guard let unreported = refusals.shouldLog(kind + ":" + Self.describe(routingID)) else { return }
        logger.warning("\(message())\(unreported > 0 ? " (\(unreported) more like it not logged)" : "")")
    }

    /// Whether the peer behind `routingID` holds (or held) this exact attempt: the store records who each
    /// attempt was leased to, so an earlier attempt's holder is recognised after a restart too.
    func isHolder(_ key: TaskKey, _ routingID: Data) -> Bool {
        guard let id = sessions[routingID]?.id else { return false }
        if let holder = leaseHolders[key] { return holder == id }
        return (try? farm.store.holder(jobID: key.job, segment: key.segment, attempt: key.attempt)) == id
    }

    private func reject(_ routingID: Data, _ code: Tessera_V1_ErrorCode, _ message: String) {
        send(.reject(code: code, message: message), to: routingID)
    }

    /// Takes a result from the worker holding its lease: its small fields are checked here, then the
    /// result is checked against its task off this thread (`ResultChecker`) and kept (`keep`) or refused
    /// when the verdict comes back. A duplicate or unwanted result is acknowledged and discarded.
    func accept(_ result: Tessera_V1_TaskResult, envelope data: Data, from routingID: Data, now: Double) {
        let key = TaskKey(result.ref)
        guard isHolder(key, routingID) else {
            // Acknowledged so an honest worker confused about its lease can forget it; never spooled.
            warnOnce(
                routingID, "not-holder",
                "refused result \(key) from worker \(sessions[routingID]?.id ?? "?"): "
                    + "that attempt was not leased to it")
            acknowledge(key, to: routingID)
            return
        }
        sessions[routingID]?.holding.remove(key)
        let worker = sessions[routingID]?.id
        let onBoard = farm.board.knows(job: key.job)
        // Unwanted (finished by another attempt, or its job stopped): `keep` discards it.
        guard !onBoard || farm.board.wants(job: key.job, segment: key.segment) else {
            return keep(result, envelope: data, key: key, routingID: routingID, now: now)
        }
        let output = result.output
        do {
            _ = try CodecConfiguration(wire: output.parameters, field: "result.output.parameters")
            guard output.frames > 0, !output.packets.isEmpty else {
                throw WireError(.malformed, "result.output holds no frames")
            }
        } catch {
            logger.error("result \(key) is unusable: \(error)")
            requeueOrFail(key, error: "result unusable: \(error)", failure: .unusableResult, worker: worker)
            acknowledge(key, to: routingID)
            return
        }
        // Checked against its task before it counts; acknowledged once the verdict is in. (A job being
        // planned again after a restart has no task on the board yet: its results are kept unchecked.)
        if configuration.checkResults, onBoard, let work = farm.board.work(job: key.job, segment: key.segment) {
            if let worker { farm.board.touch(worker: worker, now: now) }
            // Its frames are all made: while it waits for its verdict (behind other results' checks on a busy
            // coordinator) the attempt is not late, so no backup races it.
            farm.board.progress(
                job: key.job, segment: key.segment, attempt: key.attempt, frames: work.spec.frameCount, now: now)
            checker.check(
                .init(
                    key: key, routingID: routingID, worker: worker, result: result, envelope: data, work: work,
                    received: now))
            return
        }
        keep(result, envelope: data, key: key, routingID: routingID, now: now)
    }

    /// A checked result's verdict: kept, or refused (the segment goes to another worker, and the failure
    /// counts against the one that sent it).
    func checked(_ pending: ResultChecker.Pending, _ verdict: ResultChecker.Verdict, now: Double) {
        let key = pending.key
        switch verdict {
        case .passed(let report, let seconds):
            let psnr = [report.firstPSNR, report.lastPSNR].compactMap { $0 }.map { String(format: "%.1f", $0) }
            let pictures = psnr.isEmpty ? "not compared" : psnr.joined(separator: "/") + " dB"
            logger.info(
                "result \(key) checked in \(String(format: "%.3f", seconds)) s: \(report.frames) frames, fingerprints \(pictures)"
            )
        case .refused(let why):
            logger.warning("refused result \(key) from worker \(pending.worker ?? "?"): \(why.logSafe(limit: 300))")
            if farm.board.wants(job: key.job, segment: key.segment) {
                requeueOrFail(key, error: "result refused: \(why)", failure: .unusableResult, worker: pending.worker)
            }
            acknowledge(key, to: pending.routingID)
            return
        case .unchecked(let why):
            logger.warning("result \(key) could not be checked here (kept unchecked): \(why.logSafe(limit: 300))")
        }
        keep(pending.result, envelope: pending.envelope, key: key, routingID: pending.routingID, now: now)
    }

    /// Spools a result (the envelope as received, fsync'd) and records it before acknowledging it; an
    /// unwanted one is acknowledged and discarded. The packets are read once, by the job's stitcher,
    /// from the spool.
    private func keep(
        _ result: Tessera_V1_TaskResult, envelope data: Data, key: TaskKey, routingID: Data, now: Double
    ) {
        // A job not on the board yet is being planned again after a restart: what its workers finished
        // during the outage is kept in the store (which knows whether the job still wants it), and the
        // board picks it up with the other spooled segments when it opens (PROTOCOL.md §8).
        let onBoard = farm.board.knows(job: key.job)
        let frames = Int(result.output.frames)
        if onBoard && !farm.board.wants(job: key.job, segment: key.segment) {
            farm.metrics.framesDiscarded(frames, discardReason(key))
        } else {
            let output = result.output
            do {
                // One file per segment: one already there is the result the store accepted (a worker that
                // never saw its ack, say across a coordinator restart, sends it again).
                let existed = farm.spool.contains(jobID: key.job, segment: key.segment)
                let file = try farm.spool.write(jobID: key.job, segment: key.segment, attempt: key.attempt, data: data)
                // Every attempt of a segment shares its work (and time base); read before `complete` drops it.
                let work = farm.board.work(job: key.job, segment: key.segment)
                let quality = work.flatMap { Self.quality(output, key: key, work: $0) }
                switch try farm.store.complete(
                    jobID: key.job, segment: key.segment, attempt: key.attempt,
                    spoolFile: file.path, encodeSeconds: output.encodeSeconds,
                    processor: output.processor, quality: quality)
                {
                case .accepted:
                    logger.info("segment \(key) spooled (\(output.frames) frames)")
                    // Asked of the board after the store write, not with `onBoard`: a job whose board
                    // opened meanwhile may have read the store before this write (see JobRunner).
                    let completion = farm.board.complete(
                        job: key.job, segment: key.segment,
                        attempt: key.attempt, spool: file,
                        frames: Int(output.frames))
                    for superseded in completion.superseded {
                        withdraw(
                            job: key.job, segment: key.segment, attempt: superseded.attempt,
                            worker: superseded.worker, reason: "superseded")
                        if superseded.isBackup { farm.metrics.backupAttempt(.wasted) }
                    }
                    if completion.byBackup {
                        farm.metrics.backupAttempt(.won)
                        logger.info("segment \(key): the backup attempt won")
                    }
                    if let id = sessions[routingID]?.id {
                        farm.board.touch(worker: id, now: now)
                        failureStreaks[id] = nil
                    }
                    let before = sessions[routingID]?.segmentRate
                    sessions[routingID]?.segmentRate = BackupPolicy.rate(
                        after: before, frames: frames, seconds: output.encodeSeconds)
                    sessions[routingID]?.segmentsDone += 1
                    sessions[routingID]?.framesDone += frames
                    farm.metrics.segmentCompleted(
                        .init(
                            frames: frames, bytes: output.packets.reduce(0) { $0 + $1.data.count },
                            mediaSeconds: work.flatMap {
                                Self.mediaSeconds(output.packets, timeBase: $0.outputTimeBase)
                            },
                            encodeSeconds: output.encodeSeconds,
                            backend: EncodeBackend(ProcessorKind(named: output.processor)),
                            worker: sessions[routingID]?.id ?? "", at: now, quality: quality,
                            kind: work.map(JobKind.init) ?? .transcode))
                case .duplicate:
                    // The file is the segment's (the accepted result's, or one standing in for it): removing
                    // it failed the job when the segment was read back.
                    farm.metrics.framesDiscarded(frames, discardReason(key))
                case .unknown:
                    if !existed { try? FileManager.default.removeItem(at: file) }
                    farm.metrics.framesDiscarded(frames, discardReason(key))
                }
            } catch {
                if isDataFolderFull(error) {
                    dataFolderFull(job: key.job, error)
                } else {
                    // The coordinator's own failure (the spool, the store, no descriptor left): the segment
                    // goes back to the queue uncounted, and its worker is not blamed.
                    logger.error("result \(key) could not be kept here: \(error)")
                    requeueOrFail(key, error: "the coordinator could not keep the result: \(error)", failure: nil)
                }
            }
        }
        acknowledge(key, to: routingID)
    }

    private func failed(_ f: Tessera_V1_TaskFailed, from routingID: Data) {
        let key = TaskKey(f.ref)
        let worker = sessions[routingID]?.id ?? "?"
        // Only the session holding this exact lease can give it up: attempt numbers are small and
        // predictable, and a blind failure from anyone else would fail another worker's segment.
        guard sessions[routingID]?.holding.remove(key) != nil else {
            // A task this coordinator withdrew reports its end as a failure (PROTOCOL.md §9): expected.
            if withdrawn.removeValue(forKey: key) == nil {
                warnOnce(
                    routingID, "not-holder", "ignored a failure of \(key) from worker \(worker): it does not hold it")
            }
            return
        }
        let message = f.message.logSafe(limit: 500)
        if f.code == .sourceUnreadable {
            // Not the worker's fault: the job's next tasks for it carry their packets.
            readFailures.insert(JobWorker(job: key.job, worker: worker))
            logger.warning("worker \(worker) cannot read the source of job \(key.job) (\(message)): sending it packets")
        }
        let counts = f.code != .returned && f.code != .cancelled && f.code != .sourceUnreadable
        if counts { logger.warning("segment \(key) failed on worker \(worker): \(message)") }
        requeueOrFail(
            key, error: "on worker \(worker): \(message)", failure: counts ? .workerError : nil, worker: worker)
    }

    /// Gives the segment another attempt, or fails its job when it has failed too often. A counted
    /// failure (`failure` not nil; nil: handed back, not failed) is remembered against `worker`: the
    /// retry goes elsewhere when it can, and a worker that fails `quarantineAfter` attempts in a row is
    /// given no new work for `quarantineSeconds`.
    func requeueOrFail(_ key: TaskKey, error: String, failure: SegmentFailureReason?, worker: String? = nil) {
        let counts = failure != nil
        if counts, let worker {
            failedOn[SegmentID(job: key.job, segment: key.segment), default: []].insert(worker)
            let streak = (failureStreaks[worker] ?? 0) + 1
            failureStreaks[worker] = streak
            if streak >= Self.quarantineAfter {
                quarantinedUntil[worker] = Date().timeIntervalSince1970 + Self.quarantineSeconds
                failureStreaks[worker] = nil
                logger.warning(
                    "worker \(worker) failed \(streak) segments in a row: no new work for it for \(Int(Self.quarantineSeconds)) s"
                )
            }
        }
        // One of two attempts racing ended: the other carries on, and nothing goes back to the queue.
        if let ended = farm.board.endRacing(job: key.job, segment: key.segment, attempt: key.attempt) {
            // Remembered, so that after a restart the attempt still running is the one claimed back.
            do {
                try farm.store.endRacingAttempt(jobID: key.job, segment: key.segment, attempt: key.attempt)
            } catch {
                logger.warning("segment \(key): the job store did not record the end of its race: \(error)")
            }
            if let failure { farm.metrics.segmentFailed(failure) }
            if ended.isBackup { farm.metrics.backupAttempt(.wasted) }
            logger.info("segment \(key) ended without a result (\(error)); its other attempt carries on")
            return
        }
        let outcome: FailOutcome
        do {
            outcome = try farm.store.failAttempt(
                jobID: key.job, segment: key.segment, attempt: key.attempt,
                error: error, counts: counts, maxFailures: configuration.maxAttempts,
                current: farm.board.isSoleAttempt(job: key.job, segment: key.segment, attempt: key.attempt))
        } catch {
            if isDataFolderFull(error) {
                dataFolderFull(job: key.job, error)
            } else {
                // Off the board as well, so the stall check does not retry this every tick.
                farm.stopJob(
                    key.job, "the job store failed recording an attempt of segment \(key.segment): \(error)",
                    reason: "job failed")
                logger.error("job \(key.job): job store: \(error)")
            }
            return
        }
        if let failure, outcome != .stale { farm.metrics.segmentFailed(failure) }
        switch outcome {
        case .requeued:
            farm.board.requeue(job: key.job, segment: key.segment, attempt: key.attempt)
        case .exhausted(let message):
            farm.stopJob(key.job, message, reason: "job failed")
        case .stale:
            break
        }
    }

    /// The data folder (spool or SQLite) is full: the job cannot keep what its workers finish, so it fails
    /// now with that cause (no worker is blamed, no attempt counted), once, instead of retrying the
    /// write every tick. Other jobs fail the same way as their results arrive; new jobs run again once
    /// space is freed.
    func dataFolderFull(job: String, _ error: any Error) {
        let message = dataFolderFullMessage(error)
        if farm.board.knows(job: job) { logger.error("job \(job) failed: \(message)") }
        farm.stopJob(job, message, reason: "data folder full")
    }

    /// A worker's heartbeat lists the tasks it holds. One it holds that this session did not lease (it
    /// kept it across a coordinator restart, or across its own reconnect) is leased back to it under the
    /// same attempt when the segment is still waiting for it; one finished or re-leased meanwhile is
    /// withdrawn (`superseded`). Segments held back for this worker that it no longer holds are released.
    func claim(_ held: [TaskKey], from routingID: Data, now: Double) {
        guard let s = sessions[routingID] else { return }
        for key in held.prefix(s.slots + 2) where !s.holding.contains(key) {
            var storeError: (any Error)?
            let outcome = farm.board.adopt(
                job: key.job, segment: key.segment, attempt: key.attempt, worker: s.id, now: now
            ) {
                do {
                    return try farm.store.adopt(
                        jobID: key.job, segment: key.segment, attempt: key.attempt, worker: s.id,
                        deadline: now + configuration.stallTimeout)
                } catch {
                    storeError = error
                    return false
                }
            }
            if let storeError {
                // Not recorded: the segment is re-leased as usual and the worker's result still counts.
                logger.warning("segment \(key) kept by worker \(s.id) could not be given back to it: \(storeError)")
                continue
            }
            switch outcome {
            case .adopted:
                sessions[routingID]?.holding.insert(key)
                leaseHolders[key] = s.id
                logger.info("worker \(s.id) kept segment \(key) across the reconnect; it is not encoded again")
            case .superseded:
                send(.cancel(key.ref, reason: "superseded"), to: routingID)
            case .unknown:
                break  // the job is still being planned: the next heartbeat claims it again
            }
        }
        farm.board.releaseReservations(worker: s.id, keeping: Set(held))
    }

    /// Forgets a worker; everything it held goes back to the queue. A worker that went silent or came
    /// back with a new session while holding a segment counts as a failed attempt (a segment that kills
    /// every worker it reaches must not loop forever); one that left with Goodbye does not (`failure`
    /// nil). Its metrics series go with it.
    func drop(_ routingID: Data, why: String, failure: SegmentFailureReason?) {
        guard let s = sessions.removeValue(forKey: routingID) else { return }
        grant(inbound.drop(peer: routingID, now: Date().timeIntervalSince1970))
        farm.metrics.workerLeft(id: s.id)
        if failure == .workerLost {
            var status = s.status
            status.state = .lost
            status.tasks = []
            lost[s.id] = (status, Date().timeIntervalSince1970)
            // Peers choose their ids: however many come and go silent, the list stays bounded.
            if lost.count > Self.lostShownMax, let oldest = lost.min(by: { $0.value.at < $1.value.at }) {
                lost[oldest.key] = nil
            }
        }
        for key in s.holding {
            requeueOrFail(key, error: "worker \(s.id) \(why)", failure: failure, worker: s.id)
        }
        if !s.holding.isEmpty {
            logger.warning("worker \(s.id) \(why); re-leasing \(s.holding.map(\.description).sorted())")
        }
    }

    /// Heartbeats out, dead workers out, stalled segments re-leased.
    func housekeeping(now: Double) {
        let interval = configuration.heartbeatInterval
        failedOn = failedOn.filter { farm.board.wants(job: $0.key.job, segment: $0.key.segment) }
        withdrawn = withdrawn.filter { now - $0.value < 60 }
        readFailures = readFailures.filter { farm.board.knows(job: $0.job) }
        leaseHolders = leaseHolders.filter { farm.board.wants(job: $0.key.job, segment: $0.key.segment) }
        quarantinedUntil = quarantinedUntil.filter { $0.value > now }
        expireTransfers(now: now)
        lost = lost.filter { now - $0.value.at < Self.lostShownSeconds }
        for (rid, s) in sessions {
            // Busy time is counted a tick at a time, while the worker holds a task at the tick.
            if !s.holding.isEmpty { farm.metrics.workerBusy(id: s.id, seconds: now - s.busySince) }
            sessions[rid]?.busySince = now
            if now - s.lastSeen > interval * Double(configuration.liveness) {
                logger.warning("worker \(s.id) silent for \(String(format: "%.1f", now - s.lastSeen)) s: dead")
                drop(rid, why: "went silent", failure: .workerLost)
            } else if now - s.lastSent >= interval {
                send(.heartbeat(sentUnixMilliseconds: Int64(now * 1000)), to: rid)
            }
        }
        for stalled in farm.board.stalled(before: now - configuration.stallTimeout) {
            let key = TaskKey(job: stalled.job, segment: stalled.segment, attempt: stalled.flight.attempt)
            logger.warning(
                "segment \(key) made no progress for \(Int(configuration.stallTimeout)) s on \(stalled.flight.worker): re-leasing"
            )
            if let (rid, _) = sessions.first(where: { $0.value.id == stalled.flight.worker }) {
                sessions[rid]?.holding.remove(key)
                send(.cancel(key.ref, reason: "stalled"), to: rid)
            }
            requeueOrFail(
                key, error: "stalled on worker \(stalled.flight.worker)", failure: .stalled,
                worker: stalled.flight.worker)
        }
    }

    /// Leases ready segments to workers with credit, fairly between jobs; with nothing queued that it
    /// can do, an idle worker may take a backup attempt of a segment out at a slow one (`LeaseRules`).
    func dispatch(now: Double) {
        // With nothing queued, only a worker holding nothing may take work (a backup), and only while
        // segments are out: most wake-ups of an idle farm end here.
        let ready = farm.board.hasReadyWork
        guard ready || (configuration.backupPolicy != nil && farm.board.counts.inFlight > 0) else { return }
        let seats = sessions.values.filter { s in
            s.credit > 0 && !s.draining && operatorHolds[s.id] == nil && (quarantinedUntil[s.id] ?? 0) <= now
                && (ready || s.holding.isEmpty)
        }
        guard !seats.isEmpty else { return }
        let routes = Dictionary(sessions.map { ($0.value.id, $0.key) }) { a, _ in a }
        let rates = Dictionary(sessions.values.compactMap { v in v.segmentRate.map { (v.id, $0) } }) { max($0, $1) }
        let deadline = now + configuration.stallTimeout
        var leaseFailures: [(job: String, error: any Error)] = []
        farm.board.leaseRound(
            seats.map { s in
                .init(
                    id: s.id, credit: s.credit, holding: s.holding.count,
                    heldBytes: s.holding.reduce(0) {
                        $0 + (farm.board.work(job: $1.job, segment: $1.segment)?.payloadBytes ?? 0)
                    })
            }, now: now, prefetchBytes: configuration.prefetchBytes,
            backups: configuration.backupPolicy, rate: { rates[$0] },
            farmRates: Array(rates.values), workers: Set(sessions.values.map(\.id)).count,
            accepts: { worker, job, work in
                guard let rid = routes[worker], let s = self.sessions[rid] else { return false }
                return Self.canRun(work, s.capabilities)
                    && !self.shouldAvoid(job: job, work: work, worker: worker, now: now)
            },
            number: { backup, worker, job, segment in
                do {
                    return backup
                        ? try self.farm.store.leaseBackup(
                            jobID: job, segment: segment, worker: worker, deadline: deadline
                        )
                        .attempt
                        : try self.farm.store.lease(jobID: job, segment: segment, worker: worker, deadline: deadline)
                            .attempt
                } catch {
                    leaseFailures.append((job, error))
                    return nil
                }
            },
            grant: { worker, granted in
                self.assign(granted, to: worker, via: routes[worker], deadline: deadline, now: now)
            })
        // A lease the store could not record (its segment is off the board now) fails its job with the
        // cause, once; a segment the store no longer has pending was simply taken elsewhere.
        for (job, error) in leaseFailures {
            if isDataFolderFull(error) {
                dataFolderFull(job: job, error)
            } else if case .notFound? = error as? StoreError {
            } else {
                farm.stopJob(job, "the job store could not record a lease: \(error)", reason: "job failed")
            }
        }
    }

    /// Sends a lease to its worker; false when its task cannot be sent (its job fails).
    private func assign(
        _ granted: TaskBoard.Grant, to worker: String, via rid: Data?, deadline: Double, now: Double
    ) -> Bool {
        let key = TaskKey(job: granted.job, segment: granted.work.spec.index, attempt: granted.attempt)
        guard let rid, let session = sessions[rid] else { return false }
        // A worker that reads the source itself gets the task by reference, unless it failed to read it.
        let byReference =
            granted.work.sourceStream != nil && !readFailures.contains(JobWorker(job: granted.job, worker: worker))
            && (session.capabilities.features.contains(WorkerFeature.httpSource)
                || session.capabilities.readableRoots.contains { root in
                    MediaRootMapping(root)?.localPath(for: granted.work.sourceName) != nil
                })
        // A task that goes with its packets reads them first when the producer read the index alone.
        let loads = !byReference && !granted.work.packetsLoaded
        var task = Tessera_V1_SegmentTask()
        if !loads {
            do { task = try Tessera_V1_SegmentTask(granted.work, byReference: byReference) } catch {
                logger.error("segment \(key) cannot be sent: \(error)")
                farm.board.fail(job: key.job, "segment \(key.segment) cannot be sent: \(error)")
                return false
            }
        }
        sessions[rid]!.credit -= 1
        sessions[rid]!.holding.insert(key)
        if let of = granted.backupOf {
            farm.metrics.backupAttempt(.started)
            let why =
                "attempt \(of.attempt) on \(of.worker) is slow (\(of.framesDone)/\(granted.work.spec.frameCount) frames "
                + "after \(String(format: "%.1f", now - of.leasedAt)) s)"
            logger.info("segment \(key): backup attempt on worker \(worker), as \(why)")
        } else {
            farm.metrics.segmentLeased(queueWait: granted.waited)
        }
        leaseHolders[key] = worker
        if loads {
            loader.load(
                .init(key: key, routingID: rid, worker: worker, work: granted.work, deadline: deadline),
                urgent: granted.backupOf != nil)
            return true
        }
        let bytes = send(
            .assign(key.ref, task: task, leaseDeadlineUnixMilliseconds: Self.milliseconds(deadline)), to: rid)
        farm.metrics.taskSent(byReference ? .reference : .packets, bytes: bytes)
        return true
    }

    /// A task's packets were read (`TaskLoader`): it goes to its worker, unless the lease was withdrawn or
    /// the worker lost meanwhile. A source the coordinator cannot read fails its job, naming why.
    func loaded(_ pending: TaskLoader.Pending, _ result: Result<SegmentWork, MediaError>) {
        let key = pending.key
        guard leaseHolders[key] == pending.worker, sessions[pending.routingID]?.holding.contains(key) == true else {
            return
        }
        let task: Tessera_V1_SegmentTask
        do {
            task = try Tessera_V1_SegmentTask(try result.get(), byReference: false)
        } catch {
            // The worker never had it: its slot comes back here, and the job stops with the cause.
            sessions[pending.routingID]!.holding.remove(key)
            sessions[pending.routingID]!.credit += 1
            leaseHolders[key] = nil
            logger.error("segment \(key) cannot be sent: \(error)")
            farm.stopJob(key.job, "segment \(key.segment) cannot be sent: \(error)", reason: "job failed")
            return
        }
        let bytes = send(
            .assign(key.ref, task: task, leaseDeadlineUnixMilliseconds: Self.milliseconds(pending.deadline)),
            to: pending.routingID)
        farm.metrics.taskSent(.packets, bytes: bytes)
    }

    /// Seconds as whole milliseconds for the wire, held within Int64 (a configuration from a library
    /// caller is not checked as the CLI checks it).
    static func milliseconds(_ seconds: Double) -> Int64 {
        let ms = (seconds * 1000).rounded()
        guard ms.isFinite else { return ms > 0 ? .max : 0 }
        return ms >= 9.2e18 ? .max : ms <= -9.2e18 ? .min : Int64(ms)
    }

    /// Why a result from the holder of its attempt was not used: the same attempt's result was taken
    /// already (duplicate), another attempt's was (retry), or the job ended without it (cancelled).
    func discardReason(_ key: TaskKey) -> FrameDiscard {
        guard let segment = try? farm.store.segment(of: key.job, index: key.segment), segment.state == .done else {
            return .cancelled
        }
        return (segment.doneAttempt ?? segment.attempt) == key.attempt ? .duplicate : .retry
    }

    /// A result's quality as the job's status lists it; nil when the worker measured none (or its figures
    /// are out of range: such a result is refused by the result check, or fails at stitching).
    static func quality(_ output: Tessera_V1_SegmentOutput, key: TaskKey, work: SegmentWork) -> SegmentQuality? {
        guard output.hasQuality,
            let stats = try? QualityStats(wire: output.quality, frames: Int(output.frames), field: "output.quality")
        else { return nil }
        let timeBase = work.outputTimeBase
        return SegmentQuality(
            index: key.segment, stats: stats, frames: Int(output.frames),
            span: SegmentQuality.span(output.packets.lazy.map { ($0.pts, $0.duration) }, timeBase: timeBase) ?? 0...0,
            bytes: output.packets.reduce(0) { $0 + $1.data.count }, encodeSeconds: output.encodeSeconds,
            rateControl: work.settings.rateControl, crf: try? output.chosenRateFactor(field: "output"),
            probes: output.probes.compactMap {
                try? QualityProbe(wire: $0, frames: Int(output.frames), field: "output.probes")
            },
            target: work.targetQuality)
    }

    /// Seconds of output in a segment's packets: from the first one's start to the end of the last.
    static func mediaSeconds(_ packets: [Tessera_V1_Packet], timeBase: Rational) -> Double? {
        guard let span = SegmentQuality.span(packets.lazy.map { ($0.pts, $0.duration) }, timeBase: timeBase),
            span.upperBound > span.lowerBound
        else { return nil }
        return span.upperBound - span.lowerBound
    }

    /// Whether `worker` should leave this segment to another: it failed there before, and another live,
    /// not quarantined worker that has not failed it can run it. With no such worker it may try again.
    func shouldAvoid(job: String, work: SegmentWork, worker: String, now: Double) -> Bool {
        guard let failed = failedOn[SegmentID(job: job, segment: work.spec.index)], failed.contains(worker) else {
            return false
        }
        return sessions.values.contains { other in
            !failed.contains(other.id) && !other.draining && operatorHolds[other.id] == nil
                && (quarantinedUntil[other.id] ?? 0) <= now
                && Self.canRun(work, other.capabilities)
        }
    }

    /// Whether a worker's announced capabilities cover a segment (`whyNot` is nil).
    static func canRun(_ work: SegmentWork, _ c: Tessera_V1_Capabilities) -> Bool { whyNot(work, c) == nil }

    /// What a worker lacks to run a segment: its decoder, its encoders, the Vulkan backend when the job
    /// insists on it, a feature the task needs; nil when it can run it. A worker that announced no codec
    /// lists is trusted.
    static func whyNot(_ work: SegmentWork, _ c: Tessera_V1_Capabilities) -> String? {
        if !c.videoDecoders.isEmpty && !c.videoDecoders.contains(work.source.codec) {
            return "no \(work.source.codec) decoder"
        }
        if !c.videoEncoders.isEmpty,
            let missing = ([work.settings] + work.renditions).first(where: {
                !c.videoEncoders.contains($0.codec.rawValue)
            })
        {
            return "no \(missing.codec.rawValue) encoder"
        }
        if work.backend == .vulkan && !c.backends.contains(ProcessingBackend.vulkan.rawValue) {
            return "no Vulkan device (the job asks --backend vulkan)"
        }
        // An older worker would drop the HDR metadata without a word: such a task waits for one that signals it.
        let needs: [(Bool, String)] = [
            (work.hdr != nil, WorkerFeature.hdr10),
            (work.targetQuality != nil || work.renditionTargets.contains { $0 != nil }, WorkerFeature.targetQuality),
            (work.deinterlaceFilter != nil, WorkerFeature.deinterlace), (work.toneMap != nil, WorkerFeature.toneMap),
            (work.deinterlaceFilter != nil && work.retime != nil, WorkerFeature.deinterlaceFields),
            (work.layer != nil && (work.deinterlaceFilter != nil || work.toneMap != nil), WorkerFeature.layerFilters),
            (!work.renditions.isEmpty, WorkerFeature.renditions),
        ]
        if let (_, feature) = needs.first(where: { $0.0 && !c.features.contains($0.1) }) {
            return "an older build without feature \(feature)"
        }
        return nil
    }

    /// For each job with a queued segment no connected worker may take, why: no worker is connected, or
    /// each one's reason (`whyNot`), by worker, at most four named.
    func waitingReasons() -> [String: String] {
        var reasons: [String: String] = [:]
        for (job, work) in farm.board.firstReady() {
            guard !sessions.isEmpty else {
                reasons[job] = "no worker is connected"
                continue
            }
            var lacks: [String] = []
            for s in sessions.values.sorted(by: { $0.id < $1.id }) {
                guard let why = Self.whyNot(work, s.capabilities) else {
                    lacks = []
                    break
                }
                lacks.append("\(s.id): \(why)")
            }
            guard !lacks.isEmpty else { continue }
            reasons[job] =
                "no connected worker can run it (" + lacks.prefix(4).joined(separator: "; ")
                + (lacks.count > 4 ? "; \(lacks.count - 4) more" : "") + ")"
        }
        return reasons
    }

    static func describe(_ routingID: Data) -> String {
        String(decoding: routingID, as: UTF8.self).logSafe()
    }
}
