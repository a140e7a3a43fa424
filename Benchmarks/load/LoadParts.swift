// The load bench's parts: the store seeder, the job feeder, and the HTTP probes.
import Foundation
import Synchronization
import TesseraClient
import TesseraCoordinator
import TesseraCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fills a new store with finished jobs (one in twenty failed), through the store's own API so the rows
/// are what a coordinator writes. The store commits with `synchronous = FULL`; it is written in
/// /dev/shm, where a commit costs no disk flush, then moved into the data folder.
enum Seeder {
    static func seed(jobs: Int, into data: URL, source: String, outputs: String) throws {
        let scratch = URL(fileURLWithPath: "/dev/shm/tessera-load-seed-\(getpid())")
        try? FileManager.default.removeItem(at: scratch)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = scratch.appendingPathComponent("tessera.sqlite")
        do {
            let store = try JobStore(path: file.path)
            let request = JobRequest(
                source: source, output: "old.mp4",
                settings: OutputSettings(video: VideoSettings(codec: .h264), audio: nil),
                segmentDuration: 0.25, backend: .cpu)
            for n in 0..<jobs {
                let job = try store.insertJob(
                    request: request, source: source, output: outputs + "/old-\(n).mp4", priority: 0)
                try store.setPlan(job.id, segmentFrames: [25, 25, 25, 25], framesTotal: 100)
                try store.transition(job.id, to: .planning)
                try store.transition(job.id, to: .running)
                for segment in 0..<4 {
                    let lease = try store.lease(jobID: job.id, segment: segment, worker: "echo-\(n % 200)", deadline: 0)
                    _ = try store.complete(
                        jobID: job.id, segment: segment, attempt: lease.attempt, spoolFile: "", encodeSeconds: 0.5,
                        processor: "cpu")
                }
                if n % 20 == 19 {
                    try store.transition(job.id, to: .failed, error: "verification: frame count 99, expected 100")
                } else {
                    try store.transition(job.id, to: .stitching)
                    try store.transition(job.id, to: .verifying)
                    try store.transition(job.id, to: .completed)
                }
            }
            try store.close()
        }
        for name in try FileManager.default.contentsOfDirectory(atPath: scratch.path) {
            try FileManager.default.moveItem(
                at: scratch.appendingPathComponent(name), to: data.appendingPathComponent(name))
        }
    }
}

/// Keeps a few jobs of the all-intra source queued or running, submitting another as each finishes.
final class Feeder: Sendable {
    let client: CoordinatorClient
    let source: String
    let segmentDuration: Double
    private let counts = Mutex((finished: 0, failed: 0))

    init(client: CoordinatorClient, source: String, segmentDuration: Double) {
        self.client = client
        self.source = source
        self.segmentDuration = segmentDuration
    }

    var finished: Int { counts.withLock { $0.finished } }
    var failed: Int { counts.withLock { $0.failed } }

    func run(inFlight: Int) async {
        var running: [String] = []
        var n = 0
        while !Task.isCancelled {
            while running.count < inFlight {
                n += 1
                let request = JobRequest(
                    source: source, output: "load-\(n).mp4",
                    settings: OutputSettings(video: VideoSettings(codec: .h264), audio: nil),
                    segmentDuration: segmentDuration, backend: .cpu, overwrite: true)
                guard let job = try? await client.submit(request) else { break }
                running.append(job.id)
            }
            try? await Task.sleep(for: .milliseconds(500))
            var still: [String] = []
            for id in running {
                guard let status = try? await client.job(id) else {
                    still.append(id)
                    continue
                }
                if status.state.isTerminal {
                    counts.withLock {
                        $0.finished += 1
                        if status.state != .completed { $0.failed += 1 }
                    }
                } else {
                    still.append(id)
                }
            }
            running = still
        }
    }
}

/// Plain GETs with the bearer token, for timing and for counting.
struct HTTPProbe {
    let base: URL
    let token: String
    let session = URLSession(configuration: .ephemeral)

