import Foundation
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraMedia

/// The planner re-cuts the last round of segments so every slot finishes together.
struct TailBalanceTests {
    /// `gops` GOPs of `length` frames, one tick per frame.
    static func frames(gops: Int, length: Int) -> (pts: [Int64], key: [Bool]) {
        let count = gops * length
        return ((0..<count).map(Int64.init), (0..<count).map { $0 % length == 0 })
    }

    /// When each slot finishes if segments go, in order, to the first free slot (cost ∝ frames, plus the
    /// frames decoded only to reach a mid-GOP start).
    static func makespan(_ cuts: [Int64], pts: [Int64], key: [Bool], slots: Int) -> Double {
        let bounds = [0] + cuts.map { c in pts.firstIndex { $0 >= c }! } + [pts.count]
        var free = Array(repeating: 0.0, count: slots)
        for (a, b) in zip(bounds, bounds.dropFirst()) {
            let lead = Double(a - ((0...a).last { key[$0] } ?? 0)) * SegmentPlanner.decodeOnlyCost
            let slot = free.indices.min { free[$0] < free[$1] }!
            free[slot] += Double(b - a) + lead
        }
        return free.max()!
    }

    @Test("15 GOPs in 2-GOP segments on 2 slots: the last two share the final 3 GOPs")
    func oddGOPCount() {
        let (pts, key) = Self.frames(gops: 15, length: 60)
        let cuts: [Int64] = stride(from: 120, through: 840, by: 120).map(Int64.init)  // 8 segments, last 60 frames
        let balanced = SegmentPlanner.balanceTail(cuts, framePTS: pts, isKeyframe: key, parallel: 2)
        #expect(Array(balanced.prefix(6)) == Array(cuts.prefix(6)), "only the last round changes")
        #expect(balanced.count == cuts.count)
        let last = balanced.last!
        #expect(last > 780 && last < 840, "the final cut moved into the last-but-one GOP, mid-GOP: \(last)")
        let before = Self.makespan(cuts, pts: pts, key: key, slots: 2)
        let after = Self.makespan(balanced, pts: pts, key: key, slots: 2)
        #expect(before == 480)
        #expect(after < 460, "makespan \(before) → \(after) frame-times")
        #expect(abs(after - 450 - 30 * SegmentPlanner.decodeOnlyCost / 2) <= 1.5, "both slots end together: \(after)")
    }

    @Test("a keyframe close to the ideal cut is used instead of cutting mid-GOP")
    func snapsToNearKeyframe() {
        // Keyframes every 10 frames: the ideal cut at 450 is a keyframe.
        let (pts, key) = Self.frames(gops: 90, length: 10)
        let cuts: [Int64] = [120, 240, 360, 480, 600, 720, 840]
        let balanced = SegmentPlanner.balanceTail(cuts, framePTS: pts, isKeyframe: key, parallel: 2)
        // The tail (720..<900) splits at 810, a keyframe: no lead-in decoding.
        #expect(balanced.last == 810, "\(balanced)")
        #expect(key[Int(balanced.last!)])
    }

    @Test("nothing changes with one slot, or when already even")
    func unchangedCases() {
        let (pts, key) = Self.frames(gops: 15, length: 60)
        let cuts: [Int64] = [120, 240, 360, 480, 600, 720, 840]
        #expect(SegmentPlanner.balanceTail(cuts, framePTS: pts, isKeyframe: key, parallel: 1) == cuts)
        let (even, evenKey) = Self.frames(gops: 16, length: 60)
        let evenCuts: [Int64] = [120, 240, 360, 480, 600, 720, 840]
        #expect(SegmentPlanner.balanceTail(evenCuts, framePTS: even, isKeyframe: evenKey, parallel: 2) == evenCuts)
    }

