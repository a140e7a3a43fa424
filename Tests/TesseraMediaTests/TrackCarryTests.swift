import Foundation
import TesseraAV
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraMedia

/// Every track of the source reaches the output, as AVAssetExportSession keeps every track: each audio
/// track transcoded once over the whole range with its language and title, subtitles copied (or
/// converted to MP4's mov_text), attachments and chapters carried; what a container cannot hold is
/// named. A Matroska source with English and French audio and subtitles came out with English alone.
@Suite(.serialized) struct TrackCarryTests {
    static let settings = OutputSettings(
        video: VideoSettings(codec: .h264, speed: "superfast"),
        audio: AudioSettings(codec: .aac))

    static func export(
        _ src: URL, _ out: URL, segmented: Bool, range: TimeRange? = nil,
        settings: OutputSettings = settings
    ) throws -> ExportReport {
        let session = ExportSession(sourcePath: src.path, outputPath: out.path, settings: settings)
        session.timeRange = range
        session.verifyOutput = true
        if segmented {
            session.segmentDuration = 1
            session.parallel = 2
        }
        return try session.export()
    }

    static func tag(_ stream: [String: Any], _ key: String) -> String? {
        (stream["tags"] as? [String: Any])?[key] as? String
    }

    static func near(_ a: Double, _ b: Double, _ slack: Double = 0.002) -> Bool { abs(a - b) <= slack }

