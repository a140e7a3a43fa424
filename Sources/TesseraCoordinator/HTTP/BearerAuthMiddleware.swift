import Hummingbird

/// Checks `Authorization: Bearer <token>` on the routes it wraps; passes everything when no token is
/// configured. The comparison takes the same time wherever the tokens differ, so the answer's timing
/// does not reveal how much of a guess was right.
struct BearerAuthMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: String?

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    )
        async throws -> Response
    {
        guard let token else { return try await next(request, context) }
        guard let header = request.headers[.authorization] else {
            throw APIError.unauthorized("this coordinator needs a token: send Authorization: Bearer TOKEN")
        }
        let scheme = "bearer "
        guard header.count > scheme.count, header.prefix(scheme.count).lowercased() == scheme,
            Self.equalInConstantTime(Array(header.utf8.dropFirst(scheme.count)), Array(token.utf8))
        else {
            throw APIError.unauthorized("the token is not valid for this coordinator")
        }
        return try await next(request, context)
    }

    /// True when both byte strings are equal; the loop always runs over the longer one.
    static func equalInConstantTime(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt64(a.count ^ b.count)
        for i in 0..<max(a.count, b.count) {
            let x = i < a.count ? a[i] : 0, y = i < b.count ? b[i] : 0
            difference |= UInt64(x ^ y)
        }
        return difference == 0
    }
}
