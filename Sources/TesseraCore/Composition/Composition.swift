/// A timeline made of ranges of one or more assets, as AVMutableComposition's video and audio tracks
/// together: `insertTimeRange(_:of:at:)`, `insertEmptyTimeRange`, `removeTimeRange`,
/// `scaleTimeRange(_:toDuration:)`, and what AVFoundation lacks: a freeze frame and a linear speed
/// ramp. Every edit names output (composition) time, and every time is exact (`Rational` seconds).
///
/// The timeline is a list of segments contiguous from 0, each a piece of an asset (`TimeMap.Piece`:
/// linear, ramp or freeze) or empty (black and silent). Edits split the segments they cut: a linear
/// piece in proportion, a ramp at the speed it has reached there (so each half keeps the exact
/// integral), a freeze or an empty range by duration.
public struct Composition: Sendable, Hashable {
    public enum Segment: Sendable, Hashable {
        case media(TimeMap.Piece)
        case empty(start: Rational, duration: Rational)

        public var start: Rational {
            switch self {
            case .media(let p): p.outputStart
            case .empty(let start, _): start
            }
        }
        public var duration: Rational {
            switch self {
            case .media(let p): p.outputDuration
            case .empty(_, let d): d
            }
        }
        public var end: Rational { start + duration }

        func moved(to start: Rational) -> Segment {
            switch self {
            case .media(var p):
                p.outputStart = start
                return .media(p)
            case .empty(_, let d): return .empty(start: start, duration: d)
            }
        }

        /// The two halves at output offset `u` (0 < u < duration).
        func split(at u: Rational) -> (Segment, Segment) {
            switch self {
            case .empty(let start, let d):
                return (.empty(start: start, duration: u), .empty(start: start + u, duration: d - u))
            case .media(let p):
                var a = p, b = p
                a.outputDuration = u
                b.outputStart = p.outputStart + u
                b.outputDuration = p.outputDuration - u
                switch p.motion {
                case .freeze:
                    break
                case .linear:
                    a.sourceDuration = p.sourceDuration * u / p.outputDuration
                case .ramp(let r0, let r1):
                    let reached = p.speed(atOffset: u)
                    a.motion = .ramp(from: r0, to: reached)
                    b.motion = .ramp(from: reached, to: r1)
                    a.sourceDuration = p.source(atOffset: u) - p.sourceStart
                }
                if p.motion != .freeze {
                    b.sourceStart = p.sourceStart + a.sourceDuration
                    b.sourceDuration = p.sourceDuration - a.sourceDuration
                }
                return (.media(a), .media(b))
            }
        }
    }

    /// The assets' durations, by index; `insertTimeRange` keeps within them.
    public private(set) var assetDurations: [Rational]
    public private(set) var segments: [Segment] = []

    public init(assetDurations: [Rational]) {
        self.assetDurations = assetDurations
    }

    public var duration: Rational { segments.last?.end ?? .zero }

    /// The media pieces as a time map (empty ranges left out): what each output instant shows.
    public var mediaPieces: [TimeMap.Piece] {
        segments.compactMap {
            if case .media(let p) = $0 { return p }
            return nil
        }
    }

    // MARK: Edits

    /// Inserts `duration` of asset `asset` from source time `start` at output time `at` (≤ duration).
    public mutating func insertTimeRange(
        start: Rational, duration: Rational, of asset: Int, at: Rational, field: String
    ) throws(JobRequestError) {
        guard assetDurations.indices.contains(asset) else {
            throw JobRequestError(field: field, "names asset \(asset); the spec has \(assetDurations.count)")
        }
        guard start >= .zero, duration > .zero, start + duration <= assetDurations[asset] else {
            throw JobRequestError(
                field: field,
                "the range \(start.seconds)–\((start + duration).seconds) s is not inside the asset "
                    + "(0–\(assetDurations[asset].seconds) s)")
        }
        try insert(
            .media(
                TimeMap.Piece(
                    asset: asset, sourceStart: start, sourceDuration: duration, outputStart: at,
                    outputDuration: duration, motion: .linear)), at: at, field: field)
    }

    /// Inserts black, silent time.
    public mutating func insertEmptyTimeRange(at: Rational, duration: Rational, field: String) throws(JobRequestError) {
        guard duration > .zero else { throw JobRequestError(field: field, "an empty range needs a positive duration") }
        try insert(.empty(start: at, duration: duration), at: at, field: field)
    }

    /// Removes output time `[start, start + duration)`; what follows moves earlier.
    public mutating func removeTimeRange(start: Rational, duration: Rational, field: String) throws(JobRequestError) {
        let inside = try cut(start: start, duration: duration, field: field)
        segments.removeSubrange(inside)
        relayout()
    }

    /// Scales output time `[start, start + duration)` to last `toDuration` (AVFoundation's rule: what
    /// plays there plays at its speed × duration / toDuration); the factor must lie in 1/32…32.
    public mutating func scaleTimeRange(
        start: Rational, duration: Rational, toDuration: Rational, field: String
    ) throws(JobRequestError) {
        let factor = toDuration / duration
        guard factor.isValid, factor >= RetimeEdit.slowest, factor <= RetimeEdit.fastest else {
            throw JobRequestError(field: field, "scales by \(factor); the factor goes from 1/32 to 32")
        }
        let inside = try cut(start: start, duration: duration, field: field)
        for i in inside {
            switch segments[i] {
            case .empty(let s, let d): segments[i] = .empty(start: s, duration: d * factor)
            case .media(var p):
                p.outputDuration = p.outputDuration * factor
                if case .ramp(let r0, let r1) = p.motion { p.motion = .ramp(from: r0 / factor, to: r1 / factor) }
                try checkSpeed(p, field: field)
                segments[i] = .media(p)
            }
        }
        relayout()
    }

