import PropertyBased
import Testing

@testable import TesseraCore

/// The retiming model: exact source times for every output instant, and every bad edit refused with
/// its flag named.
struct TimeMapTests {
    static func r(_ n: Int64, _ d: Int64 = 1) -> Rational { Rational(n, d) }
    static func t(_ text: String) -> MediaTime { MediaTime(string: text)! }

    @Test func rationalArithmeticIsExactAndReduced() {
        #expect(Self.r(1, 3) + Self.r(1, 6) == Self.r(1, 2))
        #expect((Self.r(2, 4)).denominator == 2)
        #expect(Self.r(-7, 2).floor == -4 && Self.r(-7, 2).ceiling == -3)
        #expect(Self.r(7, 2).floor == 3 && Self.r(7, 2).ceiling == 4)
        #expect(Self.r(1, 3) < Self.r(1, 2) && !(Self.r(1, 2) < Self.r(1, 2)))
        #expect((Self.r(1) / .zero).isValid == false)
        // Overflow gives invalid (which propagates), never a trap.
        let huge = Rational(numerator: Int128.max / 2, denominator: 1)
        #expect((huge * huge).isValid == false)
        #expect(((huge * huge) + .one).isValid == false)
        #expect(Rational(MediaTime(value: 1001, timescale: 30000)) == Self.r(1001, 30000))
    }

    /// The first case: 240 fps, source 2–4 s scaled to 16 s, exported at 30 fps from an 8 s
    /// source: 22 s, exactly 660 frames; inside the range each output frame shows the next source
    /// frame (1/30 s of output is 1/240 s of source), outside it every 8th.
    @Test func slowMotionAt240To30() throws {
        let map = try TimeMap.retiming(
            duration: Self.r(8), edits: [.scale(TimeRange(string: "2s-4s")!, toDuration: Self.t("16s"))])
        #expect(map.outputDuration == Self.r(22))
        let frames = map.frameInstants(frameDuration: Self.r(1, 30))
        #expect(frames.count == 660)
        let pts = (0..<(8 * 240)).map { Self.r(Int64($0), 240) }
        let shown = frames.map { FrameSelection.hold.choose($0.source, in: pts).first }
        #expect(Array(shown[0..<60]) == Array(stride(from: 0, to: 480, by: 8)))
        #expect(Array(shown[60..<540]) == Array(480..<960))
        #expect(Array(shown[540..<660]) == Array(stride(from: 960, to: 1920, by: 8)))
    }

    /// 60 fps, 1–2 s scaled to 3 s, exported at 24 fps: instants fall between source frames, where
    /// hold and nearest choose differently.
    @Test func holdAndNearestDifferOnANonIntegerCase() throws {
        let map = try TimeMap.retiming(
            duration: Self.r(3), edits: [.scale(TimeRange(string: "1s-2s")!, toDuration: Self.t("3s"))])
        #expect(map.outputDuration == Self.r(5))
        let frames = map.frameInstants(frameDuration: Self.r(1, 24))
        #expect(frames.count == 120)
        let pts = (0..<180).map { Self.r(Int64($0), 60) }
        let hold = frames.map { FrameSelection.hold.choose($0.source, in: pts).first }
        let nearest = frames.map { FrameSelection.nearest.choose($0.source, in: pts).first }
        #expect(hold != nearest)
        for (k, f) in frames.enumerated() {
            // hold: ⌊60·s⌋; nearest: ⌊60·s + ½⌋ (ties to the later frame).
            #expect(hold[k] == (f.source * Self.r(60)).floor.map(Int.init))
            #expect(nearest[k] == ((f.source * Self.r(60)) + Self.r(1, 2)).floor.map(Int.init))
        }
        // Blend weights are the exact distance to the held frame.
        let b = FrameSelection.blend.choose(Self.r(1, 120), in: pts)
        #expect(b.first == 0 && b.second == 1 && b.weight == Self.r(1, 2))
    }

    /// A ramp from 1 to 0.25 over source 4–6 s lasts 2·2/(1.25) = 3.2 s, and shows the exact integral.
    @Test func aRampFollowsTheExactIntegral() throws {
        let map = try TimeMap.retiming(
            duration: Self.r(8), edits: [.ramp(TimeRange(string: "4s-6s")!, from: .one, to: Self.r(1, 4))])
        #expect(map.outputDuration == Self.r(4) + Self.r(16, 5) + Self.r(2))
        let ramp = map.pieces[1]
        #expect(ramp.outputDuration == Self.r(16, 5))
        let T = Self.r(16, 5)
        for k in 0...32 {
            let t = Self.r(Int64(k), 10)
            let expected = Self.r(4) + t - Self.r(3, 4) * t * t / (Self.r(2) * T)
            #expect(ramp.source(atOffset: t) == expected)
        }
        #expect(ramp.source(atOffset: T) == Self.r(6))
        #expect(ramp.speed(atOffset: .zero) == .one && ramp.speed(atOffset: T) == Self.r(1, 4))
        // The inverse, on a 1/90000 s grid: the first tick whose source time reaches 5 s.
        let tick = try #require(ramp.outputTick(reaching: Self.r(5), timescale: 90000))
        #expect(ramp.source(atOffset: Self.r(tick, 90000)) >= Self.r(5))
        #expect(ramp.source(atOffset: Self.r(tick - 1, 90000)) < Self.r(5))
    }

