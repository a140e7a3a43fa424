import Foundation
import TesseraTestSupport
import Testing

/// Jobs through a real farm: a coordinator process and worker processes on loopback, driven with the
/// client CLI, outputs checked with `tessera verify` and ffprobe.
@Suite("Farm jobs", .serialized)
struct FarmJobTests {
    /// Frames ffprobe counts in the first video stream.
    static func frameCount(_ url: URL) throws -> Int {
        let probe = try TestMedia.probe(url, countFrames: true)
        return Int(TestMedia.stream(probe, "video")?["nb_read_frames"] as? String ?? "") ?? -1
    }

    @Test("three jobs at once on three workers all complete and verify")
    func threeJobsAtOnce() throws {
        let farm = try FarmFixture()
        let sources = [
            ("a.mp4", ["-c:v", "libx264", "-preset", "ultrafast", "-bf", "3", "-g", "24"]),
            ("b.mkv", ["-c:v", "libx264", "-preset", "ultrafast", "-g", "15"]),
            ("c.mov", ["-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-r", "25"]),
        ]
        for (name, video) in sources {
            try TestMedia.make(
                farm.media.appendingPathComponent(name), seconds: 6, video: video + ["-pix_fmt", "yuv420p"])
        }
        try farm.startCoordinator()
        for n in 1...3 { try farm.startWorker("w\(n)") }
        let ids = try sources.map { (name, _) in
            try farm.submit(
                farm.media.appendingPathComponent(name), output: "out-\(name).mp4",
                ["--segment-duration", "1", "--preset", "640x480"])
        }
        for (id, (name, _)) in zip(ids, sources) {
            let status = try farm.wait(id)
            #expect(status["state"] as? String == "completed", "\(name): \(status)")
            let out = farm.outputs.appendingPathComponent("out-\(name).mp4")
            let src = farm.media.appendingPathComponent(name)
            #expect(try Self.frameCount(out) == Self.frameCount(src), "\(name) frame count")
            let verify = try TestMedia.runCapturing(
                TestMedia.tesseraBinary.path, ["verify", out.path, "--against", src.path])
            #expect(verify.status == 0, "\(name): \(verify.stdout)\(verify.stderr)")
            #expect(try TestMedia.psnr(out, against: src, width: 320, height: 240) > 30, "\(name) PSNR")
            #expect((status["segmentsTotal"] as? Int ?? 0) >= 3, "\(name) was cut into segments: \(status)")
        }
        // Fair sharing: every worker took part.
        for n in 1...3 {
            #expect(
                farm.log("w\(n)").contains(" done: "), "worker w\(n) encoded nothing:\n\(farm.log("w\(n)").suffix(800))"
            )
        }
        // The workers list shows all three.
        let workers = try farm.client(["workers", "--json"])
        #expect(workers.status == 0)
        for n in 1...3 { #expect(workers.stdout.contains("\"w\(n)\"")) }
    }

