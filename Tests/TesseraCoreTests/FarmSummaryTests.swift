import Foundation
import TesseraCore
import Testing

@Suite struct FarmSummaryTests {
    static let older = #"""
        {"framesPerSecond": 60, "realTime": 2, "queuedSegments": 1, "runningSegments": 2, "workers": 2,
         "busyWorkers": 1, "jobs": {"running": 1}, "points": []}
        """#

    @Test func aCoordinatorWithoutBackupAttemptsSendsNoneAndThatReadsAsZero() throws {
        let summary = try JSONDecoder().decode(FarmSummary.self, from: Data(Self.older.utf8))
        #expect(summary.backups == .init() && summary.workers == 2)
        var now = summary
        now.backups = .init(started: 3, won: 2, wasted: 1)
        let back = try JSONDecoder().decode(FarmSummary.self, from: JSONEncoder().encode(now))
        #expect(back == now)
    }
}
