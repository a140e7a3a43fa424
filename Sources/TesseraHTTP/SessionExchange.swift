import Foundation
import Hummingbird

/// `POST /v1/session`: the token, in the body (`{"token": …}` as JSON, or `token=…` from the page's
/// sign-in form) or, without a body, in `Authorization: Bearer`, exchanged for a session cookie. The token never travels in
/// a URL. A form gets a redirect back to the page (`/`, or `/?login=failed`); anything else gets JSON.
enum SessionExchange {
    struct Answer: Codable, Sendable {
        var expiresInSeconds: Int
    }

    /// - Throws: `APIError.unauthorized` for a missing or wrong token (JSON callers);
    ///   `APIError.payloadTooLarge` for a body over 4 KiB.
    static func answer(_ request: Request, auth: HTTPAuth) async throws -> Response {
        let isForm = request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true
        let given = try await token(in: request, isForm: isForm)
        guard auth.token == nil || given.map(auth.accepts(token:)) == true else {
            if isForm { return redirect(to: "/?login=failed", cookie: nil) }
            throw APIError.unauthorized(
                given == nil
                    ? "send the token in Authorization: Bearer TOKEN or as {\"token\": TOKEN}"
                    : "the token is not valid for this coordinator")
        }
        let cookie = auth.openSession()
        if isForm { return redirect(to: "/", cookie: cookie) }
        var response = try JSONBody.response(Answer(expiresInSeconds: auth.sessionSeconds))
        response.headers[.setCookie] = cookie
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// The token from the body when the request has one (a Content-Type says so), else from the header.
    ///
    /// - Throws: `APIError.invalidRequest` for a JSON or form body that does not carry a token;
    ///   `APIError.payloadTooLarge` past 4 KiB.
    private static func token(in request: Request, isForm: Bool) async throws -> String? {
        guard isForm || request.headers[.contentType] != nil else {
            guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else {
                return nil
            }
            return String(header.dropFirst("bearer ".count))
        }
        let body: ByteBuffer
        do { body = try await request.body.collect(upTo: 4096) } catch {
            throw APIError.payloadTooLarge("a session request is a token, at most 4096 bytes")
        }
        let text = String(buffer: body)
        if isForm {
            for pair in text.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0] == "token",
                    let token = String(parts[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
                {
                    return token
                }
            }
            throw APIError.invalidRequest("the form carries no token field")
        }
        struct Body: Decodable { var token: String }
        guard let token = try? JSONDecoder().decode(Body.self, from: Data(text.utf8)).token else {
            throw APIError.invalidRequest("the body should be {\"token\": TOKEN}")
        }
        return token
    }

    private static func redirect(to location: String, cookie: String?) -> Response {
        var headers: HTTPFields = [.location: location, .cacheControl: "no-store"]
        if let cookie { headers[.setCookie] = cookie }
        return Response(status: .seeOther, headers: headers)
    }
}