    @Test("the last round of segments is re-cut for the workers connected at submission")
    func tailCutForConnectedWorkers() throws {
        let farm = try FarmFixture()
        let src = farm.media.appendingPathComponent("tail.mp4")
        // 105 frames with a keyframe every 30: keyframe segments of 30, 30, 30 and 15 frames.
        try TestMedia.make(
            src, seconds: 3.5, width: 960, height: 540,
            video: ["-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-bf", "3", "-pix_fmt", "yuv420p"])
        try farm.startCoordinator()
        for n in 1...2 { try farm.startWorker("w\(n)") }
        #expect(try farm.eventually(30) { try farm.client(["workers", "--json"]).stdout.contains("\"w2\"") })
        let id = try farm.submit(src, output: "tail-out.mp4", ["--segment-duration", "1", "--preset", "640x480"])
        let status = try farm.wait(id)
        #expect(status["state"] as? String == "completed", "\(status)")
        let out = farm.outputs.appendingPathComponent("tail-out.mp4")
        #expect(try Self.frameCount(out) == 105)
        // Each worker measured its segments; the status lists them in order, covering every frame, and the
        // job's figures come from their sums.
        let quality = try #require(status["quality"] as? [String: Any], "\(status)")
        let segments = try #require(quality["segments"] as? [[String: Any]])
        #expect(segments.count == status["segmentsTotal"] as? Int)
        #expect(segments.compactMap { $0["index"] as? Int } == Array(0..<segments.count))
        #expect(segments.compactMap { $0["frames"] as? Int }.reduce(0, +) == 105)
        let psnrs = segments.compactMap { $0["psnr"] as? Double }
        let psnr = try #require(quality["psnr"] as? Double)
        #expect(psnrs.count == segments.count && psnr >= psnrs.min()! && psnr <= psnrs.max()!, "\(quality)")
        #expect(psnr > 30 && (quality["ssim"] as? Double ?? 0) > 0.8, "\(quality)")
        let verify = try TestMedia.runCapturing(
            TestMedia.tesseraBinary.path, ["verify", out.path, "--against", src.path])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        // Segment sizes from the workers' logs ("segment J/i#a done: N frames"): the 30 + 15 tail became
        // two pieces of about 22, one starting mid-GOP.
        let sizes = (farm.log("w1") + farm.log("w2")).split(separator: "\n").compactMap { line -> Int? in
            guard let r = line.range(of: " done: ") else { return nil }
            return Int(line[r.upperBound...].prefix { $0.isNumber })
        }
        #expect(sizes.reduce(0, +) == 105, "\(sizes)")
        #expect(!sizes.contains(15) && sizes.contains { (20...25).contains($0) }, "segment sizes \(sizes)")

        // Both scaled frames (960x540 → 640x360), so both report how their backend resolved (they run
        // with --backend cpu).
        let workers = try farm.client(["workers", "--json"])
        let list = try JSONSerialization.jsonObject(with: Data(workers.stdout.utf8)) as? [[String: Any]] ?? []
        #expect(list.count == 2)
        for w in list {
            let choices = w["backendChoices"] as? [String] ?? []
            #expect(choices.contains { $0.hasPrefix("cpu → cpu: requested") }, "\(w["id"] ?? "?"): \(choices)")
        }
    }

    @Test("a target quality is met on every segment across two worker processes")
    func targetQualityAcrossWorkers() throws {
        let farm = try FarmFixture()
        let src = farm.media.appendingPathComponent("varied.mp4")
        // An easy picture, then noise: segments that need different factors.
        try TestMedia.variedComplexity(src)
        try farm.startCoordinator()
        for n in 1...2 { try farm.startWorker("w\(n)") }
        #expect(try farm.eventually(30) { try farm.client(["workers", "--json"]).stdout.contains("\"w2\"") })
        let id = try farm.submit(
            src, output: "target.mp4",
            ["--segment-duration", "1", "--target-quality", "ssim:0.95", "--speed", "superfast"])
        let status = try farm.wait(id)
        #expect(status["state"] as? String == "completed", "\(status)")
        let quality = try #require(status["quality"] as? [String: Any], "\(status)")
        #expect(quality["target"] as? String == "ssim:0.95")
        #expect((quality["short"] as? [Int])?.isEmpty == true)
        let segments = try #require(quality["segments"] as? [[String: Any]])
        #expect(segments.count == 4)
        for segment in segments {
            #expect((segment["ssim"] as? Double ?? 0) >= 0.948, "\(segment)")
            #expect(!((segment["probes"] as? [Any]) ?? []).isEmpty, "every segment searched: \(segment)")
        }
        // FFmpeg agrees on the whole file: the mean of the segments' frames.
        let ssim = try TestMedia.runCapturing(
            "ffmpeg",
            [
                "-i", farm.outputs.appendingPathComponent("target.mp4").path, "-i", src.path, "-lavfi", "ssim", "-f",
                "null", "-",
            ])
        let all = ssim.stderr.split(separator: " ").first { $0.hasPrefix("All:") }.flatMap { Double($0.dropFirst(4)) }
        #expect(abs((all ?? 0) - (quality["ssim"] as? Double ?? -1)) < 0.0005, "\(ssim.stderr.suffix(300))")
        for n in 1...2 { #expect(farm.log("w\(n)").contains(" done: "), "worker w\(n) made no segment") }
    }

    @Test("a corrupt source fails its job with a clear error while another job finishes")
    func corruptSourceFailsAlone() throws {
        let farm = try FarmFixture()
        let good = farm.media.appendingPathComponent("good.mp4")
        let bad = farm.media.appendingPathComponent("bad.mp4")
        try TestMedia.make(good, seconds: 4)
        try TestMedia.make(
            bad, seconds: 4, video: ["-c:v", "libx264", "-preset", "ultrafast", "-g", "30"], audio: nil,
            extra: ["-movflags", "+faststart"])
        // Overwrite the middle of the media data with noise: the container still opens, the packets don't decode.
        var bytes = try Data(contentsOf: bad)
        let noise = TestMedia.garbage(count: bytes.count / 3)
        bytes.replaceSubrange(bytes.count / 3..<bytes.count / 3 + noise.count, with: noise)
        try bytes.write(to: bad)
        try farm.startCoordinator()
        try farm.startWorker("w1")
        try farm.startWorker("w2")
        let badID = try farm.submit(bad, output: "bad-out.mp4", ["--segment-duration", "1"])
        let goodID = try farm.submit(good, output: "good-out.mp4", ["--segment-duration", "1"])
        let badStatus = try farm.wait(badID)
        let goodStatus = try farm.wait(goodID)
        #expect(badStatus["state"] as? String == "failed")
        let error = badStatus["error"] as? String ?? ""
        #expect(error.contains("segment"), "error names the segment: \(error)")
        #expect(goodStatus["state"] as? String == "completed", "\(goodStatus)")
        #expect(!FileManager.default.fileExists(atPath: farm.outputs.appendingPathComponent("bad-out.mp4").path))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: farm.outputs.path).filter {
            $0.contains("partial")
        }
        #expect(leftovers.isEmpty, "no half-written output: \(leftovers)")
        // `tessera status` exits non-zero for a failed job's watch.
        let watch = try farm.client(["watch", badID])
        #expect(watch.status == 70)
    }

