import Foundation
import TesseraCoordinator
import TesseraCore
import TesseraTestSupport
import Testing

@Suite("JobStore across a coordinator restart")
struct StoreRestartTests {
    @Test(
        "a reopened store resumes the job: leases kept for their workers' claims, done segments kept through a new plan"
    )
    func resume() throws {
        try withStore { store, clock, folder in
            let id = try store.runningJob(frames: [3, 4, 5, 6])
            let finished = try store.insertJob(request: JobRequest(), source: "/s", output: "/o", priority: 0).id
            try store.transition(finished, to: .cancelled)
            let lease0 = try #require(try store.lease("w1"))
            _ = try #require(try store.lease("w2"))
            _ = try #require(try store.lease("w3"))
            #expect(
                try store.complete(
                    jobID: id, segment: lease0.segment, attempt: 1, spoolFile: "/spool/0.seg",
                    encodeSeconds: 2, processor: "cpu") == .accepted)
            #expect(
                try store.failAttempt(
                    jobID: id, segment: 2, attempt: 1, error: "oom", counts: true,
                    maxFailures: 3) == .requeued)
            try store.close()
            #expect(throws: StoreError.self) { try store.jobs() }

            let reopened = try JobStore(path: folder.appendingPathComponent("jobs.sqlite").path, clock: clock.read)
            let resumed = try reopened.recoverAfterRestart()
            #expect(resumed.map(\.id) == [id])
            // The leased segment still names its worker, for the job to hold it back for that worker.
            let states = try reopened.segments(of: id).map(\.state)
            #expect(states == [.done, .leased, .pending, .pending])

            try reopened.transition(id, to: .planning)
            try reopened.setPlan(id, segmentFrames: [3, 4, 5, 6], framesTotal: 18)
            try reopened.transition(id, to: .running)
            let segments = try reopened.segments(of: id)
            #expect(segments.map(\.state) == [.done, .pending, .pending, .pending])
            #expect(segments[0].state == .done && segments[0].doneAttempt == 1)
            #expect(segments[0].spoolFile == "/spool/0.seg")
            #expect(segments[2].failures == 1 && segments[2].errors == ["attempt 1 on w3: oom"])
            let again = try (0..<3).map { _ in try #require(try reopened.lease("w9")) }
            #expect(again.map(\.segment) == [1, 2, 3] && again.map(\.attempt) == [2, 2, 1])
            #expect(try reopened.lease("w9") == nil)
            #expect(try reopened.job(id)?.framesDone == 3)
        }
    }

    @Test("a worker that kept its task gets it back under the same attempt; nobody else, and not a stale attempt")
    func adoptAfterRestart() throws {
        try withStore { store, _, _ in
            let id = try store.runningJob(frames: [3, 4])
            let lease = try store.lease(jobID: id, segment: 0, worker: "w1", deadline: 9)
            #expect(lease.attempt == 1)
            // Still leased: nothing to adopt.
            #expect(try !store.adopt(jobID: id, segment: 0, attempt: 1, worker: "w1", deadline: 9))
            // A restarted coordinator plans again: the segment is pending, attempt 1 still w1's.
            try store.transition(id, to: .planning)
            try store.setPlan(id, segmentFrames: [3, 4], framesTotal: 7)
            try store.transition(id, to: .running)
            #expect(try !store.adopt(jobID: id, segment: 0, attempt: 1, worker: "w2", deadline: 9))
            #expect(try !store.adopt(jobID: id, segment: 0, attempt: 2, worker: "w1", deadline: 9))
            #expect(try store.adopt(jobID: id, segment: 0, attempt: 1, worker: "w1", deadline: 9))
            let segment = try #require(try store.segment(id, 0))
            #expect(segment.state == .leased && segment.attempt == 1 && segment.worker == "w1")
            #expect(
                try store.complete(
                    jobID: id, segment: 0, attempt: 1, spoolFile: "/s/0", encodeSeconds: 1,
                    processor: "cpu") == .accepted)
        }
    }

    @Test(
        "a plan that differs from the stored one is refused and the stored plan stays",
        arguments: [[3, 4, 5], [3, 4, 5, 6, 7], [3, 4, 5, 7]])
    func changedPlan(frames: [Int]) throws {
        try withStore { store, _, folder in
            let id = try store.runningJob(frames: [3, 4, 5, 6])
            try store.close()
            let reopened = try JobStore(path: folder.appendingPathComponent("jobs.sqlite").path)
            _ = try reopened.recoverAfterRestart()
            try reopened.transition(id, to: .planning)
            let error = #expect(throws: StoreError.self) {
                try reopened.setPlan(id, segmentFrames: frames, framesTotal: frames.reduce(0, +))
            }
            guard case .invalidPlan(let message)? = error else {
                Issue.record("expected invalidPlan, got \(String(describing: error))")
                return
            }
            #expect(message.contains("4 segments") && message.contains("\(frames.count) segments"))
            #expect(message.contains("source changed"))
            #expect(try reopened.segments(of: id).map(\.frames) == [3, 4, 5, 6])
        }
    }

    @Test("plans with no segments or empty segments are refused")
    func badPlans() throws {
        try withStore { store, _, _ in
            let id = try store.insertJob(request: JobRequest(), source: "/s", output: "/o", priority: 0).id
            try store.transition(id, to: .planning)
            for frames in [[], [3, 0], [-1]] {
                #expect(throws: StoreError.self) { try store.setPlan(id, segmentFrames: frames, framesTotal: 3) }
            }
            #expect(try store.segments(of: id).isEmpty)
        }
    }

    @Test("a store that cannot be opened says which file")
    func unopenable() throws {
        let folder = try TestMedia.makeDirectory("tessera-store")
        defer { TestMedia.cleanup(folder) }
        let path = folder.appendingPathComponent("missing/dir/jobs.sqlite").path
        let error = #expect(throws: StoreError.self) { try JobStore(path: path) }
        #expect(error?.description.contains(path) == true)
    }
}
