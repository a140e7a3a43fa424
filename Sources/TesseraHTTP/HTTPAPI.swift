import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import TesseraCore

/// The coordinator's HTTP API (described in Protocols/openapi.yaml): routes over a `FarmService`.
///
/// ```
///  request ─▶ HTTPMetricsMiddleware ─▶ ErrorBodyMiddleware ─▶ /healthz, /metrics, POST /v1/session (no token)
///                                                        ├▶ BearerAuthMiddleware ─▶ /v1/…  ─▶ FarmService
///                                                        └▶ additions (the dashboard: /, /v1/events), checked by `auth`
///  any thrown FarmError / APIError / HTTPError ─▶ {"error": kind, "message": …} with its status
/// ```
///
/// Stopping: cancel the task that runs `run`, or — when `run` is called from a swift-service-lifecycle
/// `Service` in a `ServiceGroup` — shut that group down gracefully. Either way the server stops
/// accepting connections, lets requests in flight finish for up to `shutdownGrace`, then closes what
/// is left, and `run` returns.
public struct HTTPAPI: Sendable {
    /// What the routes serve.
    public var service: any FarmService
    /// When a token is set, every `/v1` route needs `Authorization: Bearer <token>` or a session cookie.
    public let auth: HTTPAuth
    public var token: String? { auth.token }
    /// Routes other modules add (the dashboard), installed after the API's own.
    public var additions: [any HTTPAPIAddition]
    /// Uploads larger than this are refused with 413 (default 64 GiB).
    public var maxUploadBytes: Int64
    /// How long requests in flight (a long download, say) may take to finish once stopping starts.
    public var shutdownGrace: Duration
    /// The most connections open at once; past it, new ones wait in the kernel's backlog. Nil: half of the
    /// open-file limit (`DescriptorLimit`), raised to the hard limit when serving starts.
    public var maxConnections: Int?
    /// How long a connection may take to send a request's head (from its opening, or from the last
    /// answer on it) before it is closed; a body must then end within it, or bring 64 KiB in each.
    public var headTimeout: Duration = .seconds(10)
    public var logger: Logger

    public init(
        service: any FarmService, token: String?, maxUploadBytes: Int64 = 64 << 30,
        shutdownGrace: Duration = .seconds(10), additions: [any HTTPAPIAddition] = [],
        logger: Logger = Logger(label: "tessera.http")
    ) {
        self.service = service
        self.auth = HTTPAuth(token: token)
        self.additions = additions
        self.maxUploadBytes = maxUploadBytes
        self.shutdownGrace = shutdownGrace
        self.logger = logger
    }

    /// Serves on `host:port` (port 0 picks a free port) and calls `onListening` with the bound port
    /// once connections are accepted. See the type's documentation for how it stops.
    ///
    /// - Throws: the socket's error when the address cannot be bound.
    public func run(
        host: String, port: Int, onListening: @escaping @Sendable (Int) -> Void = { _ in }
    )
        async throws
    {
        let connections = maxConnections ?? DescriptorLimit.httpConnections(soft: DescriptorLimit.raise())
        let timeout = TimeAmount.nanoseconds(
            headTimeout.components.seconds * 1_000_000_000 + headTimeout.components.attoseconds / 1_000_000_000)
        let app = Application(
            router: makeRouter(),
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [RequestBodyDeadline(window: timeout, minimumBytes: 64 << 10)],
                    idleTimeout: timeout)),
            configuration: ApplicationConfiguration(
                address: .hostname(host, port: port), serverName: "tessera",
                availableConnectionsDelegate: MaximumAvailableConnections(connections, logger: logger)),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? port) },
            logger: logger)
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [app], logger: logger))
        // Served from an unstructured task so that cancelling the caller becomes a graceful shutdown
        // instead of cutting every connection at once.
        let serving = Task { try await group.run() }
        let grace = shutdownGrace
        let stop: @Sendable () -> Void = {
            Task {
                await group.triggerGracefulShutdown()
                try? await Task.sleep(for: grace)
                serving.cancel()
            }
        }
        try await withGracefulShutdownHandler {
            try await withTaskCancellationHandler {
                try await serving.value
            } onCancel: {
                stop()
            }
        } onGracefulShutdown: {
            stop()
        }
    }

    /// `HTTPAPI(service:token:).run(host:port:onListening:)` with the default upload limit.
    public static func run(
        service: any FarmService, host: String, port: Int, token: String?,
        onListening: @escaping @Sendable (Int) -> Void
    ) async throws {
        try await HTTPAPI(service: service, token: token).run(host: host, port: port, onListening: onListening)
    }

    /// Every route the router serves, as "METHOD /path" with `{name}` for path parameters, sorted
    /// (what Protocols/openapi.yaml must describe).
    public var routes: [String] {
        makeRouter().routes.map { "\($0.method) \($0.path)" }.sorted()
    }
}

/// Routes another module adds to the HTTP API (as HummingbirdTLS adds to the core from outside): the
/// dashboard's page and event stream. They run inside the API's metrics and error middleware; `auth` is
/// the API's own, so a session cookie opened by `POST /v1/session` works for them too.
public protocol HTTPAPIAddition: Sendable {
    func addRoutes(to router: Router<BasicRequestContext>, auth: HTTPAuth)
}
