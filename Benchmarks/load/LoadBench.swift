// tessera-load-bench: the dashboard and the metrics under load (issue 17).
//
// A real `tessera coordinator` process, its store seeded with finished jobs, serves echo workers
// (Benchmarks/echo) that keep a stream of one-frame-segment jobs moving. Measured, in one run:
//   series     /metrics lines, at the start and after every job of the run (must not grow with jobs)
//   scrape     GET /metrics round trips during load, p50/p99
//   stream     /v1/events: the first snapshot's size, then each update's
//   cost       segments/s with no dashboard open and with 20 (each fetches the page, then reads the
//              stream), in alternating A B B A windows; `--dashboards 200` raises the signal above the
//              machine's noise and reports the cost scaled to 20
//   page       Benchmarks/load/page.py in chromium: the first load's bytes and time to interactive, then
//              a soak of an open page (JS heap after GC, DOM nodes, main-thread CPU)
// Usage: tessera-load-bench TESSERA [--workers 200] [--jobs 10000] [--soak 3600] [--windows 24]
//        [--dashboards 20] [--out DIR]
import Foundation
import TesseraBenchEcho
import TesseraClient
import TesseraCoordinator
import TesseraCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("tessera-load-bench: \(message)\n".utf8))
    exit(1)
}

func say(_ message: String) {
    FileHandle.standardError.write(
        Data("[\(Date().formatted(.iso8601.time(includingFractionalSeconds: false)))] \(message)\n".utf8))
}

struct Options {
    var tessera = ""
    var workers = 200
    var jobs = 10_000
    var soak = 3600.0
    var out = "bench-out/load"
    var python = "/opt/tessera-tools/bin/python"
    /// Windows of segments/s, half without dashboards and half with, in A B B A blocks.
    var windows = 24
    /// Dashboards open in the B windows. Their cost is per client beyond the snapshot the coordinator
    /// builds anyway, so many more than 20 raise it above this machine's noise; it is reported scaled to 20.
    var dashboards = 20

    init(_ arguments: [String]) {
        var rest = arguments.dropFirst()
        guard let binary = rest.popFirst() else {
            fail("usage: tessera-load-bench TESSERA [--workers N] [--jobs N] [--soak S] [--out DIR]")
        }
        tessera = binary
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { fail("\(flag) needs a value") }
            switch flag {
            case "--workers": workers = Int(value) ?? workers
            case "--jobs": jobs = Int(value) ?? jobs
            case "--soak": soak = Double(value) ?? soak
            case "--out": out = value
            case "--python": python = value
            case "--dashboards": dashboards = max(1, Int(value) ?? dashboards)
            case "--windows": windows = max(4, (Int(value) ?? windows) / 4 * 4)
            default: fail("unknown option \(flag)")
            }
        }
    }
}