    func get(_ path: String) async throws -> Data {
        var request = URLRequest(url: base.appendingPathComponent(path))
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await session.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            throw ClientError(.rejected(status: status, error: "GET \(path)"), "GET \(path): \(status)")
        }
        return data
    }

    /// Samples in the exposition (every line that is not a comment): in all, those labelled with a
    /// worker, and the HTTP API's.
    func series() async throws -> (total: Int, perWorker: Int, http: Int) {
        let lines = String(decoding: try await get("/metrics"), as: UTF8.self).split(separator: "\n").filter {
            !$0.hasPrefix("#")
        }
        return (lines.count, lines.count { $0.contains("worker=\"") }, lines.count { $0.hasPrefix("tessera_http_") })
    }

    /// Exchanges the token for a session, as a page's sign-in does.
    func openSession() async throws {
        var request = URLRequest(url: base.appendingPathComponent("/v1/session"))
        request.httpMethod = "POST"
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (_, response) = try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else {
            throw ClientError(.rejected(status: status, error: "POST /v1/session"), "POST /v1/session: \(status)")
        }
    }
}

/// One dashboard's event stream on a plain TCP socket, read on a thread of its own that only counts:
/// each message's size and whether it was the snapshot. (URLSession's readers cost this 2-core machine
/// more CPU than the coordinator spent serving them, which a real dashboard on another machine does
/// not.)
final class StreamReader: @unchecked Sendable {
    struct Message: Sendable {
        var event: String
        var bytes: Int
    }

    private let port: UInt16
    private let request: String
    private let state = Mutex((messages: [Message](), fd: Int32(-1)))
    private let done = DispatchSemaphore(value: 0)

    init(base: URL, token: String) {
        port = UInt16(base.port ?? 80)
        request =
            "GET /v1/events HTTP/1.1\r\nHost: \(base.host ?? "127.0.0.1"):\(port)\r\n"
            + "Authorization: Bearer \(token)\r\nAccept: text/event-stream\r\n\r\n"
    }

    func open() {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard fd >= 0, connected == 0, request.utf8.count == request.withCString({ send(fd, $0, strlen($0), 0) })
        else { fail("cannot open the event stream on port \(port)") }
        state.withLock { $0.fd = fd }
        Thread { self.read(fd) }.start()
    }

    /// Reads until the stream closes, noting each message's event and size. A dashboard's browser
    /// would run on another machine, so this costs as little as it can: one pass over each read with
    /// no allocation per byte (only a message's first 48 bytes are kept, to name its event).
    private func read(_ fd: Int32) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 8)
        defer { buffer.deallocate() }
        var inHeaders = true, last: UInt32 = 0, size = 0
        var prefix = [UInt8](), found: [Message] = []
        prefix.reserveCapacity(48)
        while true {
            let n = recv(fd, buffer.baseAddress, buffer.count, 0)
            if n <= 0 { break }
            for byte in UnsafeRawBufferPointer(rebasing: buffer[0..<n]) {
                // The last four bytes, newest lowest: the headers end at CR LF CR LF, a message at LF LF.
                last = last << 8 | UInt32(byte)
                if inHeaders {
                    inHeaders = last != 0x0D0A_0D0A
                    continue
                }
                size += 1
                if prefix.count < 48 { prefix.append(byte) }
                if last & 0xFFFF == 0x0A0A {
                    let head = String(decoding: prefix, as: UTF8.self)
                    let event = ["snapshot", "update", "heartbeat"].first { head.contains("event: \($0)") } ?? "none"
                    found.append(Message(event: event, bytes: size))
                    size = 0
                    prefix.removeAll(keepingCapacity: true)
                }
            }
            if !found.isEmpty {
                state.withLock { $0.messages += found }
                found.removeAll(keepingCapacity: true)
            }
        }
        done.signal()
    }

    /// Closes the stream and returns what it read.
    func close() -> [Message] {
        let fd = state.withLock { $0.fd }
        guard fd >= 0 else { return [] }
        shutdown(fd, Int32(SHUT_RDWR))
        done.wait()
        Glibc.close(fd)
        return state.withLock {
            $0.fd = -1
            return $0.messages
        }
    }
}
