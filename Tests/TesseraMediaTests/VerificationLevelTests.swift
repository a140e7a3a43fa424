import Foundation
import TesseraAV
import TesseraCompute
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraMedia

/// A segmented export's `VerificationLevel`: `.decode` has every segment decoded where it was encoded,
/// `.timing` decodes no video at all, and both still check the stitched file's packets and timing.
@Suite struct VerificationLevelTests {
    /// Exports `src` in half-second segments on one inline thread with one set of kept decoders.
    static func export(_ src: URL, to out: URL, level: VerificationLevel) throws -> (ExportReport, SegmentDecoders) {
        let decoders = SegmentDecoders()
        let executor = DecoderReuseTests.InlineExecutor(shared: decoders)
        let session = ExportSession(sourcePath: src.path, outputPath: out.path, settings: X264Reproducibility.settings)
        session.segmentDuration = 0.5
        session.parallel = 1
        session.backend = .cpu
        session.verificationLevel = level
        session.makeSegmentExecutor = { _ in executor }
        return (try session.export(), decoders)
    }

    static func decodable(_ report: ExportReport) -> VerificationReport.Check? {
        report.verification?.checks.first { $0.name == .decodable }
    }

    @Test func timingDecodesNoVideoAndStillChecksEveryFrame() throws {
        let dir = try TestMedia.makeDirectory("verify-level")
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("src.mp4")
        try TestMedia.make(
            src, seconds: 2, width: 320, height: 240,
            video: ["-c:v", "libx264", "-preset", "ultrafast", "-bf", "2", "-g", "12", "-pix_fmt", "yuv420p"])

        let (decoded, decodeDecoders) = try Self.export(
            src, to: dir.appendingPathComponent("decode.mp4"), level: .decode)
        let (timed, timingDecoders) = try Self.export(src, to: dir.appendingPathComponent("timing.mp4"), level: .timing)

        // .decode opens a check decoder besides the source's; .timing only the source's.
        #expect(decodeDecoders.opened == 2)
        #expect(timingDecoders.opened == 1)
        #expect(timingDecoders.reused == decodeDecoders.reused / 2, "only the source decoder is reused")
        // Both reports pass every check, on the same frames; only the decodable check's detail differs.
        for report in [decoded, timed] {
            #expect(report.verification?.passed == true)
            #expect(report.verification?.frameCount == 60)
            #expect(report.verification?.checks.contains { $0.name == .presentationTimes && $0.passed } == true)
        }
        #expect(Self.decodable(decoded)?.detail.contains("each segment decoded by its encoder") == true)
        #expect(Self.decodable(timed)?.detail.contains("not decoded") == true, "\(Self.decodable(timed)?.detail ?? "")")
        // The level changes what is checked, never what is written.
        #expect(
            try Data(contentsOf: dir.appendingPathComponent("decode.mp4"))
                == Data(contentsOf: dir.appendingPathComponent("timing.mp4")))
    }
}
