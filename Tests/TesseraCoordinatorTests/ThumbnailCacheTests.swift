import Foundation
import Synchronization
import Testing

@testable import TesseraCoordinator

/// Thumbnails are made a few at a time, each once however many ask, kept within a byte budget, and
/// past the queue's bound a request is told to come back rather than adding a thread.
@Suite struct ThumbnailCacheTests {
    /// Counts how many makers run at once and how often each key is made.
    final class Probe: Sendable {
        let state = Mutex((now: 0, most: 0, made: [Int: Int]()))
        func make(_ key: Int, bytes: Int = 100) -> Data {
            state.withLock {
                $0.now += 1
                $0.most = max($0.most, $0.now)
                $0.made[key, default: 0] += 1
            }
            usleep(20_000)
            state.withLock { $0.now -= 1 }
            return Data(count: bytes)
        }
    }

    @Test func manyRequestsMakeEachOnceAtMostTwoAtATime() async throws {
        let cache = ThumbnailCache(concurrency: 2, maxWaiting: 1000)
        let probe = Probe()
        try await withThrowingTaskGroup(of: Data.self) { group in
            for i in 0..<200 {
                let key = i % 10
                group.addTask {
                    try await cache.thumbnail(.init(job: "j", segment: key)) { probe.make(key) }
                }
            }
            for try await data in group { #expect(data.count == 100) }
        }
        let (most, made) = probe.state.withLock { ($0.most, $0.made) }
        #expect(most <= 2, "\(most) made at once")
        #expect(made.count == 10 && made.values.allSatisfy { $0 == 1 }, "\(made)")
        #expect(await cache.counts.thumbnails == 10)
    }

    @Test func pastTheQueuesBoundARequestIsBusy() async throws {
        let cache = ThumbnailCache(concurrency: 1, maxWaiting: 2)
        let probe = Probe()
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for i in 0..<20 {
                group.addTask {
                    do {
                        _ = try await cache.thumbnail(.init(job: "j", segment: i)) { probe.make(i) }
                        return true
                    } catch { return !(error is ThumbnailCache.Busy) }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.contains(false), "every request was taken: the queue is unbounded")
        #expect(outcomes.contains(true))
        #expect(probe.state.withLock { $0.most } == 1)
    }

    @Test func theOldestAreDroppedPastTheByteBudget() async throws {
        let cache = ThumbnailCache(concurrency: 2, maxWaiting: 10, maxBytes: 1000)
        let probe = Probe()
        for i in 0..<5 {
            _ = try await cache.thumbnail(.init(job: "j", segment: i)) { probe.make(i, bytes: 300) }
        }
        let counts = await cache.counts
        #expect(counts.thumbnails == 3 && counts.bytes == 900, "\(counts)")
        // The newest is still kept: asking again makes nothing.
        _ = try await cache.thumbnail(.init(job: "j", segment: 4)) { probe.make(4, bytes: 300) }
        #expect(probe.state.withLock { $0.made[4] } == 1)
        _ = try await cache.thumbnail(.init(job: "j", segment: 0)) { probe.make(0, bytes: 300) }
        #expect(probe.state.withLock { $0.made[0] } == 2, "the oldest was dropped and made again")
    }
}