    @Test("a job no connected worker can take says why while it waits, and runs once one can")
    func waitingSaysWhy() throws {
        let farm = try FarmFixture()
        let src = farm.media.appendingPathComponent("a.mp4")
        try TestMedia.make(src, seconds: 2, width: 320, height: 240)
        try farm.startCoordinator()
        func waiting(_ id: String) throws -> String? { try farm.job(id)["waiting"] as? String }
        let first = try farm.submit(src, output: "first.mp4", ["--segment-duration", "1"])
        #expect(try farm.eventually(20) { try waiting(first) == "no worker is connected" })
        // A worker without a Vulkan device: the plain job runs, the one that insists on Vulkan waits and says so.
        try farm.startWorker("w1")
        let vulkan = try farm.submit(src, output: "vulkan.mp4", ["--segment-duration", "1", "--backend", "vulkan"])
        #expect(try farm.wait(first)["state"] as? String == "completed")
        #expect(try farm.job(first)["waiting"] == nil)
        #expect(try farm.eventually(20) { try waiting(vulkan)?.contains("w1: no Vulkan device") == true })
        let text = try farm.client(["status", vulkan])
        #expect(text.stdout.contains("waiting  no connected worker can run it"), "\(text.stdout)")
        // A worker with a Vulkan device (lavapipe here) takes it.
        try farm.startWorker("w2", ["--backend", "auto"])
        let done = try farm.wait(vulkan)
        #expect(done["state"] as? String == "completed", "\(done)")
        #expect(done["waiting"] == nil)
    }

    @Test("cancel stops the job, leaves no output and frees the workers")
    func cancel() throws {
        let farm = try FarmFixture()
        let src = farm.media.appendingPathComponent("long.mp4")
        try TestMedia.make(
            src, seconds: 20, width: 640, height: 360,
            video: ["-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-pix_fmt", "yuv420p"])
        try farm.startCoordinator()
        try farm.startWorker("w1")
        // 4 s segments at veryslow: the cancel lands while a segment is being encoded.
        let id = try farm.submit(src, output: "long-out.mp4", ["--segment-duration", "4", "--speed", "veryslow"])
        #expect(try farm.eventually(30) { (try farm.job(id)["framesDone"] as? Int ?? 0) > 0 }, "job started")
        let r = try farm.client(["cancel", id])
        #expect(r.status == 0, "\(r.stderr)")
        let status = try farm.wait(id, timeout: 30)
        #expect(status["state"] as? String == "cancelled")
        #expect(!FileManager.default.fileExists(atPath: farm.outputs.appendingPathComponent("long-out.mp4").path))
        #expect(
            try farm.eventually(10) {
                let w = try farm.client(["workers", "--json"]).stdout
                return w.contains("\"idle\"") && !w.contains("\"busy\"")
            }, "worker freed")
        #expect(farm.log("w1").contains("withdrawn"), "the running segment was withdrawn from the worker")
    }
}
