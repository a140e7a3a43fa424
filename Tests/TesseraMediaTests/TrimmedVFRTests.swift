import Foundation
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraMedia

/// A variable-frame-rate phone-style clip trimmed with `ffmpeg -t 6 -c copy`: its last frames come after
/// a dropped-frame gap and its declared video duration ends before its last frame. The segmented export
/// (the farm's path) used to fail verification after all its work, judging the output against the
/// source's declared end instead of where its last frame ends. Both paths must now succeed and agree on
/// every packet's timestamp and duration.
@Suite(.serialized) struct TrimmedVFRTests {
    static func packets(_ url: URL) throws -> [String] {
        try TestMedia.run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries",
                "packet=pts,duration", "-of", "csv=p=0", url.path,
            ]
        )
        .split(separator: "\n").map(String.init).sorted {
            (Int($0.split(separator: ",")[0]) ?? 0) < (Int($1.split(separator: ",")[0]) ?? 0)
        }
    }

    @Test func segmentedAndOnePassAgreeAndVerify() throws {
        let dir = try TestMedia.makeDirectory("vfr-trim")
        defer { TestMedia.cleanup(dir) }
        let full = dir.appendingPathComponent("full.mp4"), src = dir.appendingPathComponent("trimmed.mp4")
        try TestMedia.make(
            full, seconds: 8, width: 640, height: 360,
            video: ["-c:v", "libx264", "-preset", "veryfast", "-g", "30", "-pix_fmt", "yuv420p"],
            extra: ["-vf", "select='not(between(n\\,170\\,178))'", "-fps_mode", "vfr"])
        _ = try TestMedia.run(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-y", "-i", full.path, "-t", "6",
                "-c", "copy", src.path,
            ])
        // The fixture is what the bug needs: the declared video end is before the last frame's end.
        let asset = try Asset.load(src.path)
        let video = try #require(asset.firstVideoTrack)
        let lastEnd = try #require(video.presentationEnd)
        #expect(
            video.timeRange.end < lastEnd,
            "declared \(video.timeRange.end.seconds) s, last frame ends \(lastEnd.seconds) s")

        let settings = OutputSettings(
            video: VideoSettings(codec: .h264, speed: "superfast"), audio: AudioSettings(codec: .aac))
        let one = dir.appendingPathComponent("one.mp4"), seg = dir.appendingPathComponent("seg.mp4")
        _ = try ExportSession(sourcePath: src.path, outputPath: one.path, settings: settings).export()
        let session = ExportSession(sourcePath: src.path, outputPath: seg.path, settings: settings)
        session.segmentDuration = 1
        session.parallel = 2
        let report = try session.export()
        #expect((report.segments ?? 0) >= 2)
        let onePackets = try Self.packets(one), segPackets = try Self.packets(seg)
        #expect(!onePackets.isEmpty)
        #expect(
            onePackets == segPackets,
            "first difference: \(zip(onePackets, segPackets).first { $0 != $1 }.map { "\($0) vs \($1)" } ?? "count \(onePackets.count) vs \(segPackets.count)")"
        )
        let verified = try OutputVerifier(path: seg.path, against: src.path).verify()
        #expect(verified.passed, "\(verified.firstFailure ?? "")")
    }
}
