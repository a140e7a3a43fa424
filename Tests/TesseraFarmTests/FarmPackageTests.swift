import Foundation
import TesseraTestSupport
import Testing

/// Streaming packages on a real farm: a coordinator process and worker processes on loopback, the package
/// served over HTTP and played by Debian's chromium through the job page's player
/// (Tests/Package/player_check.py), and made again through a killed worker and a coordinator restart.
@Suite("Farm streaming packages", .serialized)
struct FarmPackageTests {
    static let player = TestMedia.repositoryRoot.appendingPathComponent("Tests/Package/player_check.py")
    static let options = [
        "--package", "hls,dash", "--rendition", "640x360:1M", "--rendition", "320x180:300k", "--package-segment", "2",
        "--speed", "superfast",
    ]

    /// 8 s of 640x360 with keyframes every 1.5 s (off the 2 s grid) and audio.
    static func source(_ farm: FarmFixture) throws -> URL {
        let src = farm.media.appendingPathComponent("clip.mp4")
        try TestMedia.make(src, seconds: 8, width: 640, height: 360, extra: ["-g", "45"])
        return src
    }

    @Test("chromium plays a farm-made package from the coordinator and switches rendition at a boundary")
    func playedInABrowser() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
                && FileManager.default.isExecutableFile(atPath: TestMedia.toolsPython),
            "Scripts/install-deps.sh installs chromium and playwright")
        let farm = try FarmFixture()
        let src = try Self.source(farm)
        try farm.startCoordinator()
        try farm.startWorker("w1")
        try farm.startWorker("w2")
        // And an HEVC rendition, which Debian's chromium cannot play: listed by the player, not chosen.
        let id = try farm.submit(src, output: "pkg", Self.options + ["--rendition", "480x270:500k:hevc"])
        let status = try farm.wait(id)
        #expect(status["state"] as? String == "completed", "\(status)")
        #expect((status["package"] as? [String: Any])?["formats"] as? [String] == ["hls", "dash"])
        #expect(FileManager.default.fileExists(atPath: farm.outputs.appendingPathComponent("pkg/master.m3u8").path))

        let config: [String: Any] = [
            "url": farm.httpURL, "token": farm.token, "job": id, "widths": [640, 480, 320], "segments": 4,
            "first": "640x360",
        ]
        let (run, _, checks) = try TestMedia.harness(Self.player, config: config, in: farm.root, name: "player")
        #expect(run.status == 0, "\(run.stdout.suffix(3000))\(run.stderr.suffix(2000))")
        #expect(checks.count >= 20, "the harness stopped early: \(run.stderr.suffix(2000))")
        for c in checks where c["ok"] as? Bool != true { Issue.record("\(c["name"] ?? "?"): \(c["detail"] ?? "")") }
    }

    @Test("a worker killed and the coordinator restarted mid-job: the same package, byte for byte")
    func disturbedRunMakesTheSameBytes() throws {
        let farm = try FarmFixture()
        // 16 s of 1280x720: long enough that the faults land mid-job (x264 superfast reproduces its bytes).
        let src = farm.media.appendingPathComponent("long.mp4")
        try TestMedia.make(src, seconds: 16, width: 1280, height: 720, extra: ["-g", "45"])
        let options = [
            "--package", "hls,dash", "--rendition", "1280x720:2M", "--rendition", "640x360:600k",
            "--package-segment", "4", "--speed", "superfast",
        ]
        try farm.startCoordinator()
        try farm.startWorker("w1")
        try farm.startWorker("w2")
        let calm = try farm.submit(src, output: "calm", options)
        #expect(try farm.wait(calm)["state"] as? String == "completed")
        // The same job again, with a worker and the coordinator killed (kill -9) once a segment is spooled.
        let id = try farm.submit(src, output: "disturbed", options)
        #expect(
            try farm.eventually(60) {
                FarmFaultTests.segments(farm.log("coordinator"), job: id, word: "spooled").count >= 1
            })
        farm.signal("w1", SIGKILL)
        farm.signal("coordinator", SIGKILL)
        _ = farm.waitExit("coordinator", timeout: 10)
        let spooled = Set(FarmFaultTests.segments(farm.log("coordinator"), job: id, word: "spooled"))
        #expect(spooled.count < 8, "the faults landed before the job's end: \(spooled.sorted())")
        try farm.startCoordinator()
        try farm.startWorker("w3")
        let status = try farm.wait(id)
        #expect(status["state"] as? String == "completed", "\(status)\n\(farm.log("coordinator").suffix(2000))")
        let a = try TestMedia.files(under: farm.outputs.appendingPathComponent("calm"))
        let b = try TestMedia.files(under: farm.outputs.appendingPathComponent("disturbed"))
        #expect(a.count == 22 && Set(a.keys) == Set(b.keys), "\(a.keys.sorted()) vs \(b.keys.sorted())")
        for (name, data) in a { #expect(b[name] == data, "\(name) differs after the faults") }
        // Each of the 8 farm segments (two per 4 s media segment) has its thumbnail, from the top rendition.
        let fetch = """
            import sys, urllib.request
            for n in range(8):
                r = urllib.request.Request(f"{sys.argv[1]}/v1/jobs/{sys.argv[2]}/segments/{n}/thumbnail.png")
                r.add_header("Authorization", "Bearer " + sys.argv[3])
                with urllib.request.urlopen(r, timeout=30) as answer:
                    assert answer.status == 200 and answer.read(8) == b"\\x89PNG\\r\\n\\x1a\\n", n
            print("ok")
            """
        let thumbs = try TestMedia.runCapturing("/usr/bin/python3", ["-c", fetch, farm.httpURL, id, farm.token])
        #expect(thumbs.stdout.contains("ok"), "\(thumbs.stderr)")
        // Nothing half-made is left in the outputs.
        let names = try FileManager.default.contentsOfDirectory(atPath: farm.outputs.path)
        #expect(names.allSatisfy { !$0.contains("partial") }, "\(names)")
    }
}
