import Foundation
import Synchronization
import TesseraTestSupport

/// A real farm on loopback for one test: a coordinator process and worker processes of the built
/// `tessera` binary, each with its own log file, in a temporary folder removed at the end.
final class FarmFixture: @unchecked Sendable {
    let root: URL
    let media: URL
    let outputs: URL
    let data: URL
    let logs: URL
    let keys: URL
    /// The coordinator's ports: it binds port 0 at its first start and logs what it got; a restart asks
    /// for the same ones, as a deployed coordinator keeps its address. Before it has started (a test of a
    /// refusal before any connection), port 9 (discard), where nothing listens: never a port reserved and
    /// let go, which another process could take meanwhile.
    var zmqPort: Int { ports.zmq ?? Self.unstartedPort }
    var httpPort: Int { ports.http ?? Self.unstartedPort }
    static let unstartedPort = 9
    private var ports: (zmq: Int?, http: Int?) = (nil, nil)
    let token = "t-\(UUID().uuidString)"
    let curve: Bool
    private(set) var coordinator: Process?
    private(set) var workers: [String: Process] = [:]
    /// Network namespace the coordinator (and the client commands) run in; nil = this one.
    var coordinatorNamespace: String?
    /// The address workers connect to.
    var coordinatorAddress = "127.0.0.1"
    /// Fast failure detection for tests: 200 ms heartbeats, dead after 2 s of silence (10 beats: a
    /// loaded 2-core machine can hold a process off the CPU for a second).
    var coordinatorFlags = ["--heartbeat-ms", "200", "--liveness", "10", "--stall-timeout", "8"]
    /// The coordinator's open-file limit (soft and hard), when a test lowers it; nil = inherited.
    var coordinatorFileLimit: Int?
    /// Whether the coordinator is started with the token (client commands send it either way).
    var withToken = true

    init(curve: Bool = false) throws {
        root = try TestMedia.makeDirectory("farm")
        media = root.appendingPathComponent("media")
        outputs = root.appendingPathComponent("out")
        data = root.appendingPathComponent("data")
        logs = root.appendingPathComponent("logs")
        keys = root.appendingPathComponent("keys")
        for d in [media, outputs, logs, keys] {
            try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        }
        try Data(token.utf8).write(to: keys.appendingPathComponent("token"))
        self.curve = curve
        if curve {
            try tessera(["keys", "generate", "--out", keys.appendingPathComponent("coordinator").path])
            try FileManager.default.createDirectory(
                at: keys.appendingPathComponent("allowed"), withIntermediateDirectories: true)
        }
    }

    deinit {
        for p in [coordinator].compactMap({ $0 }) + Array(workers.values) where p.isRunning {
            kill(p.processIdentifier, SIGKILL)
        }
        TestMedia.cleanup(root)
    }

    var endpoint: String { "tcp://\(coordinatorAddress):\(zmqPort)" }
    var httpURL: String { "http://127.0.0.1:\(httpPort)" }

    /// The `tessera coordinator` arguments this fixture starts it with.
    var coordinatorArguments: [String] {
        var args =
            [
                "coordinator",
                "--listen",
                "tcp://\(coordinatorNamespace == nil ? "127.0.0.1" : "*"):\(ports.zmq.map(String.init) ?? "*")",
                "--http", "127.0.0.1:\(ports.http ?? 0)",
                "--data", data.path, "--media-root", media.path, "--output-root", outputs.path,
            ] + (withToken ? ["--token-file", keys.appendingPathComponent("token").path] : []) + coordinatorFlags
        if curve {
            args += [
                "--curve-secret", keys.appendingPathComponent("coordinator.key").path,
                "--allowed-keys", keys.appendingPathComponent("allowed").path,
            ]
        }
        return args
    }

