import Foundation
import TesseraTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The coordinator's `/metrics` after real jobs on real workers, checked against ffprobe's count of
/// the output's frames and with promtool.
@Suite("Farm metrics", .serialized)
struct FarmMetricsTests {
    static let promtoolTrait = Testing.ConditionTrait.enabled(
        if: PrometheusText.promtool != nil || ProcessInfo.processInfo.environment["CI"] == "true",
        "promtool is not installed (Debian's prometheus package; Scripts/install-deps.sh installs it)")

    @Test(
        "after a job: frames encoded equal ffprobe's count, per-worker frames add up, promtool accepts the text",
        promtoolTrait)
    func framesMatchTheOutput() throws {
        let farm = try FarmFixture()
        let src = farm.media.appendingPathComponent("clip.mp4")
        try TestMedia.make(
            src, seconds: 4, width: 320, height: 240,
            video: ["-c:v", "libx264", "-preset", "ultrafast", "-g", "15", "-pix_fmt", "yuv420p"])
        try farm.startCoordinator()
        try farm.startWorker("w1")
        try farm.startWorker("w2")
        #expect(try farm.eventually(30) { try farm.scrape().value("tessera_workers") == 2 })
        let before = try farm.scrape()
        let id = try farm.submit(src, output: "out.mp4", ["--segment-duration", "1", "--preset", "640x480"])
        let status = try farm.wait(id)
        #expect(status["state"] as? String == "completed", "\(status)")
        let out = farm.outputs.appendingPathComponent("out.mp4")
        let frames = try FarmJobTests.frameCount(out)
        let after = try farm.scrape()
        func delta(_ name: String, _ labels: [String: String] = [:]) -> Double {
            (after.value(name, labels) ?? .nan) - (before.value(name, labels) ?? 0)
        }
        #expect(frames > 0)
        #expect(delta("tessera_frames_encoded_total") == Double(frames))
        let perWorker = after.samples("tessera_worker_frames_encoded_total").reduce(0) { $0 + $1.value }
        #expect(perWorker == Double(frames), "every frame is credited to the worker whose result was used")
        let segments = delta("tessera_segments_completed_total")
        #expect(segments >= 4)
        #expect(
            after.samples("tessera_segment_encode_duration_seconds_count").reduce(0) { $0 + $1.value } == segments)
        #expect(after.value("tessera_segment_realtime_ratio_count") == segments)
        // Every segment was measured: one SSIM and one PSNR each, under the plain transcode's kind.
        #expect(after.value("tessera_segment_ssim_count", ["kind": "transcode"]) == segments)
        #expect(after.value("tessera_segment_psnr_db_count", ["kind": "transcode"]) == segments)
        #expect(after.value("tessera_segment_ssim_bucket", ["kind": "transcode", "le": "0.8"]) == 0, "a sharp encode")
        #expect(after.value("tessera_segment_queue_wait_seconds_count").map { $0 >= segments } == true)
        // Seconds of output: ffprobe's duration of the video stream, within a frame.
        let probe = try TestMedia.probe(out)
        let seconds = Double(TestMedia.stream(probe, "video")?["duration"] as? String ?? "") ?? -1
        #expect(abs(delta("tessera_output_media_seconds_total") - seconds) <= 1.0 / 30 + 1e-6)
        let size = Double((try FileManager.default.attributesOfItem(atPath: out.path)[.size] as? Int) ?? 0)
        #expect(delta("tessera_output_bytes_total") > 0 && delta("tessera_output_bytes_total") < size)
        // Every segment's packets were stitched once into the output, and that took some time.
        #expect(delta("tessera_stitched_bytes_total") == delta("tessera_output_bytes_total"))
        #expect(delta("tessera_stitch_seconds_total") > 0)
        // Every result was checked before it counted, and none waits for its check now.
        #expect(delta("tessera_result_checks_total", ["verdict": "passed"]) >= segments)
        #expect(delta("tessera_result_checks_total", ["verdict": "refused"]) == 0)
        #expect(delta("tessera_result_check_cpu_seconds_total") > 0)
        #expect(after.value("tessera_result_checks_waiting") == 0)
        #expect(delta("tessera_jobs_submitted_total") == 1)
        #expect(delta("tessera_jobs_finished_total", ["state": "completed"]) == 1)
        #expect(after.value("tessera_jobs", ["state": "completed"]) == 1)
        #expect(after.value("tessera_queue_depth") == 0)
        #expect((after.value("tessera_last_segment_completed_timestamp_seconds") ?? 0) > 1_600_000_000)
        #expect(delta("tessera_http_requests_total", ["route": "/v1/jobs", "method": "POST", "status": "2xx"]) == 1)
        // No label carries a job id or a path.
        for s in after.samples {
            for value in s.labels.values {
                #expect(!value.contains(id) && !value.contains(farm.root.path), "\(s.name)\(s.labels)")
            }
        }
        let check = try after.promtoolCheck()
        #expect(check.status == 0, "\(check.output)")
        // A worker that leaves takes its series with it.
        farm.signal("w2", SIGTERM)
        #expect(try farm.eventually(30) { try farm.scrape().samples.allSatisfy { $0.labels["worker"] != "w2" } })
        #expect(try farm.scrape().value("tessera_worker_slots", ["worker": "w1"]) != nil)
    }

    @Test("a segment retried after a frozen worker: frames are still counted once, the failure by its cause")
    func retriedSegmentCountsOnce() throws {
        let farm = try FarmFixture()
        let src = try FarmFaultTests.slowSource(farm, seconds: 6)
        try farm.startCoordinator()
        try farm.startWorker("w1")
        try farm.startWorker("w2")
        #expect(try farm.eventually(30) { try farm.scrape().value("tessera_workers") == 2 })
        let id = try farm.submit(src, output: "out.mp4", FarmFaultTests.slowOptions)
        // w1 holds a segment when it freezes: the coordinator loses it and re-leases what it held.
        #expect(try farm.eventually(30) { try farm.scrape().value("tessera_worker_slots", ["worker": "w1"]) != nil })
        #expect(farm.eventually(30) { Self.holds(farm, "w1") })
        farm.signal("w1", SIGSTOP)
        defer { farm.signal("w1", SIGCONT) }
        #expect(try farm.eventually(30) { farm.log("coordinator").contains("worker w1 silent") })
        let lost = try farm.scrape()
        #expect(lost.samples.allSatisfy { $0.labels["worker"] != "w1" }, "a lost worker's series are removed")
        farm.signal("w1", SIGCONT)
        let status = try farm.wait(id)
        #expect(status["state"] as? String == "completed", "\(status)")
        let after = try farm.scrape()
        let frames = try FarmJobTests.frameCount(farm.outputs.appendingPathComponent("out.mp4"))
        #expect(after.value("tessera_frames_encoded_total") == Double(frames))
        #expect((after.value("tessera_segment_failures_total", ["reason": "worker_lost"]) ?? 0) >= 1)
        #expect(after.value("tessera_segment_failures_total", ["reason": "worker_error"]) == 0)
    }

    /// Whether `tessera workers` shows the worker holding a task.
    static func holds(_ farm: FarmFixture, _ worker: String) -> Bool {
        guard let out = try? farm.client(["workers", "--json"]).stdout,
            let list = try? JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]]
        else { return false }
        return list.contains { $0["id"] as? String == worker && !(($0["tasks"] as? [String]) ?? []).isEmpty }
    }
}

extension FarmFixture {
    /// GET /metrics (no token: it is open), parsed.
    func scrape() throws -> PrometheusText {
        let url = URL(string: "\(httpURL)/metrics")!
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Result<(Data, URLResponse), any Error>?
        URLSession.shared.dataTask(with: url) { data, response, error in
            if let data, let response { result = .success((data, response)) } else { result = .failure(error!) }
            done.signal()
        }.resume()
        done.wait()
        let (data, response) = try result!.get()
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw failure("GET /metrics answered \((response as? HTTPURLResponse)?.statusCode ?? -1)")
        }
        return PrometheusText(String(decoding: data, as: UTF8.self))
    }
}
