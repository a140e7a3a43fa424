import CFFmpeg
import PropertyBased
import TesseraCore
import Testing

@testable import TesseraMedia

/// The retimed planner's promise, over random sources, maps, frame rates and cuts: the segments cover
/// the output frames once, in order, and each segment's frames (as its gate presents them) hold what
/// every one of its instants needs, so it chooses exactly what the whole export chooses.
@Suite struct RetimePlanTests {
    struct Case {
        var index: VideoPacketIndex
        var retime: SegmentRetime
        var start: Int64
        var end: Int64
        var target: Rational
    }

    /// A 90 kHz source of 40–400 frames at a jittered rate, keyframes every 1–60 frames; a map of one to
    /// four pieces over the range; an output rate from 10 to 120 fps; a target of 2–40 output frames.
    static func makeCase(_ seed: UInt64) -> Case {
        var g = SplitMix(seed: seed)
        let frames = g.int(40...400)
        let gop = g.int(1...60)
        var pts: [Int64] = []
        var t: Int64 = Int64(g.int(0...3000))
        for _ in 0..<frames {
            pts.append(t)
            t += Int64(g.int(1500...4500))
        }
        let entries = pts.enumerated().map { i, p in
            VideoPacketIndex.Entry(pts: p, dts: p, isKeyframe: i % gop == 0)
        }
        let index = VideoPacketIndex(
            trackID: 0, timeBase: AVRational(num: 1, den: 90_000), entries: entries, streamEnds: [:])
        let tb = Rational(1, 90_000)
        let start = Int64(g.int(0...Int(pts[frames / 3])))
        let end = g.int(0...1) == 0 ? Int64.max : start + Int64(g.int(90_000...900_000))
        let sourceEnd = (end == Int64.max ? Rational(t) : Rational(min(end, t))) * tb
        let origin = Rational(start) * tb
        var edits: [RetimeEdit] = []
        let length = sourceEnd - origin
        if length > Rational(1, 2) {
            let a = origin + length / Rational(4), b = origin + length / Rational(2)
            let range = TimeRange(
                start: MediaTime(value: Int64(g.int(0...1000)), timescale: 1000) + time(a),
                duration: MediaTime(value: 200, timescale: 1000))
            switch g.int(0...3) {
            case 0: edits = [.scale(range, toDuration: MediaTime(value: Int64(g.int(20...3000)), timescale: 1000))]
            case 1: edits = [.ramp(range, from: Rational(Int64(g.int(1...8)), 4), to: Rational(1, Int64(g.int(1...8))))]
            case 2: edits = [.freeze(at: time(b), duration: MediaTime(value: Int64(g.int(1...2000)), timescale: 1000))]
            default: edits = []
            }
        }
        let map =
            (try? TimeMap.retiming(start: origin, duration: length, edits: edits))
            ?? .identity(start: origin, duration: length)
        let retime = SegmentRetime(
            map: map, frameDuration: Rational(1, Int64(g.int(10...120))),
            selection: FrameSelection.allCases[g.int(0...2)], origin: origin, rangeStartTick: start)
        return Case(
            index: index, retime: retime, start: start, end: end,
            target: Rational(Int64(g.int(2...40))) * retime.frameDuration)
    }

    static func time(_ r: Rational) -> MediaTime {
        MediaTime(value: r.ticks(timescale: 1000) ?? 0, timescale: 1000)
    }

    @Test func everySegmentChoosesAsTheWholeExport() async {
        await propertyCheck(count: 300, input: Gen.uint64()) { seed in
            let c = Self.makeCase(seed)
            let whole = SegmentPlanner.cut(c.index, start: c.start, end: c.end, .retimed(c.retime, targetSeconds: nil))
            let cut = SegmentPlanner.cut(
                c.index, start: c.start, end: c.end, .retimed(c.retime, targetSeconds: c.target))
            let n = Int(c.retime.frameCount)
            #expect(whole.segments.count == 1 && whole.segments[0].outputFrames == 0..<n, "seed \(seed)")
            #expect(cut.outputTimes == (0..<Int64(n)).map { $0 })
            // Contiguous, in order, covering [0, n).
            #expect(cut.segments.first?.outputFrames.lowerBound == 0)
            #expect(cut.segments.last?.outputFrames.upperBound == n)
            for (a, b) in zip(cut.segments, cut.segments.dropFirst()) {
                #expect(a.outputFrames.upperBound == b.outputFrames.lowerBound && !a.outputFrames.isEmpty)
            }
            let tb = Rational(1, 90_000)
            // The frames a segment's gate presents over [lo, hi): their times and global identities.
            func presented(_ s: SegmentSpec) -> (times: [Rational], ids: [Int64]) {
                let sorted = c.index.entries.map(\.pts).sorted()
                let (lo, hi) = (s.presentationRange.lowerBound, s.presentationRange.upperBound)
                var ids = sorted.filter { $0 >= lo && $0 < hi }
                if ids.first != lo, let held = sorted.last(where: { $0 < lo }) { ids.insert(held, at: 0) }
                let times = ids.map { c.retime.sourceTime(ofTick: max($0, lo), timeBase: tb) }
                return (times, ids)
            }
            let all = presented(whole.segments[0])
            for s in cut.segments {
                let mine = presented(s)
                #expect(s.decodePackets.lowerBound <= s.decodePackets.upperBound)
                for k in s.outputFrames {
                    let time = c.retime.sourceTime(ofFrame: Int64(k))
                    let global = c.retime.selection.choose(time, in: all.times)
                    let local = c.retime.selection.choose(time, in: mine.times)
                    let same =
                        all.ids[global.first] == mine.ids[local.first]
                        && global.second.map { all.ids[$0] } == local.second.map { mine.ids[$0] }
                        && global.weight == local.weight
                    #expect(same, "seed \(seed): segment \(s.index) instant \(k)")
                    if !same { return }
                }
            }
        }
    }
}

extension SplitMix {
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }
}
