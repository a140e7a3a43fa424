import Foundation
import TesseraTestSupport
import Testing

/// The coordinator's data folder fills up mid-job (a small tmpfs, topped up with a filler file): the job
/// fails once with that cause instead of staying "running" while two lines repeat every tick, and once
/// space is freed the next job runs. Needs root to mount the tmpfs, as the network tests need it for
/// their namespaces.
@Suite("Farm disk full", .serialized)
struct FarmDiskFullTests {
    @Test("a full data folder fails the job with that cause; freeing space lets the next job run")
    func dataFolderFull() throws {
        let farm = try FarmFixture()
        try FileManager.default.createDirectory(at: farm.data, withIntermediateDirectories: true)
        let mounted = try TestMedia.runCapturing(
            "/usr/bin/mount", ["-t", "tmpfs", "-o", "size=16m", "tmpfs", farm.data.path])
        try #require(mounted.status == 0, "mount a tmpfs: \(mounted.stderr)")
        defer {
            farm.signal("coordinator", SIGKILL)
            _ = farm.waitExit("coordinator", timeout: 10)
            for name in farm.workers.keys { farm.signal(name, SIGKILL) }
            _ = try? TestMedia.runCapturing("/usr/bin/umount", ["-l", farm.data.path])
        }
        let src = farm.media.appendingPathComponent("a.mp4")
        try TestMedia.make(src, seconds: 6, width: 1280, height: 720, extra: ["-g", "30"])
        try farm.startCoordinator()
        try farm.startWorker("w1")
        // Leave about 192 KB: the job is stored and planned, its segments' results (CRF 10 720p) do not fit.
        let filler = farm.data.appendingPathComponent("filler")
        let df = try TestMedia.run("/usr/bin/df", ["--output=avail", "-B1", farm.data.path])
        let available = Int(df.split(separator: "\n").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
        try #require(available > 1 << 20)
        FileManager.default.createFile(atPath: filler.path, contents: Data(count: available - (192 << 10)))
        let id = try farm.submit(src, output: "out.mp4", ["--segment-duration", "1", "--crf", "10"])
        // The failure is recorded once space is back, if the store could not write it before.
        Thread.sleep(forTimeInterval: 8)
        let log = farm.log("coordinator")
        #expect(log.contains("data folder is full"), "\(log.suffix(3000))")
        #expect(log.components(separatedBy: "made no progress").count - 1 <= 2, "\(log.suffix(3000))")
        #expect(log.components(separatedBy: "error 13").count - 1 <= 2, "\(log.suffix(3000))")
        try FileManager.default.removeItem(at: filler)
        let status = try farm.wait(id, timeout: 60)
        #expect(status["state"] as? String == "failed")
        #expect((status["segmentsTotal"] as? Int ?? 0) > 0, "the job should fail mid-job, after planning: \(status)")
        #expect(
            (status["error"] as? String)?.contains("data folder") == true,
            "\(status)\n\(farm.log("coordinator").suffix(3000))")
        #expect(!FileManager.default.fileExists(atPath: farm.outputs.appendingPathComponent("out.mp4").path))
        // Space is back: the farm works again.
        let next = try farm.submit(src, output: "next.mp4", ["--segment-duration", "1"])
        #expect(try farm.wait(next)["state"] as? String == "completed")
    }

    @Test("an upload into a full data folder is 507, names the cause and leaves nothing behind")
    func uploadIntoAFullDataFolder() throws {
        let farm = try FarmFixture()
        try FileManager.default.createDirectory(at: farm.data, withIntermediateDirectories: true)
        let mounted = try TestMedia.runCapturing(
            "/usr/bin/mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", farm.data.path])
        try #require(mounted.status == 0, "mount a tmpfs: \(mounted.stderr)")
        defer {
            farm.signal("coordinator", SIGKILL)
            _ = farm.waitExit("coordinator", timeout: 10)
            _ = try? TestMedia.runCapturing("/usr/bin/umount", ["-l", farm.data.path])
        }
        try farm.startCoordinator()
        let filler = farm.data.appendingPathComponent("filler")
        let df = try TestMedia.run("/usr/bin/df", ["--output=avail", "-B1", farm.data.path])
        let available = Int(df.split(separator: "\n").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
        try #require(available > 1 << 20)
        FileManager.default.createFile(atPath: filler.path, contents: Data(count: available - (256 << 10)))
        let script = """
            import sys, urllib.request, urllib.error
            req = urllib.request.Request(sys.argv[1], data=b"x" * (2 << 20), method="POST",
                headers={"Content-Type": "application/octet-stream", "Authorization": "Bearer " + sys.argv[2]})
            try:
                r = urllib.request.urlopen(req, timeout=30); print(r.status); print(r.read().decode())
            except urllib.error.HTTPError as e:
                print(e.code); print(e.read().decode())
            """
        let r = try TestMedia.runCapturing(
            "/usr/bin/python3", ["-c", script, farm.httpURL + "/v1/uploads?filename=a.mp4", farm.token])
        let lines = r.stdout.split(separator: "\n", maxSplits: 1).map(String.init)
        #expect(lines.first == "507", "\(r.stdout) \(r.stderr)")
        #expect(
            lines.last?.contains("insufficientStorage") == true && lines.last?.contains("full") == true, "\(r.stdout)")
        let uploads = farm.data.appendingPathComponent("uploads")
        let left = (FileManager.default.enumerator(atPath: uploads.path)?.allObjects as? [String] ?? [])
            .filter { !$0.hasSuffix(".staging") }
        #expect(left.isEmpty, "the upload left \(left)")
        #expect(farm.coordinator?.isRunning == true)
    }
}
