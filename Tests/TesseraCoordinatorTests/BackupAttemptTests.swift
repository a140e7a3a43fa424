import Foundation
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraCoordinator

/// Backup attempts: which segment an idle worker runs again (`BackupPolicy`, `TaskBoard.backup`), what the
/// board does when one of two racing attempts ends, and what the store records.
@Suite("Backup attempts")
struct BackupAttemptTests {
    typealias Attempt = BackupPolicy.Attempt

    @Test("time left: from the attempt's own progress; behind another task, after it at the worker's rate")
    func timeLeft() {
        // 30 of 90 frames in 10 s: 20 s to go.
        let running = Attempt(frames: 90, framesDone: 30, startedAt: 100, leasedAt: 99)
        #expect(BackupPolicy.timeLeft(running, holderRate: nil, now: 110) == 20)
        // A silent worker's rate falls as time passes: the same 30 frames after 30 s leave 60 s.
        #expect(BackupPolicy.timeLeft(running, holderRate: nil, now: 130) == 60)
        // Waiting behind it at 3 frames/s: 20 s for the running one, then 90 / 3.
        let waiting = Attempt(frames: 90, framesDone: 0, startedAt: nil, leasedAt: 99)
        #expect(BackupPolicy.timeLeft(waiting, ahead: [running], holderRate: 3, now: 110) == 50)
        #expect(BackupPolicy.timeLeft(waiting, ahead: [running], holderRate: nil, now: 110) == nil)
    }

    @Test("a worker's rate averages its segments; a rate no encoder reaches is not believed")
    func rates() {
        #expect(BackupPolicy.rate(after: nil, frames: 30, seconds: 1) == 30)
        #expect(BackupPolicy.rate(after: 30, frames: 30, seconds: 0.5) == 45)
        #expect(BackupPolicy.rate(after: 30, frames: 30, seconds: 1e-300) == 30)
        #expect(BackupPolicy.rate(after: 30, frames: 30, seconds: -1) == 30)
        #expect(BackupPolicy.rate(after: nil, frames: 0, seconds: 1) == nil)
    }

    @Test("a backup only when the attempt would end more than 1.5× later than the idle worker's whole run")
    func threshold() {
        let policy = BackupPolicy()
        let attempt = Attempt(frames: 90, framesDone: 30, startedAt: 100, leasedAt: 99)
        // The idle worker needs 90 / 9 = 10 s: 20 s left is worth it, 14 s is not.
        #expect(policy.shouldBackUp(attempt, timeLeft: 20, idleRate: 9, now: 110))
        #expect(!policy.shouldBackUp(attempt, timeLeft: 14, idleRate: 9, now: 110))
        // Too young to judge, and no rate for the idle worker: never.
        #expect(!policy.shouldBackUp(attempt, timeLeft: 100, idleRate: 9, now: 100))
        #expect(!policy.shouldBackUp(attempt, timeLeft: 100, idleRate: 0, now: 110))
        // Nothing known of its end: its age stands in (16 s > 15 s).
        #expect(policy.shouldBackUp(attempt, timeLeft: nil, idleRate: 9, now: 115))
        #expect(!policy.shouldBackUp(attempt, timeLeft: nil, idleRate: 9, now: 113))
    }

    @Test("a worker silent for longer than silentAfter has no expected end: its age stands in")
    func silence() {
        // 30 frames in 12 s when last heard from at 110: 60 frames at 2.5 frames/s.
        let running = Attempt(frames: 90, framesDone: 30, startedAt: 100, leasedAt: 99, lastProgress: 110)
        #expect(BackupPolicy.timeLeft(running, holderRate: nil, now: 110 + BackupPolicy.silentAfter) == 24)
        #expect(BackupPolicy.timeLeft(running, holderRate: nil, now: 110.5 + BackupPolicy.silentAfter) == nil)
        // What waits behind a silent attempt is unknown too.
        let waiting = Attempt(frames: 90, framesDone: 0, startedAt: nil, leasedAt: 99, lastProgress: 110)
        #expect(BackupPolicy.timeLeft(waiting, ahead: [running], holderRate: 3, now: 113) == nil)
    }

