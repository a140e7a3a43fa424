/// A half-open range of media time, as CMTimeRange: `start` is inside, `end` is not.
public struct TimeRange: Sendable, Hashable, Codable {
    public var start: MediaTime
    public var duration: MediaTime

    public init(start: MediaTime, duration: MediaTime) {
        self.start = start
        self.duration = duration
    }
}
