import Foundation
import TesseraCore
import TesseraWire
import Testing

@testable import TesseraCoordinator
@testable import TesseraHTTP

/// The dispatcher's in-memory board: which segment goes out next, back-pressure, requeue, completion.
@Suite struct TaskBoardTests {
    static func work(_ index: Int) -> SegmentWork {
        SegmentWork(
            spec: SegmentSpec(
                index: index, outputFrames: index * 10..<index * 10 + 10,
                presentationRange: Int64(index) * 10..<Int64(index) * 10 + 10,
                decodePackets: index * 10..<index * 10 + 10,
                timeMap: TimeMapPiece(sourceStart: 0, outputStart: 0)),
            source: CodecConfiguration(codec: "h264", width: 16, height: 16, pixelFormat: "yuv420p"),
            timeBase: Rational(1, 30), frameRate: Rational(30), rotation: .none, packets: [],
            settings: VideoSettings(codec: .h264), endTick: nil, sourceName: "t", backend: .cpu)
    }

    /// Leases everything ready, one at a time, and returns "job/segment" in the order given out.
    static func drain(_ board: TaskBoard, limit: Int) -> [String] {
        var order: [String] = []
        var attempt = 0
        while order.count < limit,
            let next = board.next(
                worker: "w", now: 0,
                attempt: { _, _ in
                    attempt += 1
                    return attempt
                })
        {
            order.append("\(next.job)/\(next.work.spec.index)")
        }
        return order
    }

    @Test func equalPrioritiesAlternateAndHigherPriorityGoesFirst() {
        let board = TaskBoard(readyLimit: 10) {}
        board.open(job: "a", priority: 0, created: 1, finished: [:], framesFinished: 0)
        board.open(job: "b", priority: 0, created: 2, finished: [:], framesFinished: 0)
        board.open(job: "urgent", priority: 5, created: 3, finished: [:], framesFinished: 0)
        for i in 0..<3 {
            #expect(board.add(job: "a", Self.work(i)))
            #expect(board.add(job: "b", Self.work(i)))
        }
        #expect(board.add(job: "urgent", Self.work(0)))
        #expect(Self.drain(board, limit: 7) == ["urgent/0", "a/0", "b/0", "a/1", "b/1", "a/2", "b/2"])
    }

    @Test func requeuedSegmentGoesOutAgainAndStaleAttemptsAreIgnored() {
        let board = TaskBoard(readyLimit: 10) {}
        board.open(job: "a", priority: 0, created: 1, finished: [:], framesFinished: 0)
        _ = board.add(job: "a", Self.work(0))
        let first = board.next(worker: "w1", now: 0) { _, _ in 1 }
        #expect(first?.attempt == 1)
        #expect(!board.requeue(job: "a", segment: 0, attempt: 7), "an attempt that does not hold it")
        #expect(board.requeue(job: "a", segment: 0, attempt: 1))
        let second = board.next(worker: "w2", now: 0) { _, _ in 2 }
        #expect(second?.attempt == 2 && second?.work.spec.index == 0)
        // A late result from attempt 1 completes the segment and names attempt 2 as superseded.
        let superseded = board.complete(job: "a", segment: 0, attempt: 1, spool: URL(fileURLWithPath: "/x"), frames: 10)
            .superseded
        #expect(superseded.map(\.attempt) == [2] && superseded.map(\.worker) == ["w2"])
        #expect(board.isFinished(job: "a", segment: 0))
        #expect(board.frames(job: "a")?.finished == 10)
    }

    @Test func readySegmentsAreBoundedInBytesTooButOneAlwaysFits() {
        let board = TaskBoard(readyLimit: 10, readyBytesLimit: 100) {}
        board.open(job: "a", priority: 0, created: 1, finished: [:], framesFinished: 0)
        func work(_ index: Int, bytes: Int) -> SegmentWork {
            var w = Self.work(index)
            w.packets = [
                EncodedPacket(data: Array(repeating: 0, count: bytes), pts: 0, dts: 0, duration: 1, isKeyframe: true)
            ]
            return w
        }
        #expect(board.hasRoom(job: "a", for: work(0, bytes: 500)), "one segment fits however large")
        #expect(board.add(job: "a", work(0, bytes: 60)))
        #expect(!board.hasRoom(job: "a", for: work(1, bytes: 60)), "120 bytes would pass the 100-byte bound")
        #expect(board.hasRoom(job: "a", for: work(1, bytes: 40)))
        _ = board.next(worker: "w", now: 0) { _, _ in 1 }
        #expect(board.hasRoom(job: "a", for: work(1, bytes: 60)), "room again once it is leased")
    }

