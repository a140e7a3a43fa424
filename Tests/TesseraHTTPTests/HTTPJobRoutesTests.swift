import Foundation
import TesseraClient
import TesseraCoordinator
import TesseraCore
import TesseraHTTP
import Testing

@testable import TesseraHTTPTestSupport

/// The job routes through the real server and the real CoordinatorClient.
@Suite struct HTTPJobRoutesTests {
    static let fullRequest = JobRequest(
        source: "/media/in.mov", output: "shows/ep1.mkv", fileType: .matroska, preset: "1280x720",
        settings: OutputSettings(
            video: VideoSettings(
                codec: .hevc, maxWidth: 1280, maxHeight: 720, rateControl: .bitRate(2_500_000),
                speed: "fast", gopLength: 48, pixelFormat: .yuv420p10le, profile: "main10", level: 41),
            audio: AudioSettings(codec: .opus, bitRate: 96_000, sampleRate: 48_000, channelCount: 2),
            fileType: .matroska, optimizeForNetworkUse: true,
            audioTracks: AudioTrackSelection(tracks: [1], languages: ["eng"])),
        timeRange: TimeRange(
            start: MediaTime(value: 1001, timescale: 30000),
            duration: MediaTime(value: 90, timescale: 30)),
        segmentDuration: 2.5, backend: .cpu, parallelism: 3, priority: 7, overwrite: true, verification: .timing,
        retiming: RetimeRequest(
            scale: ["2s-4s:16s"], ramp: ["5s-6s:1-0.25"], freeze: ["7s:1s"], frameRate: "30",
            frameSelection: .nearest, timePitch: .timeDomain, frameTiming: .constant))

    @Test func submitListGetCancelRoundTrip() async throws {
        let server = try await TestServer.start()
        let client = server.client()
        do {
            let submitted = try await client.submit(Self.fullRequest)
            #expect(submitted.state == .queued)
            #expect(submitted.priority == 7)
            #expect(submitted.source == "/media/in.mov")
            // The service received exactly what the client sent, settings and time range included.
            #expect(await server.farm.requests[submitted.id] == Self.fullRequest)

            let second = try await client.submit(JobRequest(source: "/media/b.mov"))
            #expect(try await client.jobs().map(\.id) == [second.id, submitted.id])
            #expect(try await client.job(submitted.id) == submitted)

            let cancelled = try await client.cancel(submitted.id)
            #expect(cancelled.state == .cancelled)
            #expect(try await client.job(submitted.id).state == .cancelled)
            #expect(try await client.job(second.id).state == .queued)
        } catch {
            Issue.record("round trip failed: \(error)")
        }
        await server.stop()
    }

    @Test func theListComesAPageAtATimeWhenAsked() async throws {
        let server = try await TestServer.start()
        let client = server.client()
        var ids: [String] = []
        for n in 0..<5 { ids.insert(try await client.submit(JobRequest(source: "/media/\(n).mov")).id, at: 0) }
        #expect(try await client.jobs().map(\.id) == ids)
        #expect(try await client.jobs(limit: 2).map(\.id) == Array(ids[0..<2]))
        #expect(try await client.jobs(limit: 2, offset: 2).map(\.id) == Array(ids[2..<4]))
        #expect(try await client.jobs(limit: 2, offset: 4).map(\.id) == [ids[4]])
        #expect(try await client.jobs(limit: 2, offset: 40).isEmpty)
        for bad in ["limit=0", "limit=1001", "limit=abc", "offset=-1", "offset=99999999999", "limit=1e3"] {
            let r = try await server.raw("GET", "/v1/jobs?\(bad)")
            let body = String(decoding: r.body, as: UTF8.self)
            #expect(r.status == 400, "\(bad): \(r.status)")
            #expect(body.contains(String(bad.split(separator: "=")[0])), "the error names the parameter: \(body)")
        }
        await server.stop()
    }

    @Test func submitAnswers201WithJSON() async throws {
        let server = try await TestServer.start()
        let body = try JSONEncoder().encode(JobRequest(source: "/media/a.mov", priority: 2))
        let answer = try await server.raw("POST", "/v1/jobs", body: body, headers: ["Content-Type": "application/json"])
        #expect(answer.status == 201)
        #expect(answer.headers["content-type"]?.hasPrefix("application/json") == true)
        let status = try JSONDecoder().decode(JobStatus.self, from: answer.body)
        #expect(status.priority == 2)
        #expect(status.source == "/media/a.mov")
        await server.stop()
    }

    @Test func unknownJobIs404WithTheServiceMessage() async throws {
        let server = try await TestServer.start()
        await #expect {
            _ = try await server.client().job("nope")
        } throws: { error in
            let error = try #require(error as? ClientError)
            return error.kind == .rejected(status: 404, error: "notFound") && error.message == "no job nope"
        }
        let raw = try await server.raw("POST", "/v1/jobs/nope/cancel")
        #expect(raw.status == 404)
        #expect(try raw.body.errorAnswer() == ErrorAnswer(error: "notFound", message: "no job nope"))
        await server.stop()
    }

    /// Every FarmError kind reaches the client with its httpStatus, kind and message.
    @Test(arguments: [FarmError.Kind.notFound, .invalidRequest, .forbidden, .conflict, .unavailable, .internalError])
    func farmErrorsKeepStatusAndKind(kind: FarmError.Kind) async throws {
        let server = try await TestServer.start()
        let error = FarmError(kind, "the farm says \(kind.rawValue)")
        await server.farm.failNextCall(with: error)
        await #expect {
            _ = try await server.client().jobs()
        } throws: { thrown in
            let thrown = try #require(thrown as? ClientError)
            return thrown.kind == .rejected(status: error.httpStatus, error: kind.rawValue)
                && thrown.message == error.message
        }
        await server.stop()
    }

    @Test func workersListComesThrough() async throws {
        let server = try await TestServer.start()
        let workers = [
            WorkerStatus(
                id: "w1", hostname: "node-a", cores: 16, memoryBytes: 64 << 30, backends: [.cpu, .vulkan],
                encoders: ["libx264"], state: .busy, tasks: [TaskKey(job: "job-1", segment: 3, attempt: 1)],
                segmentsDone: 12,
                lastSeenSeconds: 0.4),
            WorkerStatus(
                id: "w2", hostname: "node-b", cores: 8, memoryBytes: 1 << 34, backends: [.cpu],
                encoders: [], state: .idle, tasks: [], segmentsDone: 0, lastSeenSeconds: 2),
        ]
        await server.farm.setWorkers(workers)
        #expect(try await server.client().workers() == workers)
        await server.stop()
    }
}
