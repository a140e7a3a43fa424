import Testing

@testable import TesseraCoordinator

/// How a restarted coordinator names the segments it found spooled or out at workers.
struct SegmentSpansTests {
    @Test func runsAreJoinedAndOrderAndRepeatsDoNotMatter() {
        #expect(JobRunner.spans([13, 0, 1, 2, 11, 14, 2]) == "0-2, 11, 13-14")
        #expect(JobRunner.spans([5]) == "5")
        #expect(JobRunner.spans([Int]()) == "")
        #expect(JobRunner.spans([Int.max, Int.max - 1]) == "\(Int.max - 1)-\(Int.max)")
    }
}
