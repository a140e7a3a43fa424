import Foundation
import Hummingbird
import TesseraCore
import TesseraHTTP

/// The live page at `/` and its event stream at `GET /v1/events`, added to the coordinator's HTTP API
/// from outside (`HTTPAPI.additions`); it reads the farm only through `FarmService`.
///
/// ```
///  GET /            ─▶ signed in (or no token)? the page, rendered from the latest snapshot
///                      otherwise a sign-in form that POSTs the token to /v1/session (body, never the URL)
///  GET /?page=N     ─▶ the page with finished jobs 50·(N−1)+1 … 50·N
///  GET /jobs/{id}   ─▶ one job: every segment with its attempts, worker, errors and thumbnail
///  GET /v1/events   ─▶ bearer token or session cookie, else 401; text/event-stream from `DashboardFeed`
/// ```
///
/// Every asset is inside the binary (`DashboardAssets`): the page makes no request elsewhere.
public struct Dashboard: HTTPAPIAddition {
    public let feed: DashboardFeed

    public init(feed: DashboardFeed) { self.feed = feed }

    public func addRoutes(to router: Router<BasicRequestContext>, auth: HTTPAuth) {
        let feed = self.feed
        router.get("/") { request, _ in
            let signedIn = (try? auth.check(request)) != nil
            let nonce = DashboardPage.nonce()
            let html: String
            if signedIn {
                let page = try Self.page(request.uri.queryParameters["page"].map(String.init))
                let snapshot = await feed.current()
                let older = page > 1 ? await Self.finished(feed.service, page: page) : nil
                html = DashboardPage.render(snapshot, page: page, olderJobs: older, nonce: nonce)
            } else {
                html = DashboardPage.signIn(failed: request.uri.queryParameters["login"] == "failed", nonce: nonce)
            }
            return Response(
                status: .ok,
                headers: [
                    .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                    .contentSecurityPolicy: DashboardPage.contentSecurityPolicy(nonce: nonce),
                ],
                body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
        }
        router.get("jobs/:id") { request, context in
            let nonce = DashboardPage.nonce()
            let headers: HTTPFields = [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                .contentSecurityPolicy: DashboardPage.contentSecurityPolicy(nonce: nonce),
            ]
            guard (try? auth.check(request)) != nil else {
                let html = DashboardPage.signIn(failed: false, nonce: nonce)
                return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
            }
            let id = context.parameters.get("id") ?? ""
            guard let job = try? await feed.service.job(id), let segments = try? await feed.service.segments(of: id)
            else {
                throw HTTPError(.notFound, message: "no job \(id.prefix(64))")
            }
            let html = DashboardPage.jobPage(
                DashboardSnapshot.Job(job), segments: segments, quality: job.quality, package: job.package, nonce: nonce
            )
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
        }
        router.get("v1/events") { request, _ in
            try auth.check(request)
            let (id, messages) = await feed.subscribe()
            return Response(
                status: .ok,
                headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
                body: ResponseBody { writer in
                    defer { feed.unsubscribe(id) }
                    // A client that stops reading blocks only this write; the feed drops it once its
                    // buffer is full, and nothing more is queued for it.
                    for await message in messages { try await writer.write(message) }
                    try await writer.finish(nil)
                })
        }
    }

    /// Far past any history a coordinator keeps, and far from overflowing the arithmetic on it.
    static let maxPage = 1_000_000

    /// - Throws: `HTTPError(.badRequest)` for a page that is not a whole number from 1 to `maxPage`.
    static func page(_ text: String?) throws -> Int {
        guard let text else { return 1 }
        guard let page = Int(text), (1...maxPage).contains(page) else {
            throw HTTPError(.badRequest, message: "page: a whole number from 1 to \(maxPage), not \(text.prefix(32))")
        }
        return page
    }

    /// Finished jobs of history page `page` (2 and up), newest first.
    static func finished(_ service: any FarmService, page: Int) async -> [DashboardSnapshot.Job] {
        let size = DashboardSnapshot.finishedShown
        let finished = (try? await service.recentJobs(finishedLimit: size, offset: (page - 1) * size))?.finished ?? []
        return finished.map(DashboardSnapshot.Job.init)
    }
}
