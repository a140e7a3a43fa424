import Foundation
import TesseraCoordinator
import Testing

/// The scheduling model (`FarmModel`, Benchmarks/farm-sim) on inputs whose answer is known: it drives the
/// coordinator's own board, lease rules, backups and tail re-cut, so these also check those together.
@Suite("Farm scheduling model")
struct FarmModelTests {
    /// 15 measured segments of 4 s content taking 2 s each, 1 MB in and 0.2 MB out.
    static func input(audio: Double = 0) -> FarmModel.Input {
        var input = FarmModel.Input(segmentSeconds: Array(repeating: 2, count: 15))
        input.segmentContentSeconds = Array(repeating: 4, count: 15)
        input.segmentInputBytes = Array(repeating: 1e6, count: 15)
        input.segmentOutputBytes = Array(repeating: 2e5, count: 15)
        input.audioSeconds = audio
        input.contentSeconds = 60
        return input
    }

    static func options(_ workers: Int, film: Double = 1200, mix: FarmModel.Mix = .alike) -> FarmModel.Options {
        var options = FarmModel.Options(workers: workers)
        options.filmSeconds = film
        options.mix = mix
        return options
    }

    @Test("alike workers and no serial work: the makespan is the work divided, plus at most two segment times")
    func alikeWorkers() throws {
        // 1200 s of content in 300 segments of 2 s: 600 s of work.
        let one = try FarmModel.run(Self.input(), Self.options(1))
        #expect(abs(one.makespan - 600) < 2, "\(one.makespan)")
        #expect(one.efficiency > 0.99)
        var last = Double.infinity
        for n in [2, 4, 8, 16, 32] {
            let run = try FarmModel.run(Self.input(), Self.options(n))
            #expect(run.makespan >= 600 / Double(n) - 0.01, "no faster than perfect division")
            #expect(run.makespan <= 600 / Double(n) + 2 * 2 + 0.5, "at most two segment times of tail: \(run)")
            #expect(run.makespan < last, "more workers, sooner")
            #expect(run.deadWorkers == 0 && run.backups.started == 0, "nobody is slow: no backups")
            last = run.makespan
        }
        let sixteen = try FarmModel.run(Self.input(), Self.options(16))
        #expect(sixteen.efficiency > 0.95, "\(sixteen)")
        let shares = sixteen.lost.values.reduce(sixteen.efficiency, +)
        #expect(abs(shares - 1) < 0.01, "efficiency and the losses account for all the capacity: \(sixteen.lost)")
    }

    @Test("audio encoded on the coordinator while the workers encode bounds the makespan from below")
    func audio() throws {
        // 6 s of audio encoding per 60 s: 120 s for the film, encoded whole on one coordinator core.
        var options = Self.options(32)
        options.coordinatorCores = 1
        let many = try FarmModel.run(Self.input(audio: 6), options)
        #expect(many.makespan >= 120)
        #expect((many.lost["audio"] ?? 0) > 0.3, "the workers wait for the audio: \(many.lost)")
        options.workers = 1
        let one = try FarmModel.run(Self.input(audio: 6), options)
        #expect(one.makespan < 600 + 2, "hidden behind the video at one worker")
    }

    @Test("results checked on the coordinator's cores: the checks bound the farm once the workers outpace them")
    func resultChecks() throws {
        // 300 segments of 4 s, 2 s each: 32 alike workers make 16 a second. At 0.25 CPU-s per content second a
        // check takes 1 s: one core checks one a second (300 s for the film), twenty keep pace.
        var options = Self.options(32)
        options.checkSecondsPerContentSecond = 0.25
        options.coordinatorCores = 1
        let bound = try FarmModel.run(Self.input(), options)
        #expect(bound.makespan >= 300, "\(bound.makespan)")
        #expect((bound.lost["check"] ?? 0) > 0.5, "the workers wait for their results' checks: \(bound.lost)")
        #expect(bound.backups.started == 0, "a result waiting for its check is not late: no backup races it")
        options.coordinatorCores = 20
        let kept = try FarmModel.run(Self.input(), options)
        let unchecked = try FarmModel.run(Self.input(), Self.options(32))
        #expect(kept.makespan <= unchecked.makespan + 2, "\(kept.makespan) against \(unchecked.makespan)")
        #expect((kept.lost["check"] ?? 0) < 0.02, "\(kept.lost)")
    }

    @Test("audio in chunks on the coordinator's cores: its serial share, the rest spread over rounds of chunks")
    func chunkedAudio() throws {
        // 1200 s of film: 59 chunks of 20.48 s; on 16 threads, 4 rounds.
        #expect(FarmModel.audioSeconds(120, film: 1200, threads: 1, serial: 0.2) == 120)
        #expect(FarmModel.audioSeconds(120, film: 15, threads: 16, serial: 0.2) == 120, "one chunk: whole")
        let spread = FarmModel.audioSeconds(120, film: 1200, threads: 16, serial: 0.2)
        #expect(abs(spread - 120 * (0.2 + 0.8 * (1 + 34.0 / 960) * 4 / 59)) < 1e-9, "\(spread)")
        var options = Self.options(32)
        options.coordinatorCores = 16
        let run = try FarmModel.run(Self.input(audio: 6), options)
        #expect(run.makespan >= spread && run.makespan < 60, "\(run.makespan)")
    }