    @Test("a worker busy for a while must still beat the attempt by the multiplier after it is free")
    func startsLater() {
        let policy = BackupPolicy()
        let attempt = Attempt(frames: 90, framesDone: 30, startedAt: 100, leasedAt: 99)
        // 10 s of encode at 9 frames/s: 20 s left beats 4 + 15, not 6 + 15.
        #expect(policy.shouldBackUp(attempt, timeLeft: 20, idleRate: 9, startsIn: 4, now: 110))
        #expect(!policy.shouldBackUp(attempt, timeLeft: 20, idleRate: 9, startsIn: 6, now: 110))
        #expect(!policy.shouldBackUp(attempt, timeLeft: 100, idleRate: 9, startsIn: -1, now: 110))
    }

    @Test("quantiles of the farm's rates: a member, the upper one between two")
    func quantiles() {
        #expect(BackupPolicy.quantile([4, 1, 3, 2], 0.5) == 3)
        #expect(BackupPolicy.quantile([4, 1, 3, 2], 0.75) == 4)
        #expect(BackupPolicy.quantile([4, 1, 3, 2], 1) == 4)
        #expect(BackupPolicy.quantile([4, 1, 3, 2], 0) == 1)
        #expect(BackupPolicy.quantile([4, 1, 3, 2], .nan) == 1)
        #expect(BackupPolicy.quantile([], 0.5) == nil)
        #expect(BackupPolicy.median([5]) == 5)
    }

    /// Five 10-frame segments of a job making `framesTotal` frames: 0 and 1 out at 1 frame/s (8 s left
    /// each), 2 nearly done at "fast", 3 and 4 queued; and a lease round at t = 103 that records its grants.
    /// `workers`: the live workers, measured or not.
    static func frontierBoard(
        framesTotal: Int?, workers: Int = 0
    ) -> (TaskBoard, round: ([TaskBoard.Seat]) -> [String]) {
        let board = TaskBoard(readyLimit: 10) {}
        board.open(job: "a", priority: 0, created: 1, finished: [:], framesFinished: 0, framesTotal: framesTotal)
        for i in 0..<5 { _ = board.add(job: "a", TaskBoardTests.work(i)) }
        for worker in ["crawl", "crawl2", "fast"] { _ = board.next(worker: worker, now: 100) { _, _ in 1 } }
        board.progress(job: "a", segment: 0, attempt: 1, frames: 2, framesPerSecond: 1, now: 103)
        board.progress(job: "a", segment: 1, attempt: 1, frames: 2, framesPerSecond: 1, now: 103)
        board.progress(job: "a", segment: 2, attempt: 1, frames: 8, framesPerSecond: 10, now: 103)
        // 35 frames/s in all; the fastest quarter at 10.
        let rates = ["crawl": 1.0, "crawl2": 1.0, "half": 3.0, "fast": 10.0, "fast2": 10.0, "fast3": 10.0]
        return (
            board,
            { seats in
                var given: [String] = []
                board.leaseRound(
                    seats, now: 103, backups: BackupPolicy(), rate: { rates[$0] }, farmRates: Array(rates.values),
                    workers: workers, accepts: { _, _, _ in true }, number: { backup, _, _, _ in backup ? 2 : 1 },
                    grant: { worker, grant in
                        given.append("\(worker):\(grant.work.spec.index)\(grant.backupOf == nil ? "" : " backup")")
                        return true
                    })
                return given
            }
        )
    }