    @Test func aFreezeHoldsOneFrameAndPlaybackGoesOn() throws {
        let map = try TimeMap.retiming(
            duration: Self.r(4), edits: [.freeze(at: Self.t("1s"), duration: Self.t("2s"))])
        #expect(map.outputDuration == Self.r(6))
        #expect(map.pieces.map(\.motion) == [.linear, .freeze, .linear])
        let frames = map.frameInstants(frameDuration: Self.r(1, 10))
        #expect(frames.count == 60)
        for f in frames where f.output >= Self.r(1) && f.output < Self.r(3) { #expect(f.source == Self.r(1)) }
        #expect(frames[30].source == Self.r(1))
        #expect(frames[35].source == Self.r(3, 2))
    }

    @Test func severalEditsInOneMap() throws {
        let map = try TimeMap.retiming(
            duration: Self.r(10),
            edits: [
                .scale(TimeRange(string: "6s-7s")!, toDuration: Self.t("1/4")),
                .freeze(at: Self.t("5s"), duration: Self.t("1s")),
                .scale(TimeRange(string: "1s-2s")!, toDuration: Self.t("4s")),
            ])
        // 1 + 4 + 3 + 1 (freeze) + 1 + 0.25 + 3
        #expect(map.outputDuration == Self.r(53, 4))
        #expect(map.pieces.count == 7)
    }

    @Test(
        "bad edits are refused, naming the flag",
        arguments: [
            (RetimeEdit.scale(TimeRange(string: "2s-12s")!, toDuration: MediaTime(string: "1s")!), "--scale"),
            (.scale(TimeRange(string: "1s-2s")!, toDuration: MediaTime(string: "40s")!), "--scale"),
            (.scale(TimeRange(string: "1s-2s")!, toDuration: MediaTime(string: "0s")!), "--scale"),
            (.ramp(TimeRange(string: "1s-2s")!, from: .one, to: .zero), "--ramp"),
            (.ramp(TimeRange(string: "1s-2s")!, from: Rational(64), to: .one), "--ramp"),
            (.freeze(at: MediaTime(string: "11s")!, duration: MediaTime(string: "1s")!), "--freeze"),
            (.freeze(at: MediaTime(string: "1s")!, duration: MediaTime(string: "-1s")!), "--freeze"),
        ])
    func badEdits(edit: RetimeEdit, flag: String) {
        #expect {
            _ = try TimeMap.retiming(duration: Self.r(10), edits: [edit])
        } throws: { ($0 as? JobRequestError)?.field == flag }
    }