    /// Starts (or restarts) the coordinator and waits until its HTTP API answers.
    func startCoordinator() throws {
        coordinator = try launch(
            coordinatorArguments, log: "coordinator", namespace: coordinatorNamespace, fileLimit: coordinatorFileLimit)
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if ports.zmq == nil || ports.http == nil {
                let text = log("coordinator")
                ports.zmq = ports.zmq ?? Self.loggedPort(text, after: "coordinator listening on tcp://")
                ports.http = ports.http ?? Self.loggedPort(text, after: "HTTP API on http://")
            }
            if ports.zmq != nil, ports.http != nil, try client(["status", "--json"]).status == 0 { return }
            guard coordinator!.isRunning else { throw failure("coordinator exited:\n\(log("coordinator"))") }
            Thread.sleep(forTimeInterval: 0.2)
        }
        throw failure("coordinator did not answer on \(httpURL):\n\(log("coordinator"))")
    }

    /// Makes a worker key pair and puts its public key on the coordinator's allow-list (or not).
    func makeWorkerKey(_ name: String, allowed: Bool) throws {
        try tessera(["keys", "generate", "--out", keys.appendingPathComponent(name).path])
        if allowed {
            try FileManager.default.copyItem(
                at: keys.appendingPathComponent("\(name).pub"),
                to: keys.appendingPathComponent("allowed/\(name).pub"))
        }
    }

    @discardableResult
    func startWorker(
        _ name: String, threads: Int = 1, namespace: String? = nil, _ extra: [String] = []
    ) throws
        -> Process
    {
        var args =
            ["worker", "--coordinator", endpoint, "--id", name, "--backend", "cpu", "--threads", "\(threads)"] + extra
        if curve {
            args += [
                "--curve-key", keys.appendingPathComponent("\(name).key").path,
                "--coordinator-key", keys.appendingPathComponent("coordinator.pub").path,
            ]
        }
        let p = try launch(args, log: name, namespace: namespace)
        workers[name] = p
        return p
    }

    func signal(_ name: String, _ sig: Int32) {
        let p = name == "coordinator" ? coordinator : workers[name]
        if let p { kill(p.processIdentifier, sig) }
    }

    /// Slows a worker from outside, as a busy or throttled host would: SIGSTOP and SIGCONT in turn,
    /// `running` seconds on and `stopped` off, until the returned throttle is stopped (it leaves the
    /// worker running). Stops shorter than the liveness window keep it heartbeating.
    func throttle(_ name: String, running: Double, stopped: Double) -> Throttle {
        Throttle(pid: workers[name]?.processIdentifier ?? 0, running: running, stopped: stopped)
    }

    /// Waits for a process to exit; its exit status, or nil on timeout.
    func waitExit(_ name: String, timeout: Double) -> Int32? {
        guard let p = name == "coordinator" ? coordinator : workers[name] else { return nil }
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        return p.isRunning ? nil : p.terminationStatus
    }

    /// A client command against this farm (`tessera submit/status/…`).
    @discardableResult
    func client(_ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        var env = ProcessInfo.processInfo.environment
        env["TESSERA_COORDINATOR"] = httpURL
        env["TESSERA_TOKEN"] = token
        if let ns = coordinatorNamespace {
            return try TestMedia.runCapturing(
                "/usr/sbin/ip", ["netns", "exec", ns, TestMedia.tesseraBinary.path] + args,
                environment: env)
        }
        return try TestMedia.runCapturing(TestMedia.tesseraBinary.path, args, environment: env)
    }

    @discardableResult
    func tessera(_ args: [String]) throws -> String { try TestMedia.run(TestMedia.tesseraBinary.path, args) }

    /// Submits a job and returns its id.
    func submit(_ source: URL, output: String, _ extra: [String] = []) throws -> String {
        let r = try client(["submit", source.path, "-o", output, "--json"] + extra)
        guard r.status == 0, let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any],
            let id = json["id"] as? String
        else { throw failure("submit failed (\(r.status)): \(r.stderr)\(r.stdout)") }
        return id
    }

    func job(_ id: String) throws -> [String: Any] {
        let r = try client(["status", id, "--json"])
        guard r.status == 0, let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        else { throw failure("status failed (\(r.status)): \(r.stderr)") }
        return json
    }

    /// Polls until the job reaches a terminal state; returns its status.
    func wait(_ id: String, timeout: Double = 240) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let s = try job(id)
            if let state = s["state"] as? String, ["completed", "failed", "cancelled"].contains(state) { return s }
            Thread.sleep(forTimeInterval: 0.25)
        }
        throw failure(
            "job \(id) did not finish in \(Int(timeout)) s: \(try job(id))\n\(log("coordinator").suffix(3000))")
    }

    /// Waits until `predicate` holds, polling; false on timeout.
    func eventually(_ timeout: Double, _ predicate: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try predicate() { return true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return try predicate()
    }

    func log(_ name: String) -> String {
        (try? String(contentsOf: logs.appendingPathComponent("\(name).log"), encoding: .utf8)) ?? ""
    }

    /// Every worker log together.
    var workerLogs: String { workers.keys.sorted().map { log($0) }.joined(separator: "\n") }

    func failure(_ message: String) -> TestMedia.ToolFailure { TestMedia.ToolFailure(description: message) }

    /// Starts `tessera ARGS` (inside a network namespace with `ip netns exec`, which execs it, so the
    /// process is tessera itself).
    private func launch(
        _ args: [String], log name: String, namespace: String? = nil, fileLimit: Int? = nil
    ) throws -> Process {
        let p = Process()
        if let fileLimit {
            // prlimit sets the limit and execs the binary, so the process is tessera itself.
            p.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
            p.arguments = ["--nofile=\(fileLimit):\(fileLimit)", "--", TestMedia.tesseraBinary.path] + args
        } else if let namespace {
            p.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
            p.arguments = ["netns", "exec", namespace, TestMedia.tesseraBinary.path] + args
        } else {
            p.executableURL = TestMedia.tesseraBinary
            p.arguments = args
        }
        let logURL = logs.appendingPathComponent("\(name).log")
        if !FileManager.default.fileExists(atPath: logURL.path) {
            FileManager.default.createFile(atPath: logURL.path, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: logURL)
        handle.seekToEndOfFile()
        p.standardOutput = handle
        p.standardError = handle
        p.standardInput = FileHandle.nullDevice
        var env = ProcessInfo.processInfo.environment
        env["TESSERA_LOG_LEVEL"] = "info"
        p.environment = env
        try p.run()
        return p
    }

    /// The port in the first log line holding `marker` followed by host:port.
    static func loggedPort(_ log: String, after marker: String) -> Int? {
        guard let start = log.range(of: marker)?.upperBound else { return nil }
        let rest = log[start...].prefix { $0 != "\n" && $0 != " " }
        guard let colon = rest.lastIndex(of: ":") else { return nil }
        return Int(rest[rest.index(after: colon)...])
    }
}

/// A SIGSTOP/SIGCONT duty cycle on one process (`FarmFixture.throttle`).
final class Throttle: Sendable {
    private let on = Mutex(true)
    private let done = DispatchSemaphore(value: 0)

    init(pid: pid_t, running: Double, stopped: Double) {
        let thread = Thread { [self] in
            while on.withLock({ $0 }), pid > 0 {
                kill(pid, SIGSTOP)
                Thread.sleep(forTimeInterval: stopped)
                kill(pid, SIGCONT)
                Thread.sleep(forTimeInterval: running)
            }
            done.signal()
        }
        thread.start()
    }

    /// Ends the cycle with the process running.
    func stop() {
        guard
            on.withLock({ was in
                defer { was = false }
                return was
            })
        else { return }
        done.wait()
    }
}
