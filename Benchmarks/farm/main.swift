// tessera-farm-bench: the farm's own overhead, with no transcoding in the way.
//
// A real coordinator (in this process, its dispatcher on its own thread, its store a real SQLite file)
// runs a job of one-frame segments cut from an all-intra source, for echo workers (Benchmarks/echo)
// that speak the wire protocol over TCP loopback and send each task's own packets back.
// Per task we time:
//   dispatch  Ready sent → TaskAssign received (the coordinator leasing and serialising the task)
//   ack       ResultOffer sent → ResultAck received (the grant, the parts, the coordinator's check of the
//             result, spool write + fsync + SQLite commit)
// Usage: tessera-farm-bench [segments] [workers]
import Foundation
import Logging
import TesseraBenchEcho
import TesseraCoordinator
import TesseraCore
import TesseraWire

let arguments = CommandLine.arguments
let segments = arguments.count > 1 ? Int(arguments[1]) ?? 500 : 500
let workerCount = arguments.count > 2 ? Int(arguments[2]) ?? 2 : 2

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("tessera-farm-bench: \(message)\n".utf8))
    exit(1)
}

let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-farm-bench-\(getpid())")
try? FileManager.default.removeItem(at: dir)
try! FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: dir) }
let source = dir.appendingPathComponent("intra.mp4")
let ffmpeg = Process()
ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/env")
ffmpeg.arguments = [
    "ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi",
    "-i", "testsrc2=size=64x64:rate=100:duration=\(Double(segments) / 100)",
    "-c:v", "libx264", "-preset", "ultrafast", "-g", "1", "-bf", "0", "-pix_fmt", "yuv420p", source.path,
]
try! ffmpeg.run()
ffmpeg.waitUntilExit()
guard ffmpeg.terminationStatus == 0 else { fail("ffmpeg could not make the source") }

var config = CoordinatorConfiguration(
    listen: "tcp://127.0.0.1:*", dataDirectory: dir.appendingPathComponent("data"),
    mediaRoots: [dir], outputRoot: dir)
config.segmentDuration = 0.01
var logger = Logger(label: "tessera.coordinator")
logger.logLevel = .warning
let coordinator = try! Coordinator(configuration: config, logger: logger)
let endpoint = try! coordinator.start()

let workers = (0..<workerCount).map { EchoWorker(name: "echo-\($0)") }
for w in workers { w.start(endpoint: endpoint) { fail($0) } }

let started = Date()
let semaphore = DispatchSemaphore(value: 0)
nonisolated(unsafe) var final: JobStatus?
Task.detached {
    do {
        var status = try await coordinator.submit(
            JobRequest(
                source: source.path, output: "echo.mp4",
                settings: OutputSettings(video: VideoSettings(codec: .h264), audio: nil),
                segmentDuration: 0.01, backend: .cpu, overwrite: true))
        while !status.state.isTerminal {
            try await Task.sleep(for: .milliseconds(50))
            status = try await coordinator.job(status.id)
        }
        final = status
    } catch { fail("\(error)") }
    semaphore.signal()
}
semaphore.wait()
let wall = Date().timeIntervalSince(started)
workers.forEach { $0.stop() }
coordinator.shutdown()
guard let status = final, status.state == .completed else {
    fail("job ended \(final?.state.rawValue ?? "?"): \(final?.error ?? "")")
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}
let dispatch = workers.flatMap(\.latencies.dispatch), ack = workers.flatMap(\.latencies.ack)
print(
    "farm overhead: \(status.segmentsTotal) one-frame segments, \(workerCount) echo workers, job completed and verified"
)
func row(_ label: String, _ values: [String]) {
    print(
        label.padding(toLength: 34, withPad: " ", startingAt: 0)
            + values.map { String(repeating: " ", count: max(0, 10 - $0.count)) + $0 }.joined())
}
func ms(_ v: Double) -> String { String(format: "%.3f", v * 1000) }
row("milliseconds", ["p50", "p99", "max"])
row(
    "dispatch (Ready → TaskAssign)",
    [ms(percentile(dispatch, 0.5)), ms(percentile(dispatch, 0.99)), ms(dispatch.max() ?? .nan)])
row("result (ResultOffer → ResultAck)", [ms(percentile(ack, 0.5)), ms(percentile(ack, 0.99)), ms(ack.max() ?? .nan)])
print(
    String(
        format: "whole job: %.2f s, %.0f segments/s (planning, dispatch, spool, stitch, verify)", wall,
        Double(status.segmentsTotal) / wall))
