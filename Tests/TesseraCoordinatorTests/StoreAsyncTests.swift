import Foundation
import Synchronization
import TesseraCoordinator
import TesseraCore
import TesseraTestSupport
import Testing

@Suite("JobStore async reads and writes")
struct StoreAsyncTests {
    @Test("async reads see consistent, growing snapshots while a thread writes")
    func readsWhileWriting() async throws {
        let folder = try TestMedia.makeDirectory("tessera-store")
        defer { TestMedia.cleanup(folder) }
        let store = try JobStore(path: folder.appendingPathComponent("jobs.sqlite").path)
        let id = try store.runningJob(frames: Array(repeating: 2, count: 150))
        let total = 150
        let finished = Mutex<Result<Void, StoreError>?>(nil)
        // Half way, the writer waits (up to 10 s) until a read has seen it there, so the test does not
        // depend on how the two threads happen to be scheduled on a loaded machine.
        let sawHalfWay = Mutex(false)

        // The scheduler's side: blocking writes on a dedicated thread, one transaction per segment.
        let writer = Thread {
            let outcome = Result<Void, StoreError> { () throws(StoreError) in
                while let lease = try store.lease("w", deadline: 9_999) {
                    _ = try store.complete(
                        jobID: lease.jobID, segment: lease.segment, attempt: lease.attempt,
                        spoolFile: "/spool/\(lease.segment).seg", encodeSeconds: 0.1,
                        processor: "cpu")
                    if lease.segment == total / 2 {
                        let deadline = Date().addingTimeInterval(10)
                        while !sawHalfWay.withLock({ $0 }) && Date() < deadline { usleep(1000) }
                    }
                }
            }
            finished.withLock { $0 = outcome }
        }
        writer.start()

        var seen: [Int] = []
        while finished.withLock({ $0 == nil }) {
            let job = try #require(try await store.jobAsync(id))
            let segments = try await store.segmentsAsync(of: id)
            let done = segments.count { $0.state == .done }
            #expect(job.segmentsDone <= done, "a later snapshot cannot have fewer done segments")
            #expect(segments.allSatisfy { $0.state != .done || $0.spoolFile == "/spool/\($0.index).seg" })
            seen.append(done)
            if done > 0 && done < total { sawHalfWay.withLock { $0 = true } }
            #expect(try await store.jobsAsync().map(\.id) == [id])
        }
        if case .failure(let error) = finished.withLock({ $0 }) { Issue.record("writer failed: \(error)") }
        #expect(seen == seen.sorted(), "done counts went backwards: \(seen)")
        #expect(seen.contains { $0 > 0 && $0 < total }, "no read saw the writer half way: \(seen)")
        #expect(try await store.jobAsync(id)?.segmentsDone == total)
        #expect(try await store.jobAsync("j-00000000") == nil)
        #expect(try await store.segmentsAsync(of: "j-00000000").isEmpty)
    }

    @Test("a page of history: every unfinished job, and finished ones by when they finished, paged")
    func recentJobsArePaged() async throws {
        let folder = try TestMedia.makeDirectory("tessera-store")
        defer { TestMedia.cleanup(folder) }
        let clock = TestClock()
        let store = try JobStore(path: folder.appendingPathComponent("jobs.sqlite").path, clock: clock.read)
        var finishedOrder: [String] = []  // most recently finished first
        var active: [String] = []
        for n in 0..<12 {
            clock.advance(by: 1)
            let id = try store.runningJob(frames: [5, 5], name: "in\(n).mov")
            if n % 4 == 3 {
                active.insert(id, at: 0)
                continue
            }
            finishedOrder.insert(id, at: 0)
        }
        // Finish them in another order than they were made: the oldest last.
        for (n, id) in (finishedOrder.reversed().dropFirst() + [finishedOrder.last!]).enumerated() {
            clock.advance(by: 1)
            try store.transition(id, to: n % 2 == 0 ? .cancelled : .failed, error: "stopped")
        }
        let expected = [finishedOrder.last!] + finishedOrder.dropLast()
        let first = try await store.recentJobsAsync(finishedLimit: 4, offset: 0)
        #expect(first.active.map(\.id) == active, "every unfinished job, newest first")
        #expect(first.finished.map(\.id) == Array(expected.prefix(4)))
        #expect(
            try await store.recentJobsAsync(finishedLimit: 4, offset: 4).finished.map(\.id) == Array(expected[4..<8]))
        #expect(
            try await store.recentJobsAsync(finishedLimit: 4, offset: 8).finished.map(\.id) == Array(expected[8...]))
        #expect(try await store.recentJobsAsync(finishedLimit: 4, offset: 400).finished.isEmpty)
        #expect(first.finished.allSatisfy { $0.framesTotal == 10 && $0.segmentsTotal == 2 })
        // The plain list, a page at a time: newest first, as `jobsAsync()` lists them all.
        let all = try await store.jobsAsync().map(\.id)
        #expect(all.count == 12)
        #expect(try await store.jobsAsync(limit: 5, offset: 0).map(\.id) == Array(all[0..<5]))
        #expect(try await store.jobsAsync(limit: 5, offset: 10).map(\.id) == Array(all[10...]))
    }

    @Test("the HTTP layer's writes go through GRDB's async API: insert, move, refuse an illegal move")
    func asyncWrites() async throws {
        let folder = try TestMedia.makeDirectory("tessera-store")
        defer { TestMedia.cleanup(folder) }
        let store = try JobStore(path: folder.appendingPathComponent("jobs.sqlite").path)
        let job = try await store.insertJobAsync(
            request: JobRequest(priority: 3), source: "/m/a.mov",
            output: "/o/a.mp4", priority: 3)
        #expect(job.state == .queued && job.priority == 3 && job.source == "/m/a.mov")
        #expect(try await store.jobAsync(job.id)?.output == "/o/a.mp4")
        let cancelled = try await store.transitionAsync(job.id, to: .cancelled)
        #expect(cancelled.state == .cancelled && cancelled.finishedAt != nil)
        await #expect(throws: StoreError.self) { try await store.transitionAsync(job.id, to: .running) }
        await #expect(throws: StoreError.self) { try await store.transitionAsync("j-00000000", to: .cancelled) }
    }
}
