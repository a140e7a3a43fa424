import Foundation
import TesseraTestSupport
import Testing

/// `transcode|run --package hls,dash --rendition …`: an adaptive-streaming package, read back by ffprobe,
/// Python's m3u8 and mpegdash parsers, and frame by frame.
@Suite(.serialized) struct PackageCommandTests {
    let dir: URL
    init() throws { dir = try TestMedia.makeDirectory("package") }

    static let checker = TestMedia.repositoryRoot.appendingPathComponent("Tests/Package/package_check.py")

    func tessera(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try TestMedia.runCapturing(TestMedia.tesseraBinary.path, arguments)
    }

    /// 5 s of 640x360 30 fps with keyframes every 1.5 s (never on the 2 s media-segment grid after 0), and
    /// English AAC audio.
    func source() throws -> URL {
        let src = dir.appendingPathComponent("src.mp4")
        try TestMedia.make(
            src, seconds: 5, width: 640, height: 360, extra: ["-g", "45", "-metadata:s:a:0", "language=eng"])
        return src
    }

    static let ladder = [
        "--package", "hls,dash", "--rendition", "640x360:1M", "--rendition", "320x180:300k", "--package-segment", "2",
        "--speed", "superfast",
    ]

    /// A track's init segment and media segments joined: the CMAF track as one fragmented MP4.
    func joined(_ folder: URL, _ track: String, into name: String) throws -> URL {
        try TestMedia.joinedTrack(folder, track, into: dir.appendingPathComponent(name))
    }

    @Test func aLadderIsPackagedForHLSAndDASHFromOneDecodeAndReadsBackExactly() throws {
        defer { TestMedia.cleanup(dir) }
        let src = try source()
        let out = dir.appendingPathComponent("pkg")
        let r = try tessera(["transcode", src.path, "-o", out.path, "--json", "--quiet"] + Self.ladder)
        #expect(r.status == 0, "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let package = try #require(report["package"] as? [String: Any])
        #expect(package["manifests"] as? [String] == ["master.m3u8", "manifest.mpd"])
        let video = try #require(package["video"] as? [[String: Any]])
        #expect(video.map { $0["name"] as? String } == ["640x360", "320x180"])
        #expect(video.allSatisfy { $0["segments"] as? Int == 3 })
        let audio = try #require(package["audio"] as? [[String: Any]])
        #expect(audio.count == 1 && audio[0]["language"] as? String == "eng" && audio[0]["start"] as? Double == 0)
        // The audio ends with the video, within one AAC frame (1024 samples at 48 kHz).
        let audioEnd = try #require(audio[0]["end"] as? Double)
        #expect(abs(audioEnd - 5) <= 1024.0 / 48_000 + 1e-6, "audio ends at \(audioEnd)")

        // Python's parsers read both manifests.
        let parsed = try TestMedia.run(TestMedia.toolsPython, [Self.checker.path, out.path])
        let facts = try #require(try JSONSerialization.jsonObject(with: Data(parsed.utf8)) as? [String: Any])
        let hls = try #require(facts["hls"] as? [String: Any])
        let variants = try #require(hls["variants"] as? [[String: Any]])
        #expect(variants.count == 2)
        for v in variants {
            let durations = try #require(v["durations"] as? [Double])
            #expect(durations.count == 3)
            #expect(abs(durations.reduce(0, +) - 5) <= 1.0 / 30, "EXTINF add up to \(durations)")
            let target = try #require(v["targetDuration"] as? Int)
            #expect(durations.allSatisfy { Int($0.rounded()) <= target })
            let peak = try #require(v["bandwidth"] as? Int), average = try #require(v["averageBandwidth"] as? Int)
            #expect(peak >= average && average > 0 && Double(peak) <= 2 * Double(average))
            let codecs = try #require(v["codecs"] as? String)
            #expect(codecs.hasPrefix("avc1.64") && codecs.hasSuffix(",mp4a.40.2"), "\(codecs)")
            #expect(v["version"] as? Int == 7 && v["playlistType"] as? String == "vod")
            #expect(v["endlist"] as? Bool == true && v["independent"] as? Bool == true)
            #expect(v["map"] as? String == "init.mp4" && v["audio"] as? String == "audio")
            #expect(v["frameRate"] as? Double == 30)
        }
        #expect(variants.map { $0["resolution"] as? [Int] } == [[640, 360], [320, 180]])
        let media = try #require(hls["media"] as? [[String: Any]])
        #expect(media.count == 1 && media[0]["type"] as? String == "AUDIO" && media[0]["language"] as? String == "en")
        let iframes = try #require(hls["iframes"] as? [[String: Any]])
        #expect(iframes.count == 2 && iframes.allSatisfy { $0["iFramesOnly"] as? Bool == true })
        let dash = try #require(facts["dash"] as? [String: Any])
        #expect(dash["type"] as? String == "static")
        let sets = try #require(dash["sets"] as? [[String: Any]])
        #expect(sets.map { $0["contentType"] as? String } == ["video", "audio"])
        for set in sets {
            for rep in try #require(set["representations"] as? [[String: Any]]) {
                let timeline = try #require(rep["durations"] as? [Int]), scale = try #require(rep["timescale"] as? Int)
                #expect(timeline.count == 3)
                // Video exactly 5 s; audio within one AAC frame of it.
                #expect(abs(Double(timeline.reduce(0, +)) / Double(scale) - 5) <= 1024.0 / 48_000, "\(rep)")
            }
        }

