/// A value JSON carries as one string: its `description`, read back by `init?(_:)`.
public protocol TextCodable: Codable, CustomStringConvertible {
    init?(_ text: String)
    /// How the string is written, for the error a malformed one gets ("JOB/SEGMENT#ATTEMPT").
    static var textForm: String { get }
}

extension TextCodable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = Self(text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "not \(Self.textForm)"))
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
