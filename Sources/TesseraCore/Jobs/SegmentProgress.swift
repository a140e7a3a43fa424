/// A worker's report on a segment in flight, for progress bars and dashboards.
public struct SegmentProgress: Sendable, Hashable, Codable {
    public var segment: Int
    public var framesDone: Int
    public var framesTotal: Int

    public init(segment: Int, framesDone: Int, framesTotal: Int) {
        self.segment = segment
        self.framesDone = framesDone
        self.framesTotal = framesTotal
    }
}
