import Foundation
import TesseraTestSupport
import Testing

/// Failures a farm must survive: dead, frozen and unauthorised workers, a coordinator killed mid-job.
@Suite("Farm faults", .serialized)
struct FarmFaultTests {
    /// A source whose 1-second segments each take a second or two to encode with `slowOptions`.
    static func slowSource(_ farm: FarmFixture, seconds: Double = 12) throws -> URL {
        let src = farm.media.appendingPathComponent("slow.mp4")
        try TestMedia.make(
            src, seconds: seconds, width: 640, height: 360,
            video: ["-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-pix_fmt", "yuv420p"])
        return src
    }

    static let slowOptions = ["--segment-duration", "1", "--speed", "slower"]

    static func verify(_ out: URL, against src: URL) throws -> Bool {
        try TestMedia.runCapturing(TestMedia.tesseraBinary.path, ["verify", out.path, "--against", src.path]).status
            == 0
    }

    /// Segment numbers of one job in log lines like "segment j-…/3#1 <word>".
    static func segments(_ log: String, job: String, word: String) -> [Int] {
        log.split(separator: "\n").compactMap { line -> Int? in
            guard let r = line.range(of: "segment \(job)/"), line.contains(word) else { return nil }
            return Int(line[r.upperBound...].prefix { $0.isNumber })
        }
    }

    /// Segments a restarted coordinator found spooled, from "job j-…: n of m segments already spooled: 0-9, 11".
    static func alreadySpooled(_ log: String, job: String) -> [Int] {
        log.split(separator: "\n").flatMap { line -> [Int] in
            guard line.contains("job \(job):"), let r = line.range(of: "already spooled: ") else { return [] }
            return line[r.upperBound...].split(separator: ", ").flatMap { run -> [Int] in
                let ends = run.split(separator: "-").compactMap { Int($0) }
                guard let first = ends.first, let last = ends.last, first <= last else { return [] }
                return Array(first...last)
            }
        }
    }

