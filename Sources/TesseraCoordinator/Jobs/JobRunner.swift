import Foundation
import Logging
import Synchronization
import TesseraAV
import TesseraCompute
import TesseraCore
import TesseraMedia

/// Drives one job on its own thread: plan, hand segments to the farm, stitch, verify, put the file in
/// place. The job's state in the store follows the export's phases. A coordinator restarted mid-job
/// runs the job again from planning; segments already spooled are read back instead of redone.
final class JobRunner: @unchecked Sendable {
    enum Stop: Sendable { case cancel, shutdown }

    let jobID: String
    private let farm: CoordinatorContext
    private let record: JobRecord
    /// The job's export: a composition's (`JobRequest.spec`) or a source's.
    private let export: any MediaExport
    /// The source's export, for what only it has (the retiming, the audio end gaps); nil for a composition.
    private let session: ExportSession?
    private let stopReason = Mutex<Stop?>(nil)
    private let done = NSCondition()
    private var finished = false

    init(record: JobRecord, request: JobRequest, farm: CoordinatorContext) {
        jobID = record.id
        self.record = record
        self.farm = farm
        if let spec = request.spec {
            export = CompositionExport(spec: spec, assetPaths: spec.assets.map(\.path), outputPath: record.output)
            session = nil
        } else {
            let source = ExportSession(
                sourcePath: record.source, outputPath: record.output, settings: Self.settings(for: request))
            source.presetName =
                request.settings == nil ? request.preset.flatMap(ExportPreset.init(name:))?.rawValue : nil
            source.timeRange = request.timeRange
            export = source
            session = source
        }
        export.overwrite = request.overwrite
        export.package = request.package
        export.backend = request.backend ?? .auto
        export.segmentDuration = request.segmentDuration ?? farm.defaultSegmentDuration
        export.verificationLevel = request.verification ?? .decode
        export.targetQuality = request.targetQuality
        export.deinterlace = request.deinterlace ?? .auto
        export.hdr = request.hdr ?? .auto
        export.parallel = request.parallelism ?? 1
        session?.audioThreads = farm.audioThreads
    }

    /// The settings a request asks for: its own, else its preset's, else H.264 CRF 23 + AAC.
    static func settings(for request: JobRequest) -> OutputSettings {
        var s =
            request.settings ?? request.preset.flatMap(ExportPreset.init(name:))?.settings
            ?? .standard
        if let type = request.fileType { s.fileType = type }
        return s
    }

