import Foundation
import TesseraTestSupport
import Testing

/// A page on another site, in a real Chromium, against a coordinator started without a token (it only
/// warns): no-cors fetches and a form POST try to submit a job, cancel the running one and drain the
/// worker. Each is answered 403 (or 415), and nothing changes: one job, still running or completed,
/// the worker not draining.
@Suite("Farm cross-site requests", .serialized)
struct FarmCrossSiteTests {
    static let script = TestMedia.repositoryRoot.appendingPathComponent("Tests/Dashboard/cross_site_check.py")

    @Test("another site's page changes nothing on a coordinator without a token")
    func anotherSitesPageChangesNothing() throws {
        let farm = try FarmFixture()
        farm.withToken = false
        let src = farm.media.appendingPathComponent("a.mp4")
        try TestMedia.make(src, seconds: 20, width: 640, height: 360, extra: ["-g", "30"])
        try farm.startCoordinator()
        try farm.startWorker("w1")
        let id = try farm.submit(src, output: "out.mp4", ["--segment-duration", "2", "--preset", "HighestQuality"])
        let result = farm.root.appendingPathComponent("cross-site.json")
        let run = try TestMedia.runCapturing(
            TestMedia.toolsPython, [Self.script.path, farm.httpURL, src.path, id, "w1", result.path])
        try #require(run.status == 0, "\(run.stderr.suffix(2000))")
        let seen = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: result)) as? [String: Any])
        let responses = seen["responses"] as? [[String: Any]] ?? []
        // Four fetches and the form; the browser saw every answer, and none was a success.
        #expect(responses.count >= 5, "\(responses)")
        for r in responses {
            #expect([403, 415].contains(r["status"] as? Int ?? 0), "\(r)")
        }
        let jobs = try farm.client(["status", "--json"])
        #expect(jobs.status == 0)
        let list = try JSONSerialization.jsonObject(with: Data(jobs.stdout.utf8)) as? [[String: Any]] ?? []
        #expect(list.count == 1, "a job was submitted from the page: \(jobs.stdout)")
        // Neither cancelled nor failed: wherever it is on its way (queued, running, verifying, completed).
        let state = list.first?["state"] as? String
        #expect(state != nil && !["cancelled", "failed"].contains(state!), "\(list)")
        let workers = try farm.client(["workers", "--json"])
        #expect(!workers.stdout.contains("draining"), "\(workers.stdout)")
        #expect(
            farm.log("coordinator").contains("no --token-file"), "the coordinator warns that it runs without a token")
    }
}