    @Test func overlapsAndFreezesInsideRangesAreRefused() {
        #expect {
            _ = try TimeMap.retiming(
                duration: Self.r(10),
                edits: [
                    .scale(TimeRange(string: "1s-3s")!, toDuration: Self.t("4s")),
                    .ramp(TimeRange(string: "2s-4s")!, from: .one, to: Self.r(2)),
                ])
        } throws: { ($0 as? JobRequestError)?.description.contains("overlaps") == true }
        #expect {
            _ = try TimeMap.retiming(
                duration: Self.r(10),
                edits: [
                    .scale(TimeRange(string: "1s-3s")!, toDuration: Self.t("4s")),
                    .freeze(at: Self.t("2s"), duration: Self.t("1s")),
                ])
        } throws: { ($0 as? JobRequestError)?.field == "--freeze" }
    }

    @Test func flagTextParses() throws {
        #expect(
            try RetimeEdit.scale(parsing: "2s-4s:16s")
                == .scale(TimeRange(string: "2s-4s")!, toDuration: Self.t("16s")))
        #expect(
            try RetimeEdit.ramp(parsing: "4s-6s:1-0.25")
                == .ramp(TimeRange(string: "4s-6s")!, from: .one, to: Self.r(1, 4)))
        #expect(try RetimeEdit.freeze(parsing: "5s:2s") == .freeze(at: Self.t("5s"), duration: Self.t("2s")))
        #expect(throws: JobRequestError.self) { try RetimeEdit.scale(parsing: "2s-4s") }
        #expect(throws: JobRequestError.self) { try RetimeEdit.ramp(parsing: "4s-6s:fast") }
        #expect(throws: JobRequestError.self) { try RetimeEdit.freeze(parsing: "five:2s") }
    }

    /// Whatever the edits, source time never goes back as output time goes on, pieces meet end to end on
    /// both timelines, and a map's frame count is ⌈duration / frame duration⌉.
    @Test func mapsAreMonotonicAndContinuous() async {
        let edit = zip(Gen.int(in: 0...2), Gen.int(in: 0...17), Gen.int(in: 1...4), Gen.int(in: 1...64))
        await propertyCheck(count: 200, input: edit, edit) { a, b in
            func make(_ e: (Int, Int, Int, Int)) -> RetimeEdit {
                let range = TimeRange(
                    start: MediaTime(value: Int64(e.1), timescale: 2),
                    duration: MediaTime(value: Int64(e.2), timescale: 2))
                switch e.0 {
                case 0: return .scale(range, toDuration: MediaTime(value: Int64(e.3), timescale: 8))
                case 1: return .ramp(range, from: Rational(Int64(e.3), 8), to: Rational(Int64(65 - e.3), 16))
                default:
                    return .freeze(
                        at: MediaTime(value: Int64(e.1), timescale: 2),
                        duration: MediaTime(value: Int64(e.3), timescale: 16))
                }
            }
            guard let map = try? TimeMap.retiming(duration: Self.r(10), edits: [make(a), make(b)]) else { return }
            for (p, q) in zip(map.pieces, map.pieces.dropFirst()) {
                #expect(p.outputEnd == q.outputStart)
                #expect(p.sourceEnd == q.sourceStart)
            }
            let instants = map.frameInstants(frameDuration: Self.r(1, 25))
            #expect(Int64(instants.count) == (map.outputDuration / Self.r(1, 25)).ceiling)
            for (x, y) in zip(instants, instants.dropFirst()) { #expect(x.source <= y.source) }
            #expect(map.pieces.last?.sourceEnd == Self.r(10))
        }
    }

    /// A layer's transform over composition time: the base before the first ramp, straight lines along a
    /// ramp, each ramp's end held until the next; ramps out of order refused, naming the field.
    @Test func layerTransformRampsFollowAVFoundationsRule() throws {
        typealias T = CompositionSpec.Transform
        let spec = CompositionSpec(
            assets: [
                .init(
                    id: "a", path: "a.mp4", transform: T(scale: 1, x: 10, y: 0),
                    transformRamps: [
                        .init(
                            range: "1s-3s", from: T(scale: 1, x: 0, y: 0), to: T(scale: 2, rotate: 90, x: 100, y: -50)),
                        .init(range: "5s-6s", from: T(scale: 0.5, x: 0, y: 0), to: T(scale: 0.5, x: 0, y: 0)),
                    ])
            ], edits: [])
        let track = try spec.layerTransforms()[0]
        #expect(track.transform(at: Self.r(1, 2)) == T(scale: 1, x: 10, y: 0))
        #expect(track.transform(at: Self.r(1)) == T(scale: 1, rotate: 0, x: 0, y: 0))
        #expect(track.transform(at: Self.r(2)) == T(scale: 1.5, rotate: 45, x: 50, y: -25))
        #expect(track.transform(at: Self.r(4)) == T(scale: 2, rotate: 90, x: 100, y: -50))
        #expect(track.transform(at: Self.r(7)) == T(scale: 0.5, x: 0, y: 0))
        #expect(CompositionSpec.Transform(scale: 1, rotate: -90, x: 0, y: 0).degrees == 270)
        // A time that is not a number (overflowed arithmetic) gives a transform between the ramp's ends,
        // never a trap.
        let huge = Rational(numerator: Int128.max / 2, denominator: 1)
        let odd = track.transform(at: huge * huge)
        #expect(odd.map { abs($0.x) <= 100 && abs($0.y) <= 50 } ?? true)
        var overlapping = spec
        overlapping.assets[0].transformRamps?[1].range = "2s-6s"
        #expect(throws: JobRequestError.self) { try overlapping.layerTransforms() }
        do { _ = try overlapping.layerTransforms() } catch {
            #expect(error.field == "assets[0].transformRamps[1].range")
        }
        var turned = spec
        turned.assets[0].transformRamps?[0].to.rotate = .infinity
        do { _ = try turned.layerTransforms() } catch {
            #expect(error.field == "assets[0].transformRamps[0].to.rotate")
        }
    }

    /// The frames a segment's instants show, so the rest need not be decoded: a 60 fps source (ticks of
    /// 1/60 s) at 24 fps shows frame ⌊2.5k⌋ at instant k (hold); nearest and blend also keep the next one.
    @Test func framesShownAreTheHeldOnesAndTheirNeighbours() {
        let map = TimeMap(pieces: [
            TimeMap.Piece(
                asset: 0, sourceStart: .zero, sourceDuration: .one, outputStart: .zero, outputDuration: .one,
                motion: .linear)
        ])
        func shown(_ selection: FrameSelection, _ ticks: [Int64]) -> Set<Int64>? {
            SegmentRetime(
                map: map, frameDuration: Rational(1, 24), selection: selection, origin: .zero, rangeStartTick: 0
            )
            .framesShown(ticks: ticks, timeBase: Rational(1, 60), instants: 2..<6)
        }
        let ticks = Array(Int64(0)..<20).shuffled()
        #expect(shown(.hold, ticks) == [5, 7, 10, 12])
        #expect(shown(.nearest, ticks) == [5, 6, 7, 8, 10, 11, 12, 13])
        #expect(shown(.blend, ticks) == shown(.nearest, ticks))
        // A packet without a time: nothing is skipped.
        #expect(shown(.hold, ticks + [Int64.min]) == nil)
    }
}