    func start() {
        let thread = Thread { [self] in
            run()
            done.withLock {
                finished = true
                done.broadcast()
            }
        }
        thread.name = "tessera.job.\(jobID)"
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Stops the export; `.cancel` ends the job as cancelled, `.shutdown` leaves it to resume later.
    func stop(_ reason: Stop) {
        stopReason.withLock { $0 = reason }
        farm.stopJob(
            jobID, reason == .cancel ? "job cancelled" : "coordinator shutting down",
            reason: reason == .cancel ? "job cancelled" : "coordinator shutting down")
        export.cancel()
    }

    /// Blocks until the job's thread has ended (any number of callers).
    func wait() {
        done.withLock { while !finished { done.wait() } }
    }

    /// `wait()` for at most `seconds`; true when the job's thread has ended.
    func wait(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        return done.withLock {
            while !finished { if !done.wait(until: deadline) { break } }
            return finished
        }
    }

    private func run() {
        let log = farm.logger
        defer { farm.board.close(job: jobID) }
        do {
            // A job stored before today's bounds (or by a coordinator that checked less) fails here
            // with the field named, instead of reaching a conversion that would trap on every restart.
            try record.request.validate()
            session?.retiming = try record.request.retiming?.retiming(naming: .json(prefix: "retiming"))
            // A coordinator killed while it wrote this job's output left its temporary file beside it.
            let leftovers = AssetWriter.removeLeftovers(of: record.output)
            if leftovers > 0 {
                log.info("job \(jobID): removed \(leftovers) unfinished output file(s) of an earlier run")
            }
            if record.state != .planning { _ = try farm.store.transition(jobID, to: .planning) }
            // What the source itself says about its ends is known once it is planned, before the work:
            // its own audio/video end gap is what the verifier will hold the output to.
            let jobID = jobID
            session?.audioEndGapsHandler = { gaps in
                for (track, gap) in gaps.sorted(by: { $0.key < $1.key }) where gap != .zero {
                    let text = String(format: "%.3f s %@", abs(gap.seconds), gap > .zero ? "after" : "before")
                    log.info(
                        "job \(jobID): the source's audio track \(track) ends \(text) its video; the output will keep that gap"
                    )
                }
            }
            let (id, store, board, farm) = (jobID, farm.store, farm.board, farm)
            let priority = record.priority, created = record.createdAt
            // Workers keep the tasks they hold across a coordinator restart and claim them when they
            // reconnect (PROTOCOL.md §8): those segments wait for them, for up to two liveness periods.
            let grace = farm.claimGrace
            let makeExecutor: @Sendable ([SegmentSpec]) throws(MediaError) -> any SegmentExecutor = {
                plan throws(MediaError) in
                do {
                    var reserved: [Int: TaskBoard.Reservation] = [:]
                    for (index, live) in try store.liveAttempts(of: id) {
                        reserved[index] = .init(worker: live.worker, attempt: live.attempt)
                    }
                    let framesTotal = plan.reduce(0) { $0 + $1.frameCount }
                    try store.setPlan(id, segmentFrames: plan.map(\.frameCount), framesTotal: framesTotal)
                    // The board opens first and the store's finished segments are read after: a result the
                    // dispatcher stores meanwhile is then either in that read or completed on the open board
                    // (the dispatcher completes on the board after its store write), never lost between.
                    board.open(
                        job: id, priority: priority, created: created, finished: [:], framesFinished: 0,
                        framesTotal: framesTotal, reserved: reserved,
                        reservedUntil: Date().timeIntervalSince1970 + grace)
                    var finished: [Int] = []
                    for s in try store.segments(of: id) where s.state == .done {
                        guard let file = s.spoolFile else { continue }
                        board.complete(
                            job: id, segment: s.index, attempt: s.doneAttempt ?? s.attempt,
                            spool: URL(fileURLWithPath: file), frames: s.frames)
                        finished.append(s.index)
                    }
                    if !reserved.isEmpty {
                        // The grace comes from the heartbeat flags: formatted, never converted to Int.
                        let seconds = String(format: "%.0f", grace)
                        log.info(
                            "job \(id): segments \(Self.spans(reserved.keys)) were out at workers; holding them \(seconds) s for those workers"
                        )
                    }
                    _ = try store.transition(id, to: .running)
                    // Named, not only counted: a coordinator killed between storing a result and logging
                    // it leaves this line the only record of that segment in the log.
                    if !finished.isEmpty {
                        log.info(
                            "job \(id): \(finished.count) of \(plan.count) segments already spooled: \(Self.spans(finished))"
                        )
                    }
                } catch {
                    throw isDataFolderFull(error)
                        ? MediaError(.io, dataFolderFullMessage(error)) : MediaError(.internal, "\(error)")
                }
                return RemoteSegmentExecutor(job: id, farm: farm)
            }
            let phases: @Sendable (ExportPhase) -> Void = { phase in
                switch phase {
                case .stitching: _ = try? store.transition(id, to: .stitching)
                case .verifying: _ = try? store.transition(id, to: .verifying)
                case .planning, .running: break
                }
            }
            export.makeSegmentExecutor = makeExecutor
            export.phaseHandler = phases
            let report = try export.export()
            for line in report.notCarried { log.warning("job \(jobID): \(line)") }
            if let json = try? JSONEncoder().encode(report) {
                try farm.store.setReport(jobID: jobID, json: String(decoding: json, as: UTF8.self))
            }
            _ = try farm.store.transition(jobID, to: .completed)
            farm.metrics.jobFinished(.completed)
            try? farm.spool.remove(jobID: jobID)
            log.info("job \(jobID) completed: \(record.output)")
        } catch {
            switch stopReason.withLock { $0 } {
            case .shutdown?:
                log.info("job \(jobID) paused for shutdown; it resumes when the coordinator restarts")
            case .cancel?:
                if (try? farm.store.transition(jobID, to: .cancelled)) != nil { farm.metrics.jobFinished(.cancelled) }
                try? farm.spool.remove(jobID: jobID)
                log.info("job \(jobID) cancelled")
            case nil:
                log.error("job \(jobID) failed: \(error)")
                try? farm.spool.remove(jobID: jobID)
                recordFailure("\(error)")
            }
        }
    }
}

extension JobRunner {
    /// Marks the job failed in the store. A store that cannot write (its disk is full) is tried again
    /// every few seconds until it can, so the job does not stay "running" once space is back; a
    /// coordinator shutting down stops trying (the job then fails again when it resumes).
    fileprivate func recordFailure(_ message: String) {
        var warned = false
        while true {
            do {
                _ = try farm.store.transition(jobID, to: .failed, error: message)
                farm.metrics.jobFinished(.failed)
                return
            } catch {
                if case .illegalTransition = error { return }
                if !warned { farm.logger.error("job \(jobID): cannot record the failure yet: \(error); retrying") }
                warned = true
                if stopRequested(within: 5) { return }
            }
        }
    }

    /// Waits up to `seconds`; true as soon as the job is asked to stop.
    private func stopRequested(within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if stopReason.withLock({ $0 }) != nil { return true }
            Thread.sleep(forTimeInterval: 0.25)
        }
        return stopReason.withLock { $0 } != nil
    }

    /// Segment numbers as runs, the way an operator reads them: "0-9, 11, 13-14".
    static func spans(_ indices: some Sequence<Int>) -> String {
        var runs: [ClosedRange<Int>] = []
        for i in Set(indices).sorted() {
            if let last = runs.last, last.upperBound &+ 1 == i {
                runs[runs.count - 1] = last.lowerBound...i
            } else {
                runs.append(i...i)
            }
        }
        return runs.map { $0.count == 1 ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }
            .joined(separator: ", ")
    }
}
