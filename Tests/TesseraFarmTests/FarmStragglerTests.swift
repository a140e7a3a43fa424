import Foundation
import TesseraTestSupport
import Testing

/// A slow worker must not hold a job's tail: idle workers take backup attempts of its segments.
@Suite("Farm stragglers", .serialized)
struct FarmStragglerTests {
    @Test("a worker slowed from outside: a backup attempt wins, the slow attempt is withdrawn, the job verifies")
    func slowedWorker() throws {
        let farm = try FarmFixture()
        let src = try FarmFaultTests.slowSource(farm)
        try farm.startCoordinator()
        for name in ["w1", "w2", "w3"] { try farm.startWorker(name) }
        #expect(try farm.eventually(30) { farm.log("coordinator").contains("worker w3 joined") })
        // w3 runs 0.1 s in every 0.6 s: about a sixth of its speed, still heartbeating (2 s liveness).
        let slow = farm.throttle("w3", running: 0.1, stopped: 0.5)
        defer { slow.stop() }
        let id = try farm.submit(src, output: "out.mp4", FarmFaultTests.slowOptions)
        let status = try farm.wait(id)
        slow.stop()
        #expect(status["state"] as? String == "completed", "\(status)")
        #expect(try FarmFaultTests.verify(farm.outputs.appendingPathComponent("out.mp4"), against: src))
        let log = farm.log("coordinator")
        #expect(log.contains("backup attempt on worker"), "\(log.suffix(3000))")
        #expect(log.contains("the backup attempt won"), "\(log.suffix(3000))")
        // The slow worker was told to stop its attempt, and did (running or still waiting behind another):
        // an attempt withdrawn while running ends "cancelled" and is never finished.
        #expect(
            try farm.eventually(10) { farm.log("w3").contains("withdrawn") }, "\(farm.log("w3").suffix(2000))")
        let w3 = farm.log("w3").split(separator: "\n")
        for line in w3 where line.contains("withdrawn while running") {
            guard let r = line.range(of: "segment "), let key = line[r.upperBound...].split(separator: " ").first else {
                continue
            }
            let after = w3.drop { $0 != line }
            #expect(
                try farm.eventually(10) { farm.log("w3").contains("segment \(key) cancelled") },
                "\(key) stopped")
            #expect(
                !after.contains { $0.contains("segment \(key) done") }, "\(key) was not finished after its withdrawal")
        }
        let metrics = try farm.scrape()
        let started = metrics.value("tessera_backup_attempts_total", ["outcome": "started"]) ?? 0
        let won = metrics.value("tessera_backup_attempts_total", ["outcome": "won"]) ?? 0
        let wasted = metrics.value("tessera_backup_attempts_total", ["outcome": "wasted"]) ?? 0
        #expect(won >= 1 && started >= won && started >= won + wasted, "started \(started) won \(won) wasted \(wasted)")
        // The segment map marks what backups finished; every segment was spooled once.
        let map = try farm.client(["watch", id, "--map"]).stdout
        #expect(map.contains("B backup"), "\(map)")
        let segments = try #require(status["segmentsTotal"] as? Int)
        #expect(FarmFaultTests.segments(log, job: id, word: "spooled").sorted() == Array(0..<segments))
    }

    @Test("the coordinator killed while a backup races the slow attempt: restarted, the job completes and verifies")
    func restartMidRace() throws {
        let farm = try FarmFixture()
        let src = try FarmFaultTests.slowSource(farm, seconds: 14)
        try farm.startCoordinator()
        for name in ["w1", "w2", "w3"] { try farm.startWorker(name) }
        #expect(try farm.eventually(30) { farm.log("coordinator").contains("worker w3 joined") })
        let slow = farm.throttle("w3", running: 0.1, stopped: 0.5)
        defer { slow.stop() }
        let id = try farm.submit(src, output: "out.mp4", FarmFaultTests.slowOptions)
        #expect(
            try farm.eventually(120) { farm.log("coordinator").contains("backup attempt on worker") },
            "\(farm.log("coordinator").suffix(2000))")
        farm.signal("coordinator", SIGKILL)
        _ = farm.waitExit("coordinator", timeout: 10)
        try farm.startCoordinator()
        let status = try farm.wait(id)
        slow.stop()
        #expect(status["state"] as? String == "completed", "\(status)\n\(farm.log("coordinator").suffix(2000))")
        #expect(try FarmFaultTests.verify(farm.outputs.appendingPathComponent("out.mp4"), against: src))
        let segments = try #require(status["segmentsTotal"] as? Int)
        // Every segment was spooled: logged when stored, or (killed between the store write and that
        // line) named by the restarted coordinator among those it found spooled.
        let log = farm.log("coordinator")
        let spooled = Set(FarmFaultTests.segments(log, job: id, word: "spooled"))
        #expect(spooled.union(FarmFaultTests.alreadySpooled(log, job: id)) == Set(0..<segments), "\(log.suffix(3000))")
    }
}
