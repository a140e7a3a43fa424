import Foundation
import TesseraTestSupport
import Testing

/// Compositions on a real farm: a spec posted to the HTTP API, checked at submission, cut into segments
/// per run of its timeline, made by worker processes and stitched; and read back frame by frame against
/// the one-pass render of the same spec.
@Suite("Farm compositions", .serialized)
struct FarmCompositionTests {
    /// Two barcoded clips (the frame index burnt in) of different rates, each with a tone; a slowed range
    /// in the first, a gap, then the second; rendered 192x16 at 30 fps so the barcode reads back.
    static func spec(_ a: URL, _ b: URL) -> String {
        """
        {"assets": [{"id": "a", "path": "\(a.path)"}, {"id": "b", "path": "\(b.path)"}],
         "edits": [{"insert": {"asset": "a", "range": "0s-2s"}}, {"insertEmpty": {"duration": "0.5s"}},
                   {"insert": {"asset": "b", "range": "0.5s-2.5s"}},
                   {"scale": {"range": "0.5s-1s", "toDuration": "2s"}}],
         "videoComposition": {"renderSize": "192x16", "frameRate": "30"},
         "settings": {"video": {"codec": "h264", "rateControl": {"crf": 0}, "speed": "superfast"},
                      "audio": {"codec": "aac", "bitRate": 128000}, "passthrough": false,
                      "optimizeForNetworkUse": false}}
        """
    }

