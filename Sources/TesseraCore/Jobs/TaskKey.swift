/// One attempt at one segment of one job: what a worker holds. In JSON and logs "JOB/SEGMENT#ATTEMPT".
public struct TaskKey: Hashable, Sendable, TextCodable {
    public static let textForm = "JOB/SEGMENT#ATTEMPT"
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

    /// Reads "JOB/SEGMENT#ATTEMPT" (the segment follows the last '/'); nil for anything else.
    public init?(_ text: String) {
        guard let hash = text.lastIndex(of: "#"), let slash = text[..<hash].lastIndex(of: "/"),
            let segment = Int(text[text.index(after: slash)..<hash]),
            let attempt = Int(text[text.index(after: hash)...])
        else { return nil }
        self.init(job: String(text[..<slash]), segment: segment, attempt: attempt)
    }
}
