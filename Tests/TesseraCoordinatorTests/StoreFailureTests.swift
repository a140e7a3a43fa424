import TesseraCoordinator
import TesseraCore
import Testing

@Suite("JobStore failed attempts")
struct StoreFailureTests {
    @Test("three counted failures exhaust the segment with a message naming it and every error")
    func exhaust() throws {
        try withStore { store, _, _ in
            let id = try store.runningJob(frames: [2, 2])
            _ = try #require(try store.lease("w0"))  // segment 0, held throughout
            var outcomes: [FailOutcome] = []
            for attempt in 1...3 {
                let lease = try #require(try store.lease("w\(attempt)"))
                #expect(lease.segment == 1 && lease.attempt == attempt)
                outcomes.append(
                    try store.failAttempt(
                        jobID: id, segment: 1, attempt: attempt,
                        error: "decoder error \(attempt * 11)", counts: true,
                        maxFailures: 3))
            }
            #expect(outcomes[0] == .requeued && outcomes[1] == .requeued)
            guard case .exhausted(let message) = outcomes[2] else {
                Issue.record("third failure gave \(outcomes[2])")
                return
            }
            for part in [
                "segment 1", id, "3 times", "attempt 1 on w1: decoder error 11",
                "attempt 2 on w2: decoder error 22", "attempt 3 on w3: decoder error 33",
            ] {
                #expect(message.contains(part), "\(message) lacks \(part)")
            }
            let segment = try #require(try store.segment(id, 1))
            #expect(segment.state == .failed && segment.failures == 3 && segment.lastError == "decoder error 33")
            #expect(segment.errors.count == 3)
            #expect(try store.lease("w4") == nil)
            #expect(try store.segments(of: id).map(\.state) == [.leased, .failed])
        }
    }

    @Test("a task returned unstarted is requeued without counting")
    func uncounted() throws {
        try withStore { store, _, _ in
            let id = try store.runningJob(frames: [2])
            for attempt in 1...5 {
                let lease = try #require(try store.lease("draining"))
                #expect(lease.attempt == attempt)
                #expect(
                    try store.failAttempt(
                        jobID: id, segment: 0, attempt: attempt, error: "worker draining",
                        counts: false, maxFailures: 1) == .requeued)
            }
            let segment = try #require(try store.segment(id, 0))
            #expect(segment.state == .pending && segment.failures == 0 && segment.errors.isEmpty)
            #expect(segment.attempt == 5 && segment.lastError == nil)
        }
    }

    @Test("a failure from an attempt that no longer holds the segment is stale and changes nothing")
    func stale() throws {
        try withStore { store, _, _ in
            let id = try store.runningJob(frames: [2, 2])
            let first = try #require(try store.lease("w1", deadline: 1_100))
            // The dispatcher took it back (stalled): it is pending again, still attempt 1.
            #expect(
                try store.failAttempt(
                    jobID: id, segment: first.segment, attempt: first.attempt, error: "stalled",
                    counts: false, maxFailures: 3) == .requeued)
            let second = try #require(try store.lease("w2"))
            #expect(second.segment == first.segment)
            #expect(
                try store.failAttempt(
                    jobID: id, segment: 0, attempt: 1, error: "late", counts: true,
                    maxFailures: 1) == .stale)
            #expect(try store.segment(id, 0)?.failures == 0 && store.segment(id, 0)?.state == .leased)
            #expect(
                try store.complete(
                    jobID: id, segment: 0, attempt: 2, spoolFile: "/s", encodeSeconds: 1,
                    processor: "cpu") == .accepted)
            #expect(
                try store.failAttempt(
                    jobID: id, segment: 0, attempt: 2, error: "after done", counts: true,
                    maxFailures: 1) == .stale)
            #expect(
                try store.failAttempt(
                    jobID: "j-00000000", segment: 0, attempt: 1, error: "x", counts: true,
                    maxFailures: 1) == .stale)
            #expect(try store.segment(id, 0)?.state == .done)
        }
    }
}
