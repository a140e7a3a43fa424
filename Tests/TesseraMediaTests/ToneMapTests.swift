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

    @Test func anEightBitOutputOfHDR10IsToneMappedAsFFmpegDoesIt() throws {
        let dir = try TestMedia.makeDirectory("tonemap")
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("hdr.mp4")
        try TestMedia.make(
            src, seconds: 1, width: 320, height: 240, audio: nil, extra: TestMedia.hdr10Video(keyint: 10))
        // Filtered on one thread, as Tessera's graphs are (zscale's slices round chroma a little differently).
        let reference = dir.appendingPathComponent("ref.mp4")
        try TestMedia.run(
            "ffmpeg",
            [
                "-v", "error", "-i", src.path, "-filter_threads", "1", "-vf", Self.chain, "-c:v", "libx264", "-qp", "0",
                "-preset", "ultrafast", reference.path,
            ])
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
}
