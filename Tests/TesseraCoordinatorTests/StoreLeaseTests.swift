import Foundation
import Testing
import TesseraCoordinator
import TesseraCore
import TesseraTestSupport

@Suite("JobStore leases")
struct StoreLeaseTests {
    @Test("two running jobs of equal priority take turns; the one with fewer leases goes next")
    func fairness() throws {
        try withStore { store, clock, _ in
            let a = try store.runningJob(name: "a")
            clock.advance(by: 1)
            let b = try store.runningJob(name: "b")
            var leases: [Lease] = []
            for worker in ["w1", "w2", "w3", "w4"] { leases.append(try #require(try store.lease(worker))) }
            #expect(leases.map(\.jobID) == [a, b, a, b])
            #expect(leases.map(\.segment) == [0, 0, 1, 1])
            #expect(leases.allSatisfy { $0.attempt == 1 } && leases.map(\.worker) == ["w1", "w2", "w3", "w4"])
            // a's two finish; b still holds two, so a is served twice before b again.
            for lease in leases where lease.jobID == a {
                #expect(try store.complete(jobID: a, segment: lease.segment, attempt: 1, spoolFile: "/x",
                                           encodeSeconds: 1, processor: "cpu") == .accepted)
            }
            let next = try (0..<3).map { _ in try #require(try store.lease("w5")) }
            #expect(next.map(\.jobID) == [a, a, b] && next.map(\.segment) == [2, 3, 2])
            #expect(try store.leasedCount() == 5 && store.pendingCount() == 1)
        }
    }

    @Test("a higher priority job is served first, even when newer")
    func priority() throws {
        try withStore { store, clock, _ in
            let low = try store.runningJob(priority: 0, frames: [1, 1], name: "low")
            clock.advance(by: 1)
            let high = try store.runningJob(priority: 5, frames: [1, 1], name: "high")
            let order = try (0..<4).map { _ in try #require(try store.lease("w")).jobID }
            #expect(order == [high, high, low, low])
            #expect(try store.lease("w") == nil)
        }
    }

    @Test("a job that is not running gets no lease")
    func onlyRunning() throws {
        try withStore { store, _, _ in
            let id = try store.insertJob(request: JobRequest(), source: "/s", output: "/o", priority: 9).id
            try store.transition(id, to: .planning)
            try store.setPlan(id, segmentFrames: [3, 3], framesTotal: 6)
            #expect(try store.lease("w") == nil)
            #expect(try store.pendingCount() == 0)
            try store.transition(id, to: .running)
            #expect(try store.pendingCount() == 2)
            #expect(try store.lease("w")?.jobID == id)
        }
    }

    @Test("an expired lease is requeued and the next lease of that segment is attempt 2")
    func expiry() throws {
        try withStore { store, _, _ in
            let id = try store.runningJob(frames: [4])
            let first = try #require(try store.lease("w1", deadline: 1_100))
            #expect(try store.expiredLeases(now: 1_099).isEmpty)
            #expect(try store.extendLease(first, deadline: 1_200))
            #expect(try store.expiredLeases(now: 1_150).isEmpty)
            let expired = try store.expiredLeases(now: 1_201)
            #expect(expired == [Lease(jobID: id, segment: 0, attempt: 1, worker: "w1", deadline: 1_200)])
            #expect(try store.requeue(expired[0]))
            #expect(try store.requeue(expired[0]) == false)
            let second = try #require(try store.lease("w2", deadline: 1_500))
            #expect(second.segment == 0 && second.attempt == 2 && second.worker == "w2")
            #expect(try store.extendLease(first, deadline: 9_999) == false)
            #expect(try store.requeue(first) == false)
            #expect(try store.segment(id, 0)?.state == .leased && store.segment(id, 0)?.leaseDeadline == 1_500)
        }
    }

    @Test("a late result from attempt 1 after attempt 2 finished is a duplicate; attempt 2's spooled result stays")
    func lateDuplicate() throws {
        try withStore { store, _, folder in
            let spool = try SegmentSpool(root: folder.appendingPathComponent("spool"))
            let id = try store.runningJob(frames: [4, 4])
            let first = try #require(try store.lease("w1", deadline: 1_100))
            for lease in try store.expiredLeases(now: 1_101) { try store.requeue(lease) }
            let second = try #require(try store.lease("w2"))
            #expect(second.segment == first.segment && second.attempt == 2)

            let bytes2 = TestMedia.garbage(count: 4096, seed: 2)
            let url2 = try spool.write(jobID: id, segment: 0, attempt: 2, data: bytes2)
            #expect(try store.complete(jobID: id, segment: 0, attempt: 2, spoolFile: url2.path, encodeSeconds: 1.5,
                                       processor: "vulkan") == .accepted)
            let url1 = try spool.write(jobID: id, segment: 0, attempt: 1, data: TestMedia.garbage(count: 4096, seed: 1))
            #expect(try store.complete(jobID: id, segment: 0, attempt: 1, spoolFile: url1.path, encodeSeconds: 9,
                                       processor: "cpu") == .duplicate)
            let done = try #require(try store.segment(id, 0))
            #expect(done.state == .done && done.doneAttempt == 2 && done.processor == "vulkan")
            #expect(done.encodeSeconds == 1.5 && done.spoolFile == url2.path)
            #expect(try spool.read(URL(fileURLWithPath: done.spoolFile ?? "")) == bytes2)
        }
    }

    @Test("a late result that arrives first wins over the running newer attempt")
    func lateFirstWins() throws {
        try withStore { store, _, _ in
            let id = try store.runningJob(frames: [4])
            _ = try #require(try store.lease("w1", deadline: 1_100))
            for lease in try store.expiredLeases(now: 1_101) { try store.requeue(lease) }
            let second = try #require(try store.lease("w2"))
            #expect(try store.complete(jobID: id, segment: 0, attempt: 1, spoolFile: "/a1", encodeSeconds: 1,
                                       processor: "cpu") == .accepted)
            #expect(try store.extendLease(second, deadline: 5_000) == false)
            #expect(try store.complete(jobID: id, segment: 0, attempt: 2, spoolFile: "/a2", encodeSeconds: 1,
                                       processor: "cpu") == .duplicate)
            #expect(try store.segment(id, 0)?.spoolFile == "/a1" && store.segment(id, 0)?.doneAttempt == 1)
            #expect(try store.leasedCount() == 0)
        }
    }

    @Test("results for attempts never handed out, unknown segments or jobs are unknown")
    func unknownResults() throws {
        try withStore { store, _, _ in
            let id = try store.runningJob(frames: [4, 4])
            _ = try #require(try store.lease("w1"))
            for (job, segment, attempt) in [(id, 0, 2), (id, 0, 0), (id, 1, 1), (id, 7, 1), ("j-ffffffff", 0, 1)] {
                #expect(try store.complete(jobID: job, segment: segment, attempt: attempt, spoolFile: "/x",
                                           encodeSeconds: 1, processor: "cpu") == .unknown)
            }
            #expect(try store.segment(id, 0)?.state == .leased && store.segment(id, 1)?.state == .pending)
        }
    }

    @Test("a dead worker's leases all go back to the queue")
    func releaseAll() throws {
        try withStore { store, _, _ in
            let id = try store.runningJob(frames: [1, 1, 1])
            let held = [try #require(try store.lease("dead")), try #require(try store.lease("alive")),
                        try #require(try store.lease("dead"))]
            let released = try store.releaseAll(worker: "dead")
            #expect(Set(released) == [held[0], held[2]])
            #expect(try store.leasedCount() == 1 && store.pendingCount() == 2)
            #expect(try store.releaseAll(worker: "dead").isEmpty)
            let again = try #require(try store.lease("w"))
            #expect(again.jobID == id && again.segment == 0 && again.attempt == 2)
            #expect(try store.segment(id, 1)?.worker == "alive" && store.segment(id, 1)?.state == .leased)
        }
    }
}
