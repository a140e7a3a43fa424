import Foundation
import Logging
import TesseraClient
import TesseraCoordinator
import TesseraHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The real Hummingbird server on 127.0.0.1 (ephemeral port) over a `MemoryFarm`, stopped by
/// cancelling its task as `HTTPAPI` documents.
struct TestServer {
    let farm: MemoryFarm
    let port: Int
    let task: Task<Void, any Error>
    let token: String?

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    static func start(
        token: String? = nil, maxUploadBytes: Int64 = 64 << 30, shutdownGrace: Duration = .seconds(10),
        farm: MemoryFarm? = nil, additions: [any HTTPAPIAddition] = []
    )
        async throws -> TestServer
    {
        let farm = try farm ?? MemoryFarm()
        var logger = Logger(label: "tessera.http.test")
        logger.logLevel = .warning
        let api = HTTPAPI(
            service: farm, token: token, maxUploadBytes: maxUploadBytes, shutdownGrace: shutdownGrace,
            additions: additions, logger: logger)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task {
            defer { continuation.finish() }
            try await api.run(host: "127.0.0.1", port: 0) { continuation.yield($0) }
        }
        guard let port = await ports.first(where: { _ in true }) else {
            _ = try await task.value
            throw CocoaError(.featureUnsupported)
        }
        return TestServer(farm: farm, port: port, task: task, token: token)
    }

    /// A client with the server's token (or the one given).
    func client(token: String?? = .none) -> CoordinatorClient {
        CoordinatorClient(baseURL: baseURL, token: token ?? self.token)
    }

    func stop() async {
        task.cancel()
        _ = try? await task.value
        farm.remove()
    }

    /// One request without CoordinatorClient, for what the client hides: statuses, headers, raw bodies.
    func raw(
        _ method: String, _ path: String, body: Data? = nil, headers: [String: String] = [:]
    )
        async throws -> (status: Int, headers: [String: String], body: Data)
    {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            fields[String(describing: name).lowercased()] = String(describing: value)
        }
        return (http.statusCode, fields, data)
    }
}

/// The JSON error body every error answer carries.
struct ErrorAnswer: Decodable, Equatable {
    var error: String
    var message: String
}

extension Data {
    func errorAnswer() throws -> ErrorAnswer { try JSONDecoder().decode(ErrorAnswer.self, from: self) }
}
