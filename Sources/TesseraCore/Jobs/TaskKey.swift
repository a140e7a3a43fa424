/// One attempt at one segment of one job: what a worker holds. In JSON and logs "JOB/SEGMENT#ATTEMPT".
public struct TaskKey: Hashable, Sendable, Codable, CustomStringConvertible {
    public var job: String
    public var segment: Int
    public var attempt: Int

    public init(job: String, segment: Int, attempt: Int) {
        self.job = job
        self.segment = segment
        self.attempt = attempt
    }

    /// "JOB/SEGMENT#ATTEMPT", as logs and `tessera workers` show it.
    public var description: String { "\(job)/\(segment)#\(attempt)" }

    /// Reads "JOB/SEGMENT#ATTEMPT" (a job id holds no '/' or '#'); nil for anything else.
    public init?(_ text: String) {
        guard let hash = text.lastIndex(of: "#"), let slash = text[..<hash].lastIndex(of: "/"),
            let segment = Int(text[text.index(after: slash)..<hash]),
            let attempt = Int(text[text.index(after: hash)...])
        else { return nil }
        self.init(job: String(text[..<slash]), segment: segment, attempt: attempt)
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let key = TaskKey(text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "not JOB/SEGMENT#ATTEMPT"))
        }
        self = key
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
