import CoreMetrics
import Foundation
import Prometheus
import Synchronization
import TesseraCore
import TesseraHTTP
import TesseraWire

/// The coordinator's metrics, recorded through swift-metrics into a Prometheus registry of its own and
/// rendered at `/metrics`.
///
/// ```
///  dispatcher thread ── leases, results, failures, workers ──┐
///  job threads ──────── jobs finished ───────────────────────┼─▶ FarmMetrics ─▶ registry ─▶ GET /metrics
///  FarmService ──────── jobs submitted; before each scrape: ─┘    (swift-metrics API)      (text 0.0.4)
///                       queue depth, workers, jobs by state
///  HTTP middleware ──── requests by route pattern
/// ```
///
/// Each coordinator owns one (tests run several coordinators in one process, so nothing goes through
/// the process-global `MetricsSystem`). Names are in base units, counters end in `_total`, every value
/// of a closed label set (`FrameDiscard`, `SegmentFailureReason`, `EncodeBackend`, `JobState`) is
/// exported at 0 from the start, and labels never carry a job id, a path or an error text. Per-worker
/// series are labelled with the worker id (validated at Hello: ≤ 64 bytes of letters, digits, `.`, `_`,
/// `-`) and removed when the worker leaves or is lost.
public final class FarmMetrics: MetricsExposition {
    /// The registry `/metrics` renders.
    public let registry: PrometheusCollectorRegistry
    /// swift-metrics' factory over `registry`, for anything else that records into it (the HTTP API).
    public let factory: any MetricsFactory

    private let queueDepth, segmentsRunning, workers, workersBusy, lastSegmentCompleted: Meter
    private let inboundResultBytes, resultOffersWaiting, resultChecksWaiting: Meter
    private let jobsByState: [JobState: Meter]
    private let segmentsCompleted, framesEncoded, outputBytes, jobsSubmitted, stitchedBytes: CoreMetrics.Counter
    private let outputMediaSeconds, stitchSeconds, resultCheckSeconds: FloatingPointCounter
    private let resultChecks: [CheckVerdict: CoreMetrics.Counter]
    private let checksWaiting = Mutex(0)
    private let framesDiscarded: [FrameDiscard: CoreMetrics.Counter]
    private let jobsFinished: [JobState: CoreMetrics.Counter]
    private let segmentFailures: [SegmentFailureReason: CoreMetrics.Counter]
    private let backupAttempts: [BackupOutcome: CoreMetrics.Counter]
    private let tasksSent, taskBytesSent: [TaskTransport: CoreMetrics.Counter]
    private let backupTotals = Mutex([BackupOutcome: Int]())
    private let encodeDuration: [EncodeBackend: Recorder]
    private let queueWait, realtimeRatio: Recorder
    private let segmentSSIM, segmentPSNR: [JobKind: Recorder]
    private let buildInfo: Meter
    private let process: ProcessMetrics
    /// The HTTP API's series (`HTTPMetricsMiddleware`).
    public let http: HTTPRequestMetrics
    private let workerSeries = Mutex<[String: WorkerSeries]>([:])
    private let producedTotals = Mutex(Produced())

    /// What the farm has produced since the coordinator started: the figures behind
    /// `tessera_frames_encoded_total` and `tessera_output_media_seconds_total`, readable in-process (the
    /// dashboard's throughput is their rate).
    public struct Produced: Sendable, Hashable {
        public var frames = 0
        public var mediaSeconds = 0.0
    }

    public var produced: Produced { producedTotals.withLock { $0 } }

    /// One connected worker's series, destroyed (unregistered) when it goes.
    private struct WorkerSeries {
        var framesEncoded: CoreMetrics.Counter
        var busySeconds: FloatingPointCounter
        var slots: Meter
        var lastHeartbeat: Meter
        var info: Meter

        func destroy() {
            framesEncoded.destroy()
            busySeconds.destroy()
            slots.destroy()
            lastHeartbeat.destroy()
            info.destroy()
        }
    }

