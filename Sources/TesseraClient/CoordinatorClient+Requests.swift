import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Building requests and reading answers, shared by every API call.
extension CoordinatorClient {
    /// The error body every API error answer carries.
    struct ErrorBody: Decodable {
        var error: String
        var message: String
    }

    func request(_ method: String, _ path: String, query: [URLQueryItem] = []) throws -> URLRequest {
        var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)
        let base = components?.path ?? ""
        components?.percentEncodedPath = (base.hasSuffix("/") ? base : base + "/") + path
        if !query.isEmpty { components?.queryItems = query }
        guard let url = components?.url else {
            throw ClientError(.unreachable, "cannot reach the coordinator at \(baseURL.absoluteString) (not a URL)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        return request
    }

    /// Sends a JSON request and decodes a JSON answer.
    func call<T: Decodable>(
        _ method: String, _ path: String, query: [URLQueryItem] = [], body: Data? = nil
    ) async throws -> T {
        var request = try request(method, path, query: query)
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response): (Data, URLResponse)
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw ClientError.unreachable(baseURL, error)
        }
        return try decodeAnswer(data, response)
    }

    /// The value of a 2xx answer, or the ClientError an error answer stands for.
    func decodeAnswer<T: Decodable>(_ data: Data, _ response: URLResponse) throws -> T {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else { throw errorAnswer(status: status, body: data) }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw ClientError(
                .unexpectedAnswer,
                "unexpected answer from the coordinator at \(baseURL.absoluteString) "
                    + "(not a \(T.self): \(String(decoding: data.prefix(200), as: UTF8.self)))")
        }
    }

    /// The ClientError for an answer with an error status.
    func errorAnswer(status: Int, body: Data) -> ClientError {
        let server = try? JSONDecoder().decode(ErrorBody.self, from: body)
        if status == 401 {
            return ClientError(
                .unauthorized,
                token == nil
                    ? "the coordinator at \(baseURL.absoluteString) needs a token"
                    : "the coordinator refused the token")
        }
        if let server { return ClientError(.rejected(status: status, error: server.error), server.message) }
        let text = String(decoding: body.prefix(200), as: UTF8.self)
        return ClientError(
            .rejected(status: status, error: "http\(status)"),
            "the coordinator answered HTTP \(status)" + (text.isEmpty ? "" : ": \(text)"))
    }
}