    @Test func aPrefetchIsLeasedOnlyWhileTheWorkersHeldBytesStayWithinTheBound() {
        let board = TaskBoard(readyLimit: 10) {}
        board.open(job: "a", priority: 0, created: 1, finished: [:], framesFinished: 0)
        for (i, bytes) in [500, 100, 40].enumerated() {
            var w = Self.work(i)
            w.packets = [
                EncodedPacket(data: Array(repeating: 0, count: bytes), pts: 0, dts: 0, duration: 1, isKeyframe: true)
            ]
            _ = board.add(job: "a", w)
        }
        var given: [String] = []
        var n = 0
        func round(_ seats: [TaskBoard.Seat]) {
            board.leaseRound(
                seats, now: 0, prefetchBytes: 150, backups: nil, rate: { _ in nil }, accepts: { _, _, _ in true },
                number: { _, _, _, _ in
                    n += 1
                    return n
                },
                grant: { worker, g in
                    given.append("\(worker):\(g.work.spec.index)")
                    return true
                })
        }
        // An empty worker takes the 500-byte segment whatever its size; it then holds too much for a prefetch.
        round([.init(id: "w1", credit: 2, holding: 0)])
        #expect(given == ["w1:0"])
        // Holding 100 bytes: the next in order (100 bytes) would make 200, and a job's segments go in order.
        round([.init(id: "w2", credit: 1, holding: 1, heldBytes: 100)])
        #expect(given == ["w1:0"])
        // Holding 40: 140 fits.
        round([.init(id: "w3", credit: 1, holding: 1, heldBytes: 40)])
        #expect(given == ["w1:0", "w3:1"])
    }

    @Test func aWorkerFarSlowerThanTheFarmGetsNoPrefetch() {
        let board = TaskBoard(readyLimit: 10) {}
        board.open(job: "a", priority: 0, created: 1, finished: [:], framesFinished: 0)
        for i in 0..<4 { _ = board.add(job: "a", Self.work(i)) }
        var given: [String] = []
        let rates = ["slow": 4.0, "half": 7.0, "fast": 10.0]
        board.leaseRound(
            [
                .init(id: "slow", credit: 1, holding: 1), .init(id: "half", credit: 1, holding: 1),
                .init(id: "new", credit: 1, holding: 1), .init(id: "idle", credit: 1, holding: 0),
            ], now: 0, backups: BackupPolicy(), rate: { rates[$0] }, farmRates: [10], accepts: { _, _, _ in true },
            number: { _, _, _, _ in 1 },
            grant: { worker, _ in
                given.append(worker)
                return true
            })
        // 4 × 1.5 < 10: no prefetch; 7 × 1.5 ≥ 10 does. A worker not measured yet waits for its first
        // segment to show its rate; an empty one always takes one.
        #expect(Set(given) == ["half", "idle"])
    }

    @Test func producerWaitsAtTheReadyLimitUntilASegmentIsLeased() throws {
        let board = TaskBoard(readyLimit: 2) {}
        board.open(job: "a", priority: 0, created: 1, finished: [:], framesFinished: 0)
        let added = LockedCount()
        let producer = Thread {
            for i in 0..<3 where board.add(job: "a", Self.work(i)) { added.increment() }
        }
        producer.start()
        Thread.sleep(forTimeInterval: 0.3)
        #expect(added.value == 2, "held back at the limit")
        _ = board.next(worker: "w", now: 0) { _, _ in 1 }
        Thread.sleep(forTimeInterval: 0.3)
        #expect(added.value == 3, "released once one was leased")
        // A failed job wakes its waiting producer and its stitcher.
        board.fail(job: "a", "boom")
        #expect(throws: FarmError.self) { try board.waitFinished(job: "a", segment: 1) }
    }

    @Test func aWorkerOnlyGetsWorkItCanDo() {
        let board = TaskBoard(readyLimit: 10) {}
        board.open(job: "a", priority: 0, created: 1, finished: [:], framesFinished: 0)
        var av1 = Self.work(0)
        av1.settings = VideoSettings(codec: .av1)
        _ = board.add(job: "a", av1)
        let h264Only = board.next(worker: "w", now: 0, accepts: { $1.settings.codec == .h264 }) { _, _ in 1 }
        #expect(h264Only == nil, "an H.264-only worker is not given AV1 work")
        #expect(board.hasReadyWork, "the work stays queued for another worker")
        let any = board.next(worker: "w2", now: 0) { _, _ in 1 }
        #expect(any?.work.settings.codec == .av1)
    }

