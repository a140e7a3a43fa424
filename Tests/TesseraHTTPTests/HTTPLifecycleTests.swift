import Foundation
import Logging
import ServiceLifecycle
import TesseraClient
import TesseraCoordinator
import TesseraHTTP
import Testing

@testable import TesseraHTTPTestSupport

/// How `HTTPAPI.run` starts and stops.
@Suite struct HTTPLifecycleTests {
    @Test func aPortInUseMakesRunThrow() async throws {
        let server = try await TestServer.start()
        let farm = try MemoryFarm()
        defer { farm.remove() }
        var logger = Logger(label: "tessera.http.test")
        logger.logLevel = .critical
        await #expect(throws: (any Error).self) {
            try await HTTPAPI(service: farm, token: nil, logger: logger).run(host: "127.0.0.1", port: server.port)
        }
        #expect(try await server.client().health() == "ok")
        await server.stop()
    }

    @Test func cancellingRunLetsTheRequestInFlightFinish() async throws {
        let server = try await TestServer.start()
        let client = server.client()
        _ = try await client.submit(.init(source: "/media/a.mov"))
        await server.farm.setJobsDelay(.milliseconds(600))
        let inFlight = Task { try await client.jobs() }
        try await Task.sleep(for: .milliseconds(200))
        let stopped = Date()
        await server.stop()
        // The slow answer still arrived, and run() returned only after it.
        #expect(try await inFlight.value.count == 1)
        #expect(Date().timeIntervalSince(stopped) >= 0.3)
        await #expect {
            _ = try await client.health()
        } throws: { error in
            (error as? ClientError)?.kind == .unreachable
        }
    }

    @Test func aRequestOutlastingTheGraceIsCutOff() async throws {
        let server = try await TestServer.start(shutdownGrace: .milliseconds(200))
        let client = server.client()
        // The answer would take an hour: stop() can return only because the grace cuts the request off.
        await server.farm.setJobsDelay(.seconds(3600))
        let inFlight = Task { try await client.jobs() }
        try await Task.sleep(for: .milliseconds(200))
        let (outcome, report) = AsyncStream.makeStream(of: Bool.self)
        Task {
            await server.stop()
            report.yield(true)
        }
        // Not a speed check: 600 times the grace, only so that a missing cut-off fails instead of hanging.
        Task {
            try? await Task.sleep(for: .seconds(120))
            report.yield(false)
        }
        let stopped = await outcome.first { _ in true } ?? false
        #expect(stopped, "stop() waited for a request past its grace")
        if !stopped { inFlight.cancel() }
        await #expect(throws: ClientError.self) { _ = try await inFlight.value }
    }

    /// How a coordinator process is expected to run the API: as a service in its ServiceGroup.
    @Test func anEnclosingServiceGroupShutsItDownGracefully() async throws {
        struct APIService: Service {
            let api: HTTPAPI
            let ports: AsyncStream<Int>.Continuation
            func run() async throws { try await api.run(host: "127.0.0.1", port: 0) { ports.yield($0) } }
        }
        let farm = try MemoryFarm()
        defer { farm.remove() }
        var logger = Logger(label: "tessera.http.test")
        logger.logLevel = .warning
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let group = ServiceGroup(
            services: [APIService(api: HTTPAPI(service: farm, token: nil), ports: continuation)],
            gracefulShutdownSignals: [], cancellationSignals: [], logger: logger)
        let running = Task { try await group.run() }
        let port = try #require(await ports.first { _ in true })
        let client = CoordinatorClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!, token: nil)
        #expect(try await client.health() == "ok")

        await group.triggerGracefulShutdown()
        try await running.value
        await #expect(throws: ClientError.self) { _ = try await client.health() }
    }
}
