import Foundation
import TesseraAV
import TesseraCore
import TesseraMedia
import TesseraTestSupport
import Testing

/// `OutputVerifier` on outputs made at run time with the ffmpeg CLI: good ones pass, and each kind of
/// damage fails the check it should, naming the first offending frame or packet.
@Suite(.serialized) struct VerifierTests {
    let dir: URL
    init() throws { dir = try TestMedia.makeDirectory("verify") }

    /// A 2 s 30 fps H.264 + AAC MP4 (60 frames).
    func source(_ name: String = "src.mp4") throws -> URL {
        let url = dir.appendingPathComponent(name)
        try TestMedia.make(url, seconds: 2)
        return url
    }

    /// Runs the ffmpeg CLI quietly, writing `output` in this test's directory.
    @discardableResult
    func ffmpeg(_ arguments: [String], _ output: String) throws -> URL {
        let url = dir.appendingPathComponent(output)
        try TestMedia.run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y"] + arguments + [url.path])
        return url
    }

    let x264 = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"]
    let frameDuration = MediaTime(value: 1, timescale: 30)

    @Test func cleanMP4PassesWithTheRightFrameCount() throws {
        defer { TestMedia.cleanup(dir) }
        var verifier = OutputVerifier(path: try source().path)
        verifier.expectation = .constantFrameRate(frameDuration: frameDuration, frameCount: 60)
        let report = try verifier.verify()
        #expect(report.passed, "\(report.firstFailure ?? "")")
        #expect(report.frameCount == 60 && report.expectedFrameCount == 60)
        #expect(report.firstFailure == nil)
        #expect(report.videoDuration == MediaTime(value: 2, timescale: 1))
        #expect(report.avStartOffset == .zero)
        let names = report.checks.map(\.name)
        #expect(names == VerificationReport.Check.Name.allCases, "every check runs on a file with video and audio")
    }

    @Test func wrongFrameGridFailsAtTheFirstFrameOffIt() throws {
        defer { TestMedia.cleanup(dir) }
        var verifier = OutputVerifier(path: try source().path)
        verifier.expectation = .constantFrameRate(frameDuration: MediaTime(value: 1, timescale: 25), frameCount: 50)
        let report = try verifier.verify()
        #expect(!report.passed)
        #expect(report.check(.presentationTimes)?.frame == 1)
        #expect(report.check(.frameCount)?.passed == false)
    }

    @Test func transcodePassesAgainstItsSource() throws {
        defer { TestMedia.cleanup(dir) }
        let src = try source()
        let out = try ffmpeg(["-i", src.path] + x264 + ["-bf", "2", "-preset", "fast", "-c:a", "aac"], "out.mp4")
        let report = try OutputVerifier(path: out.path, against: src.path).verify()
        #expect(report.passed, "\(report.firstFailure ?? "")")
        #expect(report.against == src.path && report.expectedFrameCount == 60)
        #expect(report.check(.presentationTimes)?.passed == true)
    }

    @Test func droppedFrameFailsAgainstTheSourceNamingIt() throws {
        defer { TestMedia.cleanup(dir) }
        let src = try source()
        let out = try ffmpeg(
            ["-i", src.path, "-vf", "select='not(eq(n\\,10))'", "-fps_mode", "passthrough"] + x264
                + ["-c:a", "copy"], "dropped.mp4")
        let report = try OutputVerifier(path: out.path, against: src.path).verify()
        #expect(!report.passed)
        #expect(report.frameCount == 59)
        let times = try #require(report.check(.presentationTimes))
        #expect(!times.passed && times.frame == 10, "\(times.detail)")
        #expect(report.check(.frameCount)?.passed == false)
        #expect(report.firstFailure?.contains("frame 10 at 0.367s") == true, "\(report.firstFailure ?? "")")
    }

    @Test func shiftedTimestampFailsNamingTheFrame() throws {
        defer { TestMedia.cleanup(dir) }
        let src = try source()
        // 100 ticks of 1/15360 s (6.5 ms) later than the grid: more than the one tick allowed.
        let out = try ffmpeg(
            ["-i", src.path, "-c", "copy", "-bsf:v", "setts=pts=if(eq(N\\,20)\\,PTS+100\\,PTS)"],
            "shifted.mp4")
        var verifier = OutputVerifier(path: out.path)
        verifier.expectation = .constantFrameRate(frameDuration: frameDuration, frameCount: 60)
        let report = try verifier.verify()
        #expect(!report.passed)
        let times = try #require(report.check(.presentationTimes))
        #expect(times.frame == 20 && times.time == MediaTime(value: 10_340, timescale: 15_360), "\(times.detail)")
        #expect(report.check(.frameCount)?.passed == true)
    }

    @Test func duplicatedTimestampFailsTheOrderChecks() throws {
        defer { TestMedia.cleanup(dir) }
        let src = try source()
        // Matroska's muxer accepts a repeated timestamp, as a faulty stitch could write.
        let out = try ffmpeg(
            ["-i", src.path, "-c", "copy", "-bsf:v", "setts=ts=if(eq(N\\,20)\\,PREV_OUTPTS\\,TS)"],
            "duplicated.mkv")
        let report = try OutputVerifier(path: out.path, against: src.path).verify()
        #expect(!report.passed)
        #expect(report.check(.dtsIncreasing)?.packet == 20)
        #expect(report.check(.presentationOrder)?.frame == 20)
        #expect(report.firstFailure?.hasPrefix("dts-increasing: packet 20") == true, "\(report.firstFailure ?? "")")
    }

