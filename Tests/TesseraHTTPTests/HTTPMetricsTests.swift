import Foundation
import TesseraClient
import TesseraCoordinator
import TesseraCore
import TesseraHTTP
import TesseraTestSupport
import Testing

@testable import TesseraHTTPTestSupport

/// `/metrics`: the farm's registry in Prometheus' text format, open without a token.
@Suite struct HTTPMetricsTests {
    /// Runs where promtool is installed, and always in CI (where its absence is a failure, not a skip).
    static let promtoolTrait = Testing.ConditionTrait.enabled(
        if: PrometheusText.promtool != nil || ProcessInfo.processInfo.environment["CI"] == "true",
        "promtool is not installed (Debian's prometheus package; Scripts/install-deps.sh installs it)")

    static func scrape(_ server: TestServer) async throws -> PrometheusText {
        let answer = try await server.raw("GET", "/metrics")
        #expect(answer.status == 200)
        #expect(answer.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        return PrometheusText(String(decoding: answer.body, as: UTF8.self))
    }

    @Test func metricsCarryTheFarmsValuesWithoutAToken() async throws {
        let server = try await TestServer.start(token: "t")
        await server.farm.setSnapshot(
            FarmSummary(
                framesPerSecond: 0, realTime: 0, queuedSegments: 17, runningSegments: 3, workers: 5, busyWorkers: 2,
                jobs: ["running": 2, "queued": 4], points: []))
        let metrics = server.farm.farmMetrics
        for frames in [120, 30] {
            metrics.segmentCompleted(
                .init(
                    frames: frames, bytes: 1000, mediaSeconds: Double(frames) / 30, encodeSeconds: 2,
                    backend: .cpu, worker: "w1", at: 1_700_000_000))
        }
        metrics.framesDiscarded(30, .retry)
        metrics.segmentFailed(.stalled)
        metrics.jobSubmitted()
        metrics.jobFinished(.completed)
        metrics.jobFinished(.running)  // not an end: ignored
        let m = try await Self.scrape(server)
        let expected: [(String, [String: String], Double)] = [
            ("tessera_queue_depth", [:], 17), ("tessera_segments_running", [:], 3), ("tessera_workers", [:], 5),
            ("tessera_workers_busy", [:], 2), ("tessera_jobs", ["state": "running"], 2),
            ("tessera_jobs", ["state": "queued"], 4), ("tessera_jobs", ["state": "failed"], 0),
            ("tessera_segments_completed_total", [:], 2), ("tessera_frames_encoded_total", [:], 150),
            ("tessera_output_bytes_total", [:], 2000), ("tessera_output_media_seconds_total", [:], 5),
            ("tessera_frames_discarded_total", ["reason": "retry"], 30),
            ("tessera_frames_discarded_total", ["reason": "duplicate"], 0),
            ("tessera_segment_failures_total", ["reason": "stalled"], 1),
            ("tessera_jobs_submitted_total", [:], 1), ("tessera_jobs_finished_total", ["state": "completed"], 1),
            ("tessera_jobs_finished_total", ["state": "failed"], 0),
            ("tessera_segment_encode_duration_seconds_count", ["backend": "cpu"], 2),
            ("tessera_segment_encode_duration_seconds_bucket", ["backend": "cpu", "le": "2.0"], 2),
            ("tessera_segment_encode_duration_seconds_bucket", ["backend": "cpu", "le": "1.0"], 0),
            ("tessera_segment_realtime_ratio_count", [:], 2),
            ("tessera_last_segment_completed_timestamp_seconds", [:], 1_700_000_000),
        ]
        for (name, labels, value) in expected {
            #expect(m.value(name, labels) == value, "\(name)\(labels)")
        }
        #expect(m.samples("tessera_jobs_finished_total").count == 3, "only end states")
        // Every family has HELP and TYPE lines.
        for family in m.families {
            #expect(m.text.contains("# HELP \(family) "), "\(family)")
        }
        await server.stop()
    }

    @Test func everyEnumeratedLabelIsThereAtZeroFromTheStart() async throws {
        let server = try await TestServer.start()
        let m = try await Self.scrape(server)
        let sets: [(String, String, [String])] = [
            ("tessera_frames_discarded_total", "reason", FrameDiscard.allCases.map(\.rawValue)),
            ("tessera_segment_failures_total", "reason", SegmentFailureReason.allCases.map(\.rawValue)),
            ("tessera_jobs_finished_total", "state", ["completed", "failed", "cancelled"]),
            ("tessera_jobs", "state", JobState.allCases.map(\.rawValue)),
            ("tessera_segment_encode_duration_seconds_count", "backend", EncodeBackend.allCases.map(\.rawValue)),
            ("tessera_segment_ssim_count", "kind", JobKind.allCases.map(\.rawValue)),
            ("tessera_segment_psnr_db_count", "kind", JobKind.allCases.map(\.rawValue)),
        ]
        for (name, label, values) in sets {
            #expect(Set(m.samples(name).compactMap { $0.labels[label] }) == Set(values), "\(name)")
            for value in values { #expect(m.value(name, [label: value]) == 0, "\(name){\(label)=\(value)}") }
        }
        for name in [
            "tessera_queue_depth", "tessera_frames_encoded_total", "tessera_output_media_seconds_total",
            "tessera_output_bytes_total", "tessera_jobs_submitted_total", "tessera_segments_completed_total",
            "tessera_last_segment_completed_timestamp_seconds", "tessera_segment_queue_wait_seconds_count",
            "tessera_segment_realtime_ratio_count",
        ] {
            #expect(m.value(name) == 0, "\(name)")
        }
        // Every route's request series, by pattern, before any request to it.
        #expect(
            m.value(
                "tessera_http_requests_total", ["route": "/v1/jobs/{id}/cancel", "method": "POST", "status": "2xx"])
                == 0)
        #expect(m.samples("tessera_build_info").first?.value == 1)
        #if os(Linux)
        #expect((m.value("process_resident_memory_bytes") ?? 0) > 0)
        #expect((m.value("process_open_fds") ?? 0) > 0)
        #expect((m.value("process_start_time_seconds") ?? 0) > 1_600_000_000)
        #expect(m.value("process_cpu_seconds_total") != nil)
        #endif
        await server.stop()
    }

