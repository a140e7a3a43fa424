/// Codable as a keyed object `{"start": …, "duration": …}` with each time in `MediaTime`'s Codable form.
/// Decoding also accepts `{"start": …, "end": …}` and a string in any form `init?(string:)` reads, so a
/// job spec can say `"range": "1s-4s"` or `{"start": "1s", "end": "4s"}`.
extension TimeRange {
    private enum CodingKeys: String, CodingKey {
        case start, duration, end
    }

    /// - Throws: `DecodingError.dataCorrupted` for a string `init?(string:)` rejects; the keyed container's
    ///   errors for a missing `start`, or when neither `duration` nor `end` is present.
    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let text = try? single.decode(String.self) {
            guard let range = TimeRange(string: text) else {
                throw DecodingError.dataCorruptedError(
                    in: single, debugDescription: "\"\(text)\" is not a time range (try \"1s-4s\")")
            }
            self = range
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let start = try container.decode(MediaTime.self, forKey: .start)
        if let end = try container.decodeIfPresent(MediaTime.self, forKey: .end),
            !container.contains(.duration)
        {
            self.init(start: start, end: end)
        } else {
            self.init(start: start, duration: try container.decode(MediaTime.self, forKey: .duration))
        }
    }

    /// Writes the keyed form `{"start": …, "duration": …}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(start, forKey: .start)
        try container.encode(duration, forKey: .duration)
    }
}
