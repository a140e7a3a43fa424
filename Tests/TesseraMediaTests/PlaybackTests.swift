import Foundation
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraMedia

/// Issue 27's pictures played in Debian's chromium (Tests/Playback/playback_check.py): an HDR10 source's
/// tone-mapped SDR output shows libplacebo's colours on screen (pixel against pixel, both as the browser
/// draws them), and 25i retimed to 50p presents every field as a frame, each to its end.
@Suite(.serialized) struct PlaybackTests {
    static let harness = TestMedia.repositoryRoot.appendingPathComponent("Tests/Playback/playback_check.py")

    @Test func chromiumShowsTheToneMappedColoursAndEveryField() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
                && FileManager.default.isExecutableFile(atPath: TestMedia.toolsPython),
            "Scripts/install-deps.sh installs chromium and playwright")
        let dir = try TestMedia.makeDirectory("playback")
        defer { TestMedia.cleanup(dir) }
        let (hdr, reference) = try ToneMapTests.hdrSourceAndReference(in: dir)
        let sdr = dir.appendingPathComponent("sdr.mp4")
        let session = ExportSession(
            sourcePath: hdr.path, outputPath: sdr.path,
            settings: OutputSettings(video: VideoSettings(codec: .h264, rateControl: .crf(16)), audio: nil))
        session.backend = .cpu
        _ = try session.export()
        let interlaced = try DeinterlaceTests.interlacedSource(in: dir)
        let fields = dir.appendingPathComponent("fields.mp4")
        let retimed = ExportSession(
            sourcePath: interlaced.path, outputPath: fields.path,
            settings: OutputSettings(video: VideoSettings(codec: .h264, rateControl: .crf(20)), audio: nil))
        retimed.backend = .cpu
        retimed.retiming = Retiming(frameDuration: Rational(1, 50))
        _ = try retimed.export()

        // libplacebo's picture as the browser shows it: its lossless file re-encoded in a profile chromium
        // decodes. Chromium colour-manages BT.709 video, so the comparison is screen against screen.
        let placebo = dir.appendingPathComponent("placebo.mp4")
        try TestMedia.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-i", reference.path, "-c:v", "libx264", "-crf", "16", "-color_primaries", "bt709",
                "-color_trc", "bt709", "-colorspace", "bt709", placebo.path,
            ])
        // And the source's codes merely cut to 8 bits, labelled BT.709: what a player shows of HDR untouched.
        let cut = dir.appendingPathComponent("cut.mp4")
        try TestMedia.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-i", hdr.path, "-pix_fmt", "yuv420p", "-c:v", "libx264", "-crf", "16",
                "-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709", cut.path,
            ])
        // The grey box, a blue and the red bar of testsrc2's picture.
        let pixels: [[String: Any]] = [(80, 178), (160, 60), (20, 120)].map { ["x": $0.0, "y": $0.1] }
        let files: [[String: Any]] = [
            ["name": "sdr.mp4", "width": 320, "height": 240, "frames": 30, "pixels": pixels],
            ["name": "placebo.mp4", "width": 320, "height": 240, "frames": 30, "pixels": pixels],
            ["name": "cut.mp4", "width": 320, "height": 240, "frames": 30, "pixels": pixels],
            ["name": "fields.mp4", "width": 720, "height": 576, "frames": 100],
        ]
        let (run, json, checks) = try TestMedia.harness(
            Self.harness, config: ["dir": dir.path, "files": files], in: dir, name: "playback")
        #expect(run.status == 0, "\(run.stdout.suffix(2000))\(run.stderr.suffix(2000))")
        #expect(checks.count == 8, "the harness stopped early: \(run.stderr.suffix(2000))")
        for c in checks where c["ok"] as? Bool != true { Issue.record("\(c["name"] ?? "?"): \(c["detail"] ?? "")") }
        // On screen, Tessera's tone map shows libplacebo's colours.
        let shown = json?["shown"] as? [String: [[Int]]] ?? [:]
        let ours = shown["sdr.mp4"] ?? [], theirs = shown["placebo.mp4"] ?? [], untouched = shown["cut.mp4"] ?? []
        #expect(ours.count == 3 && theirs.count == 3 && untouched.count == 3)
        func distance(_ a: [Int], _ b: [Int]) -> Int { zip(a, b).map { abs($0 - $1) }.max() ?? 255 }
        print("on screen: Tessera \(ours), libplacebo \(theirs), HDR codes cut to 8 bits \(untouched)")
        // libplacebo on lavapipe is not exact run to run (its renders of this source differ at about 65 dB
        // PSNR), and the crf 16 re-encode carries that into the blue pixel: R 64 to 68 over five runs
        // against Tessera's steady 90. The colours are held within 28, the grey within 8; the codes cut
        // untouched are 80 away.
        for (i, (a, b)) in zip(ours, theirs).enumerated() {
            #expect(distance(a, b) <= (i == 0 ? 8 : 28), "pixel \(i): Tessera's \(a), libplacebo's \(b)")
        }
        // The check can fail: the untouched codes are further from libplacebo's than Tessera's, on every pixel.
        for i in 0..<min(3, untouched.count, ours.count, theirs.count) {
            #expect(distance(untouched[i], theirs[i]) > distance(ours[i], theirs[i]) + 10, "pixel \(i)")
        }
    }
}
