import Foundation
import TesseraAV
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraMedia

/// End-to-end exports through the real libav* pipeline, checked independently with ffprobe/ffmpeg.
@Suite(.serialized) struct ExportSessionTests {
    let dir: URL
    init() throws { dir = try TestMedia.makeDirectory("export") }

    /// A 2 s 30 fps 640x360 H.264 + AAC source (60 frames).
    func source(_ name: String = "src.mp4", seconds: Double = 2, extra: [String] = []) throws -> URL {
        let url = dir.appendingPathComponent(name)
        try TestMedia.make(url, seconds: seconds, width: 640, height: 360, extra: extra)
        return url
    }

    struct CodecCase: Sendable, CustomTestStringConvertible {
        let video: VideoCodec
        let audio: AudioCodec
        let ext: String
        let speed: String
        var testDescription: String { "\(video.rawValue)+\(audio.rawValue) in .\(ext)" }
    }

    @Test(arguments: [
        CodecCase(video: .h264, audio: .aac, ext: "mp4", speed: "veryfast"),
        CodecCase(video: .h264, audio: .aac, ext: "mov", speed: "veryfast"),
        CodecCase(video: .hevc, audio: .aac, ext: "mp4", speed: "ultrafast"),
        CodecCase(video: .av1, audio: .opus, ext: "mkv", speed: "12"),
        CodecCase(video: .vp9, audio: .opus, ext: "webm", speed: "8"),
    ])
    func transcodesEveryCodecAndContainer(_ c: CodecCase) throws {
        defer { TestMedia.cleanup(dir) }
        let src = try source()
        let out = dir.appendingPathComponent("out.\(c.ext)")
        let settings = OutputSettings(
            video: VideoSettings(
                codec: c.video, maxWidth: 480, maxHeight: 480, rateControl: .crf(c.video == .vp9 ? 30 : 23),
                speed: c.speed),
            audio: AudioSettings(codec: c.audio, bitRate: 96_000))
        let report = try ExportSession(sourcePath: src.path, outputPath: out.path, settings: settings).export()

        let probe = try TestMedia.probe(out, countFrames: true)
        let v = try #require(TestMedia.stream(probe, "video"))
        let a = try #require(TestMedia.stream(probe, "audio"))
        #expect(v["codec_name"] as? String == c.video.rawValue)
        #expect(v["width"] as? Int == 480 && v["height"] as? Int == 270)
        #expect(v["nb_read_frames"] as? String == "60")
        #expect(report.video?.frames == 60)
        #expect(a["codec_name"] as? String == c.audio.rawValue)
        if c.video == .hevc { #expect(v["codec_tag_string"] as? String == "hvc1") }
        let duration = Double(probe["format"].flatMap { ($0 as? [String: Any])?["duration"] as? String } ?? "") ?? 0
        #expect(abs(duration - 2.0) < 0.1, "container duration \(duration)")
        let psnr = try TestMedia.psnr(out, against: src, width: 480, height: 270)
        #expect(psnr > 30, "PSNR \(psnr) dB: the picture is not the source's")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".partial") }
        #expect(leftovers.isEmpty)
    }

    @Test func timeRangeIsFrameAccurateAndStartsAtZero() throws {
        defer { TestMedia.cleanup(dir) }
        // Keyframes only every 2 s, so the range starts mid-GOP and must decode from the keyframe before it.
        let src = try source(seconds: 4, extra: ["-g", "60", "-bf", "3"])
        let out = dir.appendingPathComponent("cut.mp4")
        let session = ExportSession(sourcePath: src.path, outputPath: out.path, preset: .preset640x480)
        session.timeRange = TimeRange(
            start: MediaTime(value: 1, timescale: 1), duration: MediaTime(value: 3, timescale: 2))
        let report = try session.export()
        #expect(report.video?.frames == 45)
        let pts = try TestMedia.framePTS(out)
        #expect(pts.count == 45)
        #expect(abs((pts.first ?? -1) - 0) < 0.001, "first frame at \(pts.first ?? -1)")
        // Off by one frame, testsrc2's moving pattern drops PSNR far below this.
        let psnr = try TestMedia.psnr(out, against: src, width: 640, height: 360, referenceStart: 1.0)
        #expect(psnr > 33, "PSNR \(psnr) dB against source from 1.0 s: frames are misaligned")
        let a = try #require(TestMedia.stream(try TestMedia.probe(out), "audio"))
        let audioDuration = Double(a["duration"] as? String ?? "") ?? 0
        #expect(abs(audioDuration - 1.5) < 0.03, "audio lasts \(audioDuration) s")
    }

    @Test func rotationMetadataAndTitleAreKeptAndMoovComesFirst() throws {
        defer { TestMedia.cleanup(dir) }
        let plain = try source("plain.mp4")
        // FFmpeg 5.1 turns the rotate tag into a counter-clockwise matrix: rotate=270 is a phone's
        // portrait recording, displayed 90° clockwise (ffprobe's rotation -90).
        let rotated = dir.appendingPathComponent("rotated.mp4")
        try TestMedia.run(
            "ffmpeg",
            [
                "-v", "error", "-i", plain.path, "-c", "copy", "-metadata:s:v:0", "rotate=270",
                "-metadata", "title=Harbour at dawn", rotated.path,
            ])
        let out = dir.appendingPathComponent("out.mp4")
        var settings = ExportPreset.preset1280x720.settings
        settings.optimizeForNetworkUse = true
        let report = try ExportSession(sourcePath: rotated.path, outputPath: out.path, settings: settings).export()
        #expect(report.video?.rotation == 90)
        let text = try TestMedia.run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries",
                "stream_side_data=rotation:format_tags=title", "-of", "json", out.path,
            ])
        #expect(text.contains("\"rotation\": -90"), "display matrix lost: \(text)")
        #expect(text.contains("Harbour at dawn"))
        let bytes = try Data(contentsOf: out)
        let moov = try #require(bytes.range(of: Data("moov".utf8))),
            mdat = try #require(bytes.range(of: Data("mdat".utf8)))
        #expect(moov.lowerBound < mdat.lowerBound, "optimizeForNetworkUse must put moov before mdat")
    }

    @Test func colourTagsSurviveAScale() throws {
        defer { TestMedia.cleanup(dir) }
        let src = try source(
            "tagged.mp4", seconds: 1,
            extra: [
                "-colorspace", "bt709", "-color_primaries", "bt709",
                "-color_trc", "bt709", "-color_range", "tv",
            ])
        let out = dir.appendingPathComponent("out.mp4")
        let settings = OutputSettings(
            video: VideoSettings(codec: .h264, maxWidth: 320, maxHeight: 320, speed: "ultrafast"),
            audio: nil)
        let report = try ExportSession(sourcePath: src.path, outputPath: out.path, settings: settings).export()
        #expect(report.video?.processor != "none", "the test must go through the scaler")
        let v = try #require(TestMedia.stream(try TestMedia.probe(out), "video"))
        #expect(v["width"] as? Int == 320)
        #expect(v["color_space"] as? String == "bt709")
        #expect(v["color_primaries"] as? String == "bt709")
        #expect(v["color_transfer"] as? String == "bt709")
        #expect(v["color_range"] as? String == "tv")
    }

    @Test func passthroughCopiesPacketsUnchanged() throws {
        defer { TestMedia.cleanup(dir) }
        let src = try source()
        let out = dir.appendingPathComponent("copy.mkv")
        let report = try ExportSession(sourcePath: src.path, outputPath: out.path, preset: .passthrough).export()
        #expect(report.passthrough)
        let probe = try TestMedia.probe(out, countFrames: true)
        #expect(TestMedia.stream(probe, "video")?["nb_read_frames"] as? String == "60")
        #expect(TestMedia.stream(probe, "video")?["codec_name"] as? String == "h264")
        #expect(TestMedia.stream(probe, "audio")?["codec_name"] as? String == "aac")
        let psnr = try TestMedia.psnr(out, against: src, width: 640, height: 360)
        #expect(psnr > 60, "a copy must decode to the same pictures (PSNR \(psnr))")
    }

    @Test func appleM4AWritesAudioOnly() throws {
        defer { TestMedia.cleanup(dir) }
        let src = try source()
        let out = dir.appendingPathComponent("sound.m4a")
        _ = try ExportSession(sourcePath: src.path, outputPath: out.path, preset: .appleM4A).export()
        let probe = try TestMedia.probe(out)
        #expect(TestMedia.stream(probe, "video") == nil)
        let a = try #require(TestMedia.stream(probe, "audio"))
        #expect(a["codec_name"] as? String == "aac")
        #expect(abs((Double(a["duration"] as? String ?? "") ?? 0) - 2) < 0.05)
    }

    @Test func tenBitHEVCStaysTenBit() throws {
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("hdr.mkv")
        try TestMedia.make(
            src, seconds: 1, width: 320, height: 240,
            video: [
                "-c:v", "libx265", "-preset", "ultrafast", "-pix_fmt", "yuv420p10le",
                "-x265-params", "log-level=error",
            ], audio: nil)
        let out = dir.appendingPathComponent("out.mp4")
        let settings = OutputSettings(video: VideoSettings(codec: .hevc, speed: "ultrafast"), audio: nil)
        _ = try ExportSession(sourcePath: src.path, outputPath: out.path, settings: settings).export()
        let v = try #require(TestMedia.stream(try TestMedia.probe(out), "video"))
        #expect(v["pix_fmt"] as? String == "yuv420p10le")
        #expect(v["profile"] as? String == "Main 10")
    }
}
