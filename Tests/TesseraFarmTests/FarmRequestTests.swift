import Foundation
import TesseraTestSupport
import TesseraWire
import Testing

/// Job requests against a real coordinator: every out-of-bounds field is refused with 400 naming it
/// before any work, and a stored job that can no longer be planned fails without taking the
/// coordinator down.
@Suite("Farm requests", .serialized)
struct FarmRequestTests {
    /// POSTs raw JSON to the coordinator (python3's urllib: the body is exactly what a hostile client sends).
    static func post(_ farm: FarmFixture, _ path: String, _ body: String) throws -> (status: Int, body: String) {
        let script = """
            import sys, urllib.request, urllib.error
            req = urllib.request.Request(sys.argv[1], data=sys.argv[2].encode(), method="POST",
                headers={"Content-Type": "application/json", "Authorization": "Bearer " + sys.argv[3]})
            try:
                r = urllib.request.urlopen(req, timeout=30); print(r.status); print(r.read().decode())
            except urllib.error.HTTPError as e:
                print(e.code); print(e.read().decode())
            """
        let r = try TestMedia.runCapturing("/usr/bin/python3", ["-c", script, farm.httpURL + path, body, farm.token])
        let lines = r.stdout.split(separator: "\n", maxSplits: 1).map(String.init)
        guard let status = lines.first.flatMap({ Int($0) }) else {
            throw farm.failure("no HTTP answer: \(r.stdout) \(r.stderr)")
        }
        return (status, lines.count > 1 ? lines[1] : "")
    }

    static func settings(video: String = "", audio: String = "", more: String = "") -> String {
        #"{"video":{"codec":"h264","rateControl":{"crf":23}\#(video)},"audio":{"codec":"aac","bitRate":128000\#(audio)},"passthrough":false,"optimizeForNetworkUse":false\#(more)}"#
    }

