import CoreMetrics
import Dispatch
import Hummingbird
import Synchronization

/// Counts and times every request into the farm's metrics, labelled by route pattern (`/v1/jobs/{id}`,
/// never the raw path), method and status class (`2xx` … `5xx`). Requests that match no route are
/// labelled `unmatched`; methods outside HTTP's usual set, `other`. Every route's `2xx` counter exists at
/// 0 from the start (`register`).
///
/// Hummingbird's own `MetricsMiddleware` does the same through the process-global `MetricsSystem`;
/// this one records into the coordinator's own registry, as each coordinator in a process has one.
struct HTTPMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: HTTPRequestMetrics

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    )
        async throws -> Response
    {
        let start = DispatchTime.now().uptimeNanoseconds
        let method = request.method.rawValue
        do {
            var response = try await next(request, context)
            let status = response.status.code, route = context.endpointPath
            // The time includes writing the body: a download is timed to its end (or to its failure).
            let body = response.body
            response.body = ResponseBody(contentLength: body.contentLength) { writer in
                defer { metrics.record(route: route, method: method, status: status, since: start) }
                try await body.write(writer)
            }
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            metrics.record(route: context.endpointPath, method: method, status: status, since: start)
            throw error
        }
    }
}

/// The HTTP API's series, made once and kept: a request counter per (route, method, status class) and
/// a duration histogram per (route, method). Only each route's `2xx` counter is made at 0 up front; the
/// rest appear with their first request, so the exposition stays small (every route × every class ×
/// every bucket at 0 was 1,088 of a 1,300-line scrape).
public final class HTTPRequestMetrics: Sendable {
    private let factory: any MetricsFactory
    private let counters = Mutex<[Key: CoreMetrics.Counter]>([:])
    private let durations = Mutex<[Key: Recorder]>([:])
    /// The route table's patterns: anything else Hummingbird names (its `NotFound`) is `unmatched`.
    private let routes = Mutex<Set<String>>([])

    private struct Key: Hashable {
        var route: String
        var method: String
        var statusClass: String?
    }

    static let methods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]

    /// Bytes of sources sent to workers that read them over HTTP (`GET /v1/media/...`).
    private let mediaBytes: CoreMetrics.Counter

    public init(factory: any MetricsFactory) {
        self.factory = factory
        mediaBytes = CoreMetrics.Counter(label: "tessera_media_bytes_served_total", factory: factory)
    }

    func mediaServed(bytes: Int) { mediaBytes.increment(by: max(0, bytes)) }

    /// Makes each route's `2xx` counter at 0.
    func register(routes: [(method: String, path: String)]) {
        self.routes.withLock { $0.formUnion(routes.map(\.path)) }
        for route in routes { _ = counter(Key(route: route.path, method: route.method, statusClass: "2xx")) }
    }

    func record(route: String?, method: String, status: Int, since start: UInt64) {
        let known = routes.withLock { known in route.flatMap { known.contains($0) ? $0 : nil } }
        let key = Key(
            route: known ?? "unmatched", method: Self.methods.contains(method) ? method : "other",
            statusClass: "\(min(5, max(1, status / 100)))xx")
        counter(key).increment()
        duration(Key(route: key.route, method: key.method, statusClass: nil))
            .record(Double(DispatchTime.now().uptimeNanoseconds &- start) / 1e9)
    }

    private func counter(_ key: Key) -> CoreMetrics.Counter {
        counters.withLock { all in
            if let c = all[key] { return c }
            let c = CoreMetrics.Counter(
                label: "tessera_http_requests_total",
                dimensions: [("route", key.route), ("method", key.method), ("status", key.statusClass ?? "")],
                factory: factory)
            all[key] = c
            return c
        }
    }

    private func duration(_ key: Key) -> Recorder {
        durations.withLock { all in
            if let r = all[key] { return r }
            let r = Recorder(
                label: "tessera_http_request_duration_seconds",
                dimensions: [("route", key.route), ("method", key.method)], aggregate: true, factory: factory)
            all[key] = r
            return r
        }
    }
}