    /// Posts a job request to the farm and waits for it; expects it completed. Returns its id.
    static func complete(_ farm: FarmFixture, _ body: String) throws -> String {
        let answer = try FarmRequestTests.post(farm, "/v1/jobs", body)
        #expect(answer.status == 201 || answer.status == 200, "\(answer.body)")
        let id = try #require(
            (try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])?["id"] as? String)
        let status = try farm.wait(id)
        #expect(status["state"] as? String == "completed", "\(status)\n\(farm.log("coordinator").suffix(3000))")
        return id
    }

    /// The spec rendered in one pass on this machine: what the farm must show.
    static func onePass(_ farm: FarmFixture, _ spec: String) throws -> URL {
        let specFile = farm.root.appendingPathComponent("job.json")
        try spec.write(to: specFile, atomically: true, encoding: .utf8)
        let one = farm.root.appendingPathComponent("one.mp4")
        try farm.tessera(["transcode", "--spec", specFile.path, "-o", one.path, "--quiet"])
        return one
    }

    @Test("a spec posted over HTTP runs on two workers and shows, frame by frame, what one pass shows")
    func farmRendersTheOnePassFrames() throws {
        let farm = try FarmFixture()
        let a = farm.media.appendingPathComponent("a.mp4"), b = farm.media.appendingPathComponent("b.mp4")
        // B-frames: the frames no instant shows are skipped, not decoded, in one pass and in segments.
        let bFrames = ["-preset", "veryfast", "-bf", "3"]
        try TestMedia.makeBarcoded(a, rate: 60, seconds: 3, audio: true, video: bFrames)
        try TestMedia.makeBarcoded(b, rate: 25, seconds: 3, audio: true, video: bFrames)
        try farm.startCoordinator()
        try farm.startWorker("w1")
        try farm.startWorker("w2")
        let spec = Self.spec(a, b)
        let id = try Self.complete(
            farm, #"{"spec": \#(spec), "output": "farm.mp4", "segmentDuration": 0.5}"#)
        let out = farm.outputs.appendingPathComponent("farm.mp4")

        // The same spec in one pass, on this machine.
        let one = try Self.onePass(farm, spec)

        // 2 s of A (0.5–1 s slowed to 2 s: 3.5 s), 0.5 s of gap, 2 s of B: 6 s, 180 frames at 30 fps.
        let farmFrames = try TestMedia.barcodeIndices(out), oneFrames = try TestMedia.barcodeIndices(one)
        #expect(farmFrames.count == 180)
        #expect(farmFrames == oneFrames, "the farm's frames differ from one pass's")
        // Spot checks against the map: A at 60 fps shows frame 60·t before the slowed range; in it, source
        // 0.5 + (t − 0.5)/4; after it, t − 1.5. The gap is black (reads 0); B starts at its frame 12.
        #expect(Array(farmFrames[0..<15]) == (0..<15).map { $0 * 2 })
        #expect(farmFrames[15] == 30 && farmFrames[19] == 32 && farmFrames[74] == 59)
        #expect(farmFrames[75] == 60 && farmFrames[104] == 118)
        #expect(farmFrames[105..<120].allSatisfy { $0 == 0 }, "the gap: \(farmFrames[105..<120])")
        #expect(farmFrames[120] == 12 && farmFrames[179] == 61)

        // Cut inside the runs (0.5 s targets), so boundaries fall inside the slowed range.
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(try farm.client(["status", id, "--json"]).stdout.utf8))
                as? [String: Any])
        #expect((report["segmentsTotal"] as? Int ?? 0) >= 10, "\(report)")
        // The sound, mixed once on the coordinator, ends with the video.
        let durations = try ["v:0", "a:0"].map { stream in
            Double(
                try TestMedia.run(
                    "ffprobe",
                    [
                        "-v", "error", "-select_streams", stream, "-show_entries", "stream=duration", "-of", "csv=p=0",
                        out.path,
                    ]
                ).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        }
        #expect(abs(durations[0] - 6) < 1e-6 && abs(durations[1] - durations[0]) <= 1024.0 / 48000, "\(durations)")
    }

    @Test(
        "a spec packaged on two workers: each checked rendition, the render and the render scaled, shows one pass's frames"
    )
    func farmPackagesAComposition() throws {
        let farm = try FarmFixture()
        let a = farm.media.appendingPathComponent("a.mp4"), b = farm.media.appendingPathComponent("b.mp4")
        try TestMedia.makeBarcoded(a, rate: 60, seconds: 3, audio: true)
        try TestMedia.makeBarcoded(b, rate: 25, seconds: 3, audio: true)
        try farm.startCoordinator()
        try farm.startWorker("w1")
        try farm.startWorker("w2")
        // The coordinator checks every result (size, frames, times) before it counts: the smaller
        // rendition is the render scaled, and must be judged so.
        let spec = Self.spec(a, b).replacingOccurrences(of: "192x16", with: "384x32")
        let package =
            #"{"formats": ["hls", "dash"], "renditions": [{"size": "384x32", "bitRate": 2000000}, {"size": "192x16", "bitRate": 1000000}], "segmentDuration": 1}"#
        _ = try Self.complete(farm, #"{"spec": \#(spec), "output": "pkg", "package": \#(package)}"#)
        let one = try Self.onePass(farm, spec)
        let oneFrames = try TestMedia.barcodeIndices(one)
        #expect(oneFrames.count == 180)
        let folder = farm.outputs.appendingPathComponent("pkg")
        for track in ["384x32", "192x16"] {
            let file = try TestMedia.joinedTrack(folder, track, into: farm.root.appendingPathComponent("\(track).mp4"))
            #expect(try TestMedia.barcodeIndices(file) == oneFrames, "\(track) differs from one pass")
        }
        #expect(!farm.log("coordinator").contains("refused"), "\(farm.log("coordinator").suffix(2000))")
    }

    @Test(
        "a composition submitted with --spec survives its coordinator's kill -9: re-planned alike, nothing made twice")
    func coordinatorRestartMidComposition() throws {
        let farm = try FarmFixture()
        let src = try FarmFaultTests.slowSource(farm, seconds: 8)
        let specFile = farm.media.appendingPathComponent("job.json")
        // 4 s, a 0.5 s gap, 4 s, with composition 1–2 s slowed to 2 s: 9.5 s, 285 frames at 30 fps.
        try #"""
        {"assets": [{"id": "a", "path": "slow.mp4"}],
         "edits": [{"insert": {"asset": "a", "range": "0s-4s"}}, {"insertEmpty": {"duration": "0.5s"}},
                   {"insert": {"asset": "a", "range": "4s-8s"}}, {"scale": {"range": "1s-2s", "toDuration": "2s"}}],
         "videoComposition": {"renderSize": "640x360", "frameRate": "30"}}
        """#.write(to: specFile, atomically: true, encoding: .utf8)
        try farm.startCoordinator()
        try farm.startWorker("w1")
        try farm.startWorker("w2")
        // The request's settings (--speed) stand in for a spec that names none.
        let submitted = try farm.client(
            ["submit", "--spec", specFile.path, "-o", "comp.mp4", "--json"] + FarmFaultTests.slowOptions)
        #expect(submitted.status == 0, "\(submitted.stderr)")
        let id = try #require(
            (try JSONSerialization.jsonObject(with: Data(submitted.stdout.utf8)) as? [String: Any])?["id"] as? String)
        #expect(
            try farm.eventually(60) {
                FarmFaultTests.segments(farm.log("coordinator"), job: id, word: "spooled").count >= 3
            })
        farm.signal("coordinator", SIGKILL)
        _ = farm.waitExit("coordinator", timeout: 10)
        let spooledBefore = Set(FarmFaultTests.segments(farm.log("coordinator"), job: id, word: "spooled"))
        try farm.startCoordinator()
        let status = try farm.wait(id)
        #expect(status["state"] as? String == "completed", "\(status)\n\(farm.log("coordinator").suffix(2000))")
        let total = status["segmentsTotal"] as? Int ?? 0
        #expect(total >= 10 && spooledBefore.count < total, "\(total) segments, \(spooledBefore.count) before the kill")
        let encoded = FarmFaultTests.segments(farm.workerLogs, job: id, word: " done: ")
        let twice = Dictionary(grouping: encoded, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
        #expect(twice.isEmpty, "segments made twice: \(twice)")
        #expect(Set(encoded).count == total)
        let out = farm.outputs.appendingPathComponent("comp.mp4")
        let probe = try TestMedia.run(
            "ffprobe",
            [
                "-v", "error", "-count_packets", "-select_streams", "v:0", "-show_entries",
                "stream=width,height,nb_read_packets", "-of", "csv=p=0", out.path,
            ]
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(probe == "640,360,285")
        #expect(try FileManager.default.contentsOfDirectory(atPath: farm.outputs.path) == ["comp.mp4"])
    }

    @Test("a bad composition request gets 4xx naming the field before any work; nothing is queued")
    func badCompositionsAreRefused() throws {
        let farm = try FarmFixture()
        let a = farm.media.appendingPathComponent("a.mp4")
        try TestMedia.makeBarcoded(a, rate: 25, seconds: 1)
        let outside = farm.root.appendingPathComponent("outside.mp4")
        try FileManager.default.copyItem(at: a, to: outside)
        try farm.startCoordinator()
        func spec(_ path: String, edits: String = #"[{"insert": {"asset": "a"}}]"#, more: String = "") -> String {
            #"{"spec": {"assets": [{"id": "a", "path": "\#(path)"\#(more)}], "edits": \#(edits)}, "output": "x.mp4"}"#
        }
        let cases: [(String, Int, String)] = [
            (spec("a.mp4"), 400, "spec.assets[0].path"),
            (spec(outside.path), 403, "spec.assets[0].path"),
            (spec(farm.media.appendingPathComponent("none.mp4").path), 404, "spec.assets[0].path"),
            (spec(a.path, edits: #"[{"insert": {"asset": "a", "range": "0s-9s"}}]"#), 400, "edits[0]"),
            (spec(a.path, edits: #"[{"insert": {"asset": "b"}}]"#), 400, "edits[0]"),
            (spec(a.path, more: #", "transform": {"scale": 100, "x": 0, "y": 0}"#), 400, "transform.scale"),
            (spec(a.path, edits: #"{"insert": 3}"#), 400, "spec"),
            (
                #"{"source": "\#(a.path)", "spec": {"assets": [{"id": "a", "path": "\#(a.path)"}], "edits": []}}"#,
                400, "source"
            ),
        ]
        for (body, code, field) in cases {
            let answer = try FarmRequestTests.post(farm, "/v1/jobs", body)
            #expect(answer.status == code, "\(field): \(answer.status) \(answer.body)")
            #expect(answer.body.contains(field), "\(field): \(answer.body)")
        }
        let jobs = try farm.client(["status", "--json"])
        #expect(jobs.status == 0 && !jobs.stdout.contains("\"j-"), "a refused request was queued: \(jobs.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: farm.outputs.path).isEmpty)
        #expect(farm.coordinator?.isRunning == true)
    }
}