    @Test("while work is queued, only the stitch frontier is backed up, and only by a worker among the fastest")
    func frontier() {
        let (board, round) = Self.frontierBoard(framesTotal: 50)
        // "half" (3 × 1.5 < 10) takes queued work; "fast", free in 0.2 s, backs up the frontier (8 s left;
        // the job's other 30 frames take the farm 0.9 s), not the queue and not segment 1, as slow as it is.
        #expect(
            round([.init(id: "half", credit: 1, holding: 0), .init(id: "fast", credit: 1, holding: 1)])
                == ["half:3", "fast:0 backup"])
        #expect(board.racing(job: "a") == [0])
        // The frontier has its backup: the next fast worker takes the queue.
        #expect(round([.init(id: "fast2", credit: 1, holding: 0)]) == ["fast2:4"])
        #expect(board.racing(job: "a") == [0])
    }

    @Test("a worker not measured yet, holding a task, neither backs up the frontier nor takes a prefetch")
    func unmeasuredWorkersDoNotRace() {
        let (board, round) = Self.frontierBoard(framesTotal: 50)
        // As fast as "fast" may be, or a tenth of it: its first segment will say.
        #expect(round([.init(id: "new", credit: 1, holding: 1)]).isEmpty)
        #expect(board.racing(job: "a").isEmpty)
        // Holding nothing, it takes the queue.
        #expect(round([.init(id: "new", credit: 1, holding: 0)]) == ["new:3"])
        #expect(board.racing(job: "a").isEmpty)
    }

    @Test("the farm's capacity counts the workers not measured yet at the median rate")
    func unmeasuredWorkersCountAtTheMedian() {
        // 380 frames left to make: 10.9 s at the measured workers' 35 frames/s, longer than the frontier's
        // 8 s, so it would land first and is left alone; with six more workers at the median (10), the farm
        // makes them in 4.0 s, and the frontier would hold the stitching after: it is backed up.
        let (measuredOnly, round) = Self.frontierBoard(framesTotal: 400)
        #expect(round([.init(id: "fast", credit: 1, holding: 1)]) == ["fast:3"])
        #expect(measuredOnly.racing(job: "a").isEmpty)
        let (all, roundAll) = Self.frontierBoard(framesTotal: 400, workers: 12)
        #expect(roundAll([.init(id: "fast", credit: 1, holding: 1)]) == ["fast:0 backup"])
        #expect(all.racing(job: "a") == [0])
    }

    @Test("a frontier that would be in before the farm makes the rest of the job is left alone")
    func frontierBeforeTheEnd() {
        // 10,000 frames: 283 s of work left at 35 frames/s against the frontier's 8 s.
        let (board, round) = Self.frontierBoard(framesTotal: 10_000)
        #expect(round([.init(id: "fast", credit: 1, holding: 1)]) == ["fast:3"])
        #expect(board.racing(job: "a").isEmpty)
        // Without a plan's total the rule has nothing to weigh: no frontier backup either.
        let (unplanned, roundUnplanned) = Self.frontierBoard(framesTotal: nil)
        #expect(roundUnplanned([.init(id: "fast", credit: 1, holding: 1)]) == ["fast:3"])
        #expect(unplanned.racing(job: "a").isEmpty)
    }

    /// A board with one job whose segments 0 and 1 are out at "slow" (1 running, 2 waiting behind it)
    /// and segment 2 at "fast", all leased at t = 100.
    static func racingBoard() -> TaskBoard {
        let board = TaskBoard(readyLimit: 10) {}
        board.open(job: "a", priority: 0, created: 1, finished: [:], framesFinished: 0)
        for i in 0..<3 { _ = board.add(job: "a", TaskBoardTests.work(i)) }
        var n = 0
        for worker in ["slow", "slow", "fast"] {
            _ = board.next(worker: worker, now: 100) { _, _ in
                n += 1
                return 1
            }
        }
        return board
    }

    /// Both of `racingBoard`'s workers report at `now`: still moving.
    static func touch(_ board: TaskBoard, at now: Double) {
        for worker in ["slow", "fast"] { board.touch(worker: worker, now: now) }
    }

    @Test("the idle worker backs up the segment with the latest expected end, once")
    func chooseLatest() throws {
        let board = Self.racingBoard()
        let policy = BackupPolicy()
        let rates = ["slow": 1.0, "fast": 10.0, "idle": 10.0]
        // Segment 0 on slow: 2 of 10 frames after 4 s (16 s left); segment 1 waits behind it (26 s);
        // segment 2 on fast is nearly done.
        board.progress(job: "a", segment: 0, attempt: 1, frames: 2, framesPerSecond: 0.5, now: 104)
        board.progress(job: "a", segment: 2, attempt: 1, frames: 9, framesPerSecond: 9 / 4, now: 104)
        Self.touch(board, at: 104)
        var numbered: [Int] = []
        let backup = try #require(
            board.backup(worker: "idle", now: 104, policy: policy, rate: { rates[$0] }) { _, segment in
                numbered.append(segment)
                return 2
            })
        #expect(backup.work.spec.index == 1 && backup.attempt == 2 && backup.of.worker == "slow")
        #expect(numbered == [1])
        #expect(board.racing(job: "a") == [1])
        // The next idle worker takes segment 0; nothing is left worth a third.
        let second = board.backup(worker: "idle2", now: 104, policy: policy, rate: { rates[$0] }) { _, _ in 2 }
        #expect(second?.work.spec.index == 0)
        #expect(board.backup(worker: "idle3", now: 104, policy: policy, rate: { rates[$0] }) { _, _ in 2 } == nil)
        // Progress counts a racing segment once: its furthest attempt.
        board.progress(job: "a", segment: 1, attempt: 2, frames: 4, framesPerSecond: 10, now: 105)
        #expect(board.frames(job: "a")?.inFlight == 2 + 4 + 9)
    }

    @Test("among attempts whose end nobody knows, the lowest segment is backed up first, whatever the hash order")
    func tiesGoToTheLowestSegment() throws {
        let board = TaskBoard(readyLimit: 20) {}
        board.open(job: "a", priority: 0, created: 1, finished: [:], framesFinished: 0)
        for i in 0..<12 { _ = board.add(job: "a", TaskBoardTests.work(i)) }
        for i in 0..<12 { _ = board.next(worker: "w\(i)", now: 100) { _, _ in 1 } }
        // No progress and no rate from any holder: every end is unknown, every age (10 s) stands in.
        var order: [Int] = []
        for idle in 0..<3 {
            let b = try #require(
                board.backup(
                    worker: "idle\(idle)", now: 110, policy: BackupPolicy(), rate: { $0.hasPrefix("idle") ? 10 : nil }
                ) {
                    _, _ in 2
                })
            order.append(b.work.spec.index)
        }
        #expect(order == [0, 1, 2])
    }

    @Test("an attempt with every frame made is not raced, however long its result waits for its check")
    func deliveredAttemptsAreNotRaced() throws {
        let board = Self.racingBoard()
        // The idle workers are not measured: they stand at the farm's median.
        let rates = ["slow": 1.0, "fast": 10.0]
        // Segment 2's result is in at 101 (all 10 frames, as the dispatcher records when it goes to its check);
        // segments 0 and 1 at "slow" have 1 frame done. At 110 nobody has reported for 9 s.
        board.progress(job: "a", segment: 2, attempt: 1, frames: 10, framesPerSecond: 10, now: 101)
        board.progress(job: "a", segment: 0, attempt: 1, frames: 1, framesPerSecond: 1, now: 101)
        var raced: [Int] = []
        while let b = board.backup(
            worker: "idle\(raced.count)", now: 110, policy: BackupPolicy(), rate: { rates[$0] }, attempt: { _, _ in 2 })
        {
            raced.append(b.work.spec.index)
        }
        // The silent attempts' ages stand in, and they are raced; the delivered one is not.
        #expect(raced.sorted() == [0, 1])
        #expect(
            BackupPolicy.timeLeft(
                .init(frames: 10, framesDone: 10, startedAt: 100, leasedAt: 100, lastProgress: 101), holderRate: nil,
                now: 110) == 0)
    }

    @Test("no backup while the slow attempt is young, or not slow enough, or for its own worker")
    func noBackup() {
        let board = Self.racingBoard()
        let policy = BackupPolicy()
        let rates = ["slow": 8.0, "fast": 10.0, "idle": 10.0]
        #expect(board.backup(worker: "idle", now: 101, policy: policy, rate: { rates[$0] }) { _, _ in 2 } == nil)
        // At 8 frames/s the waiting segment ends within 1.5 × 1 s of the idle worker's need... just not.
        // (Each report touches everything its worker holds, as the dispatcher does.)
        board.progress(job: "a", segment: 0, attempt: 1, frames: 8, framesPerSecond: 8, now: 103)
        Self.touch(board, at: 103)
        #expect(board.backup(worker: "idle", now: 103, policy: policy, rate: { rates[$0] }) { _, _ in 2 } == nil)
        let fresh = Self.racingBoard()
        Self.touch(fresh, at: 500)
        #expect(
            fresh.backup(worker: "slow", now: 500, policy: policy, rate: { $0 == "slow" ? 10 : nil }) { _, _ in 2 }?
                .of.worker
                == "fast", "a worker never backs up its own attempts")
        // A worker holding tasks it has said nothing of for `silentAfter` backs up nothing: when it would
        // start is unknown.
        #expect(
            Self.racingBoard().backup(worker: "slow", now: 500, policy: policy, rate: { $0 == "slow" ? 10 : nil }) {
                _, _ in 2
            } == nil)
    }

    @Test("the first result wins and names the other attempt to withdraw; a racing attempt that fails leaves the other")
    func raceEnds() throws {
        let board = Self.racingBoard()
        Self.touch(board, at: 110)
        let rates = ["slow": 0.5, "fast": 10.0, "idle": 10.0]
        let b1 = try #require(
            board.backup(worker: "idle", now: 110, policy: BackupPolicy(), rate: { rates[$0] }) { _, _ in 2 })
        let b0 = try #require(
            board.backup(worker: "idle2", now: 110, policy: BackupPolicy(), rate: { rates[$0] }) { _, _ in 2 })
        #expect(Set([b1.work.spec.index, b0.work.spec.index]) == [0, 1])
        // Segment 1: the backup wins; the slow attempt is to be withdrawn.
        let won = board.complete(
            job: "a", segment: b1.work.spec.index, attempt: 2, spool: URL(fileURLWithPath: "/s1"), frames: 10)
        #expect(won.byBackup && won.superseded.map(\.worker) == ["slow"])
        // Segment 0: the backup fails; the slow attempt carries on alone and is then the sole attempt.
        let s0 = b0.work.spec.index
        #expect(!board.isSoleAttempt(job: "a", segment: s0, attempt: 1))
        #expect(board.endRacing(job: "a", segment: s0, attempt: 2)?.isBackup == true)
        #expect(board.isSoleAttempt(job: "a", segment: s0, attempt: 1))
        #expect(board.endRacing(job: "a", segment: s0, attempt: 1) == nil, "not racing any more")
        let slowWon = board.complete(job: "a", segment: s0, attempt: 1, spool: URL(fileURLWithPath: "/s0"), frames: 10)
        #expect(!slowWon.byBackup && slowWon.superseded.isEmpty)
        #expect(board.racing(job: "a").isEmpty)
    }

    @Test("when the first attempt of a race fails, its backup becomes the segment's attempt")
    func firstFails() throws {
        let board = Self.racingBoard()
        Self.touch(board, at: 110)
        let backup = try #require(
            board.backup(worker: "idle", now: 110, policy: BackupPolicy(), rate: { ["slow": 0.5][$0] ?? 10 }) {
                _, _ in 2
            })
        let s = backup.work.spec.index
        #expect(board.endRacing(job: "a", segment: s, attempt: 1)?.worker == "slow")
        #expect(board.isSoleAttempt(job: "a", segment: s, attempt: 2))
        #expect(board.requeue(job: "a", segment: s, attempt: 2), "the backup holds the segment now")
    }

    @Test("the store numbers a backup after the running attempt; a backup's result marks the segment")
    func store() throws {
        try withStore { store, _, _ in
            let id = try store.runningJob(frames: [4, 4])
            let first = try #require(try store.lease("w1", deadline: 1_100))
            #expect(throws: StoreError.self) {
                try store.leaseBackup(jobID: id, segment: 1, worker: "w2", deadline: 1_100)
            }
            let backup = try store.leaseBackup(jobID: id, segment: first.segment, worker: "w2", deadline: 1_100)
            #expect(backup.attempt == 2 && backup.worker == "w2")
            #expect(try store.holder(jobID: id, segment: first.segment, attempt: 1) == "w1")
            // The backup fails first; the first attempt is then the segment's, though not its latest number.
            #expect(
                try store.failAttempt(
                    jobID: id, segment: first.segment, attempt: 1, error: "x", counts: true, maxFailures: 3) == .stale)
            #expect(
                try store.failAttempt(
                    jobID: id, segment: first.segment, attempt: 1, error: "boom", counts: true, maxFailures: 3,
                    current: true) == .requeued)
            let record = try #require(try store.segment(id, first.segment))
            #expect(record.errors == ["attempt 1 on w1: boom"] && record.backups == 1 && !record.doneByBackup)
            // Segment 1: its backup wins.
            _ = try store.lease(jobID: id, segment: 1, worker: "w1", deadline: 1_100)
            let other = try store.leaseBackup(jobID: id, segment: 1, worker: "w3", deadline: 1_100)
            #expect(
                try store.complete(
                    jobID: id, segment: 1, attempt: other.attempt, spoolFile: "/s", encodeSeconds: 1, processor: "cpu")
                    == .accepted)
            let done = try #require(try store.segment(id, 1))
            #expect(done.doneByBackup && done.backups == 1)
            #expect(Coordinator.segmentStatus(done).state == .backup)
            #expect(Coordinator.segmentStatus(record, racing: false).state == .queued)
        }
    }

    @Test("after a restart mid-race only the backup's worker gets the segment back; the slow one's result still counts")
    func restartMidRace() throws {
        try withStore { store, _, _ in
            let id = try store.runningJob(frames: [3, 4])
            _ = try store.lease(jobID: id, segment: 0, worker: "slow", deadline: 9)
            _ = try store.leaseBackup(jobID: id, segment: 0, worker: "idle", deadline: 9)
            try store.transition(id, to: .planning)
            try store.setPlan(id, segmentFrames: [3, 4], framesTotal: 7)
            try store.transition(id, to: .running)
            #expect(try store.segment(id, 0)?.lease == nil)
            #expect(try !store.adopt(jobID: id, segment: 0, attempt: 1, worker: "slow", deadline: 9))
            #expect(try store.adopt(jobID: id, segment: 0, attempt: 2, worker: "idle", deadline: 9))
            // The slow worker finished during the outage: the first result wins whatever its attempt.
            #expect(
                try store.complete(
                    jobID: id, segment: 0, attempt: 1, spoolFile: "/s/0", encodeSeconds: 9, processor: "cpu")
                    == .accepted)
            #expect(
                try store.complete(
                    jobID: id, segment: 0, attempt: 2, spoolFile: "/s/0b", encodeSeconds: 1, processor: "cpu")
                    == .duplicate)
            let done = try #require(try store.segment(id, 0))
            #expect(done.spoolFile == "/s/0" && !done.doneByBackup && done.backups == 1)
            #expect(Coordinator.segmentStatus(done).state == .done)
        }
    }

    @Test("a backup that failed before the restart leaves the slow attempt's worker the one to claim it back")
    func restartAfterAFailedBackup() throws {
        try withStore { store, _, _ in
            let id = try store.runningJob(frames: [3, 4])
            _ = try store.lease(jobID: id, segment: 0, worker: "slow", deadline: 9)
            _ = try store.leaseBackup(jobID: id, segment: 0, worker: "idle", deadline: 9)
            // The backup fails while the slow attempt runs on; then the coordinator restarts.
            try store.endRacingAttempt(jobID: id, segment: 0, attempt: 2)
            #expect(try store.liveAttempts(of: id).mapValues { "\($0.worker)#\($0.attempt)" } == [0: "slow#1"])
            try store.transition(id, to: .planning)
            try store.setPlan(id, segmentFrames: [3, 4], framesTotal: 7)
            try store.transition(id, to: .running)
            #expect(try !store.adopt(jobID: id, segment: 0, attempt: 2, worker: "idle", deadline: 9))
            #expect(try store.adopt(jobID: id, segment: 0, attempt: 1, worker: "slow", deadline: 9))
            // Handed back, the segment's next attempt is still numbered after every earlier one.
            #expect(
                try store.failAttempt(
                    jobID: id, segment: 0, attempt: 1, error: "draining", counts: false, maxFailures: 3, current: true)
                    == .requeued)
            #expect(try store.lease(jobID: id, segment: 0, worker: "other", deadline: 9).attempt == 3)
        }
    }
}
