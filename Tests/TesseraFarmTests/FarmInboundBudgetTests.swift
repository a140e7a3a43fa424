import Foundation
import TesseraTestSupport
import TesseraWire
import Testing

/// One budget for what every peer sends the coordinator at once (PROTOCOL.md §8, §11): no frame is
/// larger than a result's part, results are sent only into room granted from the budget, and a holder
/// that takes room and sends nothing gives it back. Real peers on loopback against a real coordinator.
@Suite("Farm inbound budget", .serialized)
struct FarmInboundBudgetTests {
    @Test("eight peers sending 64 MiB frames and ungranted parts leave the coordinator's peak memory where it was")
    func largeFramesAndUngrantedPartsFromManyPeers() throws {
        let farm = try FarmFixture()
        farm.coordinatorFlags += ["--inbound-budget-mb", "2", "--max-message-mb", "2", "--result-part-kb", "16"]
        let src = farm.media.appendingPathComponent("a.mp4")
        try TestMedia.make(src, seconds: 4, width: 640, height: 360)
        try farm.startCoordinator()
        let pid = try #require(farm.coordinator?.processIdentifier)
        let before = FarmHostilePeerTests.rss(pid, "VmHWM")
        let context = ZMQContext()
        // Sessions of their own (never leased anything: no Ready), each sending 256 parts of 16 KiB that
        // nobody granted, then a 64 MiB frame (which ends its connection).
        let peers = try (0..<8).map { try FarmHostilePeerTests.peer(farm, context, id: "big\($0)", credit: nil) }
        let frame = Data(count: 64 << 20)
        let ref = FarmHostilePeerTests.ref("j-nothing", 0, 1)
        let parts = Tessera_V1_Envelope.parts(ref, of: Data(count: 4 << 20), partBytes: 16 << 10)
        for peer in peers {
            for part in parts { try FarmHostilePeerTests.send(peer, part) }
            _ = try peer.send([frame])
        }
        for peer in peers { _ = try FarmHostilePeerTests.drain(peer, timeout: 500) }
        let grown = FarmHostilePeerTests.rss(pid, "VmHWM") - before
        print("coordinator peak: \(before) kB before, \(before + grown) kB after eight peers' frames and parts")
        // Before the budget, each peer's frame was taken whole: 8 × 64 MiB = 512 MiB.
        #expect(grown < 48 * 1024, "the coordinator's peak grew by \(grown) kB")
        #expect(farm.log("coordinator").contains("not granted"))
        for peer in peers { peer.close() }
        // Honest workers' results travel in 16 KiB parts, two at most in hand at once: the job verifies.
        try farm.startWorker("w1")
        try farm.startWorker("w2")
        let id = try farm.submit(src, output: "out.mp4", ["--segment-duration", "1"])
        let status = try farm.wait(id)
        #expect(status["state"] as? String == "completed", "\(status)")
        #expect(try FarmFaultTests.verify(farm.outputs.appendingPathComponent("out.mp4"), against: src))
        #expect(!farm.log("coordinator").contains("refused result"), "\(farm.log("coordinator").suffix(2000))")
        #expect(farm.coordinator?.isRunning == true)
    }

    @Test(
        "holders that offer the most and send nothing: one holds the budget at a time, each loses it, the job completes"
    )
    func holdersThatStallAfterTheirGrant() throws {
        let farm = try FarmFixture()
        // Room for one 4 MiB result; a transfer with no part for a liveness period (5 × 200 ms) gives it up.
        farm.coordinatorFlags = [
            "--heartbeat-ms", "200", "--liveness", "5", "--stall-timeout", "30",
            "--inbound-budget-mb", "4", "--max-message-mb", "4", "--max-attempts", "10",
        ]
        let src = farm.media.appendingPathComponent("a.mp4")
        try TestMedia.make(src, seconds: 6, width: 320, height: 240, extra: ["-g", "30"])
        try farm.startCoordinator()
        let context = ZMQContext()
        let hoarders = try (0..<3).map { try FarmHostilePeerTests.peer(farm, context, id: "hoard\($0)") }
        let id = try farm.submit(src, output: "out.mp4", ["--segment-duration", "1"])
        // Each hoarder offers a 4 MiB result for the task it is given (its one credit), and never sends a part.
        var offered = 0
        var sawWaiting = false
        var grantsWhileFull = 0
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, !(offered >= 3 && sawWaiting) {
            for peer in hoarders {
                while let frames = try peer.receive(timeoutMilliseconds: 20),
                    let e = try? WireCodec.decode(frames.last!)
                {
                    if case .assign(let a)? = e.body {
                        try FarmHostilePeerTests.send(peer, .offer(a.ref, bytes: 4 << 20))
                        offered += 1
                    }
                }
                try FarmHostilePeerTests.send(peer, .heartbeat())
            }
            let metrics = try farm.scrape()
            let held = metrics.value("tessera_inbound_result_bytes") ?? -1
            let waiting = metrics.value("tessera_result_offers_waiting") ?? -1
            #expect(held <= Double(4 << 20), "\(held) bytes granted over a 4 MiB budget")
            if waiting >= 1 {
                sawWaiting = true
                if held == Double(4 << 20) { grantsWhileFull += 1 }
            }
        }
        #expect(offered >= 3, "the hoarders were given \(offered) tasks")
        #expect(sawWaiting && grantsWhileFull > 0, "no offer waited behind a full budget")
        // The honest worker finishes the job; each hoarder's silent transfer was refused and counted.
        try farm.startWorker("honest")
        let status = try farm.wait(id)
        let log = farm.log("coordinator")
        #expect(status["state"] as? String == "completed", "\(status)\n\(log.suffix(3000))")
        #expect(log.contains("its parts stopped coming"), "\(log.suffix(3000))")
        #expect(try FarmFaultTests.verify(farm.outputs.appendingPathComponent("out.mp4"), against: src))
        for peer in hoarders { peer.close() }
    }
}
