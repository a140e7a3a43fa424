import TesseraAV

/// Gives each video frame its duration: the gap to the next frame, and for the last one the gap to
/// the end of the range. Holds one frame back to know it; shared by the one-pass and segmented paths
/// so both time frames identically.
struct FrameDurations {
    private var held: Frame?

    /// Takes the next frame (in presentation order) and returns the previous one, its duration set.
    mutating func push(_ frame: Frame) -> Frame? {
        defer { held = frame }
        guard let previous = held else { return nil }
        let (gap, overflow) = frame.pts.subtractingReportingOverflow(previous.pts)
        previous.pointer.pointee.pkt_duration = overflow ? 0 : gap
        return previous
    }

    /// The last frame, running to `endTick` when that lies after it (else keeping its own duration).
    mutating func finish(endTick: Int64?) -> Frame? {
        defer { held = nil }
        guard let last = held else { return nil }
        if let end = endTick, end > last.pts { last.pointer.pointee.pkt_duration = end - last.pts }
        return last
    }
}