func run(_ executable: String, _ arguments: [String]) -> Int32 {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = arguments
    p.standardInput = FileHandle.nullDevice
    do { try p.run() } catch { fail("cannot run \(executable): \(error)") }
    p.waitUntilExit()
    return p.terminationStatus
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

func median(_ values: [Double]) -> Double { percentile(values, 0.5) }

/// User and system CPU seconds a process has used (Linux /proc; 0 where it cannot be read).
func cpuSeconds(of pid: Int32) -> Double {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = text.lastIndex(of: ")")
    else { return 0 }
    // After "pid (name) " come state (field 3) … utime (14) and stime (15).
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// A process's resident memory now and at its peak (VmRSS, VmHWM), in MiB.
func residentMiB(of pid: Int32) -> (now: Double, peak: Double) {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return (0, 0) }
    func field(_ name: String) -> Double {
        text.split(separator: "\n").first { $0.hasPrefix(name) }.flatMap { line in
            line.split(separator: " ").dropFirst().first.flatMap { Double($0) }
        }.map { $0 / 1024 } ?? 0
    }
    return (field("VmRSS:"), field("VmHWM:"))
}

@main
struct LoadBench {
    static func main() async throws {
        let options = Options(CommandLine.arguments)
        let dir = URL(fileURLWithPath: "/tmp/tessera-load-bench-\(getpid())")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = URL(fileURLWithPath: options.out)
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)

        // An all-intra source: every frame is a one-frame segment the echo workers can send back as is.
        let framesPerJob = 400
        let source = dir.appendingPathComponent("intra.mp4")
        guard
            run(
                "/usr/bin/ffmpeg",
                [
                    "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi",
                    "-i", "testsrc2=size=64x64:rate=100:duration=\(Double(framesPerJob) / 100)",
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "1", "-bf", "0", "-pix_fmt", "yuv420p",
                    source.path,
                ]) == 0
        else { fail("ffmpeg could not make the source") }

        let data = dir.appendingPathComponent("data")
        let outputs = dir.appendingPathComponent("outputs")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: outputs, withIntermediateDirectories: true)
        let started = Date()
        try Seeder.seed(jobs: options.jobs, into: data, source: source.path, outputs: outputs.path)
        say("seeded \(options.jobs) finished jobs in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")

        let token = "load-bench-\(UUID().uuidString)"
        let tokenFile = dir.appendingPathComponent("token")
        try Data(token.utf8).write(to: tokenFile)
        chmod(tokenFile.path, 0o600)
        let zmqPort = Int.random(in: 20_000..<30_000), httpPort = zmqPort + 1
        let coordinator = Process()
        coordinator.executableURL = URL(fileURLWithPath: options.tessera)
        coordinator.arguments = [
            "coordinator", "--listen", "tcp://127.0.0.1:\(zmqPort)", "--http", "127.0.0.1:\(httpPort)",
            "--data", data.path, "--media-root", dir.path, "--output-root", outputs.path,
            "--token-file", tokenFile.path,
        ]
        _ = FileManager.default.createFile(atPath: out.appendingPathComponent("coordinator.log").path, contents: nil)
        let logHandle = try FileHandle(forWritingTo: out.appendingPathComponent("coordinator.log"))
        coordinator.standardOutput = logHandle
        coordinator.standardError = logHandle
        coordinator.standardInput = FileHandle.nullDevice
        try coordinator.run()
        defer {
            coordinator.terminate()
            coordinator.waitUntilExit()
        }
        let base = URL(string: "http://127.0.0.1:\(httpPort)")!
        let client = CoordinatorClient(baseURL: base, token: token, timeout: 30)
        let http = HTTPProbe(base: base, token: token)
        var healthy = false
        for _ in 0..<300 where !healthy {
            healthy = (try? await client.health()) != nil
            if !healthy { try await Task.sleep(for: .milliseconds(100)) }
        }
        guard healthy else { fail("the coordinator did not answer; see \(out.path)/coordinator.log") }
        say("coordinator up (\(String(format: "%.1f", Date().timeIntervalSince(started))) s since the start)")

        let workers = (0..<options.workers).map { EchoWorker(name: "echo-\($0)") }
        for w in workers { w.start(endpoint: "tcp://127.0.0.1:\(zmqPort)") { fail($0) } }
        var connected = 0
        for _ in 0..<300 where connected < options.workers {
            connected = (try? await client.workers().count) ?? 0
            if connected < options.workers { try await Task.sleep(for: .milliseconds(100)) }
        }
        guard connected >= options.workers else { fail("only \(connected) of \(options.workers) workers joined") }
        say("\(options.workers) echo workers joined")
        let idle = residentMiB(of: coordinator.processIdentifier)
        say(
            "coordinator resident with \(options.jobs) jobs in its store and \(options.workers) workers: "
                + String(format: "%.0f MiB (peak so far %.0f MiB)", idle.now, idle.peak))

        let feeder = Feeder(client: client, source: source.path, segmentDuration: 0.01)
        let feeding = Task { await feeder.run(inFlight: 3) }
        func segmentsDone() -> Int { workers.reduce(0) { $0 + $1.acknowledged } }
        while segmentsDone() < 2 * framesPerJob { try await Task.sleep(for: .milliseconds(200)) }

        var results: [(String, String, String)] = []

        // Scrape latency during load.
        var scrapes: [Double] = []
        for _ in 0..<200 {
            let t = Date()
            _ = try await http.get("/metrics")
            scrapes.append(Date().timeIntervalSince(t))
            try await Task.sleep(for: .milliseconds(50))
        }
        say("scrapes: p99 \(String(format: "%.1f", percentile(scrapes, 0.99) * 1000)) ms")
        let loaded = residentMiB(of: coordinator.processIdentifier)
        say(
            "coordinator resident while its workers run jobs: "
                + String(format: "%.0f MiB (peak so far %.0f MiB)", loaded.now, loaded.peak))

        // The stream's messages, read by one client for 20 s.
        let reader = StreamReader(base: base, token: token)
        reader.open()
        try await Task.sleep(for: .seconds(20))
        let sizes = reader.close()
        guard let snapshotBytes = sizes.first(where: { $0.event == "snapshot" })?.bytes else {
            fail("the stream sent no snapshot")
        }
        let updates = sizes.filter { $0.event == "update" }.map { Double($0.bytes) }
        let page = try await http.get("/")
        try await http.openSession()

        // Series: now that every route this run uses has answered once (a stream's duration is recorded
        // when the server sees it closed), and again after every job of it.
        try await Task.sleep(for: .seconds(3))
        let seriesStart = try await http.series()
        let finishedStart = feeder.finished

        // N dashboards: segments/s in alternating windows without (A) and with (B) them, in A B B A
        // blocks. A block's ratio (B₁ + B₂) / (A₁ + A₂) cancels a drift that is linear over it; the
        // blocks' median is the cost reported, their spread beside it.
        var windows: [(open: Bool, rate: Double, cpuPerSegment: Double)] = []
        let window = 15.0
        for open in (0..<options.windows).map({ [false, true, true, false][$0 % 4] }) {
            var readers: [StreamReader] = []
            if open {
                for i in 0..<options.dashboards {
                    // Each opens the page as a browser would (at most 20 of them: the renders happen before
                    // the window, and only the stream is measured), then reads the stream.
                    if i < 20 { _ = try await http.get("/") }
                    let r = StreamReader(base: base, token: token)
                    r.open()
                    readers.append(r)
                }
                try await Task.sleep(for: .seconds(2))  // every snapshot sent before the window
            }
            let before = segmentsDone(), t = Date(), cpuBefore = cpuSeconds(of: coordinator.processIdentifier)
            try await Task.sleep(for: .seconds(window))
            let segments = Double(segmentsDone() - before)
            let rate = segments / Date().timeIntervalSince(t)
            let cpu = (cpuSeconds(of: coordinator.processIdentifier) - cpuBefore) / max(1, segments)
            windows.append((open, rate, cpu))
            for r in readers { _ = r.close() }
            say(
                "window \(open ? "with \(options.dashboards) dashboards" : "without"): \(String(format: "%.0f", rate)) segments/s"
            )
        }
        let blocks = stride(from: 0, to: windows.count - 3, by: 4).map { Array(windows[$0..<$0 + 4]) }
        func blockRatio(
            _ block: [(open: Bool, rate: Double, cpuPerSegment: Double)], _ value: (Double, Double) -> Double
        ) -> Double {
            let with = block.filter(\.open), without = block.filter { !$0.open }
            return with.map { value($0.rate, $0.cpuPerSegment) }.reduce(0, +)
                / without.map { value($0.rate, $0.cpuPerSegment) }.reduce(0, +)
        }
        let rateRatios = blocks.map { blockRatio($0) { rate, _ in rate } }
        let cpuRatios = blocks.map { blockRatio($0) { _, cpu in cpu } }
        let rates = Dictionary(grouping: windows, by: \.open).mapValues { $0.map(\.rate) }
        let cpuPerSegment = Dictionary(grouping: windows, by: \.open).mapValues { $0.map(\.cpuPerSegment) }
        let without = median(rates[false] ?? []), with = median(rates[true] ?? [])

        let seriesEnd = try await http.series()
        let finishedEnd = feeder.finished

        // The page in a real browser: first load, then the soak, with the farm moving at a steadier pace.
        for w in workers { w.holdSeconds = 10 }
        let pageResult = out.appendingPathComponent("page.json")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("page.py")
        let status = run(
            options.python, [script.path, base.absoluteString, token, String(options.soak), pageResult.path])
        feeding.cancel()
        let browser = (try? JSONSerialization.jsonObject(with: Data(contentsOf: pageResult))) as? [String: Any] ?? [:]
        guard status == 0 else { fail("page.py failed (\(status))") }
        let seriesAfterSoak = try await http.series()
        for w in workers { w.stop() }

        let perWorkerTarget = 30 + 6 * options.workers
        results.append(
            (
                "series: before / after \(finishedEnd - finishedStart) jobs / after the soak",
                "\(seriesStart.total) / \(seriesEnd.total) / \(seriesAfterSoak.total)",
                "≤ \(perWorkerTarget), not growing"
            ))
        results.append(
            (
                "series: per worker / the rest (of which HTTP)",
                String(
                    format: "%.1f / %d (%d)", Double(seriesStart.perWorker) / Double(options.workers),
                    seriesStart.total - seriesStart.perWorker, seriesStart.http), "≤ 6 / (36 named at 0)"
            ))
        results.append(
            (
                "metrics scrape p50 / p99 / max",
                String(
                    format: "%.1f / %.1f / %.1f ms", median(scrapes) * 1000, percentile(scrapes, 0.99) * 1000,
                    (scrapes.max() ?? 0) * 1000), "p99 ≤ 50 ms"
            ))
        results.append(("page HTML (server-rendered)", "\(page.count / 1024) KB", ""))
        results.append(("stream: first snapshot", "\(snapshotBytes / 1024) KB", ""))
        results.append(
            (
                "stream: updates in 20 s, p50 / max size",
                "\(updates.count), \(Int(median(updates)) / 1024) / \(Int(updates.max() ?? 0) / 1024) KB",
                "≤ 1 a second"
            ))
        results.append(
            (
                "segments/s without / with \(options.dashboards) dashboards (medians)",
                String(format: "%.0f / %.0f", without, with), ""
            ))
        results.append(
            (
                "  cost: median of \(blocks.count) A B B A blocks (min … max)",
                String(
                    format: "%.1f %% (%.1f … %.1f)", (1 - median(rateRatios)) * 100,
                    (1 - (rateRatios.max() ?? 1)) * 100,
                    (1 - (rateRatios.min() ?? 1)) * 100), options.dashboards == 20 ? "cost < 2 %" : ""
            ))
        if options.dashboards != 20 {
            // The per-client work (a shared buffer written to one more socket, read on this machine) grows
            // with the clients; the snapshot is built once a second whether or not any is open.
            let scale = 20 / Double(options.dashboards)
            results.append(
                (
                    "  scaled to 20 dashboards (× 20/\(options.dashboards))",
                    String(
                        format: "%.2f %% (%.2f … %.2f)", (1 - median(rateRatios)) * 100 * scale,
                        (1 - (rateRatios.max() ?? 1)) * 100 * scale, (1 - (rateRatios.min() ?? 1)) * 100 * scale),
                    "cost < 2 %"
                ))
        }
        results.append(
            (
                "  windows of \(Int(window)) s: without / with, min–max",
                String(
                    format: "%.0f–%.0f / %.0f–%.0f (%d each)", rates[false]?.min() ?? 0, rates[false]?.max() ?? 0,
                    rates[true]?.min() ?? 0, rates[true]?.max() ?? 0, rates[true]?.count ?? 0), ""
            ))
        results.append(
            (
                "coordinator CPU ms per segment without / with",
                String(
                    format: "%.2f / %.2f (blocks: %+.1f %%, %+.1f … %+.1f)", median(cpuPerSegment[false] ?? []) * 1000,
                    median(cpuPerSegment[true] ?? []) * 1000, (median(cpuRatios) - 1) * 100,
                    ((cpuRatios.min() ?? 1) - 1) * 100, ((cpuRatios.max() ?? 1) - 1) * 100), "the server's own share"
            ))
        if let first = browser["firstLoad"] as? [String: Any] {
            results.append(("first load: bytes transferred", "\((first["bytes"] as? Int ?? 0) / 1024) KB", "≤ 500 KB"))
            results.append(
                (
                    "first load: interactive (first snapshot drawn)",
                    String(format: "%.0f ms", (first["interactiveMs"] as? Double) ?? -1), "< 2000 ms"
                ))
        }
        if let soak = browser["soak"] as? [String: Any] {
            results.append(
                (
                    "soak: length, samples",
                    String(format: "%.0f s, %d", soak["seconds"] as? Double ?? 0, soak["samples"] as? Int ?? 0), ""
                ))
            results.append(
                (
                    "soak: JS heap after GC first / max / last",
                    String(
                        format: "%.1f / %.1f / %.1f MB", soak["heapFirstMB"] as? Double ?? 0,
                        soak["heapMaxMB"] as? Double ?? 0, soak["heapLastMB"] as? Double ?? 0), "flat within 20 MB"
                ))
            results.append(
                (
                    "soak: DOM nodes first / max / last",
                    "\(soak["nodesFirst"] ?? 0) / \(soak["nodesMax"] ?? 0) / \(soak["nodesLast"] ?? 0)", ""
                ))
            results.append(
                (
                    "soak: page main-thread CPU",
                    String(format: "%.1f %%", (soak["cpuFraction"] as? Double ?? 0) * 100), ""
                ))
        }
        print(
            "dashboard under load: \(options.workers) echo workers, \(options.jobs) finished jobs in the store, jobs of \(framesPerJob) one-frame segments"
        )
        func cell(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
        for (what, measured, target) in results { print(cell(what, 58) + cell(measured, 34) + target) }
    }
}
