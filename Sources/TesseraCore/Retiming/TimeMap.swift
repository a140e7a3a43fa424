/// The map from output time to source time of a retimed export: contiguous pieces on the output
/// timeline, each showing one asset's source over a range at a constant rate, a linearly changing rate
/// (a speed ramp), or not moving at all (a freeze frame).
///
/// AVFoundation's rule: a range scaled to a new duration plays at rate source duration / target
/// duration. A ramp from speed r0 to r1 over a source range of duration D lasts T = 2·D/(r0 + r1) of
/// output, and at output offset t it shows source time
///
///     s(t) = s0 + r0·t + (r1 − r0)·t² / (2T)
///
/// exactly (`Rational`; no floating point on the timing path). Every time here is in seconds.
public struct TimeMap: Sendable, Hashable {
    public enum Motion: Sendable, Hashable {
        /// Constant speed: source duration / output duration.
        case linear
        /// Speed changing linearly in output time from `from` to `to`.
        case ramp(from: Rational, to: Rational)
        /// One source instant held for the piece's whole output duration.
        case freeze
    }

    public struct Piece: Sendable, Hashable {
        /// Which asset of the composition (0 for a single source).
        public var asset: Int
        public var sourceStart: Rational
        /// Zero for a freeze.
        public var sourceDuration: Rational
        public var outputStart: Rational
        public var outputDuration: Rational
        public var motion: Motion

        public init(
            asset: Int, sourceStart: Rational, sourceDuration: Rational, outputStart: Rational,
            outputDuration: Rational, motion: Motion
        ) {
            self.asset = asset
            self.sourceStart = sourceStart
            self.sourceDuration = sourceDuration
            self.outputStart = outputStart
            self.outputDuration = outputDuration
            self.motion = motion
        }

        public var outputEnd: Rational { outputStart + outputDuration }
        public var sourceEnd: Rational { sourceStart + sourceDuration }

        /// The source time shown at output time `outputStart + t` (0 ≤ t ≤ outputDuration).
        public func source(atOffset t: Rational) -> Rational {
            switch motion {
            case .freeze:
                return sourceStart
            case .linear:
                return sourceStart + t * sourceDuration / outputDuration
            case .ramp(let r0, let r1):
                return sourceStart + r0 * t + (r1 - r0) * t * t / (Rational(2) * outputDuration)
            }
        }

        /// The speed at output offset `t`: source seconds per output second.
        public func speed(atOffset t: Rational) -> Rational {
            switch motion {
            case .freeze: return .zero
            case .linear: return sourceDuration / outputDuration
            case .ramp(let r0, let r1): return r0 + (r1 - r0) * t / outputDuration
            }
        }

        /// The earliest output offset at which the piece shows source time `s` or later, in whole ticks
        /// of `1 / timescale` s (the ceiling: a frame at source time `s` is placed on the first output
        /// tick that has reached it). Source time only grows with output time, so a binary search over
        /// ticks with the exact forward map answers it, ramps included, without a square root.
        public func outputTick(reaching s: Rational, timescale: Int64) -> Int64? {
            guard let last = outputDuration.ticks(timescale: timescale, roundingUp: true) else { return nil }
            let scale = Rational(timescale)
            var (low, high) = (Int64(0), last)
            guard source(atOffset: Rational(high) / scale) >= s else { return nil }
            while low < high {
                let mid = low + (high - low) / 2
                if source(atOffset: Rational(mid) / scale) >= s { high = mid } else { low = mid + 1 }
            }
            return low
        }
    }

    public private(set) var pieces: [Piece]

    /// Pieces must be contiguous from output time 0, each of positive output duration.
    public init(pieces: [Piece]) {
        self.pieces = pieces
    }

    /// The identity map over `[start, start + duration)` of `asset`.
    public static func identity(asset: Int = 0, start: Rational = .zero, duration: Rational) -> TimeMap {
        TimeMap(pieces: [
            Piece(
                asset: asset, sourceStart: start, sourceDuration: duration, outputStart: .zero,
                outputDuration: duration, motion: .linear)
        ])
    }

    public var outputDuration: Rational { pieces.last?.outputEnd ?? .zero }

    /// True when every value is representable (no arithmetic overflowed while building the map).
    public var isValid: Bool {
        pieces.allSatisfy {
            $0.sourceStart.isValid && $0.sourceDuration.isValid && $0.outputStart.isValid
                && $0.outputDuration.isValid
        }
    }

    /// The piece showing output time `t` (the last one for `t == outputDuration`) and the source time.
    public func source(at t: Rational) -> (piece: Int, asset: Int, time: Rational)? {
        guard !pieces.isEmpty, t >= .zero, t <= outputDuration else { return nil }
        // Binary search: the last piece whose start is ≤ t.
        var (low, high) = (0, pieces.count - 1)
        while low < high {
            let mid = (low + high + 1) / 2
            if pieces[mid].outputStart <= t { low = mid } else { high = mid - 1 }
        }
        let piece = pieces[low]
        return (low, piece.asset, piece.source(atOffset: t - piece.outputStart))
    }

    /// The source time output frame `k` of a constant-rate export shows: the map at k·frameDuration, or
    /// the map's end for an instant past it.
    public func source(atFrame k: Int64, frameDuration: Rational) -> Rational {
        source(at: Rational(k) * frameDuration)?.time ?? pieces.last?.sourceEnd ?? .zero
    }

    /// Where a source frame shown at source time `s` goes when every frame is kept (passthrough frame
    /// timing): the first output tick (of `1 / timescale` s) at which the map has reached `s`. Before
    /// the map's first piece, times keep their distance to its start (pre-roll); past its end, to its end.
    public func outputTick(reaching s: Rational, timescale: Int64) -> Int64? {
        guard let first = pieces.first, let last = pieces.last else { return nil }
        let scale = Rational(timescale)
        if s < first.sourceStart { return ((s - first.sourceStart) * scale).floor }
        for piece in pieces where s <= piece.sourceEnd && piece.motion != .freeze {
            guard let start = (piece.outputStart * scale).ceiling,
                let offset = piece.outputTick(reaching: s, timescale: timescale)
            else { return nil }
            return start + offset
        }
        return ((last.outputEnd + s - last.sourceEnd) * scale).floor
    }

    /// The output instants of a constant-frame-rate export: k·frameDuration for k = 0 ..<
    /// ⌈outputDuration / frameDuration⌉, each with the source time it shows.
    public func frameInstants(frameDuration: Rational) -> [(output: Rational, asset: Int, source: Rational)] {
        guard frameDuration > .zero, let count = (outputDuration / frameDuration).ceiling, count > 0 else {
            return []
        }
        var result: [(output: Rational, asset: Int, source: Rational)] = []
        result.reserveCapacity(Int(min(count, 1 << 20)))
        var piece = 0
        for k in 0..<count {
            let t = Rational(k) * frameDuration
            while piece + 1 < pieces.count, pieces[piece + 1].outputStart <= t { piece += 1 }
            let p = pieces[piece]
            result.append((t, p.asset, p.source(atOffset: t - p.outputStart)))
        }
        return result
    }
}
