/// Which source frame an output instant of a constant-frame-rate export shows.
public enum FrameSelection: String, Sendable, Hashable, Codable, CaseIterable {
    /// The frame on screen at the mapped source time: the latest whose PTS ≤ it (sample-and-hold, as
    /// AVFoundation's compositor does). The first frame for a time before it.
    case hold
    /// The frame whose PTS is closest to the mapped time; half way between two, the later one.
    case nearest
    /// The two neighbouring frames mixed by their distance to the mapped time.
    case blend

    /// What an output instant at source time `t` shows, given the source frames' presentation times
    /// `pts` (sorted ascending, not empty): `first`, and for `blend` the `second` frame with the weight
    /// of `second` (0 ≤ weight < 1; nil when `t` falls exactly on a frame or past the last).
    public func choose(_ t: Rational, in pts: [Rational]) -> (first: Int, second: Int?, weight: Rational) {
        precondition(!pts.isEmpty, "no source frames")
        // The latest frame with PTS ≤ t (binary search), or the first.
        var (low, high) = (0, pts.count - 1)
        if t < pts[0] { return (0, nil, .zero) }
        while low < high {
            let mid = (low + high + 1) / 2
            if pts[mid] <= t { low = mid } else { high = mid - 1 }
        }
        let held = low
        guard held + 1 < pts.count, pts[held] != t else { return (held, nil, .zero) }
        let next = held + 1
        switch self {
        case .hold:
            return (held, nil, .zero)
        case .nearest:
            return (t - pts[held] < pts[next] - t ? held : next, nil, .zero)
        case .blend:
            return (held, next, (t - pts[held]) / (pts[next] - pts[held]))
        }
    }
}
