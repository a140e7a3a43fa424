/// Codable as a keyed object `{"value": 1001, "timescale": 30000, "flags": 1, "epoch": 0}` (flags as the
/// raw bit set), which keeps every field. Decoding also accepts a string in any form `init?(string:)`
/// reads, so hand-written job specs can say `"2.5s"` or `"90f@30000/1001"`, and a keyed object that
/// leaves out `flags` (meaning valid) or `epoch` (meaning 0).
extension MediaTime {
    private enum CodingKeys: String, CodingKey {
        case value, timescale, flags, epoch
    }

    /// - Throws: `DecodingError.dataCorrupted` for a string `init?(string:)` rejects, and the keyed
    ///   container's errors for a missing or mistyped `value` or `timescale`.
    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let text = try? single.decode(String.self) {
            guard let time = MediaTime(string: text) else {
                throw DecodingError.dataCorruptedError(
                    in: single,
                    debugDescription: "\"\(text)\" is not a media time (try \"1001/30000\", \"2.5s\", "
                        + "\"00:01:02.500\", \"90f@30000/1001\", \"+inf\", \"indefinite\" or \"invalid\")")
            }
            self = time
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            value: try container.decode(Int64.self, forKey: .value),
            timescale: try container.decode(Int32.self, forKey: .timescale),
            flags: try container.decodeIfPresent(Flags.self, forKey: .flags) ?? .valid,
            epoch: try container.decodeIfPresent(Int64.self, forKey: .epoch) ?? 0)
    }

    /// Writes the keyed form, with every field.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(value, forKey: .value)
        try container.encode(timescale, forKey: .timescale)
        try container.encode(flags, forKey: .flags)
        try container.encode(epoch, forKey: .epoch)
    }
}
