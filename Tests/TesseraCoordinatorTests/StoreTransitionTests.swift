import Foundation
import TesseraCoordinator
import TesseraCore
import Testing

@Suite("JobStore jobs and transitions")
struct StoreTransitionTests {
    @Test("a new job is queued, with a short id and its request kept")
    func insert() throws {
        try withStore { store, clock, _ in
            let request = JobRequest(
                source: "/media/a.mov", output: "a.mp4", preset: "1280x720",
                segmentDuration: 2, priority: 3)
            let job = try store.insertJob(request: request, source: "/media/a.mov", output: "/out/a.mp4", priority: 3)
            #expect(job.id.wholeMatch(of: /j-[0-9a-f]{8}/) != nil)
            #expect(job.state == .queued)
            #expect(job.request == request)
            #expect(job.priority == 3 && job.output == "/out/a.mp4")
            #expect(job.createdAt == clock.now && job.updatedAt == clock.now)
            #expect(job.startedAt == nil && job.finishedAt == nil && job.segmentsTotal == 0)
            #expect(try store.job(job.id) == job)
            let other = try store.insertJob(request: request, source: "/media/a.mov", output: "/out/b.mp4", priority: 0)
            #expect(other.id != job.id)
        }
    }

    @Test("the whole life of a job sets startedAt once and finishedAt at the end")
    func lifeTimestamps() throws {
        try withStore { store, clock, _ in
            let id = try store.insertJob(request: JobRequest(), source: "/s", output: "/o", priority: 0).id
            clock.advance(by: 5)
            let planning = try store.transition(id, to: .planning)
            #expect(planning.startedAt == 1_005 && planning.finishedAt == nil)
            clock.advance(by: 5)
            try store.transition(id, to: .running)
            clock.advance(by: 5)
            // A restart replans a running job: startedAt keeps the first planning.
            let replanned = try store.transition(id, to: .planning)
            #expect(replanned.startedAt == 1_005 && replanned.updatedAt == 1_015)
            for state in [JobState.running, .stitching, .verifying] { try store.transition(id, to: state) }
            clock.advance(by: 5)
            let done = try store.transition(id, to: .completed)
            #expect(done.state == .completed && done.finishedAt == 1_020 && done.startedAt == 1_005)
            #expect(done.createdAt == 1_000 && done.error == nil)
        }
    }

    @Test("every move the state machine forbids is refused and changes nothing", arguments: JobState.allCases)
    func illegalMoves(from: JobState) throws {
        try withStore { store, _, _ in
            for next in JobState.allCases {
                let id = try store.insertJob(request: JobRequest(), source: "/s", output: "/o", priority: 0).id
                for state in path(to: from) { try store.transition(id, to: state) }
                if from.canMove(to: next) {
                    #expect(try store.transition(id, to: next).state == next)
                } else {
                    let error = #expect(throws: StoreError.self) { try store.transition(id, to: next) }
                    guard case .illegalTransition(let was, let wanted)? = error else {
                        Issue.record("\(from) → \(next): \(String(describing: error))")
                        continue
                    }
                    #expect(was == from && wanted == next)
                    #expect(try store.job(id)?.state == from)
                }
            }
        }
    }

    @Test("failing keeps the error, sets finishedAt and drops the job's leases")
    func failDropsLeases() throws {
        try withStore { store, clock, _ in
            let id = try store.runningJob()
            let lease = try #require(try store.lease("w1"))
            #expect(try store.segments(of: id).compactMap(\.lease) == [lease])
            clock.advance(by: 1)
            let failed = try store.transition(id, to: .failed, error: "segment 2 cannot be decoded")
            #expect(failed.error == "segment 2 cannot be decoded" && failed.finishedAt == 1_001)
            #expect(try store.segments(of: id).allSatisfy { $0.state == .pending })
            #expect(
                try store.complete(
                    jobID: id, segment: lease.segment, attempt: lease.attempt, spoolFile: "/x",
                    encodeSeconds: 1, processor: "cpu") == .unknown)
            #expect(try store.lease("w1") == nil)
        }
    }

    @Test("unknown jobs are reported as not found")
    func notFound() throws {
        try withStore { store, _, _ in
            let missing = try store.job("j-00000000")
            #expect(missing == nil)
            for call in [
                { _ = try store.transition("j-00000000", to: .planning) },
                { try store.setReport(jobID: "j-00000000", json: "{}") },
                { try store.setPlan("j-00000000", segmentFrames: [1], framesTotal: 1) },
            ] {
                let error = #expect(throws: StoreError.self) { try call() }
                guard case .notFound(let id)? = error else {
                    Issue.record("expected notFound, got \(String(describing: error))")
                    continue
                }
                #expect(id == "j-00000000")
            }
        }
    }

    @Test("listing is newest first, with reports and done totals")
    func listing() throws {
        try withStore { store, clock, _ in
            let first = try store.runningJob(frames: [5, 7])
            clock.advance(by: 1)
            let second = try store.insertJob(request: JobRequest(), source: "/s", output: "/o", priority: 0).id
            #expect(try store.jobs().map(\.id) == [second, first])
            try store.setReport(jobID: first, json: #"{"frames":12}"#)
            #expect(try store.job(first)?.report == #"{"frames":12}"#)
            let lease = try #require(try store.lease("w"))
            _ = try store.complete(
                jobID: first, segment: lease.segment, attempt: 1, spoolFile: "/s/0.seg",
                encodeSeconds: 0.5, processor: "cpu")
            let job = try #require(try store.job(first))
            #expect(job.segmentsDone == 1 && job.framesDone == 5 && job.segmentsTotal == 2 && job.framesTotal == 12)
        }
    }
}
