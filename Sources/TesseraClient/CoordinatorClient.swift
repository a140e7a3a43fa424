import Foundation
import TesseraCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The coordinator's HTTP API (Protocols/openapi.yaml) for Swift callers such as the `tessera` CLI.
///
/// Every method throws `ClientError` and nothing else.
///
/// ```swift
/// let client = CoordinatorClient(baseURL: URL(string: "http://farm:8080")!, token: "s3cret")
/// let job = try await client.submit(JobRequest(source: "/media/in.mov", output: "out.mp4", preset: "1920x1080"))
/// ```
public struct CoordinatorClient: Sendable {
    /// The coordinator, e.g. `http://127.0.0.1:8080`; API paths are appended to it.
    public let baseURL: URL
    /// Sent as `Authorization: Bearer <token>` when set.
    public let token: String?
    let session: URLSession

    /// - Parameter timeout: seconds a request may wait for an answer (a live view asks for a few).
    public init(baseURL: URL, token: String?, timeout: TimeInterval = 60) {
        self.baseURL = baseURL
        self.token = token
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        self.session = URLSession(configuration: configuration)
    }

    /// Queues a job; answers its first status (state `queued`).
    public func submit(_ request: JobRequest) async throws -> JobStatus {
        try await call("POST", "v1/jobs", body: try encode(request))
    }

    public func job(_ id: String) async throws -> JobStatus {
        try await call("GET", "v1/jobs/\(Self.segment(id))")
    }

    /// Newest first.
    public func jobs() async throws -> [JobStatus] {
        try await call("GET", "v1/jobs")
    }

    /// `limit` jobs from `offset`, newest first.
    public func jobs(limit: Int, offset: Int = 0) async throws -> [JobStatus] {
        try await call(
            "GET", "v1/jobs",
            query: [.init(name: "limit", value: "\(limit)"), .init(name: "offset", value: "\(offset)")])
    }

    /// Cancels a job that has not finished; answers its status after the cancellation.
    public func cancel(_ id: String) async throws -> JobStatus {
        try await call("POST", "v1/jobs/\(Self.segment(id))/cancel")
    }

    public func workers() async throws -> [WorkerStatus] {
        try await call("GET", "v1/workers")
    }

    /// The farm at a glance: rates, queue, workers, jobs by state.
    public func summary() async throws -> FarmSummary {
        try await call("GET", "v1/farm")
    }

    /// Drains, pauses or resumes a worker; answers its status as the next listing shows it.
    public func control(worker id: String, _ action: WorkerControl) async throws -> WorkerStatus {
        try await call("POST", "v1/workers/\(Self.segment(id))/\(action.rawValue)")
    }

    /// The job's segment map: each segment's state, attempts, worker and errors.
    public func segments(of id: String) async throws -> [SegmentStatus] {
        try await call("GET", "v1/jobs/\(Self.segment(id))/segments")
    }

    /// `/healthz`'s status ("ok"); needs no token.
    public func health() async throws -> String {
        struct Health: Decodable { var status: String }
        let answer: Health = try await call("GET", "healthz")
        return answer.status
    }

    private func encode(_ value: some Encodable) throws -> Data {
        do {
            return try JSONEncoder().encode(value)
        } catch {
            throw ClientError(.cannotRead, "cannot encode the request: \(error)")
        }
    }

    /// A job id as one path segment ("/" and other reserved characters percent-encoded).
    static func segment(_ id: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#%")
        return id.addingPercentEncoding(withAllowedCharacters: allowed) ?? id
    }
}
