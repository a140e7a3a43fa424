import Foundation
import Testing

@testable import TesseraWire

@Suite struct RefusalLogTests {
    @Test func aKeyIsReportedOncePerIntervalWithTheRefusalsInBetween() {
        var log = RefusalLog()
        let start = Date()
        #expect(log.shouldLog("A", now: start) == 0)
        #expect(log.shouldLog("A", now: start + 1) == nil)
        #expect(log.shouldLog("A", now: start + 2) == nil)
        #expect(log.shouldLog("B", now: start + 2) == 0)
        #expect(log.shouldLog("A", now: start + 61) == 2)
        #expect(log.shouldLog("A", now: start + 62) == nil)
    }

    @Test func manyDifferentKeysDoNotGrowItWithoutBound() {
        var log = RefusalLog()
        log.capacity = 10
        let now = Date()
        for i in 0..<100 { #expect(log.shouldLog("key \(i)", now: now) == 0) }
        // The table was cleared on the way, so an early key is reported again rather than remembered.
        #expect(log.shouldLog("key 0", now: now) == 0)
    }
}
