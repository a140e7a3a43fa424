import Foundation
import Hummingbird
import TesseraCore

extension HTTPAPI {
    /// The route table. Middleware is added before the routes it must wrap.
    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        let service = self.service
        let metrics = service.metrics
        // Outermost, so it counts the status ErrorBodyMiddleware answers with.
        router.add(middleware: HTTPMetricsMiddleware(metrics: metrics.http))
        router.add(middleware: ErrorBodyMiddleware())
        // Before every route, the dashboard's included: another site's page changes nothing here.
        router.add(middleware: CrossSiteGuardMiddleware())

        router.get("healthz") { _, _ in try JSONBody.response(["status": "ok"]) }
        router.get("metrics") { _, _ in
            await service.updateMetrics()
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
        }

        let auth = self.auth
        // Takes the token itself (header or body, never the URL), so it sits outside the token check.
        router.post("v1/session") { request, _ in try await SessionExchange.answer(request, auth: auth) }
        let v1 = router.group("v1").add(middleware: BearerAuthMiddleware(auth: auth))
        v1.post("jobs") { request, _ in
            let job = try await service.submit(try await JSONBody.decode(JobRequest.self, from: request))
            return try JSONBody.response(job, status: .created)
        }
        v1.get("jobs") { request, _ in
            let query = request.uri.queryParameters
            guard query["limit"] != nil || query["offset"] != nil else {
                return try JSONBody.response(try await service.jobs())
            }
            let limit = try Self.bounded(query["limit"].map(String.init), "limit", 1...Self.maxJobsPage, or: 50)
            let offset = try Self.bounded(query["offset"].map(String.init), "offset", 0...Int(Int32.max), or: 0)
            return try JSONBody.response(try await service.jobs(limit: limit, offset: offset))
        }
        v1.get("jobs/{id}") { _, context in
            try JSONBody.response(try await service.job(try context.parameters.require("id")))
        }
        v1.post("jobs/{id}/cancel") { _, context in
            try JSONBody.response(try await service.cancel(try context.parameters.require("id")))
        }
        v1.get("jobs/{id}/output") { request, context in
            let file = try await service.outputFile(of: try context.parameters.require("id"))
            return try await OutputDownload.response(for: file, request: request, context: context)
        }
        v1.get("jobs/{id}/package/**") { request, context in
            let path = context.parameters.getCatchAll().joined(separator: "/")
            let file = try await service.packageFile(of: try context.parameters.require("id"), path: path)
            return try await OutputDownload.response(for: file, request: request, context: context, inline: true)
        }
        // A source, for workers that read their tasks' packets over HTTP (`tessera worker --media-url`).
        v1.get("media/**") { request, context in
            let parts = context.parameters.getCatchAll().map { $0.removingPercentEncoding ?? String($0) }
            // Nothing is resolved against '.' or '..', whatever the service does with the rest.
            guard !parts.contains(where: { $0 == "." || $0 == ".." || $0.contains("/") }) else {
                throw FarmError(.forbidden, "a media path names no '.' or '..' component")
            }
            let file = try await service.mediaFile("/" + parts.joined(separator: "/"))
            var response = try await OutputDownload.response(for: file, request: request, context: context)
            // Counted as written: libavformat asks for open-ended ranges and closes once it has read
            // what it needs, so the bytes that leave are far fewer than the lengths announced.
            let (body, http) = (response.body, metrics.http)
            response.body = ResponseBody(contentLength: body.contentLength) { writer in
                try await body.write(
                    writer.map { buffer in
                        http.mediaServed(bytes: buffer.readableBytes)
                        return buffer
                    })
            }
            return response
        }
        v1.get("jobs/{id}/segments") { _, context in
            try JSONBody.response(try await service.segments(of: try context.parameters.require("id")))
        }
        v1.get("jobs/{id}/segments/{n}/thumbnail.png") { _, context in
            guard let index = Int(try context.parameters.require("n")) else {
                throw APIError.invalidRequest("the segment is its number in the plan, from 0")
            }
            let png = try await service.thumbnail(job: try context.parameters.require("id"), segment: index)
            return Response(
                status: .ok, headers: [.contentType: "image/png", .cacheControl: "private, max-age=3600"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: png)))
        }
        v1.get("workers") { _, _ in try JSONBody.response(await service.workers()) }
        v1.get("farm") { _, _ in try JSONBody.response(await service.summary()) }
        for action in WorkerControl.allCases {
            v1.post("workers/{id}/\(action.rawValue)") { _, context in
                try JSONBody.response(try await service.control(worker: try context.parameters.require("id"), action))
            }
        }
        let uploads = UploadReceiver(service: service, maxBytes: maxUploadBytes)
        v1.post("uploads") { request, context in try await uploads.receive(request, context: context) }
        for addition in additions { addition.addRoutes(to: router, auth: auth) }
        metrics.http.register(routes: router.routes.map { ("\($0.method)", "\($0.path)") })
        return router
    }

    /// The most jobs one page of `GET /v1/jobs?limit=` holds.
    static let maxJobsPage = 1000

    /// A whole-number query parameter within `range`, or `fallback` when absent.
    /// - Throws: `APIError.invalidRequest` naming the parameter.
    static func bounded(_ text: String?, _ name: String, _ range: ClosedRange<Int>, or fallback: Int) throws -> Int {
        guard let text else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw APIError.invalidRequest(
                "\(name): a whole number from \(range.lowerBound) to \(range.upperBound), not \(text.prefix(32))")
        }
        return value
    }
}