    @Test("planning: a fixed part and a part per content second, or the film's read from the disk when slower")
    func planning() throws {
        var input = Self.input()
        // 0.10 s for the 60 s clip, 0.64 s for it looped to 600 s, 0.04 s of start-up: nothing fixed, 1 ms
        // per content second; 1.2 s for the 1200 s film.
        input.planningSeconds = 0.10
        input.planningLongSeconds = 0.64
        input.planningLongContentSeconds = 600
        input.startupSeconds = 0.04
        var options = Self.options(1)
        options.diskBytesPerSecond = 1e12
        let fast = try FarmModel.run(input, options)
        #expect(abs(fast.makespan - 601.2) < 0.5, "\(fast.makespan)")
        // The film's 300 MB of packets at 1 MB/s: 300 s before the first lease.
        options.diskBytesPerSecond = 1e6
        let slow = try FarmModel.run(input, options)
        #expect(abs(slow.makespan - 900) < 2, "\(slow.makespan)")
        #expect(abs((slow.lost["plan"] ?? 0) - 300 / slow.makespan) < 0.01, "\(slow.lost)")
    }

    @Test("a worker at a tenth of the speed: backup attempts win and shorten the tail")
    func crawlingWorker() throws {
        var options = Self.options(8, film: 600, mix: .init(halfSpeed: 0, tenthSpeed: 0.125, dying: 0))
        let with = try FarmModel.run(Self.input(), options)
        options.backups = nil
        let without = try FarmModel.run(Self.input(), options)
        #expect(with.backups.won >= 1, "\(with.backups)")
        #expect(without.backups.started == 0)
        #expect(with.makespan < without.makespan, "\(with.makespan) vs \(without.makespan)")
        #expect((with.lost["tail"] ?? 0) < (without.lost["tail"] ?? 0))
    }

    @Test("a worker that dies mid-segment: its segments are leased again and the film is finished")
    func dyingWorker() throws {
        let run = try FarmModel.run(Self.input(), Self.options(10, mix: .init(halfSpeed: 0, tenthSpeed: 0, dying: 0.1)))
        #expect(run.deadWorkers == 1)
        #expect(run.segments > 0 && run.makespan > 600 / 10)
        #expect(run.makespan < 600 / 9 + 5 + 10, "nine workers finish it, after the liveness window")
    }

    @Test("workers that read the source themselves take the packets off the coordinator's link")
    func transports() throws {
        var options = Self.options(16)
        let packets = try FarmModel.run(Self.input(), options)
        options.transport = .source
        let source = try FarmModel.run(Self.input(), options)
        #expect(packets.sentBytesPerSegment > 1e6)
        #expect(source.sentBytesPerSegment <= packets.sentBytesPerSegment / 100)
        #expect(source.receivedBytesPerSegment == packets.receivedBytesPerSegment)
    }

    @Test("the planner's tail re-cut finishes alike workers together")
    func tailRecut() throws {
        // 3 segments of 2 s per worker and one over: kept whole, one worker runs the last alone.
        var options = Self.options(4, film: 52)
        let balanced = try FarmModel.run(Self.input(), options)
        options.recutTail = false
        let kept = try FarmModel.run(Self.input(), options)
        #expect(balanced.makespan < kept.makespan, "\(balanced.makespan) vs \(kept.makespan)")
    }

    @Test("input without segment costs is refused with a reason")
    func badInput() {
        #expect(throws: FarmModel.ModelError.self) {
            try FarmModel.run(FarmModel.Input(segmentSeconds: []), Self.options(2))
        }
        var endless = Self.options(2)
        endless.filmSeconds = .infinity
        #expect(throws: FarmModel.ModelError.self) { try FarmModel.run(Self.input(), endless) }
        var tiny = Self.input()
        tiny.segmentDuration = 1e-300
        #expect(throws: FarmModel.ModelError.self) { try FarmModel.run(tiny, Self.options(2)) }
        var huge = Self.input()
        huge.segmentDuration = 1e300
        #expect(throws: FarmModel.ModelError.self) { try FarmModel.run(huge, Self.options(2)) }
        var negative = Self.input()
        negative.audioSeconds = -.infinity
        #expect(throws: FarmModel.ModelError.self) { try FarmModel.run(negative, Self.options(2)) }
        var input = Self.input()
        input.segmentInputBytes = [1, 2]
        do {
            _ = try FarmModel.run(input, Self.options(2))
            Issue.record("a short list was taken")
        } catch {
            #expect(error.description.contains("segmentInputBytes must list 15"))
        }
    }
}