    @Test func audioMuchShorterThanVideoFailsTheDurationCheck() throws {
        defer { TestMedia.cleanup(dir) }
        let out = try ffmpeg(
            [
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=2",
                "-f", "lavfi", "-t", "1", "-i", "sine=frequency=440:sample_rate=48000",
            ] + x264
                + ["-c:a", "aac"], "short-audio.mp4")
        let report = try OutputVerifier(path: out.path).verify()
        #expect(!report.passed)
        #expect(report.check(.audioDuration)?.passed == false)
        #expect(report.check(.avStartOffset)?.passed == true)
        let audio = try #require(report.audioDuration)
        #expect(audio < MediaTime(value: 11, timescale: 10), "audio \(audio.seconds) s")
    }

    @Test func truncatedFileFailsDecodingOrCount() throws {
        defer { TestMedia.cleanup(dir) }
        let src = try source()
        let whole = try ffmpeg(["-i", src.path, "-c", "copy"], "whole.mkv")
        let data = try Data(contentsOf: whole)
        let cut = dir.appendingPathComponent("cut.mkv")
        try data.prefix(data.count * 6 / 10).write(to: cut)
        let report = try OutputVerifier(path: cut.path, against: src.path).verify()
        #expect(!report.passed)
        #expect(report.frameCount < 60)
        #expect(report.check(.decodable)?.passed == false || report.check(.frameCount)?.passed == false)
        #expect(report.check(.presentationTimes)?.frame == report.frameCount, "the first missing frame is named")
    }

    @Test func unopenableFilesThrowNamingTheFile() throws {
        defer { TestMedia.cleanup(dir) }
        let missing = dir.appendingPathComponent("missing.mp4").path
        #expect(throws: MediaError.self) { try OutputVerifier(path: missing).verify() }
        do {
            _ = try OutputVerifier(path: missing).verify()
        } catch {
            #expect(error.kind == .notFound && error.path == missing)
        }
        // An MP4 cut short with its index in front: the index reaches past the end, so it is not opened.
        let src = try source()
        let fast = try ffmpeg(["-i", src.path, "-c", "copy", "-movflags", "+faststart"], "fast.mp4")
        let data = try Data(contentsOf: fast)
        let cut = dir.appendingPathComponent("cut.mp4")
        try data.prefix(data.count / 2).write(to: cut)
        do {
            _ = try OutputVerifier(path: cut.path).verify()
            Issue.record("a truncated MP4 with moov in front opened")
        } catch {
            #expect(error.kind == .corrupt)
        }
    }

    @Test(arguments: [["-c:a", "aac"], ["-c:a", "libopus"], ["-an"]])
    func matroskaWithMillisecondTimesPassesAgainstAnMP4Source(_ audio: [String]) throws {
        defer { TestMedia.cleanup(dir) }
        let src = try source()
        let out = try ffmpeg(["-i", src.path] + x264 + audio, "out.mkv")
        let report = try OutputVerifier(path: out.path, against: src.path).verify()
        #expect(report.passed, "\(report.firstFailure ?? "")")
        #expect(report.frameCount == 60)
    }

    @Test func mpegTSWithANonZeroStartPassesAgainstItsSource() throws {
        defer { TestMedia.cleanup(dir) }
        let src = try source()
        // MPEG-TS clocks run free: the output starts at 1.4 s plus the offset, not at zero.
        let out = try ffmpeg(["-i", src.path, "-c", "copy", "-output_ts_offset", "3"], "out.ts")
        let report = try OutputVerifier(path: out.path, against: src.path).verify()
        #expect(report.passed, "\(report.firstFailure ?? "")")
        #expect((report.check(.firstFrameAtStart)?.detail.contains("at 0.000s")) == false)
    }

    @Test func variableFrameRateSourcePassesAgainstItself() throws {
        defer { TestMedia.cleanup(dir) }
        let src = try source()
        // Every fifth frame dropped with the others kept at their times: steps of 1/30 and 2/30 s.
        let vfr = try ffmpeg(
            ["-i", src.path, "-vf", "select='not(eq(mod(n\\,5)\\,3))'", "-fps_mode", "passthrough"]
                + x264 + ["-c:a", "copy"], "vfr.mp4")
        #expect(try Asset.load(vfr.path).firstVideoTrack?.video?.isVariableFrameRate == true)
        let report = try OutputVerifier(path: vfr.path, against: vfr.path).verify()
        #expect(report.passed, "\(report.firstFailure ?? "")")
        #expect(report.frameCount == 48)
        let copy = try ffmpeg(["-i", vfr.path, "-c", "copy"], "vfr.mkv")
        let fromCopy = try OutputVerifier(path: copy.path, against: vfr.path).verify()
        #expect(fromCopy.passed, "\(fromCopy.firstFailure ?? "")")
    }
}
