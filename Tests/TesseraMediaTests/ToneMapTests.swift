import Foundation
import TesseraAV
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraMedia

/// HDR sources in outputs that cannot carry HDR (issue 27): tone-mapped to BT.709 SDR by the processor
/// (BT.2390, `ToneMapCurves`) on the CPU and in the Vulkan kernel, against libplacebo's `bt.2390` in `max`
/// mode run by the ffmpeg CLI on lavapipe; labelled so, in one pass and in segments alike; `--hdr keep`
/// where it cannot be kept is refused.
@Suite(.serialized) struct ToneMapTests {
    static var lossless8bit: OutputSettings {
        OutputSettings(video: VideoSettings(codec: .h264, rateControl: .crf(0), speed: "ultrafast"), audio: nil)
    }

    /// 1 s of a 320x240 HDR still (testsrc2's first picture taken to linear light, its white at 600 cd/m²,
    /// BT.2020, then PQ or HLG, as a grade would: every colour in range), HDR10 metadata of a 1000 cd/m²
    /// master with PQ; and libplacebo's tone map of it, losslessly encoded. A still, since libplacebo on
    /// lavapipe in FFmpeg 5.1 hands back a few frames of a moving picture mixed with their neighbours.
    static func hdrSourceAndReference(in dir: URL, hlg: Bool = false) throws -> (source: URL, reference: URL) {
        let src = dir.appendingPathComponent(hlg ? "hlg.mp4" : "hdr.mp4")
        let transfer = hlg ? "arib-std-b67" : "smpte2084"
        let filter: String =
            "trim=end_frame=1,loop=loop=29:size=1:start=0,format=yuv444p,"
            + "setparams=colorspace=bt709:color_trc=bt709:color_primaries=bt709:range=tv,"
            + "zscale=t=linear:npl=100,format=gbrpf32le,"
            + "zscale=p=2020:t=\(transfer):m=2020_ncl:r=tv:npl=600,format=yuv420p10le"
        let hlgEncode: [String] = [
            "-c:v", "libx265", "-x265-params",
            "colorprim=bt2020:transfer=arib-std-b67:colormatrix=bt2020nc:crf=4:log-level=error",
        ]
        let encode: [String] = hlg ? hlgEncode : TestMedia.hdr10Video(keyint: 10) + ["-crf", "4"]
        var arguments: [String] = [
            "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=1",
        ]
        arguments += ["-vf", filter] + encode + [src.path]
        try TestMedia.run("ffmpeg", arguments)
        let reference = dir.appendingPathComponent(hlg ? "hlg-ref.mp4" : "ref.mp4")
        try TestMedia.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-init_hw_device", "vulkan=vk:0", "-filter_hw_device", "vk", "-i", src.path, "-vf",
                "format=yuv420p10le,hwupload,libplacebo=tonemapping=bt.2390:tonemapping_mode=max:"
                    + "tonemapping_crosstalk=0:peak_detect=0:dithering=none:gamut_mode=clip:colorspace=bt709:"
                    + "color_primaries=bt709:color_trc=bt709:range=tv:format=yuv420p,hwdownload,format=yuv420p",
                "-c:v", "libx264", "-qp", "0", "-preset", "ultrafast", reference.path,
            ])
        return (src, reference)
    }

    /// How close a tone map must come to libplacebo's (measured on a moving 640x360 source, median frame:
    /// 42.7 dB on the CPU, 44.5 in the Vulkan kernel; the rest is chroma, sited and filtered otherwise
    /// than libplacebo does). The source merely cut to 8 bits scores 14.5.
    static let agreement = 38.0

    @Test func anEightBitOutputOfHDR10IsToneMappedAsLibplaceboDoesIt() throws {
        let dir = try TestMedia.makeDirectory("tonemap")
        defer { TestMedia.cleanup(dir) }
        let (src, reference) = try Self.hdrSourceAndReference(in: dir)
        var outputs: [String: URL] = [:]
        for (backend, segmented) in [(ProcessingBackend.cpu, false), (.cpu, true), (.vulkan, false)] {
            let name = "\(backend.rawValue)-\(segmented ? "segments" : "one-pass")"
            let out = dir.appendingPathComponent("\(name).mp4")
            let session = ExportSession(sourcePath: src.path, outputPath: out.path, settings: Self.lossless8bit)
            session.backend = backend
            if segmented { session.segmentDuration = 0.4 }
            let report = try session.export()
            #expect(
                report.notCarried.contains { $0.contains("tone-mapped to BT.709 SDR (BT.2390 from 1000") },
                "\(report.notCarried)")
            let video = try #require(TestMedia.stream(try TestMedia.probe(out), "video"))
            #expect(video["color_transfer"] as? String == "bt709" && video["color_primaries"] as? String == "bt709")
            #expect(video["color_space"] as? String == "bt709" && video["pix_fmt"] as? String == "yuv420p")
            let db = try TestMedia.psnr(out, against: reference, width: 320, height: 240)
            #expect(db >= Self.agreement, "\(name): \(db) dB against libplacebo")
            outputs[name] = out
        }
        // The two kernels agree with each other, and the one pass with its segments exactly.
        let cpu = try #require(outputs["cpu-one-pass"]), vulkan = try #require(outputs["vulkan-one-pass"])
        #expect(try TestMedia.psnr(vulkan, against: cpu, width: 320, height: 240) >= Self.agreement)
        #expect(try TestMedia.psnr(try #require(outputs["cpu-segments"]), against: cpu, width: 320, height: 240) == 100)
        // The check can fail: the source's codes merely cut to 8 bits are far from the reference.
        let cut = dir.appendingPathComponent("cut.mp4")
        try TestMedia.run(
            "ffmpeg", ["-v", "error", "-i", src.path, "-pix_fmt", "yuv420p", "-c:v", "libx264", "-qp", "0", cut.path])
        #expect(try TestMedia.psnr(cut, against: reference, width: 320, height: 240) < 20)

        let kept = ExportSession(
            sourcePath: src.path, outputPath: dir.appendingPathComponent("keep.mp4").path, settings: Self.lossless8bit)
        kept.hdr = .keep
        #expect {
            try kept.export()
        } throws: { error in
            (error as? MediaError)?.kind == .invalidArgument && "\(error)".contains("--hdr keep")
        }
    }

    /// HLG: scene light through its OOTF (a 1000 cd/m² display), then the same curve.
    @Test func anHLGSourceIsToneMappedAsLibplaceboDoesIt() throws {
        let dir = try TestMedia.makeDirectory("tonemap-hlg")
        defer { TestMedia.cleanup(dir) }
        let (src, reference) = try Self.hdrSourceAndReference(in: dir, hlg: true)
        let out = dir.appendingPathComponent("out.mp4")
        let session = ExportSession(sourcePath: src.path, outputPath: out.path, settings: Self.lossless8bit)
        session.backend = .cpu
        let report = try session.export()
        #expect(report.notCarried.contains { $0.contains("HDR (HLG) is tone-mapped") }, "\(report.notCarried)")
        let db = try TestMedia.psnr(out, against: reference, width: 320, height: 240)
        #expect(db >= Self.agreement, "\(db) dB against libplacebo")
    }

    /// A composition's HDR10 asset is tone-mapped as a source is (one engine), since the render is 8-bit
    /// SDR: at the asset's size, in one pass and in segments, the pictures are libplacebo's within the
    /// same margin; `keep` is refused before any work, naming the field.
    @Test func aCompositionsHDRAssetIsToneMappedAsASourceIs() throws {
        let dir = try TestMedia.makeDirectory("tonemap-composition")
        defer { TestMedia.cleanup(dir) }
        let (src, reference) = try Self.hdrSourceAndReference(in: dir)
        let spec = try JSONDecoder().decode(
            CompositionSpec.self,
            from: Data(
                #"{"assets": [{"id": "h", "path": "\#(src.path)"}], "edits": [{"insert": {"asset": "h"}}], "videoComposition": {"frameRate": "30"}, "settings": {"video": {"codec": "h264", "rateControl": {"crf": 0}, "speed": "ultrafast"}, "passthrough": false, "optimizeForNetworkUse": false}}"#
                    .utf8))
        for segmented in [false, true] {
            let out = dir.appendingPathComponent("out-\(segmented).mp4")
            let export = CompositionExport(spec: spec, assetPaths: [src.path], outputPath: out.path)
            export.backend = .cpu
            if segmented { export.segmentDuration = 0.4 }
            let report = try export.export()
            #expect(
                report.notCarried.contains { $0.contains("HDR (PQ)") && $0.contains("tone-mapped to BT.709 SDR") },
                "\(report.notCarried)")
            let db = try TestMedia.psnr(out, against: reference, width: 320, height: 240)
            #expect(db >= Self.agreement, "segmented: \(segmented): \(db) dB against libplacebo")
        }
        let kept = CompositionExport(
            spec: spec, assetPaths: [src.path], outputPath: dir.appendingPathComponent("keep.mp4").path)
        kept.hdr = .keep
        #expect {
            try kept.check()
        } throws: { error in
            (error as? MediaError)?.kind == .invalidArgument && "\(error)".contains("hdr: keep")
        }
    }
}
