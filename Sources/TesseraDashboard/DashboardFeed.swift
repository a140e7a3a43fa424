import Foundation
import Hummingbird
import ServiceLifecycle
import Synchronization
import TesseraCore
import TesseraHTTP

/// The dashboard's one snapshot builder and the event stream's fan-out.
///
/// ```
///  FarmService ──poll (100 ms)──▶ build snapshot ──▶ FeedCoalescer ──▶ each client's bounded buffer ──▶ SSE
///  (workers and the summary each     (rates: the       (changed sections,  (8 messages; a client that
///   poll; jobs and segments each      coordinator's     ≤ 1 message/s,      falls behind is dropped)
///   500 ms)                           rate book)        heartbeat)
/// ```
///
/// A poll inside the coalescer's gap does nothing: busy, the snapshot is built once a second.
/// A new client gets the latest full snapshot at once, then what the coalescer sends. Run it as a
/// `Service` (the coordinator's `ServiceGroup`); without it running, clients get a snapshot built on
/// demand and no updates.
public final class DashboardFeed: Service, Sendable {
    let service: any FarmService
    let pollInterval: Duration
    /// Messages a client may have waiting before it is dropped.
    let clientBuffer: Int
    /// The coordinator's liveness window (heartbeat × liveness), passed on to the page.
    let livenessSeconds: Double?
    /// A worker heard from within this many seconds (two heartbeats) shows as heard from now, so a
    /// healthy worker's row does not change at every heartbeat; past it, its silence is sent exactly.
    let quietSeconds: Double
    private let state: Mutex<State>

    struct State: Sendable {
        var coalescer: FeedCoalescer
        var latest: DashboardSnapshot?
        /// The snapshot the last update was built from.
        var lastSent: DashboardSnapshot?
        var clients: [Int: AsyncStream<ByteBuffer>.Continuation] = [:]
        var nextClient = 0
        var dropped = 0
        var store: StoreView?
        var finishedFailures: [String: [DashboardSnapshot.Failure]] = [:]
    }

    public init(
        service: any FarmService, pollInterval: Duration = .milliseconds(100), minimumGap: Double = 1,
        heartbeat: Double = 2, clientBuffer: Int = 8, workerHeartbeatSeconds: Double? = nil,
        livenessSeconds: Double? = nil
    ) {
        self.livenessSeconds = livenessSeconds
        self.quietSeconds = workerHeartbeatSeconds.map { 2 * $0 } ?? 0
        self.service = service
        self.pollInterval = pollInterval
        self.clientBuffer = clientBuffer
        state = Mutex(State(coalescer: FeedCoalescer(minimumGap: minimumGap, heartbeat: heartbeat)))
    }

