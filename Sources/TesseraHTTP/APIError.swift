import Hummingbird

/// An error the HTTP layer itself answers (bad token, malformed body, too large), as opposed to the
/// `FarmError`s the service throws. Both reach clients as `{"error": kind, "message": …}`.
struct APIError: Error, Sendable, CustomStringConvertible {
    var status: HTTPResponse.Status
    /// Machine-readable: "unauthorized", "invalidRequest", "payloadTooLarge", …
    var kind: String
    var message: String

    var description: String { message }

    static func unauthorized(_ message: String) -> APIError {
        APIError(status: .unauthorized, kind: "unauthorized", message: message)
    }

    static func invalidRequest(_ message: String) -> APIError {
        APIError(status: .badRequest, kind: "invalidRequest", message: message)
    }

    static func insufficientStorage(_ message: String) -> APIError {
        APIError(
            status: HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage"), kind: "insufficientStorage",
            message: message)
    }

    static func unsupportedMediaType(_ message: String) -> APIError {
        APIError(status: .unsupportedMediaType, kind: "unsupportedMediaType", message: message)
    }

    static func payloadTooLarge(_ message: String) -> APIError {
        APIError(status: .contentTooLarge, kind: "payloadTooLarge", message: message)
    }
}

/// The JSON body of every error answer.
struct ErrorBody: Codable, Sendable {
    var error: String
    var message: String
}

/// Turns whatever a route throws into a JSON error answer with the right status, so clients never
/// see Hummingbird's empty 500 or plain-text 404.
struct ErrorBodyMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    )
        async throws -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as FarmError {
            return try Self.answer(HTTPResponse.Status(code: error.httpStatus), error.kind.rawValue, error.message)
        } catch let error as APIError {
            return try Self.answer(error.status, error.kind, error.message)
        } catch let error as HTTPError {
            if error.status == .notFound, let allowed = RouteMethods.allowed(path: request.uri.path),
                !allowed.contains(request.method.rawValue)
            {
                var answer = try Self.answer(
                    .methodNotAllowed, "methodNotAllowed",
                    "\(request.uri.path) answers \(allowed.joined(separator: ", ")), not \(request.method)")
                answer.headers[.allow] = allowed.joined(separator: ", ")
                return answer
            }
            let message =
                error.body
                ?? (error.status == .notFound
                    ? "no route \(request.method) \(request.uri.path)" : error.status.reasonPhrase)
            return try Self.answer(error.status, Self.kind(of: error.status), message)
        } catch {
            context.logger.error("request failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            return try Self.answer(.internalServerError, "internalError", "\(error)")
        }
    }

    static func answer(_ status: HTTPResponse.Status, _ kind: String, _ message: String) throws -> Response {
        try JSONBody.response(ErrorBody(error: kind, message: message), status: status)
    }

    static func kind(of status: HTTPResponse.Status) -> String {
        switch status.code {
        case 400: "invalidRequest"
        case 401: "unauthorized"
        case 403: "forbidden"
        case 404: "notFound"
        case 405: "methodNotAllowed"
        case 409: "conflict"
        case 413: "payloadTooLarge"
        case 415: "unsupportedMediaType"
        case 507: "insufficientStorage"
        case 503: "unavailable"
        default: "internalError"
        }
    }
}
