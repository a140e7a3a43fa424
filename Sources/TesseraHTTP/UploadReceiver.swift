import Foundation
import Hummingbird
import NIOConcurrencyHelpers
import TesseraCore
import _NIOFileSystem

/// `POST /v1/uploads?filename=NAME`: streams the raw body to a temporary file in the service's
/// staging folder (chunk by chunk, never whole in memory), then hands it to `adoptUpload`.
///
/// Over the limit (413), on a dropped connection (400), when the data folder is full (507), or when the
/// service refuses the file, the temporary file is removed before the error answer goes out.
struct UploadReceiver: Sendable {
    let service: any FarmService
    let maxBytes: Int64

    struct Answer: Codable { var uploadID: String }

    func receive(_ request: Request, context: some RequestContext) async throws -> Response {
        let filename = try Self.filename(request.uri.queryParameters["filename"].map(String.init))
        if let declared = request.headers[.contentLength].flatMap({ Int64($0) }), declared > maxBytes {
            throw tooLarge
        }
        let staging = service.uploadStaging
        let temporary = staging.appendingPathComponent(".upload-\(UUID().uuidString).partial")
        do {
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        } catch {
            throw FarmError(.internalError, "cannot create the upload folder \(staging.path): \(error)")
        }
        let body = SizeLimitedBody(base: request.body, limit: maxBytes)
        do {
            // Where the file system allows, NIO writes to an unnamed file and links it at `temporary`
            // only once complete, so even a crash mid-upload leaves nothing behind.
            try await FileIO().writeFile(contents: body, path: temporary.path, context: context)
            let size = (try? FileManager.default.attributesOfItem(atPath: temporary.path)[.size] as? Int) ?? 0
            guard size > 0 else { throw FarmError(.invalidRequest, "the upload is empty: send the file as the body") }
            let id = try await service.adoptUpload(temporary, filename: filename)
            return try JSONBody.response(Answer(uploadID: id), status: .created)
        } catch {
            // One unlink: quick enough for the cooperative pool. The service may already have moved it.
            try? FileManager.default.removeItem(at: temporary)
            switch body.outcome.withLockedValue({ $0 }) {
            case .tooLarge: throw tooLarge
            case .cutOff(let received):
                throw APIError.invalidRequest("the upload was cut off after \(received) bytes")
            case .flowing where error is FarmError: throw error
            case .flowing:
                // What Hummingbird's FileIO throws when a write finds the disk full.
                if let fs = error as? FileSystemError, let call = fs.cause as? FileSystemError.SystemCallError,
                    [ENOSPC, EDQUOT].contains(call.errno.rawValue)
                {
                    throw APIError.insufficientStorage(
                        "the coordinator's data folder is full (\(staging.deletingLastPathComponent().path)): "
                            + "the upload was not kept")
                }
                throw FarmError(.internalError, "cannot store the upload: \(error)")
            }
        }
    }

    private var tooLarge: APIError {
        .payloadTooLarge("the upload is larger than this coordinator accepts (\(maxBytes) bytes)")
    }

    /// - Throws: `APIError.invalidRequest` when the name is missing, empty, a path, or not a plain file name.
    static func filename(_ raw: String?) throws -> String {
        guard let name = raw, !name.isEmpty else {
            throw APIError.invalidRequest("name the file: POST /v1/uploads?filename=NAME")
        }
        guard !name.contains("/"), !name.contains("\0"), name != ".", name != "..",
            name.utf8.count <= JobRequestLimits.outputNameBytes
        else {
            throw APIError.invalidRequest(
                "\(JobRequestError.quoted(name)) is not a plain file name (no '/', at most "
                    + "\(JobRequestLimits.outputNameBytes) bytes)")
        }
        return name
    }
}

/// A request body that throws once more than `limit` bytes have arrived, so a client without (or
/// lying in) Content-Length cannot fill the disk. `outcome` tells afterwards whether a failure came
/// from the body (too large, connection cut) rather than from the disk.
struct SizeLimitedBody<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == ByteBuffer {
    typealias Element = ByteBuffer
    enum Outcome: Sendable { case flowing, tooLarge, cutOff(received: Int64) }
    struct LimitExceeded: Error {}

    let base: Base
    let limit: Int64
    /// Shared between the body and its iterator, which the file writer drives on another task.
    let outcome = NIOLockedValueBox(Outcome.flowing)

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let limit: Int64
        let outcome: NIOLockedValueBox<Outcome>
        var received: Int64 = 0

        mutating func next() async throws -> ByteBuffer? {
            let chunk: ByteBuffer?
            do {
                chunk = try await base.next()
            } catch {
                outcome.withLockedValue { $0 = .cutOff(received: received) }
                throw error
            }
            guard let chunk else { return nil }
            received += Int64(chunk.readableBytes)
            if received > limit {
                outcome.withLockedValue { $0 = .tooLarge }
                throw LimitExceeded()
            }
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), limit: limit, outcome: outcome)
    }
}