    @Test("out-of-bounds request fields get 400 naming the field; nothing is queued")
    func boundsAreCheckedAtSubmission() throws {
        let farm = try FarmFixture()
        let src = farm.media.appendingPathComponent("a.mp4")
        try TestMedia.make(src, seconds: 1)
        try farm.startCoordinator()
        let s = #""source":"\#(src.path)""#
        let cases: [(String, String)] = [
            (#"{\#(s),"segmentDuration":1e308}"#, "segmentDuration"),
            (#"{\#(s),"settings":\#(Self.settings(video: #","gopLength":2147483648"#))}"#, "gopLength"),
            (#"{\#(s),"settings":\#(Self.settings(video: #","level":4294967295"#))}"#, "level"),
            (#"{\#(s),"settings":\#(Self.settings(video: #","speed":"ludicrous""#))}"#, "speed"),
            (#"{\#(s),"settings":\#(Self.settings(video: #","profile":"extreme""#))}"#, "profile"),
            (
                #"{\#(s),"settings":{"video":{"codec":"h264","rateControl":{"crf":{"_0":1000}}},"passthrough":false,"optimizeForNetworkUse":false}}"#,
                "crf"
            ),
            (#"{\#(s),"settings":\#(Self.settings(audio: #","sampleRate":1"#))}"#, "sampleRate"),
            (#"{\#(s),"settings":\#(Self.settings(audio: #","channelCount":100"#))}"#, "channelCount"),
            (#"{\#(s),"backend":"gpu"}"#, "backend"),
            (#"{\#(s),"output":"."}"#, "output"),
            (#"{\#(s),"output":"sub/.."}"#, "output"),
            (#"{\#(s),"output":"missing/x.mp4"}"#, "output"),
            (#"{\#(s),"output":"\#(String(repeating: "n", count: 300)).mp4"}"#, "output"),
            (#"{\#(s),"output":"x.m4a","fileType":"m4a"}"#, "fileType"),
            // The source's only audio track is track 1.
            (#"{\#(s),"settings":\#(Self.settings(more: #","audioTracks":{"tracks":[9]}"#))}"#, "audioTracks"),
            (
                #"{\#(s),"settings":\#(Self.settings(more: #","audioTracks":{"languages":["e1"]}"#))}"#,
                "audioTracks.languages"
            ),
            (
                #"{\#(s),"settings":\#(Self.settings(more: #","audioTracks":{"tracks":[4096]}"#))}"#,
                "audioTracks.tracks"
            ),
            // Retiming: each field named; ranges are checked against the 1 s source.
            (#"{\#(s),"retiming":{"scale":["2s-40s:1s"]}}"#, "retiming.scale"),
            (#"{\#(s),"retiming":{"scale":["0.2s-0.4s:100s"]}}"#, "retiming.scale"),
            (#"{\#(s),"retiming":{"ramp":["0.2s-0.4s:1-0"]}}"#, "retiming.ramp"),
            (#"{\#(s),"retiming":{"freeze":["0.5s:0s"]}}"#, "retiming.freeze"),
            (#"{\#(s),"retiming":{"frameRate":"0"}}"#, "retiming.frameRate"),
            (#"{\#(s),"retiming":{"frameSelection":"sideways"}}"#, "frameSelection"),
            // A few hundred bytes must not become millions of frames or segments: each bound is named.
            (#"{\#(s),"retiming":{"freeze":["0.5s:3600s"],"frameRate":"1000"}}"#, "retiming: the output would be"),
            (#"{\#(s),"retiming":{"freeze":["0.5s:3600s"]},"segmentDuration":0.01}"#, "segmentDuration: 3601 s"),
            (
                #"{"spec":{"assets":[{"id":"a","path":"\#(src.path)"}],"edits":[{"insert":{"asset":"a","#
                    + #""range":"0s-0.1s"}},{"insertEmpty":{"duration":"2000s"}}],"#
                    + #""videoComposition":{"frameRate":"1000"}},"segmentDuration":0.001}"#,
                "segmentDuration: 2000.1 s in segments of 0.001 s is 2000100 segments"
            ),
            (
                #"{"spec":{"assets":[{"id":"a","path":"\#(src.path)"}],"edits":[{"insert":{"asset":"a"}},"#
                    + #"{"insertEmpty":{"duration":"1000000s"}}],"videoComposition":{"frameRate":"1"}}}"#,
                "segmentDuration: 1000001 s"
            ),
            (
                #"{"spec":{"assets":[{"id":"a","path":"\#(src.path)"}],"edits":[{"insert":{"asset":"a"}}],"#
                    + #""videoComposition":{"renderSize":"641x361"}}}"#,
                "641x361' has an odd side"
            ),
            (
                #"{"spec":{"assets":[{"id":"a","path":"\#(src.path)"}],"edits":[{"insert":{"asset":"a"}}],"#
                    + #""videoComposition":{"renderSize":"8192x8192","frameRate":"30"}},"segmentDuration":1}"#,
                "renderSize: 8192x8192 in segments of 30 frames needs about"
            ),
        ]
        for (body, field) in cases {
            let answer = try Self.post(farm, "/v1/jobs", body)
            #expect(answer.status == 400, "\(field): \(answer.status) \(answer.body)")
            #expect(answer.body.contains(field), "\(field): \(answer.body)")
        }
        let jobs = try farm.client(["status", "--json"])
        #expect(jobs.status == 0 && !jobs.stdout.contains("\"j-"), "a refused request was queued: \(jobs.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: farm.outputs.path).isEmpty)
        #expect(farm.coordinator?.isRunning == true)
    }

    @Test("a stored job whose request no longer validates fails on resume; the coordinator keeps serving")
    func badStoredJobFailsOnResume() throws {
        let farm = try FarmFixture()
        let src = farm.media.appendingPathComponent("a.mp4")
        try TestMedia.make(src, seconds: 2)
        try farm.startCoordinator()
        let id = try farm.submit(src, output: "stored.mp4")  // no worker yet: it waits
        farm.signal("coordinator", SIGKILL)
        _ = farm.waitExit("coordinator", timeout: 10)
        // What an older coordinator that checked less could have stored.
        let db = farm.data.appendingPathComponent("tessera.sqlite").path
        let sql = "UPDATE jobs SET request = json_set(request, '$.segmentDuration', 1e308) WHERE id = '\(id)';"
        let r = try TestMedia.runCapturing("/usr/bin/sqlite3", [db, sql])
        #expect(r.status == 0, "\(r.stderr)")
        try farm.startCoordinator()
        let status = try farm.wait(id, timeout: 60)
        #expect(status["state"] as? String == "failed")
        #expect((status["error"] as? String)?.contains("segmentDuration") == true, "\(status)")
        #expect(farm.coordinator?.isRunning == true, "\(farm.log("coordinator").suffix(2000))")
        // And the farm still works.
        try farm.startWorker("w1")
        let good = try farm.submit(src, output: "good.mp4", ["--segment-duration", "1"])
        #expect(try farm.wait(good)["state"] as? String == "completed")
        #expect(!FileManager.default.fileExists(atPath: farm.outputs.appendingPathComponent("stored.mp4").path))
    }

    @Test("a render larger than any connected worker's announced memory is refused at submission, naming it")
    func aRenderMustFitTheWorkersThatAnnouncedTheirMemory() throws {
        let farm = try FarmFixture()
        let src = farm.media.appendingPathComponent("a.mp4")
        try TestMedia.make(src, seconds: 1)
        try farm.startCoordinator()
        // A worker that announces 256 MiB of memory.
        let context = ZMQContext()
        let small = try FarmHostilePeerTests.peer(farm, context, id: "small", memoryBytes: 256 << 20, credit: nil)
        defer { small.close() }
        #expect(try farm.eventually(10) { try farm.client(["workers", "--json"]).stdout.contains("\"small\"") })
        let spec = { (size: String) in
            #"{"spec":{"assets":[{"id":"a","path":"\#(src.path)"}],"edits":[{"insert":{"asset":"a"}}],"#
                + #""videoComposition":{"renderSize":"\#(size)","frameRate":"30"}},"segmentDuration":1}"#
        }
        // 1920x1080 in 30-frame segments: about 326 MiB.
        let big = try Self.post(farm, "/v1/jobs", spec("1920x1080"))
        #expect(big.status == 400, "\(big)")
        #expect(big.body.contains("renderSize") && big.body.contains("announced 256 MiB"), "\(big.body)")
        let fits = try Self.post(farm, "/v1/jobs", spec("640x360"))
        #expect(fits.status == 201, "\(fits)")
    }
}