    @Test("kill -9 of a worker mid-segment: the job completes and verifies")
    func killedWorker() throws {
        let farm = try FarmFixture()
        let src = try Self.slowSource(farm)
        try farm.startCoordinator()
        try farm.startWorker("w1")
        try farm.startWorker("w2")
        let id = try farm.submit(src, output: "out.mp4", Self.slowOptions)
        #expect(try farm.eventually(30) { try farm.client(["workers", "--json"]).stdout.contains("\"busy\"") })
        Thread.sleep(forTimeInterval: 0.5)
        farm.signal("w1", SIGKILL)
        let status = try farm.wait(id)
        #expect(status["state"] as? String == "completed", "\(status)")
        #expect(try Self.verify(farm.outputs.appendingPathComponent("out.mp4"), against: src))
        #expect(
            farm.log("coordinator").contains("worker w1 went silent") || farm.log("coordinator").contains("w1 silent"),
            "the coordinator noticed: \(farm.log("coordinator").suffix(1500))")
    }

    @Test("SIGSTOP of a worker: its segment is re-leased within the failure timeout")
    func frozenWorker() throws {
        let farm = try FarmFixture()
        let src = try Self.slowSource(farm)
        try farm.startCoordinator()
        try farm.startWorker("w1")
        try farm.startWorker("w2")
        let id = try farm.submit(src, output: "out.mp4", Self.slowOptions)
        #expect(try farm.eventually(30) { !Self.segments(farm.log("w1"), job: id, word: "done").isEmpty })
        let stopped = Date()
        farm.signal("w1", SIGSTOP)
        // 200 ms heartbeats × 10 = dead after 2 s of silence; well inside the 8 s stall timeout.
        let noticed = try farm.eventually(8) { farm.log("coordinator").contains("re-leasing") }
        let delay = Date().timeIntervalSince(stopped)
        #expect(noticed, "re-leased: \(farm.log("coordinator").suffix(1500))")
        #expect(delay < 8)
        let status = try farm.wait(id)
        farm.signal("w1", SIGCONT)
        #expect(status["state"] as? String == "completed", "\(status)")
        #expect(try Self.verify(farm.outputs.appendingPathComponent("out.mp4"), against: src))
    }

    /// A quick restart (the workers are still encoding, and hold prefetched segments, when the new
    /// coordinator welcomes them) and a slower one (they finish during the outage): either way every
    /// segment is encoded exactly once. Workers claim what they kept; results are re-sent and spooled.
    @Test(
        "coordinator killed mid-job and restarted: the job completes, no segment is encoded twice",
        arguments: [0.2, 3.0])
    func coordinatorRestart(outage: Double) throws {
        let farm = try FarmFixture()
        let src = try Self.slowSource(farm, seconds: 14)
        try farm.startCoordinator()
        try farm.startWorker("w1")
        try farm.startWorker("w2")
        let id = try farm.submit(src, output: "out.mp4", Self.slowOptions)
        #expect(try farm.eventually(60) { Self.segments(farm.log("coordinator"), job: id, word: "spooled").count >= 3 })
        farm.signal("coordinator", SIGKILL)
        _ = farm.waitExit("coordinator", timeout: 10)
        // kill -9 skips the writer's clean-up: its temporary file is still beside the output.
        let leftBehind = try FileManager.default.contentsOfDirectory(atPath: farm.outputs.path)
        let spooledBefore = Set(Self.segments(farm.log("coordinator"), job: id, word: "spooled"))
        let status0 = Self.segments(farm.log("coordinator"), job: id, word: "spooled").count
        #expect(status0 < 14, "the job was still running when the coordinator died")
        // What the workers finish during the outage is offered again to the restarted coordinator.
        Thread.sleep(forTimeInterval: outage)
        let finishedInOutage = Set(Self.segments(farm.workerLogs, job: id, word: " done: ")).subtracting(spooledBefore)
        let joinsBefore = farm.log("coordinator").components(separatedBy: " joined (").count
        try farm.startCoordinator()
        let status = try farm.wait(id)
        #expect(status["state"] as? String == "completed", "\(status)\n\(farm.log("coordinator").suffix(2000))")
        #expect(try Self.verify(farm.outputs.appendingPathComponent("out.mp4"), against: src))
        // Every segment spooled before the kill, or finished by a worker during the outage, was encoded
        // exactly once.
        let encoded = Self.segments(farm.workerLogs, job: id, word: " done: ")
        for segment in spooledBefore.union(finishedInOutage) {
            #expect(encoded.filter { $0 == segment }.count == 1, "segment \(segment) re-encoded after the restart")
        }
        // And so was every other one: what was running or prefetched at the restart was claimed back.
        let twice = Dictionary(grouping: encoded, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
        #expect(twice.isEmpty, "segments encoded twice: \(twice)\n\(farm.log("coordinator").suffix(3000))")
        #expect(Set(encoded).count == 14)
        // Each worker joined the restarted coordinator once (or twice, had its first Hello crossed the
        // restart), not once per message the restarted coordinator rejected.
        let joinsAfter = farm.log("coordinator").components(separatedBy: " joined (").count - joinsBefore
        #expect(joinsAfter <= 4, "\(joinsAfter) joins of 2 workers after the restart")
        // The restarted coordinator names what it found spooled: at least all that was logged so before.
        let found = Set(Self.alreadySpooled(farm.log("coordinator"), job: id))
        #expect(spooledBefore.isSubset(of: found), "spooled \(spooledBefore.sorted()), found \(found.sorted())")
        // Nothing but the output is left in the output root, whatever the killed run had written.
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: farm.outputs.path) == ["out.mp4"],
            "left in the output root (before the restart: \(leftBehind))")
    }

    @Test("a worker whose CURVE key is not on the allow-list is refused; an allowed one works")
    func curveAllowList() throws {
        let farm = try FarmFixture(curve: true)
        try farm.makeWorkerKey("good", allowed: true)
        try farm.makeWorkerKey("intruder", allowed: false)
        let src = farm.media.appendingPathComponent("a.mp4")
        try TestMedia.make(src, seconds: 3)
        try farm.startCoordinator()
        try farm.startWorker("good")
        try farm.startWorker("intruder")
        #expect(try farm.eventually(15) { try farm.client(["workers", "--json"]).stdout.contains("\"good\"") })
        Thread.sleep(forTimeInterval: 2)
        #expect(try !farm.client(["workers", "--json"]).stdout.contains("intruder"))
        let refusedKey =
            try String(contentsOf: farm.keys.appendingPathComponent("intruder.pub"), encoding: .utf8)
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.last {
                !$0.hasPrefix("#") && !$0.isEmpty
            } ?? "?"
        #expect(farm.log("coordinator").contains(refusedKey), "the refusal names the key")
        let id = try farm.submit(src, output: "out.mp4", ["--segment-duration", "1"])
        #expect(try farm.wait(id)["state"] as? String == "completed")
        #expect(!farm.log("intruder").contains(" done: "))
        // SIGTERM stops the coordinator gracefully.
        farm.signal("coordinator", SIGTERM)
        #expect(farm.waitExit("coordinator", timeout: 20) == 0, "\(farm.log("coordinator").suffix(1000))")
    }

    @Test("SIGTERM drains a worker: its running segment is delivered, the prefetched one handed back")
    func drainingWorker() throws {
        let farm = try FarmFixture()
        let src = try Self.slowSource(farm)
        try farm.startCoordinator()
        try farm.startWorker("w1")
        let id = try farm.submit(src, output: "out.mp4", Self.slowOptions)
        #expect(try farm.eventually(30) { !Self.segments(farm.log("w1"), job: id, word: " done: ").isEmpty })
        try farm.startWorker("w2")
        farm.signal("w1", SIGTERM)
        #expect(farm.waitExit("w1", timeout: 60) == 0, "w1 drained and left: \(farm.log("w1").suffix(800))")
        let log = farm.log("w1")
        #expect(log.contains("draining"))
        // Nothing it held was lost: the job completes on w2.
        let status = try farm.wait(id)
        #expect(status["state"] as? String == "completed", "\(status)")
        #expect(try Self.verify(farm.outputs.appendingPathComponent("out.mp4"), against: src))
        #expect(farm.log("coordinator").contains("worker w1 left"))
    }
}
