import Foundation
import Hummingbird
import TesseraCore

extension HTTPAPI {
    /// The route table. Middleware is added before the routes it must wrap.
    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        let service = self.service
        router.add(middleware: ErrorBodyMiddleware())

        router.get("healthz") { _, _ in try JSONBody.response(["status": "ok"]) }
        router.get("metrics") { _, _ in MetricsText.response(for: await service.metrics()) }

        let v1 = router.group("v1").add(middleware: BearerAuthMiddleware(token: token))
        v1.post("jobs") { request, _ in
            let job = try await service.submit(try await JSONBody.decode(JobRequest.self, from: request))
            return try JSONBody.response(job, status: .created)
        }
        v1.get("jobs") { _, _ in try JSONBody.response(try await service.jobs()) }
        v1.get("jobs/{id}") { _, context in
            try JSONBody.response(try await service.job(try context.parameters.require("id")))
        }
        v1.post("jobs/{id}/cancel") { _, context in
            try JSONBody.response(try await service.cancel(try context.parameters.require("id")))
        }
        v1.get("jobs/{id}/output") { _, context in
            let file = try await service.outputFile(of: try context.parameters.require("id"))
            return try await OutputDownload.response(for: file, context: context)
        }
        v1.get("workers") { _, _ in try JSONBody.response(await service.workers()) }
        let uploads = UploadReceiver(service: service, maxBytes: maxUploadBytes)
        v1.post("uploads") { request, context in try await uploads.receive(request, context: context) }
        return router
    }
}
