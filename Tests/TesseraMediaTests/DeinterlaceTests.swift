import Foundation
import TesseraAV
import TesseraCompute
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraMedia

/// Interlaced sources (issue 27): a progressive output is deinterlaced by default, with libavfilter's
/// bwdif as FFmpeg runs it, and the report says so; `off` keeps the fields and names what that does.
@Suite(.serialized) struct DeinterlaceTests {
    /// 4 s of 720x576 50p test pattern woven into 25i, top field first, flagged so (x264 interlaced).
    static func interlacedSource(in dir: URL) throws -> URL {
        let src = dir.appendingPathComponent("tff.mp4")
        try TestMedia.run(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=720x576:rate=50:duration=2", "-vf",
                "interlace=scan=tff,format=yuv420p", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "10", "-flags",
                "+ildct+ilme", "-x264opts", "tff=1", "-g", "25", src.path,
            ])
        return src
    }

    /// Lossless H.264 at the source's size, so the output's pictures are exactly what was encoded.
    static var lossless: OutputSettings {
        OutputSettings(video: VideoSettings(codec: .h264, rateControl: .crf(0), speed: "ultrafast"), audio: nil)
    }

    /// PSNR of `a` against `b` (720x576 pictures), frame k with frame k; 100 for identical pictures.
    static func psnr(_ a: URL, _ b: URL) throws -> Double { try TestMedia.psnr(a, against: b, width: 720, height: 576) }

    @Test func anInterlacedSourceIsDeinterlacedAsFFmpegsBwdifDoes() throws {
        let dir = try TestMedia.makeDirectory("deinterlace")
        defer { TestMedia.cleanup(dir) }
        let src = try Self.interlacedSource(in: dir)
        let reference = dir.appendingPathComponent("bwdif.mkv")
        try TestMedia.run(
            "ffmpeg",
            [
                "-v", "error", "-i", src.path, "-vf", "bwdif=mode=send_frame:parity=auto:deint=interlaced", "-c:v",
                "libx264", "-qp", "0", "-preset", "ultrafast", reference.path,
            ])
        let out = dir.appendingPathComponent("auto.mp4")
        let session = ExportSession(sourcePath: src.path, outputPath: out.path, settings: Self.lossless)
        session.backend = .cpu
        let report = try session.export()
        #expect(report.video?.deinterlaced == "bwdif")
        #expect(report.notCarried.isEmpty)
        #expect(try Self.psnr(out, reference) == 100, "the pictures are bwdif's, frame for frame")

        let kept = dir.appendingPathComponent("off.mp4")
        let off = ExportSession(sourcePath: src.path, outputPath: kept.path, settings: Self.lossless)
        off.backend = .cpu
        off.deinterlace = .off
        let offReport = try off.export()
        #expect(offReport.video?.deinterlaced == nil)
        #expect(offReport.notCarried.contains { $0.contains("interlaced (tt)") && $0.contains("--deinterlace off") })
        #expect(try Self.psnr(kept, reference) < 40, "the fields are kept, not deinterlaced")
    }

    /// Segments (local threads, and a farm's workers) decode the frames next to their range too, so the
    /// deinterlaced pictures at every boundary are the one pass's: frame for frame, losslessly encoded.
    @Test func segmentsDeinterlaceTheirBoundariesAsTheOnePassDoes() throws {
        let dir = try TestMedia.makeDirectory("deinterlace-segments")
        defer { TestMedia.cleanup(dir) }
        let src = try Self.interlacedSource(in: dir)
        let one = dir.appendingPathComponent("one.mp4"), cut = dir.appendingPathComponent("cut.mp4")
        let session = ExportSession(sourcePath: src.path, outputPath: one.path, settings: Self.lossless)
        session.backend = .cpu
        _ = try session.export()
        let segmented = ExportSession(sourcePath: src.path, outputPath: cut.path, settings: Self.lossless)
        segmented.backend = .cpu
        segmented.segmentDuration = 0.5
        segmented.parallel = 2
        let report = try segmented.export()
        #expect((report.segments ?? 0) >= 2 && report.video?.deinterlaced == "bwdif", "\(report.segments ?? 0)")
        #expect(try Self.psnr(cut, one) == 100, "every boundary frame as the one pass makes it")

        let farm = dir.appendingPathComponent("farm.mp4")
        let run = try TestMedia.runCapturing(
            TestMedia.tesseraBinary.path,
            [
                "run", src.path, "-o", farm.path, "--workers", "2", "--segment-duration", "0.5", "--crf", "0",
                "--speed", "ultrafast", "--no-audio", "--quiet",
            ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.psnr(farm, one) == 100, "the workers' segments too")
    }

    @Test func aProgressiveSourceIsLeftAlone() throws {
        let dir = try TestMedia.makeDirectory("deinterlace-progressive")
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("p.mp4")
        try TestMedia.make(src, seconds: 1, width: 320, height: 240, audio: nil)
        let session = ExportSession(
            sourcePath: src.path, outputPath: dir.appendingPathComponent("o.mp4").path, settings: Self.lossless)
        session.backend = .cpu
        #expect(try session.export().video?.deinterlaced == nil)
    }
}
