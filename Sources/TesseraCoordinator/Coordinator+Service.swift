import ServiceLifecycle
import TesseraCore

/// The coordinator as a swift-service-lifecycle service: in a `ServiceGroup` it starts (unless already
/// started), serves until the group shuts down gracefully (SIGTERM, SIGINT, or another service ending),
/// then stops dispatching and pauses its running jobs, which resume at the next start.
extension Coordinator: Service {
    public func run() async throws {
        if endpoint == nil { _ = try await DedicatedThread.run(name: "tessera.coordinator.start") { try self.start() } }
        // Returns on graceful shutdown; throws CancellationError when the group is cancelled. Either way
        // the coordinator stops.
        try? await gracefulShutdown()
        _ = try? await DedicatedThread.run(name: "tessera.coordinator.stop") { self.shutdown() }
    }

    /// Job `id`'s status, read synchronously: for callers on a dedicated thread (`LocalFarm`'s status
    /// stream). Nil when there is no such job.
    public func status(of id: String) -> JobStatus? {
        guard let record = (try? farm.store.job(id)) ?? nil else { return nil }
        return status(record)
    }
}
