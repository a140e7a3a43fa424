import NIOConcurrencyHelpers
import ServiceLifecycle
import TesseraCore
import TesseraFarm

/// Follows one job of a `LocalFarm` until it ends, calling `progress` with each status; a graceful
/// shutdown of its group (SIGINT, SIGTERM) cancels the job, and the watcher goes on until the job has
/// ended.
struct JobWatchService: Service {
    let farm: LocalFarm
    let id: String
    let progress: @Sendable (JobStatus) -> Void
    /// The last status seen: the terminal one once `run()` has returned.
    let last = NIOLockedValueBox<JobStatus?>(nil)

    func run() async throws {
        let (farm, id) = (farm, id)
        try await withGracefulShutdownHandler {
            for try await status in farm.statusUpdates(of: id) {
                last.withLockedValue { $0 = status }
                progress(status)
            }
        } onGracefulShutdown: {
            Task { _ = try? await farm.cancel(id) }
        }
    }
}