    @Test func requestsAreCountedByRoutePatternNeverByPath() async throws {
        let server = try await TestServer.start(token: "t")
        let jobID = "job-secret-\(UUID().uuidString)"
        _ = try await server.raw("GET", "/v1/jobs/\(jobID)", headers: ["Authorization": "Bearer t"])
        _ = try await server.raw("GET", "/v1/jobs/\(jobID)")  // no token: 401
        _ = try await server.raw("GET", "/srv/media/\(jobID).mov")  // no such route
        _ = try await server.raw("PROPFIND", "/healthz")
        let m = try await Self.scrape(server)
        #expect(
            m.value("tessera_http_requests_total", ["route": "/v1/jobs/{id}", "method": "GET", "status": "4xx"]) == 2)
        #expect(m.value("tessera_http_requests_total", ["route": "unmatched", "method": "GET", "status": "4xx"]) == 1)
        #expect(
            m.samples("tessera_http_request_duration_seconds_count", ["route": "/v1/jobs/{id}", "method": "GET"])
                .reduce(0) { $0 + $1.value } == 2)
        #expect(!m.text.contains(jobID), "no label carries a job id or a path")
        #expect(
            m.value("tessera_http_requests_total", ["route": "unmatched", "method": "other", "status": "4xx"]) == 1)
        await server.stop()
    }

    @Test func aDepartedWorkersSeriesAreRemoved() async throws {
        let server = try await TestServer.start()
        let metrics = server.farm.farmMetrics
        metrics.workerJoined(id: "w1", hostname: "node \"1\"\n", backends: ["cpu", "bogus"], slots: 2, now: 100)
        metrics.workerJoined(id: "w2", hostname: "node2", backends: ["vulkan", "cpu"], slots: 3, now: 100)
        metrics.workerBusy(id: "w1", seconds: 1.5)
        metrics.segmentCompleted(
            .init(frames: 60, bytes: 10, mediaSeconds: 2, encodeSeconds: 1, backend: .vulkan, worker: "w1", at: 101))
        var m = try await Self.scrape(server)
        #expect(m.value("tessera_worker_frames_encoded_total", ["worker": "w1"]) == 60)
        #expect(m.value("tessera_worker_busy_seconds_total", ["worker": "w1"]) == 1.5)
        #expect(m.value("tessera_worker_slots", ["worker": "w2"]) == 3)
        #expect(m.value("tessera_worker_last_heartbeat_timestamp_seconds", ["worker": "w1"]) == 100)
        #expect(
            m.samples("tessera_worker_info", ["worker": "w1"]).first?.labels
                == ["worker": "w1", "hostname": "node__1__", "backends": "cpu"])
        #expect(m.samples("tessera_worker_info", ["worker": "w2"]).first?.labels["backends"] == "cpu,vulkan")
        metrics.workerLeft(id: "w1")
        m = try await Self.scrape(server)
        #expect(m.samples.filter { $0.labels["worker"] == "w1" }.isEmpty, "w1's series are gone")
        #expect(m.value("tessera_worker_slots", ["worker": "w2"]) == 3)
        // Counters of the farm keep what w1 did.
        #expect(m.value("tessera_frames_encoded_total") == 60)
        await server.stop()
    }

    @Test(promtoolTrait) func promtoolAcceptsTheText() async throws {
        let server = try await TestServer.start()
        let metrics = server.farm.farmMetrics
        metrics.workerJoined(id: "w1", hostname: "node", backends: ["cpu"], slots: 2, now: 100)
        metrics.segmentCompleted(
            .init(frames: 60, bytes: 10, mediaSeconds: 2, encodeSeconds: 1, backend: .cpu, worker: "w1", at: 101))
        metrics.segmentLeased(queueWait: 0.3)
        _ = try await server.raw("GET", "/healthz")
        let m = try await Self.scrape(server)
        let check = try m.promtoolCheck()
        #expect(check.status == 0, "\(check.output)")
        await server.stop()
    }
}

@Suite("Prometheus text, as tessera top and the tests read it")
struct MetricSampleParseTests {
    @Test func labelsWithEscapesBracesAndCommasValuesWithInfinityAndTimestamps() {
        let text = """
            # HELP x something
            # TYPE x counter
            plain 3
            with_ts{a="1"} 2.5 1700000000000
            odd{path="a\\"b,c}{d",line="x\\ny",slash="\\\\"} +Inf
            neg{} -Inf
            broken{a="unterminated} 1
            """
        let samples = MetricSample.parse(text)
        #expect(samples.count == 4, "\(samples)")
        #expect(samples[0].name == "plain" && samples[0].labels.isEmpty && samples[0].value == 3)
        #expect(samples[1].name == "with_ts" && samples[1].labels == ["a": "1"] && samples[1].value == 2.5)
        #expect(samples[2].labels == ["path": "a\"b,c}{d", "line": "x\ny", "slash": "\\"])
        #expect(samples[2].value == .infinity)
        #expect(samples[3].name == "neg" && samples[3].value == -.infinity)
    }
}