    @Test func dispatcherMatchesCapabilities() {
        var caps = Tessera_V1_Capabilities()
        caps.videoDecoders = ["h264", "hevc"]
        caps.videoEncoders = ["h264"]
        caps.backends = ["cpu"]
        var work = Self.work(0)
        #expect(Dispatcher.canRun(work, caps))
        work.settings = VideoSettings(codec: .hevc)
        #expect(!Dispatcher.canRun(work, caps), "no hevc encoder")
        work = Self.work(0)
        work.source.codec = "vp9"
        #expect(!Dispatcher.canRun(work, caps), "no vp9 decoder")
        work = Self.work(0)
        work.backend = .vulkan
        #expect(!Dispatcher.canRun(work, caps), "no Vulkan device")
        #expect(Dispatcher.canRun(Self.work(0), Tessera_V1_Capabilities()), "no lists: trusted")
        // A task that keeps HDR10 goes only to a worker that signals it: an older one would drop it.
        work = Self.work(0)
        work.hdr = HDRMetadata(maxContentLightLevel: 1000, maxFrameAverageLightLevel: 400)
        #expect(!Dispatcher.canRun(work, caps), "no hdr10 feature")
        #expect(!Dispatcher.canRun(work, Tessera_V1_Capabilities()), "a worker that lists nothing does not have it")
        caps.features = [WorkerFeature.hdr10]
        #expect(Dispatcher.canRun(work, caps))
    }

    @Test func stalledOnlyUntilTheWorkerShowsProgress() {
        let board = TaskBoard(readyLimit: 10) {}
        board.open(job: "a", priority: 0, created: 1, finished: [:], framesFinished: 0)
        _ = board.add(job: "a", Self.work(0))
        _ = board.add(job: "a", Self.work(1))
        _ = board.next(worker: "w", now: 100) { _, _ in 1 }
        _ = board.next(worker: "w", now: 100) { _, _ in 1 }
        #expect(board.stalled(before: 150).count == 2)
        board.touch(worker: "w", now: 160)  // progress on one counts for the prefetched one too
        #expect(board.stalled(before: 150).isEmpty)
    }

    /// After a restart, a segment that was out at w1 waits for w1's claim: nobody else gets it; w1's
    /// claim gives it back under its attempt; a heartbeat of w1's that no longer lists a segment releases it.
    @Test func reservedSegmentsWaitForTheirWorkersClaim() {
        let board = TaskBoard(readyLimit: 10) {}
        board.open(
            job: "j", priority: 0, created: 1, finished: [:], framesFinished: 0,
            reserved: [0: .init(worker: "w1", attempt: 3), 1: .init(worker: "w1", attempt: 1)], reservedUntil: 100)
        for i in 0..<3 { #expect(board.add(job: "j", Self.work(i))) }
        // Only segment 2 is free to lease, to anyone (w1 included: it claims, it does not lease).
        let first = board.next(worker: "w2", now: 10, attempt: { _, _ in 1 })
        #expect(first?.work.spec.index == 2)
        #expect(board.next(worker: "w1", now: 10, attempt: { _, _ in 1 }) == nil)
        // w1 claims segment 0 (the store agrees); a claim the store refuses is superseded.
        #expect(board.adopt(job: "j", segment: 0, attempt: 3, worker: "w1", now: 11) { true } == .adopted)
        #expect(board.adopt(job: "j", segment: 0, attempt: 3, worker: "w1", now: 11) { true } == .adopted)
        #expect(board.adopt(job: "j", segment: 0, attempt: 2, worker: "w2", now: 11) { true } == .superseded)
        #expect(board.adopt(job: "j", segment: 9, attempt: 1, worker: "w1", now: 11) { true } == .unknown)
        #expect(board.adopt(job: "nope", segment: 0, attempt: 1, worker: "w1", now: 11) { true } == .unknown)
        // w1's heartbeat lists segment 0 only: segment 1 is released and goes out.
        #expect(board.releaseReservations(worker: "w1", keeping: [TaskKey(job: "j", segment: 0, attempt: 3)]))
        #expect(board.next(worker: "w2", now: 12, attempt: { _, _ in 2 })?.work.spec.index == 1)
        // A finished segment's claim is superseded.
        board.complete(job: "j", segment: 2, attempt: 1, spool: URL(fileURLWithPath: "/s/2"), frames: 10)
        #expect(board.adopt(job: "j", segment: 2, attempt: 1, worker: "w2", now: 13) { true } == .superseded)
    }

    @Test func reservationsLapseAtTheirDeadline() {
        let board = TaskBoard(readyLimit: 10) {}
        board.open(
            job: "j", priority: 0, created: 1, finished: [:], framesFinished: 0,
            reserved: [0: .init(worker: "gone", attempt: 1)], reservedUntil: 100)
        #expect(board.add(job: "j", Self.work(0)))
        #expect(board.next(worker: "w2", now: 99, attempt: { _, _ in 2 }) == nil)
        #expect(board.next(worker: "w2", now: 100, attempt: { _, _ in 2 })?.work.spec.index == 0)
    }
}

final class LockedCount: @unchecked Sendable {
    private var count = 0
    private let lock = NSLock()
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
