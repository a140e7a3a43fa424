import Foundation
import TesseraTestSupport
import Testing

/// A slow-header flood against a coordinator whose open-file limit is lowered to 256: more connections
/// than it has descriptors, each sending a request line and then a header every 2 s. The farm keeps its
/// descriptors (HTTP takes at most half, and a connection whose head does not arrive in time is closed),
/// so the running job completes, its results are spooled, and no worker is blamed or quarantined.
@Suite("Farm under an HTTP flood", .serialized)
struct FarmFloodTests {
    /// Holds `count` connections open for up to `seconds` (until the file `stop` appears), each trickling
    /// one header line every 2 s, reopening any the server closes. Prints JSON: how many the server
    /// closed, and the most open at once.
    static let flood = """
        import json, os, socket, sys, time
        host, port, count, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
        stop = sys.argv[5]
        socks, closed, most, end, tick = [], 0, 0, time.time() + seconds, 0
        def open_one():
            s = socket.socket(); s.setblocking(False)
            try: s.connect((host, port))
            except BlockingIOError: pass
            except OSError: return None
            return [s, False]
        while time.time() < end and not os.path.exists(stop):
            socks = [c for c in socks if c is not None]
            while len(socks) < count:
                c = open_one()
                if c is None: break
                socks.append(c)
            for c in socks:
                try:
                    if not c[1]:
                        c[0].send(b"GET /healthz HTTP/1.1\\r\\nHost: flood\\r\\n"); c[1] = True
                    else:
                        c[0].send(b"X-Slow-%d: 1\\r\\n" % tick)
                    try:
                        if c[0].recv(1, socket.MSG_DONTWAIT) == b"": raise ConnectionResetError()
                    except BlockingIOError: pass
                except (BlockingIOError, InterruptedError): pass
                except OSError:
                    closed += 1; c[0].close(); c[0] = None
            socks = [c for c in socks if c[0] is not None]
            most = max(most, len(socks)); tick += 1
            time.sleep(2)
        print(json.dumps({"closedByServer": closed, "mostOpen": most}))
        """

    @Test("a slow-header flood past the descriptor limit: the job completes, no worker is quarantined")
    func slowHeaderFloodLeavesTheFarmWorking() throws {
        let farm = try FarmFixture()
        farm.coordinatorFileLimit = 256
        let src = farm.media.appendingPathComponent("a.mp4")
        try TestMedia.make(src, seconds: 20, width: 1280, height: 720, extra: ["-g", "15"])
        try farm.startCoordinator()
        try farm.startWorker("w1")
        try farm.startWorker("w2")
        let id = try farm.submit(src, output: "out.mp4", ["--segment-duration", "0.5", "--preset", "HighestQuality"])
        // Mid-job: results arrive (and are spooled) while the flood holds its connections.
        _ = try farm.eventually(60) { (try farm.job(id)["segmentsDone"] as? Int ?? 0) >= 1 }
        let flood = Process()
        flood.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        let stop = farm.root.appendingPathComponent("stop-flood")
        flood.arguments = ["-c", Self.flood, "127.0.0.1", "\(farm.httpPort)", "400", "180", stop.path]
        let out = Pipe()
        flood.standardOutput = out
        flood.standardError = FileHandle.nullDevice
        try flood.run()
        // The job ends under the flood (read from the coordinator's log: the API is what is flooded).
        let started = Date()
        let ended = farm.eventually(170) {
            let log = farm.log("coordinator")
            return log.contains("job \(id) completed") || log.contains("job \(id) failed")
        }
        // Held past the head timeout (10 s) at least, so the server's closing of trickling heads is seen.
        while Date().timeIntervalSince(started) < 15 { Thread.sleep(forTimeInterval: 0.2) }
        FileManager.default.createFile(atPath: stop.path, contents: nil)
        let said = out.fileHandleForReading.readDataToEndOfFile()
        flood.waitUntilExit()
        #expect(ended, "the job did not end under the flood")
        let figures = try #require(try JSONSerialization.jsonObject(with: said) as? [String: Int], "\(said)")
        // The server closed the connections whose head never came, and the flood did hold more connections
        // (accepted or waiting in the backlog) than the coordinator has descriptors for.
        #expect((figures["closedByServer"] ?? 0) > 0, "\(figures)")
        #expect((figures["mostOpen"] ?? 0) > 256, "\(figures)")
        let status = try farm.wait(id, timeout: 240)
        let log = farm.log("coordinator")
        #expect(status["state"] as? String == "completed", "\(status)\n\(log.suffix(3000))")
        #expect(!log.contains("in a row"), "a worker was quarantined: \(log.suffix(3000))")
        #expect(!log.lowercased().contains("too many open files"), "\(log.suffix(3000))")
        let workers = try farm.client(["workers", "--json"])
        #expect(workers.status == 0 && !workers.stdout.contains("quarantined"), "\(workers.stdout)")
        let segments = try #require(
            try JSONSerialization.jsonObject(
                with: Data(try farm.client(["status", id, "--json"]).stdout.utf8)) as? [String: Any])
        #expect(segments["error"] == nil || segments["error"] is NSNull, "\(segments)")
        #expect(farm.coordinator?.isRunning == true)
        #expect(
            try TestMedia.runCapturing(
                TestMedia.tesseraBinary.path,
                ["verify", farm.outputs.appendingPathComponent("out.mp4").path, "--against", src.path]
            ).status == 0)
    }
}
