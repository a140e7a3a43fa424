import ServiceLifecycle
import TesseraCoordinator
import TesseraDashboard
import TesseraHTTP

/// A coordinator with its whole face: the HTTP API (`/v1`, `/healthz`, `/metrics`) carrying the dashboard
/// (`/`, `/jobs/{id}`, `/v1/events`) and the dashboard's feed, as the services of one `ServiceGroup`.
/// `tessera coordinator` runs it, and `tessera run --http` its HTTP half beside a `LocalFarm`; it is the
/// one place these three are put together.
///
/// ```
///  Coordinator (FarmService) ─▶ DashboardFeed ─▶ Dashboard (an HTTPAPIAddition) ─┐
///           └──────────────────────────────────────────▶ HTTPAPI ◀──────────────┘ ─▶ HTTPService
/// ```
public struct FarmServer: Sendable {
    public let coordinator: Coordinator
    public let feed: DashboardFeed
    public let api: HTTPService

    /// - Parameters:
    ///   - token: the API's bearer token; nil leaves it open.
    ///   - onListening: called with the bound port (port 0 picks a free one).
    public init(
        coordinator: Coordinator, token: String?, host: String, port: Int,
        onListening: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.coordinator = coordinator
        let heartbeat = coordinator.configuration.heartbeatInterval
        feed = DashboardFeed(
            service: coordinator, workerHeartbeatSeconds: heartbeat,
            livenessSeconds: heartbeat * Double(coordinator.configuration.liveness))
        api = HTTPService(
            api: HTTPAPI(service: coordinator, token: token, additions: [Dashboard(feed: feed)]), host: host,
            port: port, onListening: onListening)
    }

    /// The services in start order. A group shuts down in reverse: the feed ends its event streams first
    /// (so the API does not wait its grace period for open pages), then the API stops taking requests
    /// (those in flight finish), then the coordinator pauses its jobs, which resume at its next start.
    /// Any of them ending (the HTTP address cannot be bound) shuts the others down.
    public var services: [ServiceGroupConfiguration.ServiceConfiguration] {
        [.init(service: coordinator, successTerminationBehavior: .gracefullyShutdownGroup)] + httpServices
    }

    /// The API and the feed alone, for a coordinator whose life another service runs (`LocalFarm`); put
    /// them after it in the group.
    public var httpServices: [ServiceGroupConfiguration.ServiceConfiguration] {
        [
            .init(service: api, successTerminationBehavior: .gracefullyShutdownGroup),
            .init(service: feed, successTerminationBehavior: .gracefullyShutdownGroup),
        ]
    }
}