    /// An HDR10 source (PQ, mastering display and light levels in its frames, as x265 writes them): a
    /// 10-bit HEVC output keeps it, the metadata in the encoded frames and the container, one pass and
    /// segmented; an 8-bit output is tone-mapped to SDR, and says so (`ToneMapTests` checks the pictures).
    @Test func hdr10IsKeptInA10BitHEVCOutputAndNamedWhereItIsNot() throws {
        let dir = try TestMedia.makeDirectory("carry-hdr")
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("hdr.mp4")
        try TestMedia.make(src, seconds: 1, video: TestMedia.hdr10Video(), audio: nil)
        let sdr = try Self.export(src, dir.appendingPathComponent("sdr.mp4"), segmented: false)
        #expect(
            sdr.notCarried.contains { $0.contains("8-bit") && $0.contains("PQ") && $0.contains("tone-mapped") },
            "\(sdr.notCarried)")
        var hevc = Self.settings
        hevc.video = VideoSettings(codec: .hevc, speed: "ultrafast")
        for (name, segmented) in [("hevc.mp4", false), ("hevc-segments.mkv", true)] {
            let out = dir.appendingPathComponent(name)
            let kept = try Self.export(src, out, segmented: segmented, settings: hevc)
            #expect(!kept.notCarried.contains { $0.contains("HDR") }, "\(kept.notCarried)")
            let frame = try TestMedia.run(
                "ffprobe",
                [
                    "-v", "error", "-select_streams", "v:0", "-read_intervals", "%+#1", "-show_frames", "-of", "json",
                    out.path,
                ])
            let stream = try TestMedia.run(
                "ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_streams", "-of", "json", out.path])
            // ffprobe prints the values as fractions, each container reduced its own way: read them as numbers.
            func value(_ text: String, _ key: String) -> Double? {
                guard let r = text.range(of: "\"\(key)\": \"") else { return nil }
                let parts = text[r.upperBound...].prefix { $0 != "\"" }.split(separator: "/").compactMap { Double($0) }
                return parts.count == 2 && parts[1] != 0 ? parts[0] / parts[1] : nil
            }
            for (what, text) in [("frame", frame), ("container", stream)] {
                let (red, white, peak) = (
                    value(text, "red_x"), value(text, "white_point_x"), value(text, "max_luminance")
                )
                #expect(red == 0.68 && abs((white ?? 0) - 0.3127) < 1e-4 && peak == 1000, "\(name) \(what): \(text)")
                #expect(
                    text.contains("\"max_content\": 1000") && text.contains("\"max_average\": 400"), "\(name) \(what)")
            }
            #expect(stream.contains("smpte2084") && stream.contains("yuv420p10le"))
        }
        var av1 = Self.settings
        av1.video = VideoSettings(codec: .av1, speed: "12")
        let named = try Self.export(src, dir.appendingPathComponent("av1.mkv"), segmented: false, settings: av1)
        #expect(named.notCarried.contains { $0.contains("only a 10-bit HEVC output keeps it") }, "\(named.notCarried)")
    }

    /// A source's timecode (a ProRes master's tmcd track) is carried on the output's video track,
    /// counted to the range's first frame, one pass or segmented; the tmcd track is not called dropped.
    @Test(arguments: [false, true])
    func timecodeIsCarriedAndCountedToTheRangeStart(segmented: Bool) throws {
        let dir = try TestMedia.makeDirectory("carry-tc")
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("master.mov")
        try TestMedia.make(src, seconds: 3, rate: "25", extra: ["-timecode", "10:00:00:00"])
        let range = TimeRange(
            start: MediaTime(value: 1, timescale: 1), duration: MediaTime(value: 1, timescale: 1))
        for name in ["out.mov", "out.mkv"] {
            let out = dir.appendingPathComponent(name)
            let report = try Self.export(src, out, segmented: segmented, range: range)
            #expect(
                !report.notCarried.contains { $0.contains("data") || $0.contains("timecode") }, "\(report.notCarried)")
            let streams = try TestMedia.probe(out)["streams"] as? [[String: Any]] ?? []
            // Matroska names its tags in capitals.
            let codes = streams.compactMap { Self.tag($0, "timecode") ?? Self.tag($0, "TIMECODE") }
            #expect(codes.first == "10:00:01:00", "\(name): \(codes)")
            if name.hasSuffix(".mov") {
                #expect(streams.contains { $0["codec_tag_string"] as? String == "tmcd" }, "a timecode track")
            }
        }
        // An audio-only output has nowhere to put it, and says so.
        var sound = Self.settings
        sound.video = nil
        let audioOnly = try Self.export(src, dir.appendingPathComponent("sound.m4a"), segmented: false, settings: sound)
        #expect(
            audioOnly.notCarried.contains { $0.contains("timecode 10:00:00:00 is not carried") },
            "\(audioOnly.notCarried)")
    }

    /// A camera's QuickTime metadata (make, model, location) is kept in a .mov, one pass or segmented,
    /// and named where the container cannot keep it.
    @Test(arguments: [false, true])
    func quickTimeMetadataIsKeptInAMovAndNamedElsewhere(segmented: Bool) throws {
        let dir = try TestMedia.makeDirectory("carry-qt")
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("iphone.mov")
        try TestMedia.make(
            src, seconds: 2,
            extra: [
                "-metadata", "com.apple.quicktime.make=Apple", "-metadata", "com.apple.quicktime.model=iPhone 15 Pro",
                "-metadata", "com.apple.quicktime.location.ISO6709=+51.5072-000.1276+011.000/",
                "-movflags", "use_metadata_tags",
            ])
        let mov = dir.appendingPathComponent("out.mov")
        let kept = try Self.export(src, mov, segmented: segmented)
        let tags = (try TestMedia.probe(mov)["format"] as? [String: Any])?["tags"] as? [String: Any] ?? [:]
        #expect(tags["com.apple.quicktime.make"] as? String == "Apple")
        #expect(tags["com.apple.quicktime.model"] as? String == "iPhone 15 Pro")
        #expect(tags["com.apple.quicktime.location.ISO6709"] as? String == "+51.5072-000.1276+011.000/")
        #expect(!kept.notCarried.contains { $0.contains("QuickTime") })
        let mp4 = dir.appendingPathComponent("out.mp4")
        let named = try Self.export(src, mp4, segmented: segmented)
        #expect(
            named.notCarried.contains { $0.contains("QuickTime metadata (location.ISO6709, make, model)") },
            "\(named.notCarried)")
    }

    @Test(arguments: [false, true])
    func matroskaKeepsEveryTrack(segmented: Bool) throws {
        let dir = try TestMedia.makeDirectory("carry-mkv")
        defer { TestMedia.cleanup(dir) }
        let src = try TestMedia.makeMultiTrack(dir)
        let out = dir.appendingPathComponent("out.mkv")
        let report = try Self.export(src, out, segmented: segmented)
        #expect(report.notCarried.isEmpty, "\(report.notCarried)")
        #expect(report.audioTracks.map(\.sourceTrack) == [1, 2])
        #expect(report.subtitleTracks.map(\.events) == [TestMedia.multiTrackEvents.count])
        #expect(report.chapters == 2 && report.attachments == 1)

        let streams = try TestMedia.streams(out)
        #expect(streams.map { $0["codec_type"] as? String } == ["video", "audio", "audio", "subtitle", "attachment"])
        let audio = streams.filter { $0["codec_type"] as? String == "audio" }
        #expect(audio.map { Self.tag($0, "language") } == ["eng", "fre"])
        #expect(Self.tag(audio[1], "title") == "Français")
        #expect(streams[3]["codec_name"] as? String == "subrip")
        #expect(Self.tag(streams[4], "filename") == "font.ttf")
        // Each audio track ends where its own source track ends (the French one half a second early).
        let sourceEnds = try [1, 2].map { try TestMedia.streamEnd(src, stream: "a:\($0 - 1)") }
        let outputEnds = try [1, 2].map { try TestMedia.streamEnd(out, stream: "a:\($0 - 1)") }
        for (s, o) in zip(sourceEnds, outputEnds) { #expect(Self.near(s, o, 0.024), "source \(s) s, output \(o) s") }
        // Subtitles and chapters at the source's times.
        let events = try TestMedia.subtitleEvents(out), sourceEvents = try TestMedia.subtitleEvents(src)
        #expect(events.count == sourceEvents.count)
        for (e, s) in zip(events, sourceEvents) { #expect(Self.near(e.0, s.0) && Self.near(e.1, s.1), "\(e) vs \(s)") }
        #expect(try TestMedia.chapters(out).map(\.2) == ["One", "Two"])
        // The verifier held each audio track to the video.
        let checks = report.verification?.checks.filter { $0.name == .audioDuration } ?? []
        #expect(checks.count == 2 && checks.allSatisfy(\.passed), "\(checks.map(\.detail))")
    }

    @Test func mp4ConvertsTextSubtitlesAndNamesTheAttachment() throws {
        let dir = try TestMedia.makeDirectory("carry-mp4")
        defer { TestMedia.cleanup(dir) }
        let src = try TestMedia.makeMultiTrack(dir)
        let out = dir.appendingPathComponent("out.mp4")
        let report = try Self.export(src, out, segmented: true)
        #expect(report.notCarried.count == 1)
        #expect(
            report.notCarried.first?.contains(
                "attachment (ttf, \"font.ttf\") is not carried: mp4 cannot hold attachments") == true)
        #expect(report.subtitleTracks.first?.converted == true)
        let streams = try TestMedia.streams(out)
        let subtitle = streams.first { $0["codec_type"] as? String == "subtitle" }
        #expect(subtitle?["codec_name"] as? String == "mov_text")
        #expect(streams.filter { $0["codec_type"] as? String == "audio" }.count == 2)
        let events = try TestMedia.subtitleEvents(out), sourceEvents = try TestMedia.subtitleEvents(src)
        #expect(events.count == TestMedia.multiTrackEvents.count)
        for (e, s) in zip(events, sourceEvents) { #expect(Self.near(e.0, s.0) && Self.near(e.1, s.1), "\(e) vs \(s)") }
        let text = try TestMedia.run("ffmpeg", ["-v", "error", "-i", out.path, "-map", "0:s:0", "-f", "srt", "-"])
        for event in TestMedia.multiTrackEvents { #expect(text.contains(event.2), "\(text)") }
        #expect(try TestMedia.chapters(out).map(\.2) == ["One", "Two"])
    }

    /// A range cuts subtitles and chapters as it cuts the video: an event showing at the range start
    /// begins at 0, one past the end is cut there, chapters are shifted and clipped.
    @Test func aRangeCutsSubtitlesAndChapters() throws {
        let dir = try TestMedia.makeDirectory("carry-range")
        defer { TestMedia.cleanup(dir) }
        let src = try TestMedia.makeMultiTrack(dir, attachment: false)
        let out = dir.appendingPathComponent("out.mkv")
        let start = 1.0, end = 3.5
        let range = TimeRange(
            start: MediaTime(seconds: start, preferredTimescale: 1000),
            end: MediaTime(seconds: end, preferredTimescale: 1000))
        _ = try Self.export(src, out, segmented: true, range: range)
        // On the source's timeline, cut to the range and moved to its start (where the output's video starts).
        let sourceEvents = try TestMedia.subtitleEvents(src, fromVideo: false)
        let expected = sourceEvents.compactMap { e -> (Double, Double)? in
            let s = max(e.0, start), t = min(e.1, end)
            return t > s ? (s - start, t - start) : nil
        }
        let events = try TestMedia.subtitleEvents(out)
        #expect(events.count == expected.count && expected.count == 2, "\(events) vs \(expected)")
        for (e, x) in zip(events, expected) { #expect(Self.near(e.0, x.0) && Self.near(e.1, x.1), "\(e) vs \(x)") }
        let chapters = try TestMedia.chapters(out)
        #expect(chapters.map(\.2) == ["One", "Two"])
        #expect(Self.near(chapters.first?.0 ?? -1, 0) && Self.near(chapters.first?.1 ?? -1, 1.0))
        #expect(Self.near(chapters.last?.0 ?? -1, 1.0) && Self.near(chapters.last?.1 ?? -1, 2.5))
    }

    @Test func audioTracksAreChosenByNumberOrLanguage() throws {
        let dir = try TestMedia.makeDirectory("carry-select")
        defer { TestMedia.cleanup(dir) }
        let src = try TestMedia.makeMultiTrack(dir, attachment: false)
        var settings = Self.settings
        settings.audioTracks = AudioTrackSelection(languages: ["FRE"])
        let byLanguage = dir.appendingPathComponent("fre.mkv")
        let report = try Self.export(src, byLanguage, segmented: false, settings: settings)
        #expect(report.audioTracks.map(\.sourceTrack) == [2])
        #expect(report.notCarried.isEmpty, "a track left out on purpose is not news: \(report.notCarried)")
        let audio = try TestMedia.streams(byLanguage).filter { $0["codec_type"] as? String == "audio" }
        #expect(audio.map { Self.tag($0, "language") } == ["fre"])

        settings.audioTracks = AudioTrackSelection(tracks: [1])
        let byNumber = dir.appendingPathComponent("one.mkv")
        #expect(
            try Self.export(src, byNumber, segmented: true, settings: settings).audioTracks.map(\.sourceTrack) == [1])

        settings.audioTracks = AudioTrackSelection(tracks: [7], languages: ["deu"])
        let none = dir.appendingPathComponent("none.mkv")
        let error = #expect(throws: MediaError.self) { try Self.export(src, none, segmented: true, settings: settings) }
        #expect(error?.kind == .invalidArgument)
        #expect(error?.message.contains("track 2 (aac, fre, \"Français\")") == true, "\(error?.message ?? "")")
        #expect(!FileManager.default.fileExists(atPath: none.path))
    }

    /// The verifier checks every audio track's end, not only the first's: a second track cut short
    /// fails the check, naming that track.
    @Test func theVerifierChecksEveryAudioTrack() throws {
        let dir = try TestMedia.makeDirectory("carry-verify")
        defer { TestMedia.cleanup(dir) }
        let file = dir.appendingPathComponent("short-second.mkv")
        _ = try TestMedia.run(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-y",
                "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=3",
                "-f", "lavfi", "-i", "sine=duration=3", "-f", "lavfi", "-i", "sine=duration=2",
                "-map", "0", "-map", "1", "-map", "2", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac",
                file.path,
            ])
        var verifier = OutputVerifier(path: file.path)
        verifier.expectedAudioEndGaps = [.zero, .zero]
        let report = try verifier.verify()
        let checks = report.checks.filter { $0.name == .audioDuration }
        #expect(checks.count == 2)
        #expect(checks.first?.passed == true)
        #expect(checks.last?.passed == false)
        #expect(checks.last?.detail.hasPrefix("audio track 2:") == true, "\(checks.last?.detail ?? "")")
        #expect(!report.passed)
        // Told the source's second track ends a second before its video, the same file passes.
        verifier.expectedAudioEndGaps = [.zero, MediaTime(value: -1, timescale: 1)]
        #expect(try verifier.verify().passed)
    }

    /// Passthrough copies every audio track the container can hold and names the others: MP4 cannot
    /// hold PCM, so a Matroska source's PCM track is named, and its AAC track and subtitles still come.
    @Test func passthroughNamesTheTrackTheContainerCannotHold() throws {
        let dir = try TestMedia.makeDirectory("carry-passthrough")
        defer { TestMedia.cleanup(dir) }
        let src = try TestMedia.makeMultiTrack(dir, attachment: false)
        let pcm = dir.appendingPathComponent("pcm.mkv")
        _ = try TestMedia.run(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-y", "-i", src.path, "-map", "0",
                "-c", "copy", "-c:a:1", "pcm_s16le", pcm.path,
            ])
        let out = dir.appendingPathComponent("out.mp4")
        let report = try Self.export(pcm, out, segmented: false, settings: ExportPreset.passthrough.settings)
        #expect(report.audioTracks.map(\.sourceTrack) == [1])
        #expect(report.notCarried.count == 1)
        #expect(
            report.notCarried.first?.hasPrefix("track 2: audio (pcm_s16le, fre, \"Français\") is not carried") == true,
            "\(report.notCarried)")
        let types = try TestMedia.streams(out).map { $0["codec_type"] as? String ?? "" }
        #expect(types.filter { $0 == "audio" }.count == 1 && types.contains("subtitle"), "\(types)")
    }
}
