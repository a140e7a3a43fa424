import Foundation
import TesseraCore
import TesseraTestSupport
import Testing

/// `tessera verify`, run as the built binary: exit codes, the human summary and the JSON report.
@Suite(.serialized) struct VerifyCommandTests {
    let dir: URL
    init() throws { dir = try TestMedia.makeDirectory("cli-verify") }

    func tessera(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try TestMedia.runCapturing(TestMedia.tesseraBinary.path, arguments)
    }

    /// A 2 s 30 fps H.264 + AAC source and a copy of it with frame 10 dropped.
    func sourceAndDropped() throws -> (source: URL, dropped: URL) {
        let src = dir.appendingPathComponent("src.mp4"), dropped = dir.appendingPathComponent("dropped.mp4")
        try TestMedia.make(src, seconds: 2)
        try TestMedia.run(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-y", "-i", src.path, "-vf",
                "select='not(eq(n\\,10))'", "-fps_mode", "passthrough", "-c:v", "libx264",
                "-preset", "ultrafast", "-c:a", "copy", dropped.path,
            ])
        return (src, dropped)
    }

    @Test func passingOutputExitsZeroWithEveryCheckTicked() throws {
        defer { TestMedia.cleanup(dir) }
        let (src, _) = try sourceAndDropped()
        let r = try tessera(["verify", src.path, "--against", src.path])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("✓ frame-count") && !r.stdout.contains("✗"), "\(r.stdout)")
        #expect(r.stdout.hasSuffix("passed\n"), "\(r.stdout)")
    }

    @Test func failingOutputExits65NamingTheFirstFailure() throws {
        defer { TestMedia.cleanup(dir) }
        let (src, dropped) = try sourceAndDropped()
        let r = try tessera(["verify", dropped.path, "--against", src.path])
        #expect(r.status == 65, "\(r.stdout)\(r.stderr)")
        let line = r.stdout.split(separator: "\n").first { $0.contains("✗ presentation-times") }
        #expect(line?.hasSuffix("frame 10 at 0.367s: expected pts 0.333s") == true, "\(r.stdout)")
        #expect(r.stdout.contains("FAILED: presentation-times: frame 10"), "\(r.stdout)")
    }

    /// `--quality` on a file ffmpeg made: the same figures as ffmpeg's own filters, per GOP and in all.
    @Test func qualityOfAnFFmpegFileAgreesWithItsFilters() throws {
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("lossless.mp4"), made = dir.appendingPathComponent("ffmpeg.mp4")
        try TestMedia.make(
            src, seconds: 2, rate: "25",
            video: ["-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-pix_fmt", "yuv420p"],
            audio: nil)
        try TestMedia.run(
            "ffmpeg", ["-v", "error", "-i", src.path, "-c:v", "libx264", "-crf", "32", "-g", "25", made.path])
        let r = try tessera(["verify", made.path, "--against", src.path, "--quality", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(json["passed"] as? Bool == true, "the verification is there too")
        let result = try #require(json["quality"] as? [String: Any])
        let quality = try #require(result["quality"] as? [String: Any])
        #expect((quality["segments"] as? [Any])?.count == 2, "one entry per GOP: \(quality)")
        let filters = try TestMedia.runCapturing(
            "ffmpeg", ["-i", made.path, "-i", src.path, "-lavfi", "[0][1]psnr;[0][1]ssim", "-f", "null", "-"])
        func figure(_ prefix: String) -> Double? {
            filters.stderr.split(whereSeparator: { $0 == " " || $0 == "\n" }).first { $0.hasPrefix(prefix) }
                .flatMap { Double($0.dropFirst(prefix.count)) }
        }
        let psnr = try #require(figure("average:")), ssim = try #require(figure("All:"))
        #expect(abs((quality["psnr"] as? Double ?? 0) - psnr) < 0.01, "\(quality) against \(psnr)")
        #expect(abs((quality["ssim"] as? Double ?? 0) - ssim) < 0.0005, "\(quality) against \(ssim)")
        // Without a source there is nothing to measure against.
        let alone = try tessera(["verify", made.path, "--quality"])
        #expect(alone.status == 64 && alone.stderr.contains("--against"), "\(alone.stderr)")
    }

    /// A WebM source whose Opus pre-skip starts its audio before its video, made into Matroska with AAC:
    /// Matroska shifts the file by AAC's priming as well, and the output keeps the source's sync, so it
    /// verifies, against the source (the source's own offset is expected) and on its own (the priming is
    /// allowed for); the video moved 0.1 s later does not, either way.
    @Test func aMatroskaOutputOfAWebMSourceKeepsItsSyncAndVerifies() throws {
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("src.webm"), out = dir.appendingPathComponent("out.mkv")
        try TestMedia.run(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-f", "lavfi", "-i",
                "sine=frequency=440:sample_rate=48000:duration=2", "-c:v", "libvpx-vp9", "-deadline", "realtime",
                "-cpu-used", "8", "-c:a", "libopus", src.path,
            ])
        let made = try tessera(["transcode", src.path, "-o", out.path, "--quiet"])
        #expect(made.status == 0, "\(made.stderr)")
        let r = try tessera(["verify", out.path, "--against", src.path])
        #expect(r.status == 0, "\(r.stdout)")
        // On its own too: the audio's lead is AAC's priming (which Matroska cannot mark) plus the source's
        // 7 ms, within one audio frame once the priming is taken off; said in the check.
        let alone = try tessera(["verify", out.path])
        #expect(alone.status == 0 && alone.stdout.contains("priming"), "\(alone.stdout)")
        let late = dir.appendingPathComponent("late.mkv")
        try TestMedia.run(
            "ffmpeg",
            [
                "-v", "error", "-i", out.path, "-itsoffset", "0.1", "-i", out.path, "-map", "1:v", "-map", "0:a", "-c",
                "copy", late.path,
            ])
        let moved = try tessera(["verify", late.path, "--against", src.path])
        #expect(moved.status == 65 && moved.stdout.contains("✗ av-start-offset"), "\(moved.stdout)")
        let movedAlone = try tessera(["verify", late.path])
        #expect(movedAlone.status == 65 && movedAlone.stdout.contains("✗ av-start-offset"), "\(movedAlone.stdout)")
    }

    @Test func jsonReportShape() throws {
        defer { TestMedia.cleanup(dir) }
        let (src, dropped) = try sourceAndDropped()
        let r = try tessera(["verify", dropped.path, "--against", src.path, "--json"])
        #expect(r.status == 65, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(json["passed"] as? Bool == false)
        #expect(json["frameCount"] as? Int == 59)
        #expect(json["expectedFrameCount"] as? Int == 60)
        #expect(json["path"] as? String == dropped.path && json["against"] as? String == src.path)
        #expect((json["firstFailure"] as? String)?.hasPrefix("presentation-times: frame 10") == true)
        // Times in seconds, beside the exact rational that reads back to the same time.
        for key in ["videoDuration", "audioDuration", "avStartOffset"] {
            let time = json[key] as? [String: Any]
            let exact = (time?["exact"] as? String).flatMap(MediaTime.init(string:))
            #expect(exact != nil && time?["seconds"] is Double, "\(key): \(json[key] ?? "")")
            if let exact, let seconds = time?["seconds"] as? Double { #expect(abs(exact.seconds - seconds) < 1e-9) }
        }
        let failing = try #require((json["checks"] as? [[String: Any]])?.first { $0["passed"] as? Bool == false })
        #expect(((failing["time"] as? [String: Any])?["exact"] as? String).flatMap(MediaTime.init(string:)) != nil)
        let checks = try #require(json["checks"] as? [[String: Any]])
        #expect(checks.allSatisfy { $0["name"] is String && $0["passed"] is Bool && $0["detail"] is String })
        let times = try #require(checks.first { $0["name"] as? String == "presentation-times" })
        #expect(times["passed"] as? Bool == false && times["frame"] as? Int == 10)
        let passing = try tessera(["verify", src.path, "--json"])
        #expect(passing.status == 0)
        let passed = try #require(try JSONSerialization.jsonObject(with: Data(passing.stdout.utf8)) as? [String: Any])
        #expect(passed["passed"] as? Bool == true && passed["firstFailure"] == nil)
    }

    struct Unreadable: Sendable, CustomTestStringConvertible {
        let name: String
        let contents: Data?
        let status: Int32
        var testDescription: String { name }
    }

    @Test(arguments: [
        Unreadable(name: "missing", contents: nil, status: 66),
        Unreadable(name: "empty", contents: Data(), status: 65),
        Unreadable(name: "garbage", contents: Data(repeating: 0x5A, count: 4096), status: 65),
    ])
    func unreadableFilesExitWithTheUsualCodes(_ c: Unreadable) throws {
        defer { TestMedia.cleanup(dir) }
        let file = dir.appendingPathComponent("\(c.name).mp4")
        if let contents = c.contents { try contents.write(to: file) }
        let r = try tessera(["verify", file.path])
        #expect(r.status == c.status, "\(r.stderr)")
        #expect(r.stderr.hasPrefix("tessera: \(file.path): "), "the error names the file: \(r.stderr)")
        #expect(r.stdout.isEmpty)
        let source = try tessera(["verify", "--against", file.path, file.path])
        #expect(source.status == c.status, "an unreadable --against source: \(source.stderr)")
    }
}