    /// Fewer segments than slots: the whole video is the last round. One keyframe in 300 frames (a screen
    /// recording) on 2 slots is cut in two mid-GOP; 2 segments of 600 + 300 frames on 3 slots in three.
    @Test("with fewer segments than slots, every slot gets a share")
    func fewerSegmentsThanSlots() {
        let pts = (0..<300).map(Int64.init), key = (0..<300).map { $0 == 0 }
        let split = SegmentPlanner.balanceTail([], framePTS: pts, isKeyframe: key, parallel: 2, minimumFrames: 40)
        #expect(split.count == 1, "\(split)")
        #expect(Self.makespan(split, pts: pts, key: key, slots: 2) < 300 * 0.8, "\(split)")
        let (long, longKey) = Self.frames(gops: 15, length: 60)
        let three = SegmentPlanner.balanceTail([600], framePTS: long, isKeyframe: longKey, parallel: 3)
        #expect(three.count == 2, "\(three)")
        #expect(
            Self.makespan(three, pts: long, key: longKey, slots: 3)
                < Self.makespan([600], pts: long, key: longKey, slots: 3), "\(three)")
    }

    @Test(
        "random layouts: boundaries stay ordered and inside, and the makespan never grows",
        arguments: 0..<40)
    func randomLayouts(seed: Int) {
        var rng = SplitMix(seed: UInt64(seed))
        let count = 200 + Int(rng.next() % 2000)
        let key = (0..<count).map { $0 == 0 || rng.next() % 47 == 0 }
        let pts = (0..<count).map { Int64($0) }
        let target = 30 + Int(rng.next() % 200)
        var cuts: [Int64] = []
        var last = 0
        for i in 1..<count where key[i] && i - last >= target {
            cuts.append(Int64(i))
            last = i
        }
        let slots = 2 + Int(rng.next() % 15)
        let balanced = SegmentPlanner.balanceTail(cuts, framePTS: pts, isKeyframe: key, parallel: slots)
        #expect(zip(balanced, balanced.dropFirst()).allSatisfy { $0 < $1 }, "ordered: \(balanced)")
        #expect(balanced.allSatisfy { $0 > 0 && $0 < Int64(count) })
        let before = Self.makespan(cuts, pts: pts, key: key, slots: slots)
        let after = Self.makespan(balanced, pts: pts, key: key, slots: slots)
        #expect(after <= before + 1, "makespan \(before) → \(after) with \(slots) slots, cuts \(cuts) → \(balanced)")
    }

    @Test("a segmented export whose tail is cut mid-GOP writes exactly the one-pass frames")
    func midGOPTailMatchesOnePass() throws {
        let dir = try TestMedia.makeDirectory("tail")
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("src.mp4")
        // 3.5 s at 30 fps, a keyframe a second, B-frames: segments of 30, 30, 30 and 15 frames.
        try TestMedia.make(src, seconds: 3.5, width: 640, height: 360, extra: ["-g", "30", "-bf", "3"])
        let plan = try SegmentPlan.make(path: src.path, segmentDuration: 1, parallel: 2)
        let starts = plan.segments.map(\.outputFrames.lowerBound)
        #expect(starts.contains { $0 % 30 != 0 }, "a segment starts mid-GOP: \(starts)")
        #expect(plan.segments.last!.outputFrames.upperBound == 105)

        let one = dir.appendingPathComponent("one.mp4"), seg = dir.appendingPathComponent("seg.mp4")
        _ = try ExportSession(sourcePath: src.path, outputPath: one.path, preset: .preset640x480).export()
        let session = ExportSession(sourcePath: src.path, outputPath: seg.path, preset: .preset640x480)
        session.segmentDuration = 1
        session.parallel = 2
        let report = try session.export()
        #expect(report.segments == plan.segments.count)
        let onePTS = try TestMedia.framePTS(one), segPTS = try TestMedia.framePTS(seg)
        #expect(segPTS.count == 105)
        #expect(segPTS == onePTS)
        let psnrOne = try TestMedia.psnr(one, against: src, width: 640, height: 360)
        let psnrSeg = try TestMedia.psnr(seg, against: src, width: 640, height: 360)
        #expect(psnrSeg > psnrOne - 0.3, "PSNR one pass \(psnrOne), segmented \(psnrSeg)")
    }
}

/// The random layouts' generator: SplitMix64 from `seed`, as these tests have always drawn them.
struct SplitMix {
    private var generator: SeededGenerator
    init(seed: UInt64) { generator = SeededGenerator(seed: seed &+ 0x9E37_79B9_7F4A_7C15) }
    mutating func next() -> UInt64 { generator.next() }
}
