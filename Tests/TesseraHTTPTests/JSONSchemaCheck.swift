import Foundation

/// Any JSON value, decoded without Foundation's number/bool ambiguity.
enum JSONValue: Decodable, Equatable {
    case null, bool(Bool), integer(Int64), number(Double), string(String), array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? c.decode(Int64.self) {
            self = .integer(i)
        } else if let d = try? c.decode(Double.self) {
            self = .number(d)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: JSONValue].self))
        }
    }

    subscript(key: String) -> JSONValue? { object?[key] }
    var object: [String: JSONValue]? { if case .object(let o) = self { o } else { nil } }
    var string: String? { if case .string(let s) = self { s } else { nil } }
    var array: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
}

/// The part of JSON Schema that openapi.yaml uses: $ref, oneOf, type, properties (no others allowed),
/// required, items, enum. Records which properties of each named schema a value used.
struct SchemaChecker {
    let schemas: [String: JSONValue]
    private(set) var seen: [String: Set<String>] = [:]

    init(schemas: [String: JSONValue]) { self.schemas = schemas }

    /// The property names a named schema lists, over all its oneOf branches.
    func properties(of name: String) -> Set<String> {
        guard let schema = schemas[name] else { return [] }
        let branches = schema["oneOf"]?.array ?? [schema]
        return Set(branches.flatMap { $0["properties"]?.object?.keys.map { $0 } ?? [] })
    }

    /// Problems found (empty when `value` fits `schema`).
    mutating func check(
        _ value: JSONValue, against schema: JSONValue, name: String = "", path: String = "$"
    )
        -> [String]
    {
        if let ref = schema["$ref"]?.string {
            let target = String(ref.split(separator: "/").last ?? "")
            guard let resolved = schemas[target] else { return ["\(path): unknown $ref \(ref)"] }
            return check(value, against: resolved, name: target, path: path)
        }
        if let branches = schema["oneOf"]?.array {
            var fitting: [SchemaChecker] = []
            for branch in branches {
                var trial = self
                if trial.check(value, against: branch, name: name, path: path).isEmpty { fitting.append(trial) }
            }
            guard fitting.count == 1, let winner = fitting.first else {
                return ["\(path): fits \(fitting.count) of the oneOf branches of \(name)"]
            }
            self = winner
            return []
        }
        if let allowed = schema["enum"]?.array, !allowed.contains(value) { return ["\(path): \(value) not in enum"] }
        switch (schema["type"]?.string, value) {
        case ("string", .string), ("boolean", .bool), ("integer", .integer), ("number", .integer),
            ("number", .number), (nil, _):
            return []
        case ("array", .array(let items)):
            guard let itemSchema = schema["items"] else { return [] }
            var problems: [String] = []
            for (index, item) in items.enumerated() {
                problems += check(item, against: itemSchema, path: "\(path)[\(index)]")
            }
            return problems
        case ("object", .object(let fields)):
            let properties = schema["properties"]?.object ?? [:]
            var problems = (schema["required"]?.array ?? []).compactMap(\.string).filter { fields[$0] == nil }
                .map { "\(path): missing required \($0)" }
            // `additionalProperties: true` opens the object (the spec's composition, checked by its own schema).
            let open = schema["additionalProperties"] == .bool(true)
            for (key, field) in fields {
                guard let fieldSchema = properties[key] else {
                    if !open { problems.append("\(path): \(key) is not in the schema") }
                    continue
                }
                seen[name, default: []].insert(key)
                problems += check(field, against: fieldSchema, path: "\(path).\(key)")
            }
            return problems
        default:
            return ["\(path): \(value) is not of type \(schema["type"]?.string ?? "?")"]
        }
    }
}
