import Foundation
import TesseraAV
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraMedia

/// The segmented path must write exactly what the one-pass export writes: the same frames at the same
/// presentation times, with the same picture quality, including next to segment boundaries.
@Suite(.serialized) struct SegmentedExportTests {
    struct Source: Sendable, CustomTestStringConvertible {
        let name: String
        let file: String
        let seconds: Double
        var width = 640
        var height = 360
        var rate = "30"
        var video: [String] = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"]
        var audio: [String]? = ["-c:a", "aac"]
        var extra: [String] = []
        var output = "out.mp4"
        var settings = ExportPreset.preset640x480.settings
        var testDescription: String { name }
    }

    static let hevcSettings = OutputSettings(
        video: VideoSettings(codec: .hevc, speed: "ultrafast"),
        audio: AudioSettings(codec: .aac))
    static let vp9Settings = OutputSettings(
        video: VideoSettings(codec: .vp9, rateControl: .crf(32), speed: "8"),
        audio: AudioSettings(codec: .opus))

    static let cases: [Source] = [
        Source(
            name: "H.264 with B-pyramid", file: "bpyr.mp4", seconds: 4,
            video: [
                "-c:v", "libx264", "-preset", "fast", "-bf", "3", "-b-pyramid", "normal", "-g", "30",
                "-pix_fmt", "yuv420p",
            ]),
        Source(
            name: "HEVC 10-bit open GOP", file: "open.mkv", seconds: 4, width: 320, height: 240,
            video: [
                "-c:v", "libx265", "-preset", "ultrafast", "-pix_fmt", "yuv420p10le",
                "-x265-params", "keyint=30:min-keyint=30:open-gop=1:bframes=4:log-level=error",
            ],
            settings: hevcSettings),
        Source(
            name: "variable frame rate with dropped frames", file: "vfr.mkv", seconds: 4,
            video: ["-c:v", "libx264", "-preset", "ultrafast", "-g", "20", "-pix_fmt", "yuv420p"],
            extra: ["-vf", "select='not(between(n\\,25\\,28))*not(eq(n\\,61))'", "-fps_mode", "vfr"]),
        Source(
            name: "MPEG-TS with a non-zero start", file: "start.ts", seconds: 4,
            video: ["-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-pix_fmt", "yuv420p"],
            extra: ["-output_ts_offset", "10"]),
        Source(
            name: "rotated phone video", file: "phone.mov", seconds: 3,
            video: ["-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-pix_fmt", "yuv420p"],
            extra: ["-metadata:s:v:0", "rotate=270"], output: "out.mov"),
        Source(
            name: "odd dimensions 1918x1078", file: "odd.mp4", seconds: 2, width: 1918, height: 1078,
            video: ["-c:v", "libx264", "-preset", "ultrafast", "-g", "15", "-pix_fmt", "yuv420p"],
            settings: ExportPreset.preset1280x720.settings),
        Source(
            name: "VP9 in WebM with Opus", file: "vp9.webm", seconds: 3, width: 320, height: 240,
            video: ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-g", "30"],
            audio: ["-c:a", "libopus"], output: "out.webm", settings: vp9Settings),
        Source(
            name: "MP2 audio", file: "mp2.mkv", seconds: 3,
            video: ["-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-pix_fmt", "yuv420p"],
            audio: ["-c:a", "mp2"], output: "out.mkv"),
        Source(
            name: "a single GOP", file: "onegop.mp4", seconds: 3,
            video: ["-c:v", "libx264", "-preset", "ultrafast", "-g", "1000", "-pix_fmt", "yuv420p"]),
        Source(
            name: "shorter than one segment", file: "short.mp4", seconds: 0.5,
            video: ["-c:v", "libx264", "-preset", "ultrafast", "-g", "5", "-pix_fmt", "yuv420p"]),
    ]

