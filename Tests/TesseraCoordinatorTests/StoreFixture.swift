import Foundation
import Synchronization
import TesseraCoordinator
import TesseraCore
import TesseraTestSupport

/// A clock the tests move by hand, so timestamps can be checked exactly.
final class TestClock: Sendable {
    private let value = Mutex<Double>(1_000)

    var now: Double { value.withLock { $0 } }

    func advance(by seconds: Double) { value.withLock { $0 += seconds } }

    var read: @Sendable () -> Double { { [self] in now } }
}

/// A JobStore on a real SQLite file in a fresh temporary folder, removed when `body` returns.
func withStore(_ body: (JobStore, TestClock, URL) throws -> Void) throws {
    let folder = try TestMedia.makeDirectory("tessera-store")
    defer { TestMedia.cleanup(folder) }
    let clock = TestClock()
    let store = try JobStore(path: folder.appendingPathComponent("jobs.sqlite").path, clock: clock.read)
    try body(store, clock, folder)
}

/// The states a new job passes through to reach `state`.
func path(to state: JobState) -> [JobState] {
    switch state {
    case .queued: []
    case .planning: [.planning]
    case .running: [.planning, .running]
    case .stitching: [.planning, .running, .stitching]
    case .verifying: [.planning, .running, .stitching, .verifying]
    case .completed: [.planning, .running, .stitching, .verifying, .completed]
    case .failed: [.failed]
    case .cancelled: [.cancelled]
    }
}

extension JobStore {
    /// A job in state `running` with one segment per entry of `frames`.
    func runningJob(priority: Int = 0, frames: [Int] = [10, 10, 10, 10], name: String = "in.mov") throws -> String {
        let job = try insertJob(
            request: JobRequest(source: "/media/\(name)", priority: priority),
            source: "/media/\(name)", output: "/out/\(name).mp4", priority: priority)
        try transition(job.id, to: .planning)
        try setPlan(job.id, segmentFrames: frames, framesTotal: frames.reduce(0, +))
        try transition(job.id, to: .running)
        return job.id
    }

    /// Leases the lowest pending segment of the oldest running job of the highest priority, as the
    /// dispatcher's board would first choose it, through the store's own `lease`.
    func lease(_ worker: String, deadline: Double = 2_000) throws(StoreError) -> Lease? {
        let running = try jobs().filter { $0.state == .running }
            .sorted { ($0.priority, -$0.createdAt) > ($1.priority, -$1.createdAt) }
        for job in running {
            if let s = try segments(of: job.id).first(where: { $0.state == .pending }) {
                return try lease(jobID: job.id, segment: s.index, worker: worker, deadline: deadline)
            }
        }
        return nil
    }

    func segment(_ jobID: String, _ index: Int) throws -> SegmentRecord? {
        try segments(of: jobID).first { $0.index == index }
    }
}
