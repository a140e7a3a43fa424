import Foundation
import Logging
import Synchronization
import TesseraBenchEcho
import TesseraCoordinator
import TesseraCore
import TesseraTestSupport
import TesseraWire
import Testing

/// The benchmarks' echo workers (`tessera-farm-bench`, `tessera-load-bench`) against a real coordinator:
/// they must speak the protocol as it is, or those benchmarks wait for ever. Protocol 2 made results
/// travel as an offer, a grant and parts; the echo workers kept sending whole results, which the
/// coordinator drops, and both benchmarks hung until this test's fix.
@Suite("Echo workers")
struct EchoWorkerTests {
    @Test("echo workers finish a job: every segment offered, granted, checked and acknowledged")
    func finishAJob() async throws {
        let root = try TestMedia.makeDirectory("echo")
        defer { try? FileManager.default.removeItem(at: root) }
        // All-intra, so each segment's own packets are a valid result for it (what an echo worker sends).
        let source = root.appendingPathComponent("intra.mp4")
        try TestMedia.make(
            source, seconds: 0.2, width: 320, height: 240, rate: "100",
            video: ["-c:v", "libx264", "-preset", "ultrafast", "-g", "1", "-bf", "0", "-pix_fmt", "yuv420p"],
            audio: nil)
        var config = CoordinatorConfiguration(
            listen: "tcp://127.0.0.1:*", dataDirectory: root.appendingPathComponent("data"), mediaRoots: [root],
            outputRoot: root)
        config.segmentDuration = 0.01
        // Parts smaller than a result (asserted below), so each result travels in several.
        config.resultPartBytes = 4096
        var logger = Logger(label: "tessera.coordinator")
        logger.logLevel = .error
        let coordinator = try Coordinator(configuration: config, logger: logger)
        let endpoint = try coordinator.start()
        defer { coordinator.shutdown() }
        let failures = Failures()
        let workers = (0..<2).map { EchoWorker(name: "echo-\($0)") }
        for w in workers { w.start(endpoint: endpoint) { failures.add($0) } }
        defer { workers.forEach { $0.stop() } }

        var status = try await coordinator.submit(
            JobRequest(
                source: source.path, output: "echo.mp4",
                settings: OutputSettings(video: VideoSettings(codec: .h264), audio: nil),
                segmentDuration: 0.01, backend: .cpu, overwrite: true))
        for _ in 0..<600 where !status.state.isTerminal {
            try await Task.sleep(for: .milliseconds(50))
            status = try await coordinator.job(status.id)
        }
        #expect(failures.all.isEmpty)
        #expect(status.state == .completed, "\(status.state): \(status.error ?? "")")
        // 20 frames in 10 ms segments (the planner may merge a short last one).
        #expect(status.segmentsTotal >= 10)
        #expect(workers.reduce(0) { $0 + $1.acknowledged } >= status.segmentsTotal)
        #expect(workers.allSatisfy { $0.latencies.ack.count == $0.acknowledged })
        // The results were larger than a part: the stitched video averages more than 4 KiB a segment.
        let output = try FileManager.default.attributesOfItem(atPath: root.appendingPathComponent("echo.mp4").path)
        let bytes = (output[.size] as? NSNumber)?.intValue ?? 0
        #expect(bytes / max(1, status.segmentsTotal) > 4096, "\(bytes) bytes for \(status.segmentsTotal) segments")
    }
}

/// What the echo workers' threads report, gathered for the test.
private final class Failures: Sendable {
    private let messages = Mutex<[String]>([])
    func add(_ message: String) { messages.withLock { $0.append(message) } }
    var all: [String] { messages.withLock { $0 } }
}
