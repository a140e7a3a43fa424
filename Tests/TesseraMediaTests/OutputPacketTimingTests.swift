import Foundation
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraMedia

/// Output timing as other tools read it: ffprobe (an independent reader) must see a duration on every
/// video packet equal to the step to the next frame, the true frame rate on the stream, and (H.264) the
/// true rate in the SPS VUI timing; one-pass and segmented outputs alike. Before force-cfr the MP4
/// packets read N/A and the VUI said 15360 fps.
@Suite(.serialized) struct OutputPacketTimingTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let output: String
        let settings: OutputSettings
        let segmented: Bool
        var testDescription: String { "\(output) \(settings.video!.codec) \(segmented ? "segmented" : "one pass")" }
    }

    static let h264 = OutputSettings(
        video: VideoSettings(codec: .h264, speed: "superfast"), audio: AudioSettings(codec: .aac))
    static let hevc = OutputSettings(
        video: VideoSettings(codec: .hevc, speed: "ultrafast"), audio: AudioSettings(codec: .aac))
    static let cases = [
        Case(output: "o.mp4", settings: h264, segmented: false), Case(output: "o.mp4", settings: h264, segmented: true),
        Case(output: "o.mkv", settings: h264, segmented: false), Case(output: "o.mkv", settings: h264, segmented: true),
        Case(output: "o.mov", settings: hevc, segmented: true),
    ]

    /// (pts, duration) of every video packet as ffprobe reads them; nil duration where it prints N/A.
    static func packets(_ url: URL) throws -> [(pts: Int64, duration: Int64?)] {
        let text = try TestMedia.run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries",
                "packet=pts,duration", "-of", "csv=p=0", url.path,
            ])
        return text.split(separator: "\n").compactMap { line in
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard let pts = Int64(f[0]) else { return nil }
            return (pts, f.count > 1 ? Int64(f[1]) : nil)
        }
    }

    @Test(arguments: cases)
    func everyPacketHasItsDurationAndTheStreamItsRate(_ c: Case) throws {
        let dir = try TestMedia.makeDirectory("pkt-timing")
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("src.mp4")
        try TestMedia.make(src, seconds: 3, rate: "25", extra: ["-g", "25", "-bf", "2"])
        let out = dir.appendingPathComponent(c.output)
        let session = ExportSession(sourcePath: src.path, outputPath: out.path, settings: c.settings)
        if c.segmented {
            session.segmentDuration = 1
            session.parallel = 2
        }
        let report = try session.export()
        if c.segmented { #expect((report.segments ?? 0) >= 2) }

        let packets = try Self.packets(out).sorted { $0.pts < $1.pts }
        #expect(packets.count == 75)
        #expect(
            packets.allSatisfy { ($0.duration ?? 0) > 0 },
            "packets without a duration: \(packets.filter { $0.duration == nil }.count)")
        let wrong = zip(packets, packets.dropFirst()).first { a, b in abs((b.pts - a.pts) - (a.duration ?? 0)) > 1 }
        #expect(
            wrong == nil,
            "packet at \(wrong?.0.pts ?? 0): \(wrong?.0.duration ?? -1) vs step \((wrong?.1.pts ?? 0) - (wrong?.0.pts ?? 0))"
        )
        let v = try #require(TestMedia.stream(try TestMedia.probe(out), "video"))
        #expect(v["r_frame_rate"] as? String == "25/1")
        #expect(v["avg_frame_rate"] as? String == "25/1")
        if c.settings.video?.codec == .h264 {
            // H.264 VUI: time_scale / num_units_in_tick = 2 × frame rate.
            let trace = try TestMedia.runCapturing(
                "ffmpeg",
                [
                    "-hide_banner", "-loglevel", "trace", "-i", out.path, "-c", "copy",
                    "-bsf:v", "trace_headers", "-frames:v", "1", "-f", "null", "-",
                ])
            func field(_ name: String) -> Int? {
                trace.stderr.split(separator: "\n").first { $0.contains(" \(name) ") }
                    .flatMap { $0.split(separator: "=").last.map { Int($0.trimmingCharacters(in: .whitespaces)) } }
                    ?? nil
            }
            let units = try #require(field("num_units_in_tick")), scale = try #require(field("time_scale"))
            #expect(scale == 50 * units, "VUI says \(scale)/(2·\(units)) fps")
        }
        // Tessera's own verifier checks the same.
        let verified = try OutputVerifier(path: out.path).verify()
        for name in [VerificationReport.Check.Name.packetDurations, .frameRate] {
            #expect(
                verified.checks.first { $0.name == name }?.passed == true,
                "\(name): \(verified.checks.first { $0.name == name }?.detail ?? "missing")")
        }
    }

    /// The verifier fails a file whose packets read without a duration: what x264 writes with B-frames
    /// when it takes its input as variable-rate in a 1/15360 time base (made here by the ffmpeg CLI).
    @Test func theVerifierFailsMissingDurations() throws {
        let dir = try TestMedia.makeDirectory("pkt-none")
        defer { TestMedia.cleanup(dir) }
        let mp4 = dir.appendingPathComponent("a.mp4")
        try TestMedia.make(
            mp4, seconds: 1, audio: nil,
            extra: [
                "-vf", "settb=1/15360,setpts=N*512", "-fps_mode", "passthrough", "-enc_time_base", "1/15360",
                "-video_track_timescale", "15360", "-preset", "veryfast", "-bf", "2",
            ])
        #expect(try Self.packets(mp4).contains { $0.duration == nil }, "the fixture should read N/A durations")
        let report = try OutputVerifier(path: mp4.path).verify()
        let check = try #require(report.checks.first { $0.name == .packetDurations })
        #expect(!check.passed)
        #expect(!report.passed)
    }
}
