import Foundation
import TesseraCore

/// Segment thumbnails of finished jobs: made at most `concurrency` at a time, each once (a request for one
/// being made waits for it), and the recent ones kept up to `maxBytes`. A thousand concurrent requests
/// were a thousand threads decoding the output at once (371 threads, 1.7 GB kept at 1.09 GB afterwards);
/// now they are at most `concurrency` threads and `maxWaiting` queued, and the rest are told to retry.
actor ThumbnailCache {
    struct Key: Hashable {
        var job: String
        var segment: Int
    }

    /// Why a thumbnail was not made: too many waiting already.
    struct Busy: Error {}

    let concurrency: Int
    let maxWaiting: Int
    let maxBytes: Int
    private var kept: [Key: Data] = [:]
    /// Least recently used first.
    private var order: [Key] = []
    private var bytes = 0
    private var making: [Key: Task<Data, any Error>] = [:]
    private var running = 0
    /// Making or waiting to.
    private var admitted = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(concurrency: Int = 2, maxWaiting: Int = 64, maxBytes: Int = 16 << 20) {
        self.concurrency = max(1, concurrency)
        self.maxWaiting = maxWaiting
        self.maxBytes = maxBytes
    }

    /// The thumbnail for `key`, from the cache or made by `make` (on a dedicated thread).
    /// - Throws: `Busy` when `maxWaiting` requests already wait for a turn; what `make` throws.
    func thumbnail(_ key: Key, make: @escaping @Sendable () throws -> Data) async throws -> Data {
        if let data = kept[key] {
            touch(key)
            return data
        }
        if let task = making[key] { return try await task.value }
        // Counted here, not when a task reaches its turn, so a burst is bounded as it arrives.
        guard admitted < concurrency + maxWaiting else { throw Busy() }
        admitted += 1
        let task = Task { () async throws -> Data in
            await self.turn()
            defer { Task { await self.done() } }
            return try await DedicatedThread.run(name: "tessera.thumbnail", make)
        }
        making[key] = task
        defer { making[key] = nil }
        let data = try await task.value
        keep(key, data)
        return data
    }

    /// How many are kept, and their bytes (for tests and metrics).
    var counts: (thumbnails: Int, bytes: Int) { (kept.count, bytes) }

    private func turn() async {
        if running < concurrency {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func done() {
        admitted -= 1
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()  // the turn passes on; `running` stays
        }
    }

    private func touch(_ key: Key) {
        if let i = order.firstIndex(of: key) { order.remove(at: i) }
        order.append(key)
    }

    private func keep(_ key: Key, _ data: Data) {
        guard data.count <= maxBytes, kept[key] == nil else { return }
        kept[key] = data
        order.append(key)
        bytes += data.count
        while bytes > maxBytes, let oldest = order.first {
            order.removeFirst()
            bytes -= kept.removeValue(forKey: oldest)?.count ?? 0
        }
    }
}