    /// - Parameter registry: where the metrics go; a new one by default.
    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        let factory = DescribedMetricsFactory(
            registry: registry,
            descriptions: Self.descriptions.merging(ProcessMetrics.descriptions) { a, _ in a })
        self.factory = factory
        func meter(_ name: String, _ labels: [(String, String)] = []) -> Meter {
            Meter(label: name, dimensions: labels, factory: factory)
        }
        func counter(_ name: String, _ labels: [(String, String)] = []) -> CoreMetrics.Counter {
            CoreMetrics.Counter(label: name, dimensions: labels, factory: factory)
        }
        func histogram(_ name: String, _ labels: [(String, String)] = []) -> Recorder {
            Recorder(label: name, dimensions: labels, aggregate: true, factory: factory)
        }
        func each<Key: Hashable>(_ keys: [Key], _ make: (Key) -> CoreMetrics.Counter) -> [Key: CoreMetrics.Counter] {
            Dictionary(uniqueKeysWithValues: keys.map { ($0, make($0)) })
        }
        queueDepth = meter("tessera_queue_depth")
        segmentsRunning = meter("tessera_segments_running")
        workers = meter("tessera_workers")
        workersBusy = meter("tessera_workers_busy")
        lastSegmentCompleted = meter("tessera_last_segment_completed_timestamp_seconds")
        inboundResultBytes = meter("tessera_inbound_result_bytes")
        resultOffersWaiting = meter("tessera_result_offers_waiting")
        resultChecksWaiting = meter("tessera_result_checks_waiting")
        jobsByState = Dictionary(
            uniqueKeysWithValues: JobState.allCases.map { ($0, meter("tessera_jobs", [("state", $0.rawValue)])) })
        segmentsCompleted = counter("tessera_segments_completed_total")
        framesEncoded = counter("tessera_frames_encoded_total")
        outputBytes = counter("tessera_output_bytes_total")
        jobsSubmitted = counter("tessera_jobs_submitted_total")
        outputMediaSeconds = FloatingPointCounter(label: "tessera_output_media_seconds_total", factory: factory)
        stitchedBytes = counter("tessera_stitched_bytes_total")
        stitchSeconds = FloatingPointCounter(label: "tessera_stitch_seconds_total", factory: factory)
        resultCheckSeconds = FloatingPointCounter(label: "tessera_result_check_cpu_seconds_total", factory: factory)
        resultChecks = each(CheckVerdict.allCases) {
            counter("tessera_result_checks_total", [("verdict", $0.rawValue)])
        }
        framesDiscarded = each(FrameDiscard.allCases) {
            counter("tessera_frames_discarded_total", [("reason", $0.rawValue)])
        }
        jobsFinished = each(JobState.terminalCases) {
            counter("tessera_jobs_finished_total", [("state", $0.rawValue)])
        }
        segmentFailures = each(SegmentFailureReason.allCases) {
            counter("tessera_segment_failures_total", [("reason", $0.rawValue)])
        }
        tasksSent = each(TaskTransport.allCases) { counter("tessera_tasks_sent_total", [("transport", $0.rawValue)]) }
        taskBytesSent = each(TaskTransport.allCases) {
            counter("tessera_task_bytes_sent_total", [("transport", $0.rawValue)])
        }
        backupAttempts = each(BackupOutcome.allCases) {
            counter("tessera_backup_attempts_total", [("outcome", $0.rawValue)])
        }
        encodeDuration = Dictionary(
            uniqueKeysWithValues: EncodeBackend.allCases.map {
                ($0, histogram("tessera_segment_encode_duration_seconds", [("backend", $0.rawValue)]))
            })
        segmentSSIM = Dictionary(
            uniqueKeysWithValues: JobKind.allCases.map {
                ($0, histogram("tessera_segment_ssim", [("kind", $0.rawValue)]))
            })
        segmentPSNR = Dictionary(
            uniqueKeysWithValues: JobKind.allCases.map {
                ($0, histogram("tessera_segment_psnr_db", [("kind", $0.rawValue)]))
            })
        queueWait = histogram("tessera_segment_queue_wait_seconds")
        realtimeRatio = histogram("tessera_segment_realtime_ratio")
        buildInfo = meter("tessera_build_info", [("protocol", "\(WireCodec.version)"), ("swift", Self.swiftVersion)])
        buildInfo.set(1)
        process = ProcessMetrics(factory: factory)
        http = HTTPRequestMetrics(factory: factory)
    }

    // MARK: Events

    /// What the coordinator knows of a segment result it has just accepted as the segment's output.
    public struct CompletedSegment: Sendable {
        public var frames: Int
        public var bytes: Int
        /// Output duration; nil when the coordinator no longer has the segment's time base.
        public var mediaSeconds: Double?
        public var encodeSeconds: Double
        public var backend: EncodeBackend
        public var worker: String
        /// Unix seconds.
        public var at: Double
        /// The segment's measured quality (nil when not measured) and its job's kind.
        public var quality: SegmentQuality?
        public var kind: JobKind

        public init(
            frames: Int, bytes: Int, mediaSeconds: Double?, encodeSeconds: Double, backend: EncodeBackend,
            worker: String, at: Double, quality: SegmentQuality? = nil, kind: JobKind = .transcode
        ) {
            self.quality = quality
            self.kind = kind
            self.frames = frames
            self.bytes = bytes
            self.mediaSeconds = mediaSeconds
            self.encodeSeconds = encodeSeconds
            self.backend = backend
            self.worker = worker
            self.at = at
        }
    }

    /// A segment's first accepted result: each segment is counted once, however often it was delivered.
    public func segmentCompleted(_ s: CompletedSegment) {
        segmentsCompleted.increment()
        framesEncoded.increment(by: Int64(s.frames))
        producedTotals.withLock {
            $0.frames += s.frames
            if let media = s.mediaSeconds, media > 0, media.isFinite { $0.mediaSeconds += media }
        }
        outputBytes.increment(by: Int64(s.bytes))
        if s.encodeSeconds > 0, s.encodeSeconds.isFinite {
            encodeDuration[s.backend]?.record(s.encodeSeconds)
        }
        if let media = s.mediaSeconds, media > 0, media.isFinite {
            outputMediaSeconds.increment(by: media)
            if s.encodeSeconds > 0, s.encodeSeconds.isFinite { realtimeRatio.record(media / s.encodeSeconds) }
        }
        if let q = s.quality {
            segmentSSIM[s.kind]?.record(q.ssim)
            segmentPSNR[s.kind]?.record(q.psnr)
        }
        lastSegmentCompleted.set(s.at)
        workerSeries.withLock { $0[s.worker] }?.framesEncoded.increment(by: Int64(s.frames))
    }

    /// A finished segment's output, `bytes` of packets, was read back from the spool and written into its
    /// job's output in `seconds`.
    public func segmentStitched(seconds: Double, bytes: Int) {
        stitchedBytes.increment(by: Int64(clamping: max(0, bytes)))
        if seconds > 0, seconds.isFinite { stitchSeconds.increment(by: seconds) }
    }

    /// A worker's result was queued for its check on the coordinator.
    public func resultCheckQueued() {
        resultChecksWaiting.set(
            checksWaiting.withLock {
                $0 += 1
                return $0
            })
    }

    /// A queued result's check ended with `verdict` after `cpuSeconds` of checking.
    public func resultChecked(_ verdict: CheckVerdict, cpuSeconds: Double) {
        resultChecks[verdict]?.increment()
        if cpuSeconds > 0, cpuSeconds.isFinite { resultCheckSeconds.increment(by: cpuSeconds) }
        resultChecksWaiting.set(
            checksWaiting.withLock {
                $0 = max(0, $0 - 1)
                return $0
            })
    }

    /// A finished segment that was not used.
    public func framesDiscarded(_ frames: Int, _ reason: FrameDiscard) {
        framesDiscarded[reason]?.increment(by: Int64(max(0, frames)))
    }

    /// An attempt that failed (counted against its worker).
    public func segmentFailed(_ reason: SegmentFailureReason) { segmentFailures[reason]?.increment() }

    /// A task went to its worker in a message of `bytes`.
    public func taskSent(_ transport: TaskTransport, bytes: Int) {
        tasksSent[transport]?.increment()
        taskBytesSent[transport]?.increment(by: Int64(clamping: max(0, bytes)))
    }

    /// A backup attempt started, won or was wasted.
    public func backupAttempt(_ outcome: BackupOutcome) {
        backupAttempts[outcome]?.increment()
        backupTotals.withLock { $0[outcome, default: 0] += 1 }
    }

    /// Backup attempts since the coordinator started, by outcome (the dashboard's figures).
    public var backups: [BackupOutcome: Int] { backupTotals.withLock { $0 } }

    /// A segment left the queue for a worker after waiting `seconds` there.
    public func segmentLeased(queueWait seconds: Double) { queueWait.record(max(0, seconds)) }

    public func jobSubmitted() { jobsSubmitted.increment() }

    /// A job reached `state`; states that are not terminal are ignored.
    public func jobFinished(_ state: JobState) { jobsFinished[state]?.increment() }

    // MARK: Workers

    /// A worker joined: its series start (a worker coming back with the same id starts afresh).
    public func workerJoined(id: String, hostname: String, backends: [String], slots: Int, now: Double) {
        let f = factory
        let labels = [("worker", id)]
        let series = WorkerSeries(
            framesEncoded: CoreMetrics.Counter(
                label: "tessera_worker_frames_encoded_total", dimensions: labels, factory: f),
            busySeconds: FloatingPointCounter(
                label: "tessera_worker_busy_seconds_total", dimensions: labels, factory: f),
            slots: Meter(label: "tessera_worker_slots", dimensions: labels, factory: f),
            lastHeartbeat: Meter(
                label: "tessera_worker_last_heartbeat_timestamp_seconds", dimensions: labels, factory: f),
            info: Meter(
                label: "tessera_worker_info",
                dimensions: labels + [
                    ("hostname", Self.labelSafe(hostname)),
                    (
                        "backends",
                        backends.compactMap { ProcessingBackend(rawValue: $0)?.rawValue }.sorted().joined(
                            separator: ",")
                    ),
                ], factory: f))
        series.slots.set(slots)
        series.lastHeartbeat.set(now)
        series.info.set(1)
        workerSeries.withLock {
            $0.removeValue(forKey: id)?.destroy()
            $0[id] = series
        }
    }

    /// A message from the worker arrived.
    public func workerSeen(id: String, now: Double) { workerSeries.withLock { $0[id] }?.lastHeartbeat.set(now) }

    /// The worker held at least one task for another `seconds`.
    public func workerBusy(id: String, seconds: Double) {
        guard seconds > 0 else { return }
        workerSeries.withLock { $0[id] }?.busySeconds.increment(by: seconds)
    }

    /// Results granted room and not yet acknowledged (bytes, every worker together), and offers waiting
    /// for room (PROTOCOL.md §8).
    public func inboundResults(bytes: Int, waiting: Int) {
        inboundResultBytes.set(bytes)
        resultOffersWaiting.set(waiting)
    }

    /// The worker left or was lost: its series are removed from the registry.
    public func workerLeft(id: String) { workerSeries.withLock { $0.removeValue(forKey: id) }?.destroy() }

    // MARK: Scrape

    /// Sets the gauges that describe the farm now, at each scrape.
    public func update(_ s: FarmSummary) {
        queueDepth.set(s.queuedSegments)
        segmentsRunning.set(s.runningSegments)
        workers.set(s.workers)
        workersBusy.set(s.busyWorkers)
        for (state, meter) in jobsByState { meter.set(s.jobs[state.rawValue] ?? 0) }
    }

    /// The registry in Prometheus' text format (0.0.4), the process's own figures read just before.
    public func exposition() -> [UInt8] {
        process.update()
        return registry.emitToBuffer()
    }

    /// Host names come from the wire: only a plain alphabet, bounded, goes into a label.
    static func labelSafe(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.prefix(64).map {
                    $0.isASCII
                        && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || ".-_".unicodeScalars.contains($0))
                        ? $0 : "_"
                }))
    }

    static var swiftVersion: String {
        #if swift(>=6.3)
        "6.3"
        #elseif swift(>=6.2)
        "6.2"
        #else
        "6.1"
        #endif
    }
}
