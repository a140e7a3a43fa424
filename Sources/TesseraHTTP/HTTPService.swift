import ServiceLifecycle

/// The HTTP API as a service of a `ServiceGroup`, serving on `host:port` until the group shuts down
/// gracefully (requests in flight get `HTTPAPI.shutdownGrace` to finish).
public struct HTTPService: Service {
    public var api: HTTPAPI
    public var host: String
    public var port: Int
    /// Called with the bound port once connections are accepted (port 0 picks a free one).
    public var onListening: @Sendable (Int) -> Void

    public init(api: HTTPAPI, host: String, port: Int, onListening: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.api = api
        self.host = host
        self.port = port
        self.onListening = onListening
    }

    public func run() async throws { try await api.run(host: host, port: port, onListening: onListening) }
}