    /// Polls until cancelled or the group shuts down gracefully, then ends every client's stream, so
    /// open pages do not hold the HTTP server's shutdown for its grace period.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await self.tick()
                // With no page open, a snapshot a second keeps the rates and the first page fresh.
                let idle = self.state.withLock { $0.clients.isEmpty }
                try? await Task.sleep(for: idle ? max(self.pollInterval, .seconds(1)) : self.pollInterval)
            }
        }
        let clients = state.withLock { state in
            defer { state.clients = [:] }
            return Array(state.clients.values)
        }
        for client in clients { client.finish() }
    }

    /// Builds a snapshot and sends what changed to every client.
    func tick(now: Double = Date().timeIntervalSince1970) async {
        // Within the coalescer's gap nothing can be sent, so nothing is built; after it, the snapshot is
        // built and only the sections that differ from the last one sent are encoded. Busy, that is one
        // build a second; quiet, one a poll until something changes.
        guard state.withLock({ $0.coalescer.mayPost(at: now) }) else { return }
        let snapshot = await build(now: now)
        let lastSent = state.withLock { state in
            state.latest = snapshot
            return state.lastSent
        }
        let sections = Self.sections(of: snapshot, changedSince: lastSent)
        state.withLock { state in
            guard let message = state.coalescer.next(sections, at: now) else { return }
            if case .update = message { state.lastSent = snapshot }
            let text: String
            switch message {
            case .heartbeat: text = "event: heartbeat\ndata: {\"at\":\(now)}\n\n"
            case .update(let changed):
                text = "event: update\ndata: \(Self.message(at: now, livenessSeconds: nil, sections: changed))\n\n"
            }
            // One buffer for every client: they share its storage, and nothing is copied per client.
            let buffer = ByteBuffer(string: text)
            for (id, client) in state.clients {
                switch client.yield(buffer) {
                case .enqueued: break
                case .dropped, .terminated:
                    client.finish()
                    state.clients[id] = nil
                    state.dropped += 1
                @unknown default: break
                }
            }
        }
    }

    /// A new client's stream: `retry` and the full snapshot, then updates until it is dropped or leaves.
    func subscribe() async -> (id: Int, messages: AsyncStream<ByteBuffer>) {
        let snapshot = await current()
        let (stream, continuation) = AsyncStream<ByteBuffer>.makeStream(bufferingPolicy: .bufferingOldest(clientBuffer))
        let full = Self.message(
            at: snapshot.at, livenessSeconds: snapshot.livenessSeconds, sections: Self.sections(of: snapshot))
        continuation.yield(ByteBuffer(string: "retry: 1000\nevent: snapshot\ndata: \(full)\n\n"))
        let id = state.withLock { state in
            let id = state.nextClient
            state.nextClient += 1
            state.clients[id] = continuation
            return id
        }
        return (id, stream)
    }

    func unsubscribe(_ id: Int) {
        state.withLock { $0.clients.removeValue(forKey: id) }?.finish()
    }

    /// Clients connected now, and clients dropped for falling behind since the start.
    var clientCounts: (connected: Int, dropped: Int) { state.withLock { ($0.clients.count, $0.dropped) } }

    /// The latest snapshot, built now when none has been.
    public func current() async -> DashboardSnapshot {
        if let latest = state.withLock({ $0.latest }) { return latest }
        let snapshot = await build(now: Date().timeIntervalSince1970)
        state.withLock { $0.latest = $0.latest ?? snapshot }
        return snapshot
    }

    // MARK: Building

    static let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return e
    }()

    /// The snapshot's sections, rendered by `DashboardPage.sections` and written as JSON strings, those
    /// equal to `last`'s left out (all of them without one).
    static func sections(
        of s: DashboardSnapshot, changedSince last: DashboardSnapshot? = nil
    ) -> [(name: String, json: String)] {
        DashboardPage.sections(s, changedSince: last).map { section in
            (section.name, String(decoding: (try? encoder.encode(section.html)) ?? Data("\"\"".utf8), as: UTF8.self))
        }
    }

    /// An event's data: `at`, the liveness window on the first one, and the sections as
    /// `{"sections":{"workers":"<tr …>", …}}`.
    static func message(at: Double, livenessSeconds: Double?, sections: [(name: String, json: String)]) -> String {
        var fields = ["\"at\":\(at)"]
        if let livenessSeconds { fields.append("\"livenessSeconds\":\(livenessSeconds)") }
        fields.append("\"sections\":{" + sections.map { "\"\($0.name)\":\($0.json)" }.joined(separator: ",") + "}")
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// Segment failures are listed for running jobs and this many of the latest finished ones.
    static let finishedMaps = 10
    static let errorsShown = 50

    /// Jobs and segment maps come from the job store: read at most every `storeInterval` seconds, while
    /// workers (held in memory by the dispatcher) are read at every poll, so a worker's change reaches
    /// the page soonest.
    static let storeInterval = 0.5

    struct StoreView: Sendable {
        var at: Double
        var running: [JobStatus]
        var finished: [JobStatus]
        /// Running jobs' maps only: a finished job's map is on its own page.
        var maps: [DashboardSnapshot.SegmentMap]
        var failures: [DashboardSnapshot.Failure]
    }

    /// Reads what is not finished and the latest finished page, never the whole history. A finished
    /// job's segment failures never change, so they are read once and kept while the job is listed.
    func storeView(now: Double) async -> StoreView {
        if let cached = state.withLock({ $0.store }), now - cached.at < Self.storeInterval, now >= cached.at {
            return cached
        }
        let (running, finished) =
            (try? await service.recentJobs(finishedLimit: DashboardSnapshot.finishedShown, offset: 0)) ?? ([], [])
        var maps: [DashboardSnapshot.SegmentMap] = []
        var failures: [DashboardSnapshot.Failure] = []
        for job in running {
            guard let segments = try? await service.segments(of: job.id) else { continue }
            maps.append(.init(job: job.id, segments: segments))
            failures += Self.failures(job: job.id, segments)
        }
        let known = state.withLock { $0.finishedFailures }
        var kept: [String: [DashboardSnapshot.Failure]] = [:]
        for job in finished.prefix(Self.finishedMaps) {
            if let listed = known[job.id] {
                kept[job.id] = listed
            } else if let segments = try? await service.segments(of: job.id) {
                kept[job.id] = Self.failures(job: job.id, segments)
            }
            failures += kept[job.id] ?? []
        }
        for job in running + finished where job.state == .failed {
            failures.append(.init(job: job.id, segment: nil, message: job.error ?? "failed"))
        }
        let view = StoreView(
            at: now, running: running, finished: finished, maps: maps,
            failures: Array(failures.suffix(Self.errorsShown)))
        state.withLock {
            $0.store = view
            $0.finishedFailures = kept
        }
        return view
    }

    static func failures(job: String, _ segments: [SegmentStatus]) -> [DashboardSnapshot.Failure] {
        segments.flatMap { segment in segment.errors.map { .init(job: job, segment: segment.index, message: $0) } }
    }

    func build(now: Double) async -> DashboardSnapshot {
        let workers = await service.workers()
        let view = await storeView(now: now)
        let farm = await service.summary()
        return DashboardSnapshot(
            at: now,
            workers: workers.map { w in
                var row = DashboardSnapshot.Worker(w)
                if row.lastSeenSeconds < quietSeconds { row.lastSeenSeconds = 0 }
                return row
            },
            jobs: (view.running + view.finished).map(DashboardSnapshot.Job.init),
            throughput: .init(
                framesPerSecond: farm.framesPerSecond, realtime: farm.realTime, points: farm.points,
                backups: farm.backups),
            maps: view.maps, errors: view.failures, livenessSeconds: livenessSeconds)
    }
}
