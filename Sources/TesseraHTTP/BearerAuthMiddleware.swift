import Hummingbird

/// Lets through the routes it wraps only what `HTTPAuth` accepts: a bearer token or a session cookie
/// (everything when no token is configured).
struct BearerAuthMiddleware<Context: RequestContext>: RouterMiddleware {
    let auth: HTTPAuth

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    )
        async throws -> Response
    {
        try auth.check(request)
        return try await next(request, context)
    }
}
