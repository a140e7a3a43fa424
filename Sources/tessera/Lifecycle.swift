import Foundation
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle
import TesseraCore
import UnixSignals

/// How the commands that run for a while meet SIGINT and SIGTERM: their work runs as services of a
/// swift-service-lifecycle `ServiceGroup`, whose graceful shutdown the two signals trigger. A signal
/// then asks the work to end well (cancel an export, drain a worker, pause the coordinator's jobs)
/// instead of killing the process mid-write.
enum Lifecycle {
    /// The signals that shut a command down gracefully.
    static let signals: [UnixSignal] = [.sigterm, .sigint]

    /// The group's own log: errors only, on stderr, so that stdout stays for `--json`.
    static var logger: Logger {
        var logger = Logger(label: "tessera.lifecycle") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .error
        return logger
    }

    /// Runs `services` in one group until it shuts down: on a signal, or when a service configured with
    /// `.gracefullyShutdownGroup` returns (one that returns with the default `.cancelGroup` is an error).
    /// Graceful shutdown reaches the services in reverse order.
    static func run(_ services: [ServiceGroupConfiguration.ServiceConfiguration]) async throws {
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services, gracefulShutdownSignals: signals, logger: logger))
        try await group.run()
    }

    /// Runs blocking `work` on a thread of its own; SIGINT or SIGTERM calls `onSignal` (which makes
    /// the work end early, its own way) and the work's outcome is still what is returned or thrown.
    static func runBlocking<T: Sendable>(
        _ name: String, _ work: @escaping @Sendable () throws -> T, onSignal: @escaping @Sendable () -> Void
    ) async throws -> T {
        let service = BlockingService(name: name, work: work, onShutdown: onSignal)
        try await run([.init(service: service, successTerminationBehavior: .gracefullyShutdownGroup)])
        guard let outcome = service.outcome.withLockedValue({ $0 }) else { throw CancellationError() }
        return try outcome.get()
    }
}

/// Blocking work (an export, a worker's loop) as a service: it runs on a dedicated thread, never the
/// cooperative pool, and the group's graceful shutdown calls `onShutdown`.
struct BlockingService<T: Sendable>: Service {
    let name: String
    let work: @Sendable () throws -> T
    let onShutdown: @Sendable () -> Void
    /// The work's result or error, kept here so that the group ends the same way either way.
    let outcome = NIOLockedValueBox<Result<T, any Error>?>(nil)

    func run() async throws {
        let result = await withGracefulShutdownHandler {
            do { return Result<T, any Error>.success(try await DedicatedThread.run(name: name, work)) } catch {
                return .failure(error)
            }
        } onGracefulShutdown: {
            onShutdown()
        }
        outcome.withLockedValue { $0 = result }
    }
}