        // ffprobe reads both entry points and sees every rendition.
        for manifest in ["master.m3u8", "manifest.mpd"] {
            let probe = try TestMedia.probe(out.appendingPathComponent(manifest))
            let streams = try #require(probe["streams"] as? [[String: Any]])
            let sizes = Set(
                streams.compactMap { s in (s["width"] as? Int).map { "\($0)x\(s["height"] as? Int ?? 0)" } })
            #expect(sizes == ["640x360", "320x180"], "\(manifest)")
            #expect(streams.contains { $0["codec_type"] as? String == "audio" }, "\(manifest)")
        }

        // Each rendition holds every source frame at its time, with a keyframe opening every media segment
        // (on source frames 0, 60 and 120, where the source has none but the first).
        let sourceTimes = try TestMedia.framePTS(src)
        for track in ["640x360", "320x180"] {
            let file = try joined(out, track, into: "\(track).mp4")
            #expect(try TestMedia.framePTS(file) == sourceTimes, "\(track)")
            let keyframes = try TestMedia.keyframeTimes(file)
            for start in [0.0, 2.0, 4.0] { #expect(keyframes.contains(start), "\(track): no keyframe at \(start)") }
        }
    }

    /// A 4 s media segment is made as two 2 s farm segments (keyframes every 2 s, work shared out): the
    /// package still has one fragment per media segment, starting on the planned frames (HEVC here).
    @Test func textSubtitlesBecomeSegmentedWebVTTInHLSAndOneFileInDASH() throws {
        defer { TestMedia.cleanup(dir) }
        let plain = try source()
        let srt = dir.appendingPathComponent("subs.srt")
        try Data(
            """
            1
            00:00:00,500 --> 00:00:01,500
            Hello

            2
            00:00:01,800 --> 00:00:02,600
            Across the line

            3
            00:00:04,000 --> 00:00:06,000
            To the end

            """.utf8
        ).write(to: srt)
        let src = dir.appendingPathComponent("subbed.mp4")
        _ = try TestMedia.run(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-y", "-i", plain.path, "-i", srt.path, "-map", "0", "-map", "1",
                "-c", "copy", "-c:s", "mov_text", "-metadata:s:s:0", "language=eng", src.path,
            ])
        let out = dir.appendingPathComponent("pkg")
        let r = try tessera(["transcode", src.path, "-o", out.path, "--quiet", "--json"] + Self.ladder)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stderr.contains("subtitle track"), "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let listed = (report["package"] as? [String: Any])?["subtitles"] as? [[String: Any]]
        #expect(listed?.first?["name"] as? String == "subtitles0-eng" && listed?.first?["cues"] as? Int == 3)
        let folder = out.appendingPathComponent("subtitles0-eng")
        func file(_ name: String) throws -> String {
            try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
        }
        // One file per 2 s media segment; the cue across 2 s is in both; the last is cut at the video's end.
        let first = try file("seg_00001.vtt"), second = try file("seg_00002.vtt"), third = try file("seg_00003.vtt")
        #expect(first.hasPrefix("WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000\n"))
        #expect(first.contains("00:00:00.500 --> 00:00:01.500\nHello") && first.contains("Across the line"))
        #expect(second.contains("00:00:01.800 --> 00:00:02.600\nAcross the line") && !second.contains("Hello"))
        #expect(third.contains("00:00:04.000 --> 00:00:05.000\nTo the end"), "\(third)")
        #expect(try file("subtitles.vtt").components(separatedBy: " --> ").count == 4)
        // The parsers: a SUBTITLES rendition on every variant, with the video's segment durations; DASH
        // side-loads the whole file.
        let parsed = try TestMedia.run(TestMedia.toolsPython, [Self.checker.path, out.path])
        let facts = try #require(try JSONSerialization.jsonObject(with: Data(parsed.utf8)) as? [String: Any])
        let hls = try #require(facts["hls"] as? [String: Any])
        let media = try #require(hls["media"] as? [[String: Any]])
        let subs = try #require(media.first { $0["type"] as? String == "SUBTITLES" })
        #expect(subs["language"] as? String == "en")
        let variant = try #require((hls["variants"] as? [[String: Any]])?.first)
        #expect(subs["durations"] as? [Double] == variant["durations"] as? [Double])
        #expect(
            try String(contentsOf: out.appendingPathComponent("master.m3u8"), encoding: .utf8)
                .components(separatedBy: "SUBTITLES=\"subs\"").count == 3)
        let sets = try #require((facts["dash"] as? [String: Any])?["sets"] as? [[String: Any]])
        let text = try #require(sets.first { $0["contentType"] as? String == "text" })
        #expect(text["mimeType"] as? String == "text/vtt" && text["lang"] as? String == "en")
        let rep = try #require((text["representations"] as? [[String: Any]])?.first)
        #expect(rep["baseURLs"] as? [String] == ["subtitles0-eng/subtitles.vtt"])
        // ffprobe reads the subtitle playlist (its 5.1 HLS reader skips subtitle renditions in a master):
        // WebVTT cues at their times, the one in two files once (a reader drops the repeat, as players do).
        let probe = try TestMedia.run(
            "ffprobe",
            [
                "-v", "error", "-show_entries", "packet=pts_time", "-of", "csv=p=0",
                folder.appendingPathComponent("playlist.m3u8").path,
            ])
        let times = probe.split(separator: "\n").compactMap {
            Double($0.trimmingCharacters(in: .punctuationCharacters))
        }
        #expect(times == [0.5, 1.8, 4.0], "\(probe)")
    }

    /// The test source packaged for HLS in 2 s segments (superfast) with `renditions`: the JSON report and
    /// its video renditions.
    func packageReport(_ renditions: [String]) throws -> (report: [String: Any], video: [[String: Any]]) {
        let src = try source()
        let r = try tessera(
            ["transcode", src.path, "-o", dir.appendingPathComponent("pkg").path, "--package", "hls"] + renditions
                + ["--package-segment", "2", "--speed", "superfast", "--json", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let video = try #require((report["package"] as? [String: Any])?["video"] as? [[String: Any]])
        return (report, video)
    }

    @Test func aRenditionWithItsOwnTargetQualityMeetsItOnEverySegment() throws {
        defer { TestMedia.cleanup(dir) }
        let (_, video) = try packageReport(["--rendition", "640x360:3M:ssim=0.985", "--rendition", "320x180:300k"])
        let target = try #require(video[0]["target"] as? [String: Any])
        #expect(target["metric"] as? String == "ssim" && target["value"] as? Double == 0.985)
        #expect(target["maxBitRate"] as? Int == 4_500_000, "the rendition's peak caps the search")
        let worst = try #require(video[0]["worstSegmentSsim"] as? Double)
        #expect(worst >= 0.985 - 0.002, "worst segment SSIM \(worst)")
        // The other rendition keeps its bit rate and has no target.
        #expect(video[1]["target"] == nil && video[1]["worstSegmentSsim"] is Double)
    }

    /// Every rendition's segments are in the report as a single file's are: the second rendition's own
    /// search shows each segment's rate factor and every probe, the first (a bit rate) its figures alone.
    @Test func eachRenditionsSegmentsAndProbesAreReported() throws {
        defer { TestMedia.cleanup(dir) }
        let (report, video) = try packageReport(["--rendition", "640x360:1M", "--rendition", "320x180:600k:ssim=0.95"])
        let segmentCount = try #require(report["segments"] as? Int)
        let plain = try #require((video[0]["quality"] as? [String: Any])?["segments"] as? [[String: Any]])
        #expect(plain.count == segmentCount && plain.allSatisfy { ($0["probes"] as? [Any])?.isEmpty != false })
        let searched = try #require(video[1]["quality"] as? [String: Any])
        let segments = try #require(searched["segments"] as? [[String: Any]])
        #expect(searched["target"] as? String == "ssim:0.95", "\(searched)")
        #expect(segments.count == segmentCount)
        for segment in segments {
            let probes = try #require(segment["probes"] as? [[String: Any]])
            let crf = try #require((segment["crf"] as? NSNumber)?.doubleValue)
            #expect(
                !probes.isEmpty
                    && probes.contains { ($0["crf"] as? NSNumber)?.doubleValue == crf && $0["sampleFrames"] == nil },
                "\(segment)")
            #expect((segment["ssim"] as? Double ?? 0) >= 0.95 - 0.002 || segment["shortfall"] != nil)
        }
        #expect(searched["probes"] as? Int == segments.reduce(0) { $0 + (($1["probes"] as? [Any])?.count ?? 0) })
        #expect(video[1]["worstSegmentSsim"] as? Double == segments.compactMap { $0["ssim"] as? Double }.min())
    }

    @Test func aMediaSegmentIsMadeOfSeveralFarmSegments() throws {
        defer { TestMedia.cleanup(dir) }
        let src = try source()
        let out = dir.appendingPathComponent("pkg")
        let r = try tessera([
            "transcode", src.path, "-o", out.path, "--package", "hls", "--rendition", "320x180:300k:hevc",
            "--package-segment", "4", "--speed", "superfast", "--json", "--quiet",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(report["segments"] as? Int == 3, "farm segments: 2 s, 2 s, 1 s")
        let package = try #require(report["package"] as? [String: Any])
        #expect((package["video"] as? [[String: Any]])?.first?["segments"] as? Int == 2)
        let playlist = try String(contentsOf: out.appendingPathComponent("320x180-hevc/playlist.m3u8"), encoding: .utf8)
        #expect(playlist.contains("#EXTINF:4.000000,\nseg_00001.m4s\n#EXTINF:1.000000,\nseg_00002.m4s"), "\(playlist)")
        let file = try joined(out, "320x180-hevc", into: "all.mp4")
        // HEVC as Apple players want it: hvc1, its CODECS from the hvcC box.
        let master = try String(contentsOf: out.appendingPathComponent("master.m3u8"), encoding: .utf8)
        #expect(master.contains("CODECS=\"hvc1.1."), "\(master)")
        #expect(TestMedia.stream(try TestMedia.probe(file), "video")?["codec_tag_string"] as? String == "hvc1")
        #expect(try TestMedia.framePTS(file) == TestMedia.framePTS(src))
        let keyframes = try TestMedia.keyframeTimes(file)
        #expect(keyframes == [0, 2, 4], "an IDR opens every farm segment: \(keyframes)")
    }

    /// An AV1 rendition (SVT-AV1) is packaged and verified: its fragments state their durations as defaults,
    /// which the verifier takes from the decode times where FFmpeg's reader reports none.
    @Test func anAV1RenditionIsPackagedAndVerified() throws {
        defer { TestMedia.cleanup(dir) }
        let src = try source()
        let out = dir.appendingPathComponent("av1")
        let r = try tessera([
            "transcode", src.path, "-o", out.path, "--package", "hls,dash", "--rendition", "320x180:200k:av1",
            "--package-segment", "2", "--quiet",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let master = try String(contentsOf: out.appendingPathComponent("master.m3u8"), encoding: .utf8)
        #expect(master.contains("CODECS=\"av01.0."), "\(master)")
        #expect(try TestMedia.framePTS(try joined(out, "320x180-av1", into: "av1.mp4")) == TestMedia.framePTS(src))
    }

    /// A phone-like variable frame rate (30 fps, then 15) and a retimed export (a second stretched to two,
    /// at a constant 30 fps) are packaged too: every frame at its time, the playlists adding up.
    @Test func aVariableFrameRateClipAndARetimedExportArePackaged() throws {
        defer { TestMedia.cleanup(dir) }
        let vfr = dir.appendingPathComponent("vfr.mp4")
        try TestMedia.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30:duration=5", "-f", "lavfi",
                "-i", "sine=frequency=440:sample_rate=48000:duration=5", "-vf",
                "select='if(lt(t,2),1,not(mod(n,2)))'", "-vsync", "vfr", "-c:v", "libx264", "-preset", "ultrafast",
                "-g", "40", "-pix_fmt", "yuv420p", "-c:a", "aac", vfr.path,
            ])
        let times = try TestMedia.framePTS(vfr)
        #expect(times.count == 105, "60 frames at 30 fps, then 45 at 15: \(times.count)")
        let out = dir.appendingPathComponent("vfr-pkg")
        let r = try tessera(
            [
                "transcode", vfr.path, "-o", out.path, "--package", "hls,dash", "--rendition", "320x180:300k",
                "--package-segment", "2", "--speed", "superfast", "--quiet",
            ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try TestMedia.framePTS(try joined(out, "320x180", into: "vfr-all.mp4")) == times)
        let playlist = try String(contentsOf: out.appendingPathComponent("320x180/playlist.m3u8"), encoding: .utf8)
        let sum = playlist.split(separator: "\n").filter { $0.hasPrefix("#EXTINF:") }
            .compactMap { Double($0.dropFirst(8).dropLast()) }.reduce(0, +)
        #expect(abs(sum - 5) <= 1.0 / 15, "EXTINF add up to \(sum)")

        let src = try source()
        let slow = dir.appendingPathComponent("slow-pkg")
        let s = try tessera(
            [
                "transcode", src.path, "-o", slow.path, "--scale", "1s-2s:2s", "--frame-rate", "30", "--package", "hls",
                "--rendition", "320x180:300k", "--package-segment", "2", "--speed", "superfast", "--json", "--quiet",
            ])
        #expect(s.status == 0, "\(s.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(s.stdout.utf8)) as? [String: Any])
        let package = try #require(report["package"] as? [String: Any])
        let video = try #require((package["video"] as? [[String: Any]])?.first)
        #expect(video["segments"] as? Int == 3 && abs((video["duration"] as? Double ?? 0) - 6) < 1e-6, "\(video)")
        let audio = try #require((package["audio"] as? [[String: Any]])?.first)
        #expect(abs((audio["end"] as? Double ?? 0) - 6) <= 1024.0 / 48_000 + 1e-6, "\(audio)")
        let all = try joined(slow, "320x180", into: "slow-all.mp4")
        let shown = try TestMedia.framePTS(all)
        #expect(shown.count == 180 && shown.enumerated().allSatisfy { abs($1 - Double($0) / 30) < 1e-3 })
    }

    /// The farm (two worker processes over ZeroMQ) makes the same package, byte for byte, as one machine.
    @Test func theFarmMakesTheSamePackageAsOneMachine() throws {
        defer { TestMedia.cleanup(dir) }
        let src = try source()
        let local = dir.appendingPathComponent("local"), farm = dir.appendingPathComponent("farm")
        let one = try tessera(["transcode", src.path, "-o", local.path, "--quiet"] + Self.ladder)
        #expect(one.status == 0, "\(one.stderr)")
        let two = try tessera(["run", src.path, "-o", farm.path, "--workers", "2"] + Self.ladder)
        #expect(two.status == 0, "\(two.stderr)")
        #expect(
            two.stdout.contains("{master.m3u8,manifest.mpd}") && two.stdout.contains("640x360 avc1."), "\(two.stdout)")
        let a = try TestMedia.files(under: local), b = try TestMedia.files(under: farm)
        #expect(a.count == 19 && Set(a.keys) == Set(b.keys), "\(a.keys.sorted())")
        for (name, data) in a { #expect(b[name] == data, "\(name) differs") }
    }

    @Test func badRequestsAreRefusedBeforeAnyWorkNamingTheOption() throws {
        defer { TestMedia.cleanup(dir) }
        let src = try source()
        let out = dir.appendingPathComponent("pkg")
        func refused(_ extra: [String], _ status: Int32, _ words: String) throws {
            let r = try tessera(["transcode", src.path, "-o", out.path, "--quiet"] + extra)
            #expect(r.status == status && r.stderr.contains(words), "\(extra): \(r.status) \(r.stderr)")
        }
        try refused(["--package", "hls", "--rendition", "1280x720:3M"], 64, "larger than the source")
        try refused(["--package", "hls", "--rendition", "640x360:1M", "--rendition", "640x360:2M"], 64, "the same as")
        try refused(["--package", "hls", "--rendition", "640x360:1M", "--package-segment", "0.5"], 64, "1.0…30.0")
        try refused(["--package", "hls", "--rendition", "640x360:1M:vp9"], 64, "HLS cannot list vp9")
        try refused(
            ["--package", "hls"] + Array(repeating: ["--rendition", "320x180:300k"], count: 17).flatMap { $0 }, 64,
            "at most 16")
        try refused(["--package", "m3u", "--rendition", "640x360:1M"], 64, "not a package format")
        try refused(["--rendition", "640x360:1M"], 64, "go with --package")
        try refused(["--package", "hls", "--rendition", "640x360"], 64, "WxH:RATE")
        try refused(["--package", "hls", "--rendition", "320x180:300k:ssim=2"], 64, "targetQuality")
        try refused(["--package", "hls", "--rendition", "320x180:300k:ssim"], 64, "codec")
        try refused(["--package", "dash", "--rendition", "320x180:300k:av1:ssim=0.9"], 64, "capped CRF")
        // A file where the folder would go, and a folder that exists.
        try Data("x".utf8).write(to: out)
        try refused(["--package", "hls", "--rendition", "320x180:300k"], 73, "is a file")
        try FileManager.default.removeItem(at: out)
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: false)
        try refused(["--package", "hls", "--rendition", "320x180:300k"], 73, "already exists")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).isEmpty)
        // Nothing half-written is left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).allSatisfy { !$0.contains("partial") })
    }
}
