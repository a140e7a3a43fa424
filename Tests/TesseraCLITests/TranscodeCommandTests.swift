import Foundation
import TesseraTestSupport
import Testing

/// `tessera transcode`, run as the built binary: reports, progress, options and exit codes.
@Suite(.serialized) struct TranscodeCommandTests {
    let dir: URL
    init() throws { dir = try TestMedia.makeDirectory("cli") }

    func tessera(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try TestMedia.runCapturing(TestMedia.tesseraBinary.path, arguments)
    }

    func clip(_ name: String = "in.mp4", seconds: Double = 2) throws -> URL {
        let url = dir.appendingPathComponent(name)
        try TestMedia.make(url, seconds: seconds, width: 640, height: 360)
        return url
    }

    @Test func jsonReportAndPlainProgressWhenNotATerminal() throws {
        defer { TestMedia.cleanup(dir) }
        let src = try clip(), out = dir.appendingPathComponent("out.mp4")
        let r = try tessera([
            "transcode", src.path, "-o", out.path, "--preset", "640x480", "--time-range", "0.5s-1.5s",
            "--verify", "--json",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("progress "), "plain progress lines expected on a pipe: \(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let video = try #require(json["video"] as? [String: Any])
        #expect(video["frames"] as? Int == 30)
        #expect(json["preset"] as? String == "640x480")
        #expect(json["output"] as? String == out.path)
        let verification = try #require(json["verification"] as? [String: Any], "--verify must report its checks")
        #expect(verification["passed"] as? Bool == true)
        #expect(verification["frameCount"] as? Int == 30)
        let probe = try TestMedia.probe(out, countFrames: true)
        #expect(TestMedia.stream(probe, "video")?["nb_read_frames"] as? String == "30")
    }

    /// An untagged HD source scaled to SD keeps its pixels in BT.709 (players guess BT.601 for untagged SD),
    /// so the output says BT.709; measured against its source, as a player would show both, it is close.
    @Test func anUntaggedHDSourceScaledToSDIsTaggedWithTheMatrixItHolds() throws {
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("hd.mp4"), out = dir.appendingPathComponent("sd.mp4")
        try TestMedia.make(src, seconds: 1, width: 1280, height: 720, audio: nil)
        let r = try tessera(["transcode", src.path, "-o", out.path, "--size", "640x360", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let video = try #require(TestMedia.stream(try TestMedia.probe(out), "video"))
        #expect(video["color_space"] as? String == "bt709", "\(video)")
        let v = try tessera(["verify", out.path, "--against", src.path, "--quality", "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(v.stdout.utf8)) as? [String: Any])
        let measured = (report["quality"] as? [String: Any])?["quality"] as? [String: Any]
        let psnr = try #require(measured?["psnr"] as? Double)
        #expect(psnr > 40, "\(psnr) dB: the source was converted to another matrix to compare")
    }

    @Test func customCodecOptionsOverrideThePreset() throws {
        defer { TestMedia.cleanup(dir) }
        let src = try clip(), out = dir.appendingPathComponent("out.mkv")
        let r = try tessera([
            "transcode", src.path, "-o", out.path, "--video-codec", "hevc", "--crf", "30",
            "--speed", "ultrafast", "--size", "320x320", "--gop", "10", "--audio-codec", "opus",
            "--audio-bitrate", "64k", "--quiet",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.isEmpty, "--quiet prints nothing on stderr: \(r.stderr)")
        let probe = try TestMedia.probe(out)
        let v = try #require(TestMedia.stream(probe, "video"))
        #expect(v["codec_name"] as? String == "hevc")
        #expect(v["width"] as? Int == 320 && v["height"] as? Int == 180)
        #expect(TestMedia.stream(probe, "audio")?["codec_name"] as? String == "opus")
        let keyframes = try TestMedia.run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v", "-show_entries",
                "packet=flags", "-of", "csv=p=0", out.path,
            ]
        )
        .split(separator: "\n").filter { $0.hasPrefix("K") }.count
        #expect(keyframes == 6, "--gop 10 over 60 frames gives 6 keyframes, got \(keyframes)")
    }

    struct Failure: Sendable, CustomTestStringConvertible {
        let name: String
        let status: Int32
        let message: String
        var testDescription: String { name }
    }

    @Test(arguments: [
        Failure(name: "missing source", status: 66, message: "nope.mp4: no such file"),
        Failure(name: "garbage source", status: 65, message: "garbage.mp4: not a media file"),
        Failure(name: "existing output", status: 73, message: "already exists"),
        Failure(name: "missing directory", status: 73, message: "does not exist"),
        Failure(name: "range outside", status: 64, message: "after the asset ends"),
        Failure(name: "unreadable range", status: 64, message: "cannot read time range"),
        Failure(name: "unknown preset", status: 64, message: "unknown preset"),
    ])
    func failuresExitWithTheirCodeAndLeaveNothing(_ f: Failure) throws {
        defer { TestMedia.cleanup(dir) }
        var src = try clip()
        var out = dir.appendingPathComponent("out.mp4")
        var extra: [String] = []
        switch f.name {
        case "missing source": src = dir.appendingPathComponent("nope.mp4")
        case "garbage source":
            src = dir.appendingPathComponent("garbage.mp4")
            try TestMedia.garbage(count: 40_000).write(to: src)
        case "existing output": try Data("keep".utf8).write(to: out)
        case "missing directory": out = dir.appendingPathComponent("missing/out.mp4")
        case "range outside": extra = ["--time-range", "10s-12s"]
        case "unreadable range": extra = ["--time-range", "soon-later"]
        case "unknown preset": extra = ["--preset", "8K"]
        default: break
        }
        let r = try tessera(["transcode", src.path, "-o", out.path] + extra)
        #expect(r.status == f.status, "stderr: \(r.stderr)")
        #expect(r.stderr.contains(f.message), "stderr: \(r.stderr)")
        if f.name == "existing output" {
            #expect(try Data(contentsOf: out) == Data("keep".utf8))
        } else {
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains("partial") }
        #expect(leftovers.isEmpty)
    }

    /// Ctrl-C once the output is being written: exit 130 and nothing left, for a source and for a spec (whose
    /// render went on to verify the partial file and exit 70).
    @Test(arguments: [false, true])
    func interruptStopsCleanlyWithExit130(spec: Bool) throws {
        defer { TestMedia.cleanup(dir) }
        let src = try clip("long.mp4", seconds: 30), out = dir.appendingPathComponent("out.mp4")
        let input: [String]
        if spec {
            let file = dir.appendingPathComponent("s.json")
            try #"{"assets": [{"id": "a", "path": "long.mp4"}], "edits": [{"insert": {"asset": "a"}}]}"#.write(
                to: file, atomically: true, encoding: .utf8)
            input = ["--spec", file.path]
        } else {
            input = [src.path]
        }
        let process = Process()
        process.executableURL = TestMedia.tesseraBinary
        process.arguments = ["transcode"] + input + ["-o", out.path, "--preset", "HighestQuality"]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Wait until the output is being written (its temporary file is there), then interrupt as a user's
        // Ctrl-C would.
        func writing() -> Bool {
            ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).contains { $0.contains("partial") }
        }
        while !writing(), process.isRunning { usleep(10_000) }
        process.interrupt()
        let said = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130, "\(said.suffix(500))")
        #expect(!FileManager.default.fileExists(atPath: out.path))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains("partial") }
        #expect(leftovers.isEmpty)
    }

    @Test func helpDocumentsExitCodes() throws {
        let r = try tessera(["transcode", "--help"])
        #expect(r.stdout.contains("Exit status") && r.stdout.contains("66 input not found"))
    }
}
