import Foundation
import TesseraCoordinator
import TesseraCore
import TesseraDashboard
import TesseraHTTP
import TesseraTestSupport
import Testing

@testable import TesseraHTTPTestSupport

/// Protocols/openapi.yaml against the server: the same routes, and schemas the real JSON encodings fit.
@Suite struct HTTPOpenAPITests {
    static let specPath = TestMedia.repositoryRoot.appendingPathComponent("Protocols/openapi.yaml").path

    /// The YAML parsed by Python's yaml module (python3-yaml, Scripts/install-deps.sh), as JSON.
    static func spec() throws -> JSONValue {
        let python = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "python3"
        let json = try TestMedia.run(
            python,
            [
                "-c", "import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)", specPath,
            ])
        return try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8))
    }

    @Test func specPathsAreTheRoutersRoutes() async throws {
        let spec = try Self.spec()
        #expect(spec["openapi"]?.string?.hasPrefix("3.") == true)
        let methods: Set = ["get", "post", "put", "delete", "patch", "head", "options"]
        var described: [String] = []
        for (path, item) in spec["paths"]?.object ?? [:] {
            for method in (item.object ?? [:]).keys where methods.contains(method) {
                described.append("\(method.uppercased()) \(path)")
            }
        }
        let farm = try MemoryFarm()
        defer { farm.remove() }
        let dashboard = Dashboard(feed: DashboardFeed(service: farm))
        // The router's catch-all (`**`, a package's file path with its slashes) is OpenAPI's `{path}`.
        let routes = HTTPAPI(service: farm, token: nil, additions: [dashboard]).routes.map {
            $0.replacingOccurrences(of: "/**", with: "/{path}")
        }
        #expect(routes.count == 21)
        #expect(described.sorted() == routes)
        #expect(spec["components"]?["securitySchemes"]?["bearer"]?["scheme"]?.string == "bearer")
    }

    @Test func schemasFitTheEncodedTypes() throws {
        let spec = try Self.spec()
        var checker = SchemaChecker(schemas: spec["components"]?["schemas"]?.object ?? [:])
        var stats = QualityStats(peak: 255)
        stats.add(mse: 4.5, planeMSE: [5, 3, 3.5], ssim: 0.97)
        let segmentQuality = try #require(
            SegmentQuality(
                index: 3, stats: stats, frames: 1, span: 2...2.04, bytes: 9000, encodeSeconds: 0.2,
                rateControl: .crf(23), crf: 26.4,
                probes: [
                    QualityProbe(crf: 23, value: 0.985, bytes: 4000, sampleFrames: 20),
                    QualityProbe(crf: 27, value: 0.975, bytes: 2800, sampleFrames: 20),
                    QualityProbe(crf: 26.4, value: 0.97, bytes: 9000),
                ],
                target: TargetQuality(metric: .ssim, value: 0.975)))
        var status = JobStatus(
            id: "job-1", state: .failed, priority: 3, source: "/m/a.mov", output: "/out/a.mp4",
            segmentsTotal: 10, segmentsDone: 4, framesTotal: 300, framesDone: 120,
            framesPerSecond: 48.5, elapsedSeconds: 2.5, etaSeconds: 3.75,
            error: "segment 4 failed on w1", createdAt: 1.7e9, updatedAt: 1.7e9 + 5)
        status.quality = QualityReport(segments: [segmentQuality], target: TargetQuality(metric: .ssim, value: 0.97))
        status.waiting = "no worker is connected"
        status.package = PackageRequest(
            formats: [.hls, .dash], renditions: [Rendition(width: 1280, height: 720, bitRate: 3_000_000, codec: .hevc)],
            segmentDuration: 6)
        let worker = WorkerStatus(
            id: "w1", hostname: "node", cores: 8, memoryBytes: 1 << 34, backends: [.cpu],
            encoders: ["libx264"], state: .busy, tasks: [TaskKey(job: "job-1", segment: 4, attempt: 2)],
            segmentsDone: 3,
            lastSeenSeconds: 0.5,
            backendChoices: [.init(requested: .auto, chosen: .cpu, reason: "vulkan 12 frames/s vs cpu 600 frames/s")],
            framesPerSecond: 31.5, mediaRoots: ["/srv/media"])
        let summary = FarmSummary(
            framesPerSecond: 63, realTime: 2.1, queuedSegments: 7, runningSegments: 2, workers: 2, busyWorkers: 1,
            jobs: Dictionary(uniqueKeysWithValues: JobState.allCases.map { ($0.rawValue, $0 == .running ? 1 : 0) }),
            points: [[1.7e9, 60, 2], [1.7e9 + 5, 63, 2.1]])
        var crf = HTTPJobRoutesTests.fullRequest
        crf.settings?.video?.rateControl = .crf(20)
        crf.uploadID = "up-1"
        crf.retiming = RetimeRequest(frameDuration: "1/24")
        crf.targetQuality = TargetQuality(
            metric: .ssim, value: 0.97, crfRange: 18...40, maxBitRate: 4_000_000, samples: false)
        crf.deinterlace = .bwdif
        crf.hdr = .tonemap
        // A streaming package from Apple's ladder, and a capped rate.
        var packaged = HTTPJobRoutesTests.fullRequest
        packaged.package = PackageRequest(formats: [.hls], renditions: [], ladder: true)
        packaged.settings?.video?.maxBitRate = 4_500_000
        // A composition's request: a spec instead of a source.
        let composed = JobRequest(
            output: "c.mp4",
            spec: try JSONDecoder().decode(
                CompositionSpec.self,
                from: Data(
                    #"{"assets": [{"id": "a", "path": "/m/a.mp4"}], "edits": [{"insert": {"asset": "a"}}]}"#.utf8)))
        let samples: [(String, any Encodable)] = [
            ("JobRequest", HTTPJobRoutesTests.fullRequest), ("JobRequest", crf), ("JobRequest", composed),
            ("JobRequest", packaged),
            ("JobStatus", status),
            ("WorkerStatus", worker), ("FarmSummary", summary),
            ("Error", ["error": "notFound", "message": "no job x"]),
            ("UploadAnswer", ["uploadID": "up-1"]),
            (
                "SegmentStatus",
                SegmentStatus(
                    index: 3, state: .retried, frames: 60, attempts: 2, worker: "w2", encodeSeconds: 1.5,
                    errors: ["attempt 1 on w1: worker w1 went silent"], quality: segmentQuality)
            ),
            ("SessionAnswer", ["expiresInSeconds": 43200]),
        ]
        for (name, sample) in samples {
            let json = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(sample))
            let problems = checker.check(json, against: .object(["$ref": .string("#/components/schemas/\(name)")]))
            #expect(problems.isEmpty, "\(name): \(problems)")
        }
        // Every property the spec lists for these schemas was present in some sample: no stale fields.
        for name in [
            "JobRequest", "OutputSettings", "VideoSettings", "AudioSettings", "AudioTrackSelection", "TimeRange",
            "MediaTime",
            "RateControl", "Retiming", "JobStatus", "WorkerStatus", "FarmSummary", "Error", "UploadAnswer",
            "SegmentStatus", "QualityReport", "SegmentQuality", "TargetQuality",
            "SessionAnswer", "Package",
        ] {
            let listed = checker.properties(of: name)
            #expect(!listed.isEmpty, "\(name) lists no properties")
            let unseen = listed.subtracting(checker.seen[name] ?? [])
            // TimeRange's {start, end} form is read, never written.
            #expect(unseen.subtracting(name == "TimeRange" ? ["end"] : []).isEmpty, "\(name): \(unseen.sorted())")
        }
    }
}
