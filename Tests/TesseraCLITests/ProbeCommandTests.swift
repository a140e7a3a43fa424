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
            "bitRate", "container", "containerLongName", "duration", "keyframeIndexes", "metadata",
            "path", "startTime", "tracks",
        ]
        let positions = order.compactMap { result.stdout.range(of: "\n  \"\($0)\"")?.lowerBound }
        #expect(positions.count == order.count)
        #expect(positions == positions.sorted())
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
