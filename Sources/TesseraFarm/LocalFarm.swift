import Foundation
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle
import Synchronization
import TesseraCoordinator
import TesseraCore
import TesseraHTTP
import TesseraWorker

/// A whole farm in one process: a coordinator and N workers speaking the farm's ZeroMQ protocol over
/// loopback, exactly as a real farm does across machines. `tessera run`, the farm's tests and
/// benchmarks, and the dashboard's tests use it.
///
/// ```swift
/// let farm = try LocalFarm(configuration: .init(workers: 2, data: folder, mediaRoots: [src], outputRoot: out))
/// try farm.start()
/// let job = try await farm.submit(request)
/// for try await status in farm.statusUpdates(of: job.id) { print(status.framesDone) }
/// farm.stop()
/// ```
///
/// It is also a swift-service-lifecycle `Service`: in a `ServiceGroup`, `run()` starts the farm, and the
/// group's graceful shutdown stops it (workers first, then the coordinator, whose unfinished jobs
/// resume at its next start on the same data folder).
public final class LocalFarm: Service, Sendable {
    public struct Configuration: Sendable {
        /// Local workers, 1…64.
        public var workers: Int
        /// Codec threads per worker (0 = every core each). `tessera run` shares the cores among them.
        public var threadsPerWorker: Int = 0
        /// Segments each worker holds at once (one running, the rest prefetched).
        public var slotsPerWorker: Int = 2
        /// The workers' processing backend when a job does not choose.
        public var backend: ProcessingBackend = .auto
        /// The coordinator's configuration; its `listen` is forced to a free loopback port.
        public var coordinator: CoordinatorConfiguration

        public init(workers: Int, coordinator: CoordinatorConfiguration) {
            self.workers = workers
            self.coordinator = coordinator
            self.coordinator.listen = "tcp://127.0.0.1:*"
            // Its workers are this process's own threads: their results need no second decode here.
            self.coordinator.checkResults = false
            // The workers have the cores.
            self.coordinator.audioThreads = 1
        }
    }

    public let configuration: Configuration
    public let coordinator: Coordinator
    private let logger: Logger
    private let running = Mutex<(workers: [Worker], exits: [DispatchSemaphore])?>(nil)
    /// The workers' ids, which only they know (see `init`).
    private let workerIDs: [String]

    /// Opens (or creates) the coordinator's data folder. Nothing runs until `start()`.
    public init(configuration: Configuration, logger: Logger = Logger(label: "tessera.farm")) throws {
        guard (1...64).contains(configuration.workers) else {
            throw FarmError(.invalidRequest, "a local farm has 1…64 workers, not \(configuration.workers)")
        }
        self.configuration = configuration
        self.logger = logger
        // The workers' ids carry a secret, and the coordinator takes no other: it does not check their
        // results, so no other process on the machine may join as a worker.
        let secret = String(UInt64.random(in: .min ... .max), radix: 16)
        workerIDs = (1...configuration.workers).map { "local-\($0)-\(secret)" }
        var coordinatorConfiguration = configuration.coordinator
        coordinatorConfiguration.allowedWorkerIDs = Set(workerIDs)
        coordinator = try Coordinator(configuration: coordinatorConfiguration, logger: logger)
    }

    /// Binds the coordinator (resuming unfinished jobs) and starts the workers, each on a thread of its
    /// own. Blocks briefly (SQLite, socket binds): call it from a thread, not the cooperative pool, or
    /// use `run()`. Returns the coordinator's endpoint.
    @discardableResult
    public func start() throws -> String {
        let endpoint = try coordinator.endpoint ?? coordinator.start()
        running.withLock { running in
            guard running == nil else { return }
            let workers = (0..<configuration.workers).map { n -> Worker in
                var wc = Worker.Configuration(coordinator: endpoint, id: workerIDs[n])
                wc.backend = configuration.backend
                wc.threads = configuration.threadsPerWorker
                wc.slots = configuration.slotsPerWorker
                // Its workers see this machine's files: sources under the coordinator's media roots go to
                // them by reference, read where they lie instead of copied through the socket.
                wc.mediaRoots = configuration.coordinator.mediaRoots.compactMap { MediaRootMapping($0.path) }
                return Worker(configuration: wc, logger: Logger(label: "tessera.worker"))
            }
            let exits = workers.map { worker -> DispatchSemaphore in
                let done = DispatchSemaphore(value: 0)
                let thread = Thread { [logger] in
                    do {
                        if case .rejected(let why) = try worker.run() {
                            logger.error("local worker \(worker.configuration.id) refused: \(why)")
                        }
                    } catch {
                        logger.error("local worker \(worker.configuration.id): \(error)")
                    }
                    done.signal()
                }
                thread.name = "tessera.farm.worker"
                thread.start()
                return done
            }
            running = (workers, exits)
        }
        return endpoint
    }

    /// Stops the workers (a segment in progress is abandoned, to be redone at the next start), waits
    /// for their threads, then stops the coordinator. Blocks; idempotent. A stopped farm does not start
    /// again: make a new one on the same data folder, which resumes the unfinished jobs.
    public func stop() {
        if let (workers, exits) = running.withLock({ running in
            defer { running = nil }
            return running
        }) {
            workers.forEach { $0.stop() }
            exits.forEach { $0.wait() }
        }
        coordinator.shutdown()
    }

    deinit { stop() }

    /// Submits a job, validated as the HTTP API validates it.
    public func submit(_ request: JobRequest) async throws(FarmError) -> JobStatus {
        try await coordinator.submit(request)
    }

    /// Cancels job `id`; its run stops and nothing is written.
    public func cancel(_ id: String) async throws(FarmError) -> JobStatus {
        try await coordinator.cancel(id)
    }

    /// Job `id`'s status now, then every `interval` seconds while it runs, and once more the moment it
    /// ends (no polling delay at the end); the sequence finishes after the terminal status. Throws
    /// `FarmError(.notFound)` for an unknown job. Each stream waits on a thread of its own.
    public func statusUpdates(of id: String, interval: Double = 0.25) -> AsyncThrowingStream<JobStatus, any Error> {
        let (stream, continuation) = AsyncThrowingStream<JobStatus, any Error>.makeStream(
            bufferingPolicy: .bufferingNewest(1))
        let stopped = NIOLockedValueBox(false)
        let thread = Thread { [coordinator] in
            while !stopped.withLockedValue({ $0 }) {
                guard let status = coordinator.status(of: id) else {
                    return continuation.finish(throwing: FarmError(.notFound, "no job \(id)"))
                }
                continuation.yield(status)
                if status.state.isTerminal { return continuation.finish() }
                coordinator.waitForJob(id, seconds: interval)
            }
        }
        thread.name = "tessera.farm.status"
        continuation.onTermination = { _ in stopped.withLockedValue { $0 = true } }
        thread.start()
        return stream
    }

    // MARK: Service

    /// Starts the farm and runs it until the enclosing `ServiceGroup` shuts down gracefully (or is
    /// cancelled), then stops it.
    public func run() async throws {
        try await DedicatedThread.run(name: "tessera.farm.start") { _ = try self.start() }
        try? await gracefulShutdown()
        try? await DedicatedThread.run(name: "tessera.farm.stop") { self.stop() }
    }
}