    @Test(arguments: cases)
    func segmentedMatchesOnePass(_ c: Source) throws {
        let dir = try TestMedia.makeDirectory("seg")
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent(c.file)
        try TestMedia.make(
            src, seconds: c.seconds, width: c.width, height: c.height, rate: c.rate, video: c.video,
            audio: c.audio, extra: c.extra)
        let one = dir.appendingPathComponent("one-" + c.output), seg = dir.appendingPathComponent("seg-" + c.output)
        _ = try ExportSession(sourcePath: src.path, outputPath: one.path, settings: c.settings).export()
        let session = ExportSession(sourcePath: src.path, outputPath: seg.path, settings: c.settings)
        session.segmentDuration = 1
        session.parallel = 2
        let report = try session.export()
        let expectedSegments = c.name == "a single GOP" || c.name == "shorter than one segment" ? 1 : 2
        #expect((report.segments ?? 0) >= expectedSegments, "planned \(report.segments ?? 0) segments")

        let onePTS = try TestMedia.framePTS(one), segPTS = try TestMedia.framePTS(seg)
        #expect(!onePTS.isEmpty)
        #expect(segPTS.count == onePTS.count, "frames: segmented \(segPTS.count), one pass \(onePTS.count)")
        #expect(
            segPTS == onePTS,
            "first PTS difference at frame \(Array(zip(segPTS, onePTS)).firstIndex { $0.0 != $0.1 } ?? -1)")

        let probe = try TestMedia.probe(seg)
        let v = try #require(TestMedia.stream(probe, "video"))
        let (w, h) = (v["width"] as? Int ?? 0, v["height"] as? Int ?? 0)
        let psnrOne = try TestMedia.psnr(one, against: src, width: w, height: h)
        let psnrSeg = try TestMedia.psnr(seg, against: src, width: w, height: h)
        #expect(abs(psnrOne - psnrSeg) <= 0.3 || psnrSeg > psnrOne, "PSNR one pass \(psnrOne), segmented \(psnrSeg)")
        if c.audio != nil {
            #expect(TestMedia.stream(probe, "audio") != nil, "audio track missing")
            let audioEnd = try TestMedia.streamEnd(seg, stream: "a:0")
            let step = segPTS.count > 1 ? segPTS[segPTS.count - 1] - segPTS[segPTS.count - 2] : 1.0 / 30
            let videoEnd = (segPTS.last ?? 0) + step
            // Within one audio frame: 1024 (AAC), 960 (Opus) or 1152 (MP2) samples at 48 kHz.
            #expect(abs(audioEnd - videoEnd) < 0.025, "A/V end: audio \(audioEnd) s, video \(videoEnd) s")
        }
    }

    @Test func framesNextToBoundariesAreNoWorse() throws {
        let dir = try TestMedia.makeDirectory("seg-boundary")
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("src.mp4")
        try TestMedia.make(
            src, seconds: 6, width: 640, height: 360, audio: nil,
            extra: ["-g", "30", "-bf", "3"])
        let seg = dir.appendingPathComponent("seg.mp4")
        let session = ExportSession(sourcePath: src.path, outputPath: seg.path, preset: .preset640x480)
        session.segmentDuration = 1
        let report = try session.export()
        #expect(report.segments == 6)
        // Per-frame PSNR against the source; boundaries at every 30th frame.
        let stats = dir.appendingPathComponent("psnr.log")
        _ = try TestMedia.runCapturing(
            "ffmpeg",
            [
                "-i", seg.path, "-i", src.path, "-filter_complex",
                "[0:v]settb=1/30,setpts=N[d];[1:v]settb=1/30,setpts=N[r];[d][r]psnr=stats_file=\(stats.path)",
                "-f", "null", "-",
            ])
        let values = try String(contentsOf: stats, encoding: .utf8).split(separator: "\n").compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("psnr_avg:") }.flatMap { Double($0.dropFirst(9)) }
        }
        #expect(values.count == 180)
        let nearBoundary = values.indices.filter { i in (i % 30 == 0 || i % 30 == 29) && i > 0 && i < 179 }
        let mean = { (ix: [Int]) in ix.map { values[$0] }.reduce(0, +) / Double(max(1, ix.count)) }
        let boundaryMean = mean(nearBoundary)
        let restMean = mean(values.indices.filter { !nearBoundary.contains($0) })
        #expect(boundaryMean >= restMean - 0.5, "boundary frames \(boundaryMean) dB vs the rest \(restMean) dB")
    }
}
