/// How a segment of a retimed export makes its frames: the job's whole time map (a few pieces), the
/// output frame duration, the frame selection, and how the source stream's ticks become source time.
///
/// A retimed segment produces output frames `spec.outputFrames` = `[a, b)` of the constant grid
/// k·frameDuration, each showing the source frame that `selection` chooses at the map's source time
/// for k, exactly as a one-pass export would: the segment is fed the source frames from the one on
/// screen at instant a's source time to the first one after instant b − 1's (`spec.presentationRange`).
/// Its packets carry `pts = k` in ticks of `frameDuration`.
public struct SegmentRetime: Sendable, Hashable {
    public var map: TimeMap
    public var frameDuration: Rational
    public var selection: FrameSelection
    /// The source time (seconds on the asset's timeline) of `rangeStartTick`: the export's range start.
    public var origin: Rational
    /// The source stream's tick at the export's range start. A frame before it (the one on screen at the
    /// start) is shown as if it were at it, as the one-pass reader's gate does.
    public var rangeStartTick: Int64

    public init(
        map: TimeMap, frameDuration: Rational, selection: FrameSelection, origin: Rational, rangeStartTick: Int64
    ) {
        self.map = map
        self.frameDuration = frameDuration
        self.selection = selection
        self.origin = origin
        self.rangeStartTick = rangeStartTick
    }

    /// The most output frames a retimed export may have: 2^24, about 155 hours at 30 fps.
    public static let maxFrames = 1 << 24

    /// The first instant the map holds: 0, or for a run of a composition the first at or after its start.
    public var firstFrame: Int64 { ((map.pieces.first?.outputStart ?? .zero) / frameDuration).ceiling ?? 0 }

    /// ⌈map.outputDuration / frameDuration⌉: the frames of the whole export.
    public var frameCount: Int64 { (map.outputDuration / frameDuration).ceiling ?? 0 }

    /// The source time output frame `k` shows (the map's end past it).
    public func sourceTime(ofFrame k: Int64) -> Rational { map.source(atFrame: k, frameDuration: frameDuration) }

    /// The source time of a frame at source tick `tick` (time base `timeBase` seconds per tick).
    public func sourceTime(ofTick tick: Int64, timeBase: Rational) -> Rational {
        let (offset, overflow) = max(tick, rangeStartTick).subtractingReportingOverflow(rangeStartTick)
        return overflow ? .invalid : origin + Rational(offset) * timeBase
    }

    /// The source frames that output instants `instants` can show, of those presented at `ticks` (source
    /// stream ticks, any order, time base `timeBase` seconds): for each instant the frame on screen at its
    /// source time, and with `nearest` or `blend` the one after it. The rest need not be decoded unless
    /// other frames refer to them. Nil when a time cannot be computed exactly (then decode them all).
    public func framesShown(ticks: [Int64], timeBase: Rational, instants: Range<Int64>) -> Set<Int64>? {
        let sorted = Array(Set(ticks)).sorted()
        let times = sorted.map { sourceTime(ofTick: $0, timeBase: timeBase) }
        // A packet without a time (libav's AV_NOPTS_VALUE) is timed by the decoder: decode them all.
        guard !sorted.isEmpty, sorted[0] != Int64.min, times.allSatisfy(\.isValid) else { return nil }
        var shown = Set<Int64>()
        var f = 0
        for k in instants {
            let s = sourceTime(ofFrame: k)
            guard s.isValid else { return nil }
            while f + 1 < sorted.count, times[f + 1] <= s { f += 1 }
            shown.insert(sorted[f])
            if selection != .hold, f + 1 < sorted.count { shown.insert(sorted[f + 1]) }
        }
        return shown
    }

}
