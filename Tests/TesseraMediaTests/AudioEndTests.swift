import Foundation
import Synchronization
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraMedia

/// The output's audio ends exactly where the source's does. A source whose last AAC packet holds 240
/// samples (its MP4 edit list trims the rest of the frame) came out 16 ms longer, as the ffmpeg CLI's
/// output of it does: the decoder outputs the padded frame whole.
@Suite(.serialized) struct AudioEndTests {
    /// Where the first audio stream's last packet ends, in samples at 48 kHz (ffprobe's packet pts + duration).
    static func audioEnd(_ url: URL) throws -> Int64 {
        let last =
            try TestMedia.run(
                "ffprobe",
                [
                    "-v", "error", "-select_streams", "a:0", "-show_entries",
                    "packet=pts,duration", "-of", "csv=p=0", url.path,
                ]
            )
            .split(separator: "\n").last.map { $0.split(separator: ",").compactMap { Int64($0) } } ?? []
        return last.count == 2 ? last[0] + last[1] : -1
    }

    @Test(arguments: [false, true])
    func audioEndsWhereTheSourceAudioEnds(segmented: Bool) throws {
        let dir = try TestMedia.makeDirectory("audio-end")
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("src.mp4")
        // 93 AAC frames and 240 samples more.
        try TestMedia.make(src, seconds: 2, extra: ["-af", "atrim=end_sample=95472", "-shortest"])
        let sourceEnd = try Self.audioEnd(src)
        #expect(sourceEnd == 95472, "the fixture's audio should end at sample 95472, not \(sourceEnd)")
        let out = dir.appendingPathComponent("out.mp4")
        let session = ExportSession(
            sourcePath: src.path, outputPath: out.path,
            settings: OutputSettings(
                video: VideoSettings(codec: .h264, speed: "superfast"),
                audio: AudioSettings(codec: .aac)))
        if segmented {
            session.segmentDuration = 1
            session.parallel = 2
        }
        _ = try session.export()
        #expect(try Self.audioEnd(out) == sourceEnd)
    }

    /// The planning pass finds the source's audio/video end gaps itself (one demux): they equal the
    /// separate packet scan's, over the whole file and over a range, and the session reports them.
    @Test func thePlanFindsTheSameEndGapsAsAPacketScan() throws {
        let dir = try TestMedia.makeDirectory("audio-gap")
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("src.mkv")
        // Video 2 s; two audio tracks, 2.5 s and 1.5 s.
        try TestMedia.run(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                "testsrc2=size=320x240:rate=25:duration=2",
                "-f", "lavfi", "-i", "sine=duration=2.5", "-f", "lavfi", "-i", "sine=frequency=880:duration=1.5",
                "-map", "0", "-map", "1", "-map", "2", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac",
                src.path,
            ])
        for range in [nil, TimeRange(string: "0.5s-1.8s")] {
            let reader = try AssetReader(path: src.path)
            reader.timeRange = range
            let planned = try reader.planVideo(segmentSeconds: 1).audioEndGaps
            let scanned = OutputVerifier.audioEndGaps(of: src.path, range: range)
            #expect(planned == scanned, "range \(String(describing: range))")
            #expect(planned.count == 2)
        }
        let gaps = try #require(
            OutputVerifier.audioEndGaps(of: src.path).sorted { $0.key < $1.key }.map(\.value.seconds))
        #expect(abs(gaps[0] - 0.5) < 0.03 && abs(gaps[1] + 0.5) < 0.03, "\(gaps)")
        // The session tells its caller before any segment is encoded.
        let session = ExportSession(
            sourcePath: src.path, outputPath: dir.appendingPathComponent("out.mkv").path,
            settings: OutputSettings(
                video: VideoSettings(codec: .h264, speed: "superfast"), audio: AudioSettings(codec: .aac)))
        session.segmentDuration = 1
        final class Reported: Sendable { let gaps = Mutex<[Int: MediaTime]?>(nil) }
        let reported = Reported()
        session.audioEndGapsHandler = { gaps in reported.gaps.withLock { $0 = gaps } }
        _ = try session.export()
        #expect(reported.gaps.withLock { $0 } == OutputVerifier.audioEndGaps(of: src.path))
    }
}

/// Gaps in a source's audio stay where they are, filled with silence: an audio track that starts after
/// the video, and a fragmented MP4 whose audio skips 45 ms. Closing them moved the sound early (178 ms, 45
/// ms) without a word when the export did not verify.
@Suite(.serialized) struct AudioGapTests {
    /// Runs of near-silence of at least 10 ms in the first second of `url`'s audio, as (start, length) s.
    static func silentRuns(_ url: URL) throws -> [(Double, Double)] {
        let pcm = try TestMedia.runCapturingBytes(
            "ffmpeg",
            ["-v", "error", "-i", url.path, "-map", "0:a", "-t", "1", "-f", "s16le", "-ac", "1", "-ar", "48000", "-"]
        ).stdout
        let samples = pcm.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        var runs: [(Double, Double)] = [], start: Int?
        for (i, v) in samples.enumerated() {
            if abs(Int(v)) < 30 {
                start = start ?? i
            } else if let s = start {
                if i - s >= 480 { runs.append((Double(s) / 48000, Double(i - s) / 48000)) }
                start = nil
            }
        }
        return runs
    }

    @Test(arguments: [false, true])
    func aLateStartAndAFragmentGapAreKeptAsSilence(segmented: Bool) throws {
        let dir = try TestMedia.makeDirectory("audio-gap")
        defer { TestMedia.cleanup(dir) }
        let late = dir.appendingPathComponent("late.mp4"), fragmented = dir.appendingPathComponent("frag.mp4")
        let video = ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=3"]
        try TestMedia.run(
            "ffmpeg",
            ["-v", "error"] + video + [
                "-itsoffset", "0.2", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=2.8", "-c:v",
                "libx264", "-preset", "ultrafast", "-c:a", "aac", late.path,
            ])
        try TestMedia.run(
            "ffmpeg",
            ["-v", "error"] + video + [
                "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=3", "-af",
                "asetpts='if(eq(N,0),PTS,PTS+0.045/TB)'", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac",
                "-movflags", "frag_keyframe+empty_moov", fragmented.path,
            ])
        for (src, gapStart, gapLength) in [(late, 0.0, 0.17), (fragmented, 0.04, 0.035)] {
            let out = dir.appendingPathComponent("out-\(src.lastPathComponent)")
            let session = ExportSession(
                sourcePath: src.path, outputPath: out.path,
                settings: OutputSettings(
                    video: VideoSettings(codec: .h264, speed: "superfast"), audio: AudioSettings(codec: .aac)))
            session.backend = .cpu
            session.verifyOutput = true
            if segmented { session.segmentDuration = 1 }
            _ = try session.export()
            let runs = try Self.silentRuns(out)
            #expect(
                runs.contains { $0.0 <= gapStart + 0.01 && $0.0 + $0.1 >= gapStart + gapLength && $0.1 >= gapLength },
                "\(src.lastPathComponent): a silence of \(gapLength) s near \(gapStart) s, found \(runs)")
            let verify = try OutputVerifier(path: out.path, against: src.path).verify()
            #expect(verify.passed, "\(verify.firstFailure ?? "")")
        }
    }
}
