/// The seam between the HTTP API and whatever keeps the farm's metrics (the coordinator's Prometheus
/// registry, `FarmMetrics`): where the API records its requests, and the text `/metrics` serves.
public protocol MetricsExposition: AnyObject, Sendable {
    /// The API's request counters and durations, made with the registry's factory.
    var http: HTTPRequestMetrics { get }
    /// Everything, in Prometheus' text format (0.0.4).
    func exposition() -> [UInt8]
}
