import Foundation
import TesseraAV
import TesseraCompute
import TesseraCore
import TesseraMedia
import TesseraTestSupport
import TesseraWire
import Testing

/// A worker holding real leases that lies in its results: it encodes each segment it is given (the real
/// `SegmentRunner`), then sends another segment's pictures under this segment's timestamps, random bytes,
/// or one packet short. Each lie is refused when it arrives, counted against the liar, and the segment is
/// made again by the honest worker: the job completes, and its pictures are the source's.
@Suite("Farm lying workers", .serialized)
struct FarmLyingWorkerTests {
    enum Lie: CaseIterable { case swap, garble, drop }

    /// What the liar sends instead of `honest`; `donor` is an earlier segment's honest output.
    static func tamper(_ honest: SegmentOutput, _ lie: Lie, donor: SegmentOutput) -> SegmentOutput {
        var out = honest
        switch lie {
        case .swap:
            // Another second's pictures moved onto this segment's times: every timestamp is right.
            let shift = (honest.packets.map(\.pts).min() ?? 0) - (donor.packets.map(\.pts).min() ?? 0)
            out.packets = donor.packets.map { p in
                var q = p
                q.pts += shift
                q.dts += shift
                return q
            }
        case .garble:
            var rng = SystemRandomNumberGenerator()
            for i in out.packets.indices {
                out.packets[i].data = (0..<out.packets[i].data.count).map { _ in UInt8.random(in: 0...255, using: &rng)
                }
            }
        case .drop:
            out.packets.remove(at: out.packets.count / 2)
        }
        return out
    }

    @Test("swapped, garbled and dropped results are refused and made again elsewhere; the output is the source's")
    func lyingResultsAreRefusedAndRetried() throws {
        let farm = try FarmFixture()
        let src = farm.media.appendingPathComponent("a.mp4")
        // One-second GOPs of a moving picture: every segment looks unlike the others.
        try TestMedia.make(src, seconds: 20, width: 320, height: 240, extra: ["-g", "30"])
        try farm.startCoordinator()
        try farm.startWorker("honest")
        let context = ZMQContext()
        let liar = try FarmHostilePeerTests.peer(farm, context, id: "liar")
        let id = try farm.submit(src, output: "out.mp4", ["--segment-duration", "1"])
        var donor: SegmentOutput?
        var lies = Lie.allCases
        var told: [Lie] = []
        let deadline = Date().addingTimeInterval(120)
        // The liar takes segments until it has told each lie (the first it encodes honestly, as the donor).
        while !lies.isEmpty, Date() < deadline {
            guard let frames = try liar.receive(timeoutMilliseconds: 200), let e = try? WireCodec.decode(frames.last!)
            else {
                try FarmHostilePeerTests.send(liar, .heartbeat())
                continue
            }
            switch e.body {
            case .assign(let a)?:
                let work = try SegmentWork(wire: a.task)
                let honest = try SegmentRunner.run(work, threads: 1) { spec, _ throws(MediaError) in
                    try CPUProcessor(spec: spec, allowsPlaneScaler: true)
                }
                let sent: SegmentOutput
                if let donor {
                    let lie = lies.removeFirst()
                    told.append(lie)
                    sent = Self.tamper(honest, lie, donor: donor)
                } else {
                    donor = honest
                    sent = honest
                }
                try FarmHostilePeerTests.sendResult(liar, a.ref, output: try Tessera_V1_SegmentOutput(sent))
                try FarmHostilePeerTests.send(liar, .ready(credit: 1))
            case .heartbeat?:
                try FarmHostilePeerTests.send(liar, .heartbeat())
            default:
                break
            }
        }
        #expect(told == Lie.allCases, "the liar told \(told)")
        // Its three lies in a row quarantine it; the honest worker makes those segments again.
        let status = try farm.wait(id, timeout: 180)
        let log = farm.log("coordinator")
        #expect(status["state"] as? String == "completed", "\(status)\n\(log.suffix(3000))")
        let refusals = log.components(separatedBy: "refused result").count - 1
        #expect(refusals == 3, "\(refusals) results refused:\n\(log.suffix(3000))")
        #expect(try farm.scrape().value("tessera_result_checks_total", ["verdict": "refused"]) == 3)
        #expect(log.contains("is not the source's pictures"), "the swap was not caught by its pictures")
        #expect(log.contains("worker liar failed 3 segments in a row"), "\(log.suffix(2000))")
        let out = farm.outputs.appendingPathComponent("out.mp4")
        #expect(
            try TestMedia.runCapturing(TestMedia.tesseraBinary.path, ["verify", out.path, "--against", src.path])
                .status == 0)
        // Every second is the source's own: no frame of another second slipped in.
        let psnr = try TestMedia.psnr(out, against: src, width: 320, height: 240)
        #expect(psnr > 30, "PSNR \(psnr) dB against the source")
        liar.close()
    }
}
