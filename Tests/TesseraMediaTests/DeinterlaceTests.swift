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

    /// FFmpeg's bwdif of `src`, as `--deinterlace auto` runs it, losslessly encoded.
    static func bwdifReference(of src: URL, in dir: URL) throws -> URL {
        let reference = dir.appendingPathComponent("bwdif.mkv")
        try TestMedia.run(
            "ffmpeg",
            [
                "-v", "error", "-i", src.path, "-vf", "bwdif=mode=send_frame:parity=auto:deint=interlaced", "-c:v",
                "libx264", "-qp", "0", "-preset", "ultrafast", reference.path,
            ])
        return reference
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
        let reference = try Self.bwdifReference(of: src, in: dir)
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

    /// A composition's interlaced asset is deinterlaced as a source is (one engine): its first run's
    /// pictures are bwdif's frame for frame; a second run (a cut, so its own reader) and the segments of
    /// both, on local threads and on a farm, are the one pass's; `off` keeps the fields and says so.
    @Test func aCompositionDeinterlacesItsInterlacedAssetAsASourceIs() throws {
        let dir = try TestMedia.makeDirectory("deinterlace-composition")
        defer { TestMedia.cleanup(dir) }
        let src = try Self.interlacedSource(in: dir)
        let reference = try Self.bwdifReference(of: src, in: dir)
        func spec(_ edits: String) throws -> CompositionSpec {
            try JSONDecoder().decode(
                CompositionSpec.self,
                from: Data(
                    #"{"assets": [{"id": "i", "path": "\#(src.path)"}], "edits": [\#(edits)], "videoComposition": {"renderSize": "720x576", "frameRate": "25"}, "settings": {"video": {"codec": "h264", "rateControl": {"crf": 0}, "speed": "ultrafast"}, "passthrough": false, "optimizeForNetworkUse": false}}"#
                        .utf8))
        }
        func export(
            _ spec: CompositionSpec, _ name: String, _ change: (CompositionExport) -> Void = { _ in }
        ) throws
            -> (URL, ExportReport)
        {
            let out = dir.appendingPathComponent(name)
            let export = CompositionExport(spec: spec, assetPaths: [src.path], outputPath: out.path)
            export.backend = .cpu
            change(export)
            return (out, try export.export())
        }
        let (first, report) = try export(try spec(#"{"insert": {"asset": "i", "range": "0s-1s"}}"#), "first.mp4")
        #expect(report.video?.deinterlaced == "bwdif" && report.notCarried.isEmpty, "\(report.notCarried)")
        #expect(try Self.psnr(first, reference) == 100, "the run's pictures are bwdif's")

        let cut = try spec(
            #"{"insert": {"asset": "i", "range": "0s-1s"}}, {"insert": {"asset": "i", "range": "1.2s-2s"}}"#)
        let (one, _) = try export(cut, "one.mp4")
        let (threads, segmented) = try export(cut, "threads.mp4") {
            $0.segmentDuration = 0.3
            $0.parallel = 2
        }
        #expect((segmented.segments ?? 0) >= 4 && segmented.video?.deinterlaced == "bwdif")
        #expect(try Self.psnr(threads, one) == 100, "every segment's boundary frames as the one pass makes them")
        let specFile = dir.appendingPathComponent("cut.json")
        try JSONEncoder().encode(cut).write(to: specFile)
        let farm = dir.appendingPathComponent("farm.mp4")
        let run = try TestMedia.runCapturing(
            TestMedia.tesseraBinary.path,
            ["run", "--spec", specFile.path, "-o", farm.path, "--workers", "2", "--segment-duration", "0.3", "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.psnr(farm, one) == 100, "the workers' segments too")

        let (kept, off) = try export(cut, "off.mp4") { $0.deinterlace = .off }
        #expect(off.video?.deinterlaced == nil)
        #expect(off.notCarried.contains { $0.contains("interlaced (tt)") && $0.contains("--deinterlace off") })
        #expect(try Self.psnr(kept, one) < 40, "the fields are kept")
    }

    /// An export that chooses its frames along a time map chooses among fields: 25i retimed to 50p shows
    /// every field as bwdif's `send_field` makes it, frame for frame, in one pass, in segments on local
    /// threads and on a farm's workers (whose boundaries decode their neighbours as above).
    @Test func aRetimeToTheFieldRateShowsEveryField() throws {
        let dir = try TestMedia.makeDirectory("deinterlace-fields")
        defer { TestMedia.cleanup(dir) }
        let src = try Self.interlacedSource(in: dir)
        let reference = dir.appendingPathComponent("fields.mkv")
        try TestMedia.run(
            "ffmpeg",
            [
                "-v", "error", "-i", src.path, "-vf", "bwdif=mode=send_field:parity=auto:deint=interlaced", "-c:v",
                "libx264", "-qp", "0", "-preset", "ultrafast", reference.path,
            ])
        func export(_ name: String, segments: Double? = nil) throws -> (URL, ExportReport) {
            let out = dir.appendingPathComponent(name)
            let session = ExportSession(sourcePath: src.path, outputPath: out.path, settings: Self.lossless)
            session.backend = .cpu
            session.retiming = Retiming(frameDuration: Rational(1, 50))
            if let segments {
                session.segmentDuration = segments
                session.parallel = 2
            }
            return (out, try session.export())
        }
        let (one, report) = try export("one.mp4")
        #expect(report.video?.deinterlaced == "bwdif" && report.video?.frames == 100, "\(report.video?.frames ?? 0)")
        #expect(try Self.psnr(one, reference) == 100, "every field, as bwdif makes it")
        // The check can fail: one picture per frame, shown twice, is not the fields.
        let (frames, _) = try {
            let out = dir.appendingPathComponent("frames.mp4")
            let session = ExportSession(sourcePath: src.path, outputPath: out.path, settings: Self.lossless)
            session.backend = .cpu
            return (out, try session.export())
        }()
        let doubled = dir.appendingPathComponent("doubled.mkv")
        try TestMedia.run(
            "ffmpeg", ["-v", "error", "-i", frames.path, "-r", "50", "-c:v", "libx264", "-qp", "0", doubled.path])
        #expect(try Self.psnr(doubled, reference) < 40)

        let (threads, segmented) = try export("threads.mp4", segments: 0.5)
        #expect((segmented.segments ?? 0) >= 3)
        #expect(try Self.psnr(threads, one) == 100, "every segment's boundary fields as the one pass makes them")
        let farm = dir.appendingPathComponent("farm.mp4")
        let run = try TestMedia.runCapturing(
            TestMedia.tesseraBinary.path,
            [
                "run", src.path, "-o", farm.path, "--workers", "2", "--segment-duration", "0.5", "--crf", "0",
                "--speed", "ultrafast", "--no-audio", "--quiet", "--frame-rate", "50",
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
