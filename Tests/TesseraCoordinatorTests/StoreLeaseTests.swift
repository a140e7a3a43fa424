import Foundation
import TesseraCoordinator
import TesseraCore
import TesseraTestSupport
import Testing

/// What the store makes of results for a segment's attempts: the first result wins, whatever its
/// attempt. (Which segment goes out next is the dispatcher's board's choice: `TaskBoardTests`.)
@Suite("JobStore leases")
struct StoreLeaseTests {
    @Test("a late result from attempt 1 after attempt 2 finished is a duplicate; attempt 2's spooled result stays")
    func lateDuplicate() throws {
        try withStore { store, _, folder in
            let spool = try SegmentSpool(root: folder.appendingPathComponent("spool"))
            let id = try store.runningJob(frames: [4, 4])
            let first = try #require(try store.lease("w1", deadline: 1_100))
            // The dispatcher took attempt 1 back (its worker stalled): pending again.
            #expect(
                try store.failAttempt(
                    jobID: id, segment: 0, attempt: 1, error: "stalled", counts: false,
                    maxFailures: 3) == .requeued)
            let second = try #require(try store.lease("w2"))
            #expect(second.segment == first.segment && second.attempt == 2)

            let bytes2 = TestMedia.garbage(count: 4096, seed: 2)
            let url2 = try spool.write(jobID: id, segment: 0, attempt: 2, data: bytes2)
            #expect(
                try store.complete(
                    jobID: id, segment: 0, attempt: 2, spoolFile: url2.path, encodeSeconds: 1.5,
                    processor: "vulkan") == .accepted)
            let url1 = try spool.write(jobID: id, segment: 0, attempt: 1, data: TestMedia.garbage(count: 4096, seed: 1))
            #expect(
                try store.complete(
                    jobID: id, segment: 0, attempt: 1, spoolFile: url1.path, encodeSeconds: 9,
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
            // The dispatcher took attempt 1 back (its worker stalled): pending again.
            #expect(
                try store.failAttempt(
                    jobID: id, segment: 0, attempt: 1, error: "stalled", counts: false,
                    maxFailures: 3) == .requeued)
            _ = try #require(try store.lease("w2"))
            #expect(
                try store.complete(
                    jobID: id, segment: 0, attempt: 1, spoolFile: "/a1", encodeSeconds: 1,
                    processor: "cpu") == .accepted)
            #expect(
                try store.complete(
                    jobID: id, segment: 0, attempt: 2, spoolFile: "/a2", encodeSeconds: 1,
                    processor: "cpu") == .duplicate)
            #expect(try store.segment(id, 0)?.spoolFile == "/a1" && store.segment(id, 0)?.doneAttempt == 1)
            #expect(try store.segment(id, 0)?.lease == nil)
        }
    }

    @Test("results for attempts never handed out, unknown segments or jobs are unknown")
    func unknownResults() throws {
        try withStore { store, _, _ in
            let id = try store.runningJob(frames: [4, 4])
            _ = try #require(try store.lease("w1"))
            for (job, segment, attempt) in [(id, 0, 2), (id, 0, 0), (id, 1, 1), (id, 7, 1), ("j-ffffffff", 0, 1)] {
                #expect(
                    try store.complete(
                        jobID: job, segment: segment, attempt: attempt, spoolFile: "/x",
                        encodeSeconds: 1, processor: "cpu") == .unknown)
            }
            #expect(try store.segment(id, 0)?.state == .leased && store.segment(id, 1)?.state == .pending)
        }
    }
}
