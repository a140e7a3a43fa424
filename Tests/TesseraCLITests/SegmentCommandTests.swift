import Foundation
import TesseraTestSupport
import Testing

/// `tessera plan`, `transcode --segment-duration` and `stitch`, run as the built binary.
@Suite(.serialized) struct SegmentCommandTests {
    let dir: URL
    init() throws { dir = try TestMedia.makeDirectory("segcli") }

    func tessera(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try TestMedia.runCapturing(TestMedia.tesseraBinary.path, arguments)
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func planCoversEveryFrameOnceInKeyframeAlignedSegments() throws {
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("src.mp4")
        try TestMedia.make(src, seconds: 5, extra: ["-g", "15", "-bf", "2"])
        let r = try tessera(["plan", src.path, "--segment-duration", "1", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let plan = try json(r.stdout)
        let segments = try #require(plan["segments"] as? [[String: Any]])
        #expect(plan["frameCount"] as? Int == 150)
        #expect(segments.count == 5)
        var next = 0
        for s in segments {
            let frames = try #require(s["outputFrames"] as? [Int])
            #expect(frames[0] == next, "segments must be contiguous")
            next = frames[1]
        }
        #expect(next == 150)
    }

    /// A screen recording with one keyframe (VP9): planned for two slots it is cut in two, mid-GOP, and the
    /// text shows where the last segment ends as "end", not "infs"; on the farm's two workers it makes
    /// exactly the frames of one pass.
    @Test func aOneKeyframeRecordingIsSharedByTheSlots() throws {
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("screen.webm")
        try TestMedia.make(
            src, seconds: 4, width: 320, height: 240,
            video: ["-c:v", "libvpx-vp9", "-g", "1000", "-deadline", "realtime", "-cpu-used", "8"], audio: nil)
        let text = try tessera(["plan", src.path, "--segment-duration", "1", "--parallel", "2"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(
            text.stdout.contains("120 frames in 2 segments") && text.stdout.contains(" end  decode packets"),
            "\(text.stdout)")
        #expect(!text.stdout.contains("inf"), "\(text.stdout)")
        let one = dir.appendingPathComponent("one.mp4"), farm = dir.appendingPathComponent("farm.mp4")
        let job = ["--video-codec", "h264", "--crf", "0", "--speed", "superfast", "--quiet"]
        #expect(try tessera(["transcode", src.path, "-o", one.path] + job).status == 0)
        let r = try tessera(["run", src.path, "-o", farm.path, "--workers", "2", "--segment-duration", "1"] + job)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try TestMedia.framePTS(farm) == TestMedia.framePTS(one))
        #expect(try TestMedia.psnr(farm, against: one, width: 320, height: 240) > 60)
    }

    @Test func segmentedTranscodeReportsSegmentsAndAPassedVerification() throws {
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("src.mp4"), out = dir.appendingPathComponent("out.mp4")
        try TestMedia.make(src, seconds: 4, extra: ["-g", "30"])
        let r = try tessera([
            "transcode", src.path, "-o", out.path, "--preset", "640x480", "--segment-duration", "1",
            "--parallel", "2", "--json", "--quiet",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try json(r.stdout)
        #expect(report["segments"] as? Int == 4)
        let verification = try #require(report["verification"] as? [String: Any])
        #expect(verification["passed"] as? Bool == true)
        #expect(verification["frameCount"] as? Int == 120)
    }

    @Test func stitchJoinsSegmentFilesAndRefusesMismatchedOnes() throws {
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("src.mp4")
        try TestMedia.make(src, seconds: 4, audio: nil, extra: ["-g", "30"])
        try TestMedia.run(
            "ffmpeg",
            [
                "-v", "error", "-i", src.path, "-c", "copy", "-f", "segment", "-segment_time", "1",
                "-reset_timestamps", "1", dir.appendingPathComponent("part%02d.mp4").path,
            ])
        let parts = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("part") }
            .sorted().map { dir.appendingPathComponent($0).path }
        #expect(parts.count == 4)
        let out = dir.appendingPathComponent("joined.mp4")
        let r = try tessera(["stitch"] + parts + ["-o", out.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try TestMedia.framePTS(out) == TestMedia.framePTS(src))
        #expect(try TestMedia.psnr(out, against: src, width: 320, height: 240) > 90)

        // A segment encoded at another size cannot join the others.
        let other = dir.appendingPathComponent("other.mp4")
        try TestMedia.make(other, seconds: 1, width: 160, height: 120, audio: nil)
        let bad = dir.appendingPathComponent("bad.mp4")
        let refused = try tessera(["stitch", parts[0], other.path, "-o", bad.path])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("segment 1 cannot be stitched"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: bad.path))
    }
}
