/// A time as reports write it in JSON: seconds for people and scripts, beside the exact rational that
/// parses back to the same time: `{"seconds": 2.5, "exact": "2500000/1000000"}`.
@propertyWrapper
public struct SecondsAndExact: Sendable, Hashable, Codable {
    public var wrappedValue: MediaTime

    public init(wrappedValue: MediaTime) { self.wrappedValue = wrappedValue }

    private enum CodingKeys: String, CodingKey { case seconds, exact }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        // A time that is not a number (indefinite) has no seconds JSON can carry.
        let seconds = wrappedValue.seconds
        if seconds.isFinite { try c.encode(seconds, forKey: .seconds) } else { try c.encodeNil(forKey: .seconds) }
        try c.encode(wrappedValue.description, forKey: .exact)
    }

    /// Reads the exact form; seconds alone when that is all there is.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let exact = try c.decodeIfPresent(String.self, forKey: .exact), let time = MediaTime(string: exact) {
            wrappedValue = time
        } else {
            wrappedValue = MediaTime(
                seconds: try c.decode(Double.self, forKey: .seconds), preferredTimescale: 1_000_000)
        }
    }
}

/// `SecondsAndExact` for a time that may be absent: absent from the JSON when nil.
@propertyWrapper
public struct OptionalSecondsAndExact: Sendable, Hashable, Codable {
    public var wrappedValue: MediaTime?

    public init(wrappedValue: MediaTime?) { self.wrappedValue = wrappedValue }

    public func encode(to encoder: any Encoder) throws {
        if let time = wrappedValue {
            try SecondsAndExact(wrappedValue: time).encode(to: encoder)
        } else {
            var c = encoder.singleValueContainer()
            try c.encodeNil()
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        wrappedValue = c.decodeNil() ? nil : try SecondsAndExact(from: decoder).wrappedValue
    }
}

extension KeyedEncodingContainer {
    /// Leaves the key out for nil, as a plain optional property would.
    public mutating func encode(_ value: OptionalSecondsAndExact, forKey key: Key) throws {
        if value.wrappedValue != nil { try encode(value as OptionalSecondsAndExact?, forKey: key) }
    }
}

extension KeyedDecodingContainer {
    /// A missing key is nil, as for a plain optional property.
    public func decode(_ type: OptionalSecondsAndExact.Type, forKey key: Key) throws -> OptionalSecondsAndExact {
        try decodeIfPresent(type, forKey: key) ?? OptionalSecondsAndExact(wrappedValue: nil)
    }
}
