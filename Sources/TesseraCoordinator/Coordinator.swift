import Foundation
import Logging
import Synchronization
import TesseraCore
import TesseraHTTP
import TesseraMedia
import TesseraWire

/// The farm's coordinator: job store, dispatcher thread, one thread per active job.
///
/// `start()` opens the store under the data folder, resumes every unfinished job (segments already
/// spooled are not redone), binds the ROUTER socket and starts dispatching. `FarmService` (see
/// Coordinator+FarmService.swift) is what the HTTP API and `tessera run` call.
public final class Coordinator: @unchecked Sendable {
    public let configuration: CoordinatorConfiguration
    let farm: CoordinatorContext
    let policy: PathPolicy
    let uploads: URL
    public let uploadStaging: URL
    private let context = ZMQContext()
    private var dispatcher: Dispatcher?
    private let runners = Mutex<[String: JobRunner]>([:])
    /// Segment thumbnails of finished jobs, made a few at a time and kept for a while.
    let thumbnails = ThumbnailCache()
    private let stopping = Mutex(false)
    /// The endpoint the ROUTER socket is bound to, once started.
    public private(set) var endpoint: String?

    /// The coordinator's own metrics (`/metrics`), as the HTTP API reads them.
    public var metrics: any MetricsExposition { farm.metrics }
    /// The same, with the farm's own series (what it produced, per-worker figures).
    public var farmMetrics: FarmMetrics { farm.metrics }

    /// Opens (or creates) the data folder and its job store.
    ///
    /// - Parameter metrics: where the coordinator records its metrics; its own by default (several
    ///   coordinators in one process each keep theirs).
    public init(
        configuration: CoordinatorConfiguration, logger: Logger = Logger(label: "tessera.coordinator"),
        metrics: FarmMetrics = FarmMetrics()
    ) throws {
        self.configuration = configuration
        let data = configuration.dataDirectory
        let fm = FileManager.default
        uploads = data.appendingPathComponent("uploads")
        uploadStaging = data.appendingPathComponent("uploads/.staging")
        let results = data.appendingPathComponent("results")
        for dir in [data, uploads, uploadStaging, results] {
            try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        }
        let store = try JobStore(path: data.appendingPathComponent("tessera.sqlite").path)
        let spool = try SegmentSpool(root: data.appendingPathComponent("spool"))
        farm = CoordinatorContext(
            store: store, spool: spool, logger: logger,
            defaultSegmentDuration: configuration.segmentDuration,
            claimGrace: 2 * configuration.heartbeatInterval * Double(configuration.liveness), metrics: metrics,
            audioThreads: configuration.audioThreads)
        policy = PathPolicy(
            mediaRoots: configuration.mediaRoots, outputRoot: configuration.outputRoot,
            uploads: uploads, results: results)
    }

    /// Resumes unfinished jobs and starts dispatching. Returns the bound endpoint.
    @discardableResult
    public func start() throws -> String {
        let d = Dispatcher(configuration: configuration, context: context, farm: farm)
        let bound = try d.start()
        dispatcher = d
        farm.attach(d)
        endpoint = bound
        for record in try farm.store.recoverAfterRestart() {
            farm.logger.info("resuming job \(record.id) (\(record.state.rawValue))")
            launch(record)
        }
        farm.logger.info("coordinator listening on \(bound)")
        return bound
    }

    /// Stops dispatching and pauses the running jobs; they resume at the next start.
    public func shutdown() {
        guard
            stopping.withLock({
                let was = $0
                $0 = true
                return !was
            })
        else { return }
        let active = runners.withLock { $0 }.values
        active.forEach { $0.stop(.shutdown) }
        active.forEach { $0.wait() }
        dispatcher?.stop()
        farm.attach(nil)
        dispatcher = nil
    }

    deinit { shutdown() }

    /// Starts a job's thread (a new job, or one resumed after a restart).
    func launch(_ record: JobRecord) {
        guard !stopping.withLock({ $0 }) else { return }
        let runner = JobRunner(record: record, request: record.request, farm: farm)
        runners.withLock { $0[record.id] = runner }
        let thread = Thread { [self] in
            runner.wait()
            runners.withLock { $0[record.id] = nil }
        }
        runner.start()
        thread.start()
    }

    func runner(_ id: String) -> JobRunner? { runners.withLock { $0 }[id] }

    /// Blocks (a dedicated thread, not the cooperative pool) until job `id`'s run ends or `seconds` pass
    /// (all of them when the job is not running here). For callers in this process, such as
    /// `tessera run`, that would otherwise poll.
    public func waitForJob(_ id: String, seconds: Double) {
        guard let runner = runner(id) else { return Thread.sleep(forTimeInterval: seconds) }
        _ = runner.wait(seconds: seconds)
    }

    var workerStatuses: [WorkerStatus] { dispatcher?.workers ?? [] }
    func waitingReason(job: String) -> String? { dispatcher?.waitingReason(job: job) }

    func controlWorker(_ id: String, _ action: WorkerControl) { dispatcher?.control(worker: id, action) }

    /// The export report (JSON) of a completed job.
    public func report(of id: String) -> String? { (try? farm.store.job(id))??.report }
}
