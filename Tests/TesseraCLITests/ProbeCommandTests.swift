import Foundation
import TesseraTestSupport
import Testing

/// `tessera probe`, run as the built binary.
@Suite struct ProbeCommandTests {
    static func tessera(_ arguments: String...) throws -> (status: Int32, stdout: String, stderr: String) {
        try TestMedia.runCapturing(TestMedia.tesseraBinary.path, arguments)
    }

    @Test func jsonDescribesTheWholeAsset() throws {
        let dir = try TestMedia.makeDirectory("probe")
        defer { TestMedia.cleanup(dir) }
        let url = dir.appendingPathComponent("clip.mp4")
        try TestMedia.make(url, seconds: 2, video: ["-c:v", "libx264", "-preset", "ultrafast", "-g", "15"])

        let result = try Self.tessera("probe", url.path, "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(json["path"] as? String == url.path)
        #expect((json["container"] as? String)?.contains("mp4") == true)
        let tracks = try #require(json["tracks"] as? [[String: Any]])
        #expect(tracks.map { $0["codec"] as? String } == ["h264", "aac"])
        #expect(tracks.map { $0["mediaType"] as? String } == ["video", "audio"])
        let video = try #require(tracks.first?["video"] as? [String: Any])
        #expect(video["width"] as? Int == 320)
        #expect(video["pixelFormat"] as? String == "yuv420p")
        #expect(tracks.first?["frameCount"] as? Int == 60)

        let indexes = try #require(json["keyframeIndexes"] as? [String: Any])
        let index = try #require(indexes["0"] as? [String: Any])
        let keyframes = try #require(index["keyframes"] as? [[String: Any]])
        #expect(keyframes.count == 4)  // every 15 frames over 60
        #expect(keyframes.map { $0["pts"] as? Int } == [0, 7680, 15360, 23040])
        #expect(index["packetCount"] as? Int == 60)

        // Sorted keys: the top-level keys appear in alphabetical order in the text.
        let order = [
            "bitRate", "chapters", "container", "containerLongName", "duration", "keyframeIndexes", "metadata",
            "path", "startTime", "tracks",
        ]
        let positions = order.compactMap { result.stdout.range(of: "\n  \"\($0)\"")?.lowerBound }
        #expect(positions.count == order.count)
        #expect(positions == positions.sorted())
    }

    /// What a post house reads first: HDR10 metadata (from the frames, where x265 puts it), an
    /// interlaced stream's field order, the start timecode and the chapters, in JSON and in the summary.
    @Test func hdrFieldOrderTimecodeAndChaptersAreShown() throws {
        let dir = try TestMedia.makeDirectory("probe-post")
        defer { TestMedia.cleanup(dir) }
        let hdr = dir.appendingPathComponent("hdr.mp4"), interlaced = dir.appendingPathComponent("i.mov")
        let chaptered = dir.appendingPathComponent("c.mkv"), marks = dir.appendingPathComponent("marks.txt")
        try TestMedia.make(hdr, seconds: 0.5, width: 320, height: 180, video: TestMedia.hdr10Video(), audio: nil)
        try TestMedia.run(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                "testsrc2=size=720x480:rate=30000/1001:duration=1", "-c:v", "libx264", "-flags", "+ildct+ilme",
                "-x264-params", "tff=1", "-timecode", "01:00:00;00", interlaced.path,
            ])
        try
            ";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=500\ntitle=Cold open\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=500\nEND=1000\ntitle=Titles\n"
            .write(to: marks, atomically: true, encoding: .utf8)
        try TestMedia.run(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-y", "-i", interlaced.path, "-i", marks.path, "-map", "0:v",
                "-map_chapters", "1", "-c", "copy", chaptered.path,
            ])
        func probe(_ url: URL) throws -> [String: Any] {
            let r = try Self.tessera("probe", url.path, "--json")
            #expect(r.status == 0, "\(r.stderr)")
            return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        }
        func video(_ asset: [String: Any]) -> [String: Any] {
            ((asset["tracks"] as? [[String: Any]])?.compactMap { $0["video"] as? [String: Any] }.first) ?? [:]
        }
        let h = try #require(video(try probe(hdr))["hdr"] as? [String: Any])
        let display = try #require(h["masteringDisplay"] as? [String: Any])
        #expect(display["maxLuminance"] as? Double == 1000 && display["minLuminance"] as? Double == 0.0001)
        #expect((display["primaries"] as? [[Double]])?.first == [0.68, 0.32], "red primary: \(display)")
        #expect(h["maxContentLightLevel"] as? Int == 1000 && h["maxFrameAverageLightLevel"] as? Int == 400)
        let i = try probe(interlaced)
        #expect(video(i)["fieldOrder"] as? String == "tt")
        #expect(i["timecode"] as? String == "01:00:00;00")
        #expect(video(try probe(hdr))["fieldOrder"] as? String == "progressive")
        let chapters = try #require(try probe(chaptered)["chapters"] as? [[String: Any]])
        #expect(chapters.map { $0["title"] as? String } == ["Cold open", "Titles"])
        #expect(chapters.map { ($0["start"] as? [String: Any])?["seconds"] as? Double } == [0, 0.5])
        let text = try Self.tessera("probe", hdr.path).stdout + Self.tessera("probe", chaptered.path).stdout
        #expect(text.contains("MaxCLL 1000, MaxFALL 400") && text.contains("interlaced (field order tt)"), "\(text)")
        #expect(text.contains("Cold open"))
    }

    /// Interlaced pictures in a stream that does not say so (woven fields encoded as progressive frames):
    /// the probe looks at the first 48 frames' fields with libavfilter's idet, reports the counts (the
    /// ffmpeg CLI's idet over the same frames counts the same), and names the order found, top or bottom
    /// field first, and what to do; progressive pictures are found progressive and nothing is said.
    @Test func unflaggedInterlacingIsFoundInThePictures() throws {
        let dir = try TestMedia.makeDirectory("probe-idet")
        defer { TestMedia.cleanup(dir) }
        // A softened test pattern: testsrc2's one-pixel lines look combed to idet even when progressive.
        func make(_ name: String, _ filter: String) throws -> URL {
            let url = dir.appendingPathComponent(name)
            try TestMedia.run(
                "ffmpeg",
                [
                    "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                    "testsrc2=size=720x576:rate=50:duration=2", "-vf", "boxblur=2:1,\(filter)format=yuv420p", "-c:v",
                    "libx264", "-preset", "ultrafast", "-crf", "12", url.path,
                ])
            return url
        }
        let top = try make("tff.mp4", "interlace=scan=tff,"), bottom = try make("bff.mp4", "interlace=scan=bff,")
        let plain = try make("plain.mp4", "")
        for (url, order) in [(top, "tt"), (bottom, "bb"), (plain, "progressive")] {
            let r = try Self.tessera("probe", url.path, "--json")
            #expect(r.status == 0, "\(r.stderr)")
            let asset = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            let video = (asset["tracks"] as? [[String: Any]])?.compactMap { $0["video"] as? [String: Any] }.first
            let scan = try #require(video?["fieldScan"] as? [String: Any], "no fieldScan in \(video ?? [:])")
            let reference = try TestMedia.runCapturing(
                "ffmpeg", ["-hide_banner", "-i", url.path, "-vf", "trim=end_frame=48,idet", "-f", "null", "-"])
            let line = try #require(reference.stderr.split(separator: "\n").first { $0.contains("Multi frame") })
            let counts = line.split(separator: ":").dropFirst().compactMap { Int($0.split(separator: " ").first ?? "") }
            #expect(scan["frames"] as? Int == 48)
            #expect(
                [scan["topFieldFirst"], scan["bottomFieldFirst"], scan["progressive"], scan["undetermined"]]
                    .map { $0 as? Int } == counts,
                "\(order): \(scan) against ffmpeg's \(line)")
            let text = try Self.tessera("probe", url.path).stdout
            if order == "progressive" {
                #expect(!text.contains("look interlaced"), "\(text)")
            } else {
                #expect(text.contains("look interlaced (\(order)") && text.contains("--deinterlace bwdif"), "\(text)")
            }
        }
    }

    @Test func humanSummaryNamesCodecsAndKeyframes() throws {
        let dir = try TestMedia.makeDirectory("probe")
        defer { TestMedia.cleanup(dir) }
        let url = dir.appendingPathComponent("clip.mp4")
        try TestMedia.make(url, seconds: 1)

        let result = try Self.tessera("probe", url.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("h264"))
        #expect(result.stdout.contains("aac"))
        #expect(result.stdout.contains("320x240"))
        #expect(result.stdout.contains("keyframes 1: 0.000"))
        #expect(result.stdout.contains("48000 Hz"))
    }

    @Test func missingFileExits66() throws {
        let path = "/nonexistent-\(UUID().uuidString)/clip.mp4"
        let result = try Self.tessera("probe", path)
        #expect(result.status == 66)
        #expect(result.stderr.contains("tessera: \(path): no such file"))
        #expect(result.stdout.isEmpty)
    }

    @Test func garbageExits65() throws {
        let dir = try TestMedia.makeDirectory("probe")
        defer { TestMedia.cleanup(dir) }
        let url = dir.appendingPathComponent("garbage.mov")
        _ = FileManager.default.createFile(
            atPath: url.path,
            contents: TestMedia.garbage(count: 50_000))
        let result = try Self.tessera("probe", url.path, "--json")
        #expect(result.status == 65)
        #expect(result.stderr.contains("tessera: \(url.path): not a media file FFmpeg recognises"))
    }
}
