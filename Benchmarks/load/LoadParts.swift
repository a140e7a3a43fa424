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
    let client: FarmClient
    let source: String
    let segmentDuration: Double
    private let counts = Mutex((finished: 0, failed: 0))

    init(client: FarmClient, source: String, segmentDuration: Double) {
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

/// One dashboard's event stream, read as it arrives on URLSession's delegate queue; records each
/// message's event name and size in bytes.
final class StreamReader: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    struct Message: Sendable {
        var event: String
        var bytes: Int
    }

    private let request: URLRequest
    private let state = Mutex((buffer: Data(), messages: [Message]()))
    private var session: URLSession?

    init(base: URL, token: String) {
        var request = URLRequest(url: base.appendingPathComponent("/v1/events"))
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        request.timeoutInterval = 3600
        self.request = request
    }

    func open() {
        let session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: nil)
        self.session = session
        session.dataTask(with: request).resume()
    }

    /// Closes the stream and returns what it read.
    func close() -> [Message] {
        session?.invalidateAndCancel()
        session = nil
        return state.withLock { $0.messages }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        state.withLock { state in
            state.buffer.append(data)
            let separator = Data("\n\n".utf8)
            while let end = state.buffer.range(of: separator) {
                let message = state.buffer[state.buffer.startIndex..<end.upperBound]
                let text = String(decoding: message, as: UTF8.self)
                let event =
                    text.split(separator: "\n").first { $0.hasPrefix("event: ") }.map { String($0.dropFirst(7)) }
                    ?? "none"
                state.messages.append(Message(event: event, bytes: message.count))
                state.buffer.removeSubrange(state.buffer.startIndex..<end.upperBound)
            }
        }
    }
}