    /// Over output time `[start, start + duration)`, which must play one asset continuously at speed 1,
    /// the speed changes linearly from `from` to `to`; the range then lasts 2·duration / (from + to).
    public mutating func rampTimeRange(
        start: Rational, duration: Rational, from r0: Rational, to r1: Rational, field: String
    ) throws(JobRequestError) {
        for r in [r0, r1] where !(r.isValid && r >= RetimeEdit.slowest && r <= RetimeEdit.fastest) {
            throw JobRequestError(field: field, "a ramp's speeds go from 1/32 to 32, not \(r)")
        }
        let inside = try cut(start: start, duration: duration, field: field)
        var pieces: [TimeMap.Piece] = []
        for i in inside {
            guard case .media(let p) = segments[i], p.motion == .linear, p.sourceDuration == p.outputDuration,
                pieces.last.map({ $0.asset == p.asset && $0.sourceEnd == p.sourceStart }) ?? true
            else {
                throw JobRequestError(field: field, "a ramp needs one asset playing continuously at speed 1 there")
            }
            pieces.append(p)
        }
        guard let first = pieces.first else { throw JobRequestError(field: field, "the range holds nothing to ramp") }
        let ramp = TimeMap.Piece(
            asset: first.asset, sourceStart: first.sourceStart, sourceDuration: duration,
            outputStart: start, outputDuration: Rational(2) * duration / (r0 + r1), motion: .ramp(from: r0, to: r1))
        segments.replaceSubrange(inside, with: [.media(ramp)])
        relayout()
    }

    /// Holds the frame on screen at output time `at` for `duration` (silent); what follows moves later.
    public mutating func freeze(at: Rational, duration: Rational, field: String) throws(JobRequestError) {
        guard duration > .zero, duration <= RetimeEdit.longestFreeze else {
            throw JobRequestError(field: field, "a freeze lasts more than 0 and at most 3600 s")
        }
        guard at >= .zero, at < self.duration else {
            throw JobRequestError(field: field, "freezes at \(at.seconds) s, outside the composition")
        }
        let index = try splitPoint(at, field: field)
        let held: Segment
        switch segments[index] {
        case .empty: held = .empty(start: at, duration: duration)
        case .media(let p):
            held = .media(
                TimeMap.Piece(
                    asset: p.asset, sourceStart: p.source(atOffset: .zero), sourceDuration: .zero, outputStart: at,
                    outputDuration: duration, motion: .freeze))
        }
        segments.insert(held, at: index)
        relayout()
    }

    // MARK: Splitting

    private mutating func insert(_ segment: Segment, at: Rational, field: String) throws(JobRequestError) {
        guard at >= .zero, at <= duration else {
            throw JobRequestError(
                field: field, "inserts at \(at.seconds) s, after the composition's end (\(duration.seconds) s)")
        }
        let index = at == duration ? segments.count : try splitPoint(at, field: field)
        segments.insert(segment, at: index)
        relayout()
    }

    /// Splits the segment that holds output time `t` so that a segment starts there; its index.
    private mutating func splitPoint(_ t: Rational, field: String) throws(JobRequestError) -> Int {
        guard let i = segments.firstIndex(where: { $0.end > t }) else { return segments.count }
        let s = segments[i]
        guard t > s.start else { return i }
        let (a, b) = s.split(at: t - s.start)
        segments.replaceSubrange(i...i, with: [a, b])
        guard a.duration.isValid, b.duration.isValid else {
            throw JobRequestError(field: field, "the times do not fit exact arithmetic; use simpler fractions")
        }
        return i + 1
    }

    /// Splits at both ends of an output range inside the composition; the indices of its segments.
    private mutating func cut(
        start: Rational, duration d: Rational, field: String
    ) throws(JobRequestError) -> Range<Int> {
        guard start >= .zero, d > .zero, start + d <= duration else {
            throw JobRequestError(
                field: field,
                "the range \(start.seconds)–\((start + d).seconds) s is not inside the composition (0–\(duration.seconds) s)"
            )
        }
        let lower = try splitPoint(start, field: field)
        let upper = try splitPoint(start + d, field: field)
        return lower..<upper
    }

    private func checkSpeed(_ p: TimeMap.Piece, field: String) throws(JobRequestError) {
        let speeds: [Rational]
        switch p.motion {
        case .freeze: return
        case .linear: speeds = [p.sourceDuration / p.outputDuration]
        case .ramp(let r0, let r1): speeds = [r0, r1]
        }
        for r in speeds where !(r.isValid && r >= RetimeEdit.slowest && r <= RetimeEdit.fastest) {
            throw JobRequestError(field: field, "this would play at speed \(r); speeds go from 1/32 to 32")
        }
    }

    /// Lays the segments end to end from 0 again.
    private mutating func relayout() {
        var t = Rational.zero
        for i in segments.indices {
            segments[i] = segments[i].moved(to: t)
            t = t + segments[i].duration
        }
    }
}
