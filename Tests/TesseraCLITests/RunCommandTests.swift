import Foundation
import TesseraTestSupport
import Testing

/// `tessera run`, the README's main job: a coordinator and local workers in one process, run as the
/// built binary.
@Suite(.serialized) struct RunCommandTests {
    let dir: URL
    init() throws { dir = try TestMedia.makeDirectory("runcli") }

    func tessera(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try TestMedia.runCapturing(TestMedia.tesseraBinary.path, arguments)
    }

    func report(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    static func decodableDetail(_ report: [String: Any]) -> String? {
        let checks = (report["verification"] as? [String: Any])?["checks"] as? [[String: Any]]
        return checks?.first { $0["name"] as? String == "decodable" }?["detail"] as? String
    }

    @Test func anAudioOnlySourceIsUnusableInputForTheFarmNotABadArgument() throws {
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("voice.m4a")
        try TestMedia.make(src, seconds: 2, video: nil)
        for name in ["out.m4a", "out.mp4"] {
            let out = dir.appendingPathComponent(name)
            let r = try tessera(["run", src.path, "-o", out.path, "--workers", "1", "--quiet"])
            #expect(r.status == 65, "\(name): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains("has no video track") && r.stderr.contains("tessera transcode"), "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
    }

    /// HDR10 kept through the farm: every segment's encode (on workers, over the wire) signals the
    /// source's mastering display and light levels, and the stitched file's container states them.
    @Test func hdr10SurvivesTheFarm() throws {
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("hdr.mp4"), out = dir.appendingPathComponent("out.mkv")
        try TestMedia.make(
            src, seconds: 2, width: 320, height: 180, video: TestMedia.hdr10Video(keyint: 15), audio: nil)
        let r = try tessera([
            "run", src.path, "-o", out.path, "--preset", "HEVC1920x1080", "--workers", "2", "--segment-duration", "0.5",
            "--json", "--quiet",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try report(r.stdout)
        #expect((report["segments"] as? Int ?? 0) >= 3)
        #expect(!((report["notCarried"] as? [String]) ?? []).contains { $0.contains("HDR") })
        let frames = try TestMedia.run(
            "ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_frames", "-of", "json", out.path])
        let keyed = frames.components(separatedBy: "\"key_frame\": 1").count - 1
        let signalled = frames.components(separatedBy: "Mastering display metadata").count - 1
        #expect(keyed >= 3 && signalled >= keyed, "every segment's keyframe signals it: \(signalled) of \(keyed)")
        let stream = try TestMedia.run(
            "ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_streams", "-of", "json", out.path])
        #expect(stream.contains("Mastering display metadata") && stream.contains("\"max_content\": 1000"))
    }

    /// `--http` serves the local farm's API and dashboard while the job runs (FarmServer beside the
    /// LocalFarm), on the port it reports; the job's result is the same.
    @Test func httpServesTheLocalFarmWhileTheJobRuns() throws {
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("long.mp4"), out = dir.appendingPathComponent("out.mp4")
        try TestMedia.make(src, seconds: 8, width: 1280, height: 720, audio: nil)
        let log = dir.appendingPathComponent("stderr.txt")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = TestMedia.tesseraBinary
        process.arguments = ["run", src.path, "-o", out.path, "--workers", "1", "--http", "127.0.0.1:0", "--quiet"]
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        var url: String?
        var answers: [String] = []
        while process.isRunning {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if url == nil, let range = text.range(of: #"http://127\.0\.0\.1:\d+/"#, options: .regularExpression) {
                url = String(text[range])
            }
            if let url, answers.isEmpty {
                let farm = try TestMedia.runCapturing("curl", ["-s", "--max-time", "5", url + "v1/farm"])
                let page = try TestMedia.runCapturing("curl", ["-s", "--max-time", "5", url])
                if farm.stdout.contains("\"runningSegments\"") { answers = [farm.stdout, page.stdout] }
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        #expect(url != nil, "the bound port is reported")
        #expect(answers.count == 2, "the API answered while the job ran")
        #expect(answers.last?.contains("<html") == true || answers.last?.contains("sign") == true, "the dashboard page")
        #expect(FileManager.default.fileExists(atPath: out.path))
        let refused = try tessera(["run", src.path, "-o", out.path, "--http", "nowhere"])
        #expect(refused.status == 64 && refused.stderr.contains("--http"), "\(refused.stderr)")
    }

    @Test func bothVerificationLevelsWriteTheSameVerifiedFile() throws {
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("src.mp4")
        try TestMedia.make(src, seconds: 4, extra: ["-g", "30", "-bf", "2"])
        var outputs: [Data] = []
        for level in ["decode", "timing"] {
            let out = dir.appendingPathComponent("out-\(level).mp4")
            // superfast: x264 without mb-tree, whose output is reproducible (TesseraMediaTests/X264Reproducibility).
            let r = try tessera([
                "run", src.path, "-o", out.path, "--preset", "640x480", "--speed", "superfast", "--workers", "2",
                "--segment-duration", "1", "--backend", "cpu", "--verification", level, "--json", "--quiet",
            ])
            #expect(r.status == 0, "\(level): \(r.stderr)")
            let json = try report(r.stdout)
            #expect(json["segments"] as? Int ?? 0 >= 4, "\(level): \(json["segments"] ?? "none")")
            let verification = try #require(json["verification"] as? [String: Any])
            #expect(verification["passed"] as? Bool == true)
            #expect(verification["frameCount"] as? Int == 120)
            let detail = Self.decodableDetail(json) ?? ""
            #expect(
                detail.contains(level == "decode" ? "each segment decoded by its encoder" : "not decoded"),
                "\(level): \(detail)")
            // Independent checks: ffprobe counts the frames, ffmpeg decodes every one against the source.
            let video = TestMedia.stream(try TestMedia.probe(out, countFrames: true), "video")
            #expect(video?["nb_read_frames"] as? String == "120")
            #expect(try TestMedia.psnr(out, against: src, width: 320, height: 240) > 30)
            outputs.append(try Data(contentsOf: out))
        }
        // The level changes what is checked, never what is written.
        #expect(outputs[0] == outputs[1])
    }

    @Test func aMissingSourceExits66AndWritesNothing() throws {
        defer { TestMedia.cleanup(dir) }
        let out = dir.appendingPathComponent("out.mp4")
        let r = try tessera(["run", dir.appendingPathComponent("nope.mp4").path, "-o", out.path, "--quiet"])
        #expect(r.status == 66, "\(r.stderr)")
        #expect(r.stderr.contains("nope.mp4"))
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test func anUnknownVerificationLevelIsABadArgument() throws {
        defer { TestMedia.cleanup(dir) }
        let r = try tessera([
            "run", "x.mp4", "-o", dir.appendingPathComponent("o.mp4").path, "--verification", "pixels",
        ])
        #expect(r.status == 64)
        #expect(r.stderr.contains("verification"))
    }
}

/// A source with two audio tracks, subtitles, chapters and a font: `transcode` and `run` write every
/// audio track (it came out with the English one alone), convert the subtitles to MP4's mov_text, keep
/// the chapters, and name the attachment MP4 cannot hold in a warning and in the report.
@Suite(.serialized) struct TracksCarriedTests {
    @Test(arguments: [["transcode"], ["run", "--workers", "1", "--segment-duration", "1"]])
    func everyTrackIsCarriedOrNamed(command: [String]) throws {
        let dir = try TestMedia.makeDirectory("tracks-carried")
        defer { TestMedia.cleanup(dir) }
        let src = try TestMedia.makeMultiTrack(dir)
        let out = dir.appendingPathComponent("out.mp4")
        let r = try TestMedia.runCapturing(
            TestMedia.tesseraBinary.path,
            [command[0], src.path, "-o", out.path, "--json", "--quiet"] + command.dropFirst())
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("warning: track 4: attachment (ttf, \"font.ttf\") is not carried"), "\(r.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        #expect((json?["notCarried"] as? [String])?.count == 1, "\(r.stdout)")
        let streams = try TestMedia.streams(out)
        let audio = streams.filter { $0["codec_type"] as? String == "audio" }
        #expect(audio.compactMap { ($0["tags"] as? [String: Any])?["language"] as? String } == ["eng", "fre"])
        #expect(streams.contains { $0["codec_name"] as? String == "mov_text" })
        #expect(try TestMedia.chapters(out).count == 2)
        #expect(try TestMedia.subtitleEvents(out).count == TestMedia.multiTrackEvents.count)
    }

    @Test func anAudioTrackIsChosenByLanguage() throws {
        let dir = try TestMedia.makeDirectory("tracks-chosen")
        defer { TestMedia.cleanup(dir) }
        let src = try TestMedia.makeMultiTrack(dir, attachment: false)
        let out = dir.appendingPathComponent("out.mkv")
        let r = try TestMedia.runCapturing(
            TestMedia.tesseraBinary.path,
            ["transcode", src.path, "-o", out.path, "--audio-language", "fre", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let audio = try TestMedia.streams(out).filter { $0["codec_type"] as? String == "audio" }
        #expect(audio.count == 1 && (audio.first?["tags"] as? [String: Any])?["language"] as? String == "fre")
        let bad = try TestMedia.runCapturing(
            TestMedia.tesseraBinary.path,
            [
                "transcode", src.path, "-o", dir.appendingPathComponent("x.mkv").path,
                "--audio-language", "e1",
            ])
        #expect(bad.status == 64 && bad.stderr.contains("not a language code"), "\(bad.stderr)")
    }
}
