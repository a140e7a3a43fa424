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

    @Test func bothVerificationLevelsWriteTheSameVerifiedFile() throws {
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("src.mp4")
        try TestMedia.make(src, seconds: 4, extra: ["-g", "30", "-bf", "2"])
        var outputs: [Data] = []
        for level in ["decode", "timing"] {
            let out = dir.appendingPathComponent("out-\(level).mp4")
            // superfast: x264 without mb-tree, whose output is reproducible (TesseraMediaTests/X264Reproducibility).
            let r = try tessera(["run", src.path, "-o", out.path, "--preset", "640x480", "--speed", "superfast", "--workers", "2",
                                 "--segment-duration", "1", "--backend", "cpu", "--verification", level, "--json", "--quiet"])
            #expect(r.status == 0, "\(level): \(r.stderr)")
            let json = try report(r.stdout)
            #expect(json["segments"] as? Int ?? 0 >= 4, "\(level): \(json["segments"] ?? "none")")
            let verification = try #require(json["verification"] as? [String: Any])
            #expect(verification["passed"] as? Bool == true)
            #expect(verification["frameCount"] as? Int == 120)
            let detail = Self.decodableDetail(json) ?? ""
            #expect(detail.contains(level == "decode" ? "each segment decoded by its encoder" : "not decoded"),
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
        let r = try tessera(["run", "x.mp4", "-o", dir.appendingPathComponent("o.mp4").path, "--verification", "pixels"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("verification"))
    }
}

/// A source with two audio tracks, a subtitle track and chapters: what the output does not carry is
/// named in a warning and in the report, for `transcode` and for `run` (it was dropped without a word).
@Suite(.serialized) struct NotCarriedTests {
    static func makeSource(_ dir: URL) throws -> URL {
        let srt = dir.appendingPathComponent("sub.srt"), chapters = dir.appendingPathComponent("chapters.txt")
        try "1\n00:00:00,500 --> 00:00:01,500\nhello\n".write(to: srt, atomically: true, encoding: .utf8)
        try ";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=1000\ntitle=One\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=1000\nEND=2000\ntitle=Two\n"
            .write(to: chapters, atomically: true, encoding: .utf8)
        let src = dir.appendingPathComponent("multi.mkv")
        _ = try TestMedia.run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y",
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=2",
            "-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-f", "lavfi", "-i", "sine=frequency=660:duration=2",
            "-i", srt.path, "-i", chapters.path, "-map", "0:v", "-map", "1:a", "-map", "2:a", "-map", "3:s",
            "-map_metadata", "4", "-map_chapters", "4",
            "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-c:a", "aac", "-c:s", "srt",
            "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fre", "-metadata:s:a:1", "title=Français",
            "-metadata:s:s:0", "language=eng", src.path])
        return src
    }

    @Test(arguments: [["transcode"], ["run", "--workers", "1", "--segment-duration", "1"]])
    func whatIsNotCarriedIsNamed(command: [String]) throws {
        let dir = try TestMedia.makeDirectory("not-carried")
        defer { TestMedia.cleanup(dir) }
        let src = try Self.makeSource(dir)
        let out = dir.appendingPathComponent("out.mp4")
        let r = try TestMedia.runCapturing(TestMedia.tesseraBinary.path,
                                           [command[0], src.path, "-o", out.path, "--json", "--quiet"] + command.dropFirst())
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("warning: track 2: audio (aac, fre, \"Français\") is not carried"), "\(r.stderr)")
        #expect(r.stderr.contains("warning: track 3: subtitle (subrip"), "\(r.stderr)")
        #expect(r.stderr.contains("2 chapters not carried"), "\(r.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        #expect((json?["notCarried"] as? [String])?.count == 3, "\(r.stdout)")
    }
}
