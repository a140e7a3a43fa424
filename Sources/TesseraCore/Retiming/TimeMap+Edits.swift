extension TimeMap {
    /// The map of one source's range `[start, start + duration)` with `edits` applied (every edit's
    /// times in source time).
    ///
    /// - Throws: `JobRequestError` naming the flag when an edit reaches outside the range, overlaps another,
    ///   asks for a speed outside 1/32…32 (a ramp to speed 0 included), has a zero or negative
    ///   duration, or a freeze falls inside a scaled or ramped range.
    public static func retiming(
        start: Rational = .zero, duration: Rational, edits: [RetimeEdit]
    ) throws(JobRequestError) -> TimeMap {
        let end = start + duration
        guard duration > .zero, end.isValid else {
            throw JobRequestError(field: "source", "has no duration to retime")
        }
        typealias Ranged = (start: Rational, end: Rational, edit: RetimeEdit)
        var ranged: [Ranged] = []
        var freezes: [(at: Rational, duration: Rational)] = []
        func show(_ t: Rational) -> String { t.seconds.formatted3 + "s" }
        for edit in edits {
            switch edit {
            case .scale(let range, let to):
                let (s, e) = try Self.bounds(range, flag: edit.flag, within: start, end)
                let target = Rational(to)
                guard target.isValid, target > .zero else {
                    throw JobRequestError(field: edit.flag, "the target duration must be positive")
                }
                let factor = (e - s) / target
                guard factor >= RetimeEdit.slowest, factor <= RetimeEdit.fastest else {
                    throw JobRequestError(
                        field: edit.flag,
                        "\(show(s))–\(show(e)) to \(show(target)) is a speed of \(factor.seconds.formatted3)×; "
                            + "speeds go from 1/32 to 32")
                }
                ranged.append((s, e, edit))
            case .ramp(let range, let from, let to):
                let (s, e) = try Self.bounds(range, flag: edit.flag, within: start, end)
                for speed in [from, to] {
                    guard speed.isValid, speed >= RetimeEdit.slowest, speed <= RetimeEdit.fastest else {
                        throw JobRequestError(
                            field: edit.flag,
                            "a speed of \(speed.isValid ? speed.seconds.formatted3 : "?") is outside 1/32…32")
                    }
                }
                ranged.append((s, e, edit))
            case .freeze(let at, let length):
                let t = Rational(at), d = Rational(length)
                guard t.isValid, t >= start, t <= end else {
                    throw JobRequestError(
                        field: edit.flag,
                        "\(at.seconds.formatted3)s is outside the source (\(show(start))–\(show(end)))")
                }
                guard d.isValid, d > .zero, d <= RetimeEdit.longestFreeze else {
                    throw JobRequestError(field: edit.flag, "a freeze lasts more than 0 and at most 3600 s")
                }
                freezes.append((t, d))
            }
        }
        ranged.sort { $0.start < $1.start }
        for (a, b) in zip(ranged, ranged.dropFirst()) where b.start < a.end {
            throw JobRequestError(
                field: b.edit.flag,
                "\(show(b.start))–\(show(b.end)) overlaps \(a.edit.flag) \(show(a.start))–\(show(a.end))")
        }
        for f in freezes {
            if let r = ranged.first(where: { $0.start < f.at && f.at < $0.end }) {
                throw JobRequestError(
                    field: "--freeze",
                    "\(show(f.at)) falls inside \(r.edit.flag) \(show(r.start))–\(show(r.end)); freeze before or after it"
                )
            }
        }
        freezes.sort { $0.at < $1.at }

        var pieces: [Piece] = []
        var cursor = start, out = Rational.zero
        func play(to target: Rational) {
            guard target > cursor else { return }
            pieces.append(
                Piece(
                    asset: 0, sourceStart: cursor, sourceDuration: target - cursor, outputStart: out,
                    outputDuration: target - cursor, motion: .linear))
            out += target - cursor
            cursor = target
        }
        var nextFreeze = 0
        func freezeUpTo(_ t: Rational) {
            while nextFreeze < freezes.count, freezes[nextFreeze].at <= t {
                let f = freezes[nextFreeze]
                play(to: f.at)
                pieces.append(
                    Piece(
                        asset: 0, sourceStart: f.at, sourceDuration: .zero, outputStart: out,
                        outputDuration: f.duration, motion: .freeze))
                out += f.duration
                nextFreeze += 1
            }
        }
        for r in ranged {
            freezeUpTo(r.start)
            play(to: r.start)
            let length = r.end - r.start
            let output: Rational
            let motion: Motion
            switch r.edit {
            case .scale(_, let to):
                output = Rational(to)
                motion = .linear
            case .ramp(_, let from, let to):
                output = Rational(2) * length / (from + to)
                motion = .ramp(from: from, to: to)
            case .freeze:
                continue
            }
            pieces.append(
                Piece(
                    asset: 0, sourceStart: r.start, sourceDuration: length, outputStart: out,
                    outputDuration: output, motion: motion))
            out += output
            cursor = r.end
        }
        freezeUpTo(end)
        play(to: end)
        let map = TimeMap(pieces: pieces)
        guard map.isValid else {
            throw JobRequestError(field: "edits", "the times do not fit exact arithmetic; use simpler fractions")
        }
        return map
    }

    private static func bounds(
        _ range: TimeRange, flag: String, within start: Rational, _ end: Rational
    ) throws(JobRequestError) -> (Rational, Rational) {
        let s = Rational(range.start), e = Rational(range.end)
        guard s.isValid, e.isValid, s < e else {
            throw JobRequestError(field: flag, "the range \(range) is empty or not finite")
        }
        guard s >= start, e <= end else {
            throw JobRequestError(
                field: flag,
                "\(s.seconds.formatted3)s–\(e.seconds.formatted3)s reaches outside the source "
                    + "(\(start.seconds.formatted3)s–\(end.seconds.formatted3)s)")
        }
        return (s, e)
    }
}

extension Double {
    /// Up to three decimals, trailing zeros dropped ("2", "2.5", "0.333"), for messages.
    var formatted3: String {
        guard isFinite else { return "\(self)" }
        let thousandths = (self * 1000).rounded()
        guard abs(thousandths) < 1e15 else { return "\(self)" }
        let whole = Int64(thousandths) / 1000, frac = abs(Int64(thousandths) % 1000)
        let sign = thousandths < 0 && whole == 0 ? "-" : ""
        guard frac != 0 else { return "\(sign)\(whole)" }
        var digits = String(frac)
        while digits.count < 3 { digits = "0" + digits }
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(sign)\(whole).\(digits)"
    }
}
