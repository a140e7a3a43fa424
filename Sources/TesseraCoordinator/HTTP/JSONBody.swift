import Foundation
import Hummingbird

/// JSON in and out of the routes, with decoding failures turned into 400 answers that name the field.
enum JSONBody {
    /// Request bodies larger than this are refused before decoding (job requests are a few hundred bytes).
    static let maxBytes = 1 << 20

    static func response<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var buffer = ByteBuffer(data: try encoder.encode(value))
        buffer.writeString("\n")
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: buffer))
    }

    /// - Throws: `APIError.invalidRequest` for an empty body, bytes that are not JSON, or JSON that does
    ///   not fit `T` (naming the field and what was expected); `APIError.payloadTooLarge` past `maxBytes`.
    static func decode<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: maxBytes)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw APIError.payloadTooLarge("the JSON body is larger than \(maxBytes) bytes")
        } catch  where "\(Swift.type(of: error))" == "NIOTooManyBytesError" {
            // What `collect(upTo:)` throws when the body streams past the limit: the same 413, not a 500.
            // Matched by name: NIOCore, where the type lives, is not a direct dependency of this package.
            throw APIError.payloadTooLarge("the JSON body is larger than \(maxBytes) bytes")
        }
        guard buffer.readableBytes > 0 else {
            throw APIError.invalidRequest("the body is empty; expected a JSON \(T.self) object")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch let error as DecodingError {
            throw APIError.invalidRequest("malformed \(T.self): \(describe(error))")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "missing key '\(path(context.codingPath + [key]))'"
        case .typeMismatch(let type, let context):
            return "'\(path(context.codingPath))' should be \(jsonName(type))"
        case .valueNotFound(let type, let context):
            return "'\(path(context.codingPath))' is null but should be \(jsonName(type))"
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return "the body is not valid JSON"
        case .dataCorrupted(let context):
            return "'\(path(context.codingPath))': \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    /// Swift type names in the words a JSON author uses.
    private static func jsonName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int32.Type, is Int64.Type, is UInt64.Type: "an integer"
        case is Double.Type: "a number"
        case is [Any].Type: "an array"
        case is [String: Any].Type: "an object"
        default: "\(type)"
        }
    }
}
