import Foundation
import Hummingbird
import TesseraCore

/// Refuses every request that would change something (any method but GET, HEAD and OPTIONS) when the
/// browser that sent it says it comes from another site: `Sec-Fetch-Site` other than `same-origin` or
/// `none`, or an `Origin` that is not the host the request was sent to. With or without a token: a page
/// elsewhere can make a browser send a `no-cors` POST (a form, or `text/plain` "JSON") to a coordinator it
/// can reach, and a coordinator started without a token would otherwise obey it. Scripts and the CLI send
/// neither header and pass; the dashboard's own page sends both, naming its own origin.
struct CrossSiteGuardMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    )
        async throws -> Response
    {
        if let why = Self.refusal(request) { throw HTTPError(.forbidden, message: why) }
        return try await next(request, context)
    }

    /// Why `request` is refused as cross-site; nil when it may go on.
    static func refusal(_ request: Request) -> String? {
        guard ![.get, .head, .options].contains(request.method) else { return nil }
        if let site = request.headers[secFetchSite]?.lowercased(), site != "same-origin", site != "none" {
            return "a \(request.method) sent from another site (Sec-Fetch-Site: \(site.logSafe(limit: 32))) "
                + "changes nothing here; use the coordinator's own page, the CLI or the API"
        }
        if let origin = request.headers[.origin] {
            let host = request.head.authority?.lowercased()
            guard let host, authority(ofOrigin: origin) == host else {
                return "a \(request.method) from \(origin.logSafe(limit: 80)) changes nothing here: only the "
                    + "coordinator's own page (\(host?.logSafe(limit: 80) ?? "its host")) may send one from a browser"
            }
        }
        return nil
    }

    /// `host[:port]` of an `Origin` value, lower-cased; nil for `null` or anything that is not a URL.
    static func authority(ofOrigin origin: String) -> String? {
        guard let url = URL(string: origin), let host = url.host, !host.isEmpty else { return nil }
        return (host + (url.port.map { ":\($0)" } ?? "")).lowercased()
    }
}

/// Where a browser says which site a request comes from (Fetch Metadata).
private let secFetchSite = HTTPFields.Element.Name("Sec-Fetch-Site")!
