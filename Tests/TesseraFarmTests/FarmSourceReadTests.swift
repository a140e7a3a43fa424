import Foundation
import TesseraTestSupport
import Testing

/// Workers that read the source themselves (`tessera worker --media-root`): their tasks come by
/// reference, without the packets' data, and the output is the same.
@Suite("Farm workers reading the source", .serialized)
struct FarmSourceReadTests {
    static let options = ["--segment-duration", "1", "--speed", "superfast"]

    static func source(_ farm: FarmFixture) throws -> URL {
        let src = farm.media.appendingPathComponent("src.mp4")
        try TestMedia.make(
            src, seconds: 6, width: 640, height: 360,
            video: ["-c:v", "libx264", "-preset", "veryfast", "-g", "30", "-bf", "2", "-pix_fmt", "yuv420p"])
        return src
    }

    @Test("tasks by reference: the same output bytes as with packets, for a small part of the coordinator's bytes")
    func byReference() throws {
        let farm = try FarmFixture()
        let src = try Self.source(farm)
        try farm.startCoordinator()
        try farm.startWorker("fed")
        let fed = try farm.submit(src, output: "fed.mp4", Self.options)
        #expect(try farm.wait(fed)["state"] as? String == "completed")
        let before = try farm.scrape()
        farm.signal("fed", SIGTERM)
        _ = farm.waitExit("fed", timeout: 30)
        try farm.startWorker("reader", ["--media-root", farm.media.path])
        let workers = try farm.client(["workers"]).stdout
        #expect(
            try farm.eventually(30) { try farm.client(["workers"]).stdout.contains("reads \(farm.media.path)") },
            "\(workers)")
        let read = try farm.submit(src, output: "read.mp4", Self.options)
        let status = try farm.wait(read)
        #expect(status["state"] as? String == "completed", "\(status)")
        let a = try Data(contentsOf: farm.outputs.appendingPathComponent("fed.mp4"))
        let b = try Data(contentsOf: farm.outputs.appendingPathComponent("read.mp4"))
        #expect(a == b, "the same bytes either way")
        let after = try farm.scrape()
        func sent(_ m: PrometheusText, _ name: String, _ transport: String) -> Double {
            m.value(name, ["transport": transport]) ?? 0
        }
        let segments = Double(try #require(status["segmentsTotal"] as? Int))
        let packetTasks = sent(before, "tessera_tasks_sent_total", "packets")
        let referenceTasks = sent(after, "tessera_tasks_sent_total", "reference")
        #expect(packetTasks >= segments && referenceTasks >= segments)
        #expect(
            sent(after, "tessera_tasks_sent_total", "packets") == packetTasks,
            "none of the second job's went as packets")
        let perPacketTask = sent(before, "tessera_task_bytes_sent_total", "packets") / packetTasks
        let perReference = sent(after, "tessera_task_bytes_sent_total", "reference") / referenceTasks
        #expect(
            perReference * 10 < perPacketTask,
            "\(perReference) bytes per task by reference, \(perPacketTask) with packets")
        #expect(!farm.log("reader").contains("cannot read"))
    }

    @Test(
        "a worker reading over the coordinator's HTTP API: tasks by reference, the same output; a bad token falls back")
    func overHTTP() throws {
        let farm = try FarmFixture()
        // A name to percent-encode on the way.
        let src = farm.media.appendingPathComponent("a clip #1.mp4")
        try FileManager.default.moveItem(at: try Self.source(farm), to: src)
        try farm.startCoordinator()
        try farm.startWorker("fed")
        let fed = try farm.submit(src, output: "fed.mp4", Self.options)
        #expect(try farm.wait(fed)["state"] as? String == "completed")
        farm.signal("fed", SIGTERM)
        _ = farm.waitExit("fed", timeout: 30)
        let token = farm.keys.appendingPathComponent("token").path
        try farm.startWorker("http", ["--media-url", farm.httpURL, "--token-file", token])
        #expect(try farm.eventually(30) { try farm.client(["workers"]).stdout.contains("reads http") })
        let before = try farm.scrape()
        let read = try farm.submit(src, output: "read.mp4", Self.options)
        let status = try farm.wait(read)
        #expect(status["state"] as? String == "completed", "\(status)\n\(farm.log("http").suffix(2000))")
        let a = try Data(contentsOf: farm.outputs.appendingPathComponent("fed.mp4"))
        let b = try Data(contentsOf: farm.outputs.appendingPathComponent("read.mp4"))
        #expect(a == b, "the same bytes either way")
        let after = try farm.scrape()
        let segments = Double(try #require(status["segmentsTotal"] as? Int))
        let sent = { (m: PrometheusText, t: String) in m.value("tessera_tasks_sent_total", ["transport": t]) ?? 0 }
        #expect(sent(after, "reference") - sent(before, "reference") >= segments)
        #expect(sent(after, "packets") == sent(before, "packets"), "none went as packets")
        let served =
            (after.value("tessera_media_bytes_served_total") ?? 0)
            - (before.value("tessera_media_bytes_served_total") ?? 0)
        let size = Double(try FileManager.default.attributesOfItem(atPath: src.path)[.size] as? Int ?? 0)
        // MP4 packets are read as byte ranges: about the video's bytes once, not the file per segment.
        #expect(served > 0 && served < size * 1.5, "\(served) bytes served for a \(size)-byte source")
        print("served \(Int(served)) bytes over HTTP for \(Int(segments)) segments of a \(Int(size))-byte source")
        farm.signal("http", SIGTERM)
        _ = farm.waitExit("http", timeout: 30)
        // A wrong token: every read is refused (401), each task goes again with its packets, uncounted.
        let wrong = farm.root.appendingPathComponent("wrong-token")
        try Data("not-the-token".utf8).write(to: wrong)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: wrong.path)
        try farm.startWorker("refused", ["--media-url", farm.httpURL, "--token-file", wrong.path])
        let again = try farm.submit(src, output: "again.mp4", Self.options)
        #expect(try farm.wait(again)["state"] as? String == "completed")
        #expect(try Data(contentsOf: farm.outputs.appendingPathComponent("again.mp4")) == a)
        #expect(farm.log("coordinator").contains("cannot read the source of job \(again)"))
        #expect((try farm.scrape().value("tessera_segment_failures_total", ["reason": "worker_error"]) ?? 0) == 0)
    }

    @Test("a worker that cannot read the source it declared falls back to packets, and the job completes")
    func fallback() throws {
        let farm = try FarmFixture()
        let src = try Self.source(farm)
        try farm.startCoordinator()
        // It says the coordinator's media folder is mounted at a folder that does not exist here.
        try farm.startWorker("confused", ["--media-root", "/nonexistent-\(UUID().uuidString)=\(farm.media.path)"])
        let id = try farm.submit(src, output: "out.mp4", Self.options)
        let status = try farm.wait(id)
        #expect(status["state"] as? String == "completed", "\(status)\n\(farm.log("coordinator").suffix(2000))")
        #expect(try FarmFaultTests.verify(farm.outputs.appendingPathComponent("out.mp4"), against: src))
        #expect(farm.log("coordinator").contains("cannot read the source of job \(id)"))
        #expect(farm.log("confused").contains("cannot read its source here"))
        // Not counted against it: no failure recorded, nothing retried.
        let metrics = try farm.scrape()
        #expect((metrics.value("tessera_segment_failures_total", ["reason": "worker_error"]) ?? 0) == 0)
    }

    /// The coordinator reads a job's source for its index alone, and a task's packets when it sends them:
    /// a source replaced meanwhile is found out then, and fails the job with the cause.
    @Test("the source replaced after the job started: the job fails naming it, nobody blamed, nothing hangs")
    func sourceReplaced() throws {
        let farm = try FarmFixture()
        let src = try Self.source(farm)
        try farm.startCoordinator()
        let id = try farm.submit(src, output: "out.mp4", Self.options)
        #expect(try farm.eventually(60) { try farm.job(id)["state"] as? String == "running" })
        // Another file at the path (a new inode, as a copy onto it makes): its size is not the index's.
        let other = farm.media.appendingPathComponent("other.mp4")
        try TestMedia.make(other, seconds: 1, width: 320, height: 180, video: ["-c:v", "libx264", "-g", "30"])
        #expect(rename(other.path, src.path) == 0)
        try farm.startWorker("fed")
        let status = try farm.wait(id, timeout: 120)
        let error = status["error"] as? String ?? ""
        #expect(status["state"] as? String == "failed", "\(status)")
        #expect(error.contains("not the file the task names") && error.contains(src.path), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: farm.outputs.appendingPathComponent("out.mp4").path))
        #expect((try farm.scrape().value("tessera_segment_failures_total", ["reason": "worker_error"]) ?? 0) == 0)
        // The farm goes on: the worker takes the next job.
        let again = try farm.submit(src, output: "again.mp4", Self.options)
        #expect(try farm.wait(again)["state"] as? String == "completed")
    }
}
