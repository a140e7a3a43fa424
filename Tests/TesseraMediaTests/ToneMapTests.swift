import Foundation
import TesseraAV
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraMedia

/// HDR sources in outputs that cannot carry HDR (issue 27): tone-mapped to BT.709 SDR with zimg's zscale
/// and FFmpeg's tonemap (the reference, run the same way as the ffmpeg CLI runs it) and labelled so, in
/// one pass and in segments alike; `--hdr keep` where it cannot be kept is refused.
@Suite(.serialized) struct ToneMapTests {
    static let chain =
        "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,"
        + "zscale=t=bt709:m=bt709:r=tv,format=yuv420p"

    static var lossless8bit: OutputSettings {
        OutputSettings(video: VideoSettings(codec: .h264, rateControl: .crf(0), speed: "ultrafast"), audio: nil)
    }

    /// 1 s of 320x240 HDR10 (x265), and its tone map by the ffmpeg CLI with the same filters, losslessly
    /// encoded. Filtered on one thread, as Tessera's graphs are (zscale's slices round chroma a little
    /// differently).
    static func hdrSourceAndReference(in dir: URL) throws -> (source: URL, reference: URL) {
        let src = dir.appendingPathComponent("hdr.mp4")
        try TestMedia.make(
            src, seconds: 1, width: 320, height: 240, audio: nil, extra: TestMedia.hdr10Video(keyint: 10))
        let reference = dir.appendingPathComponent("ref.mp4")
        try TestMedia.run(
            "ffmpeg",
            [
                "-v", "error", "-i", src.path, "-filter_threads", "1", "-vf", chain, "-c:v", "libx264", "-qp", "0",
                "-preset", "ultrafast", reference.path,
            ])
        return (src, reference)
    }

    @Test func anEightBitOutputOfHDR10IsToneMappedAsFFmpegDoesIt() throws {
        let dir = try TestMedia.makeDirectory("tonemap")
        defer { TestMedia.cleanup(dir) }
        let (src, reference) = try Self.hdrSourceAndReference(in: dir)
        for segmented in [false, true] {
            let out = dir.appendingPathComponent("out-\(segmented).mp4")
            let session = ExportSession(sourcePath: src.path, outputPath: out.path, settings: Self.lossless8bit)
            session.backend = .cpu
            if segmented { session.segmentDuration = 0.4 }
            let report = try session.export()
            #expect(report.notCarried.contains { $0.contains("tone-mapped to BT.709 SDR") }, "\(report.notCarried)")
            let video = try #require(TestMedia.stream(try TestMedia.probe(out), "video"))
            #expect(video["color_transfer"] as? String == "bt709" && video["color_primaries"] as? String == "bt709")
            #expect(video["color_space"] as? String == "bt709" && video["pix_fmt"] as? String == "yuv420p")
            #expect(
                try TestMedia.psnr(out, against: reference, width: 320, height: 240) == 100, "segmented: \(segmented)")
        }
        let kept = ExportSession(
            sourcePath: src.path, outputPath: dir.appendingPathComponent("keep.mp4").path, settings: Self.lossless8bit)
        kept.hdr = .keep
        #expect {
            try kept.export()
        } throws: { error in
            (error as? MediaError)?.kind == .invalidArgument && "\(error)".contains("--hdr keep")
        }
    }

    /// A composition's HDR10 asset is tone-mapped as a source is (one engine), since the render is 8-bit
    /// SDR: at the asset's size, in one pass and in segments, the pictures are libavfilter's; `keep` is
    /// refused before any work, naming the field.
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
            #expect(
                try TestMedia.psnr(out, against: reference, width: 320, height: 240) == 100, "segmented: \(segmented)")
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
