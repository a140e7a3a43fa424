/// What the pictures of a video stream that does not say it is interlaced show of their fields: the
/// counts of libavfilter's idet over its first frames (multiple-frame detection), as a broadcast QC tool
/// reports unflagged interlacing.
public struct FieldScan: Sendable, Hashable, Codable {
    public var frames: Int
    public var topFieldFirst: Int
    public var bottomFieldFirst: Int
    public var progressive: Int
    public var undetermined: Int

    public init(frames: Int, topFieldFirst: Int, bottomFieldFirst: Int, progressive: Int, undetermined: Int) {
        self.frames = frames
        self.topFieldFirst = topFieldFirst
        self.bottomFieldFirst = bottomFieldFirst
        self.progressive = progressive
        self.undetermined = undetermined
    }

    /// The field order most of the decided frames show (`tt` or `bb` when interlaced frames outnumber
    /// progressive ones), or nil when fewer than a quarter of the frames (and fewer than 4) were decided.
    public var detected: FieldOrder? {
        let interlaced = topFieldFirst + bottomFieldFirst
        guard interlaced + progressive >= max(4, frames / 4) else { return nil }
        guard interlaced > progressive else { return .progressive }
        return topFieldFirst >= bottomFieldFirst ? .tt : .bb
    }
}
