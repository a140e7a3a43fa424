import Foundation
import Hummingbird
import TesseraCore

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

    /// - Throws: `APIError.unsupportedMediaType` unless the body is declared `application/json` (a browser
    ///   sends a cross-site `text/plain` or form body without asking first; JSON it must ask for);
    ///   `APIError.invalidRequest` for an empty body, bytes that are not JSON, or JSON that does
    ///   not fit `T` (naming the field and what was expected); `APIError.payloadTooLarge` past `maxBytes`.
    static func decode<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
        let declared = request.headers[.contentType].map { text in
            (text.split(separator: ";").first.map(String.init) ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard declared == "application/json" else {
            throw APIError.unsupportedMediaType(
                "the body must be sent as Content-Type: application/json, not "
                    + (declared.map { "'\($0.logSafe(limit: 64))'" } ?? "without a Content-Type"))
        }
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
        let data = Data(buffer.readableBytesView)
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let error as DecodingError {
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty,
                let number = unfitNumber(in: data, as: T.self)
            {
                throw APIError.invalidRequest("malformed \(T.self): \(number)")
            }
            throw APIError.invalidRequest("malformed \(T.self): \(describe(error))")
        }
    }

    /// Foundation's decoder answers a number that fits no Swift integer (`2^63`, `1.5` where a count goes)
    /// as "not valid JSON", with no field. When the body is valid JSON, this finds that number and names its
    /// field: the first integer beyond 64 bits, or else the first fraction whose replacement by 0 lets the
    /// body decode differently. Nil when neither explains the failure.
    static func unfitNumber<T: Decodable>(in data: Data, as type: T.Type) -> String? {
        guard let root = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else { return nil }
        var fractions: [[Any]] = []
        var found: String?
        func name(_ path: [Any]) -> String { path.map { "\($0)" }.joined(separator: ".") }
        func walk(_ value: Any, _ path: [Any]) {
            guard found == nil, fractions.count < 16 else { return }
            if let object = value as? [String: Any] {
                for key in object.keys.sorted() { walk(object[key]!, path + [key]) }
            } else if let array = value as? [Any] {
                for (i, item) in array.enumerated() { walk(item, path + [i]) }
            } else if let number = value as? NSNumber {
                let d = number.doubleValue
                if d.isFinite, d == d.rounded(), d >= 0x1p63 || d < -0x1p63 {
                    found = "'\(name(path))': \(number) does not fit a 64-bit integer"
                } else if d != d.rounded() {
                    fractions.append(path)
                }
            }
        }
        walk(root, [])
        if let found { return found }
        for path in fractions {
            guard let patched = replacing(path, in: root, with: 0),
                let bytes = try? JSONSerialization.data(withJSONObject: patched, options: [.fragmentsAllowed])
            else { continue }
            do {
                _ = try JSONDecoder().decode(T.self, from: bytes)
            } catch let DecodingError.dataCorrupted(context) where context.codingPath.isEmpty {
                continue
            } catch {}
            return "'\(name(path))' should be a whole number"
        }
        return nil
    }

    private static func replacing(_ path: [Any], in value: Any, with replacement: Any) -> Any? {
        guard let first = path.first else { return replacement }
        let rest = Array(path.dropFirst())
        if var object = value as? [String: Any], let key = first as? String, let inner = object[key] {
            object[key] = replacing(rest, in: inner, with: replacement)
            return object
        }
        if var array = value as? [Any], let i = first as? Int, array.indices.contains(i) {
            array[i] = replacing(rest, in: array[i], with: replacement) as Any
            return array
        }
        return nil
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
