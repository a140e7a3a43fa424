import Foundation
import TesseraCore
import Testing

@testable import TesseraCoordinator

/// One budget for every worker's results in flight: granted in order, held until acknowledged, freed
/// when a peer goes or stalls; parts nobody granted, or out of order, are refused.
@Suite struct InboundResultsTests {
    static func id(_ peer: String, _ segment: Int) -> InboundResults.ID {
        .init(routingID: Data(peer.utf8), key: TaskKey(job: "j", segment: segment, attempt: 1))
    }

    @Test func offersAreGrantedInOrderWithinTheBudgetAndHeldUntilFinished() {
        var inbound = InboundResults(budget: 100, maxResultBytes: 60, partBytes: 10)
        let (a, b, c) = (Self.id("w1", 0), Self.id("w2", 1), Self.id("w3", 2))
        #expect(inbound.offer(a, bytes: 60, now: 0) == .granted)
        #expect(inbound.offer(a, bytes: 60, now: 0) == .duplicate)
        // 60 + 50 is past the budget: b waits, and c, which would fit, waits behind it.
        #expect(inbound.offer(b, bytes: 50, now: 0) == .waiting)
        #expect(inbound.offer(c, bytes: 10, now: 0) == .waiting)
        #expect(inbound.reserved == 60)
        #expect(inbound.waitingCount == 2)
        // a's parts, in order: the last one completes it, and its room stays held.
        var outcome = InboundResults.Part.incomplete
        for offset in stride(from: 0, to: 60, by: 10) {
            outcome = inbound.part(a, offset: UInt64(offset), data: Data(repeating: UInt8(offset), count: 10), now: 1)
        }
        guard case .complete(let bytes) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(bytes.count == 60 && bytes[59] == 50)
        #expect(inbound.part(a, offset: 60, data: Data([1]), now: 1) == .unexpected)
        #expect(inbound.reserved == 60)
        // Finished (acknowledged): b and then c fit.
        #expect(inbound.finish(a, now: 2) == [b, c])
        #expect(inbound.reserved == 60)
        #expect(inbound.waitingCount == 0)
    }

    @Test func refusedOffersAndBrokenParts() {
        var inbound = InboundResults(budget: 100, maxResultBytes: 60, partBytes: 10)
        let a = Self.id("w1", 0)
        #expect(inbound.offer(a, bytes: 0, now: 0) != .granted)
        if case .refused(let why) = inbound.offer(a, bytes: 61, now: 0) {
            #expect(why.contains("--max-message-mb"))
        } else {
            Issue.record("a result over the limit was not refused")
        }
        // Never granted: parts are dropped and nothing is held.
        #expect(inbound.part(a, offset: 0, data: Data([1]), now: 0) == .unexpected)
        #expect(inbound.reserved == 0)
        let broken: [(UInt64, Int)] = [(5, 5), (0, 11), (0, 0)]
        for (offset, count) in broken {
            #expect(inbound.offer(a, bytes: 20, now: 0) == .granted)
            guard case .broken = inbound.part(a, offset: offset, data: Data(repeating: 1, count: count), now: 0) else {
                Issue.record("part at \(offset) of \(count) bytes was taken")
                continue
            }
            #expect(inbound.reserved == 0, "a broken transfer keeps its room")
        }
        // Past the bytes offered.
        #expect(inbound.offer(a, bytes: 15, now: 0) == .granted)
        #expect(inbound.part(a, offset: 0, data: Data(repeating: 1, count: 10), now: 0) == .incomplete)
        guard case .broken = inbound.part(a, offset: 10, data: Data(repeating: 1, count: 10), now: 0) else {
            Issue.record("parts past the offer were taken")
            return
        }
        #expect(inbound.reserved == 0)
    }

    @Test func aPeerThatGoesOrStallsGivesItsRoomBack() {
        var inbound = InboundResults(budget: 100, maxResultBytes: 100, partBytes: 10)
        let (a, b, c) = (Self.id("w1", 0), Self.id("w1", 1), Self.id("w2", 2))
        #expect(inbound.offer(a, bytes: 100, now: 0) == .granted)
        #expect(inbound.offer(b, bytes: 100, now: 0) == .waiting)
        #expect(inbound.offer(c, bytes: 100, now: 0) == .waiting)
        // w1 goes: its transfer and its waiting offer are dropped, and w2's is granted.
        #expect(inbound.drop(peer: Data("w1".utf8), now: 1) == [c])
        #expect(inbound.reserved == 100)
        // w2 sends one part and then nothing: after `idle` seconds its room is freed.
        #expect(inbound.part(c, offset: 0, data: Data(repeating: 1, count: 10), now: 2) == .incomplete)
        #expect(inbound.expire(idle: 5, now: 6).expired.isEmpty)
        #expect(inbound.expire(idle: 5, now: 8).expired == [c])
        #expect(inbound.reserved == 0)
        #expect(inbound.offer(a, bytes: 100, now: 9) == .granted)
    }

    @Test func aTrickleOfPartsDoesNotHoldTheRoomForEver() {
        let mib = 1 << 20
        var inbound = InboundResults(budget: 4 * mib, maxResultBytes: 4 * mib, partBytes: mib)
        let a = Self.id("w1", 0)
        #expect(inbound.offer(a, bytes: UInt64(4 * mib), now: 0) == .granted)
        // One small part every 4 s keeps it from going idle (5 s), but 4 MiB at 1 MiB/s is due by 4 s,
        // plus the idle allowance.
        var t = 0.0
        var offset: UInt64 = 0
        while t < 8 {
            t += 4
            #expect(inbound.expire(idle: 5, now: t).expired.isEmpty, "at \(t) s")
            #expect(inbound.part(a, offset: offset, data: Data(repeating: 1, count: 10), now: t) == .incomplete)
            offset += 10
        }
        #expect(inbound.expire(idle: 5, now: 9.5).expired == [a])
        #expect(inbound.reserved == 0)
    }

    @Test func aCompleteResultKeepsItsRoomWhenItsPeerGoes() {
        var inbound = InboundResults(budget: 10, maxResultBytes: 10, partBytes: 10)
        let (a, b) = (Self.id("w1", 0), Self.id("w2", 1))
        #expect(inbound.offer(a, bytes: 10, now: 0) == .granted)
        guard case .complete = inbound.part(a, offset: 0, data: Data(repeating: 1, count: 10), now: 0) else {
            Issue.record("not complete")
            return
        }
        #expect(inbound.offer(b, bytes: 10, now: 0) == .waiting)
        // The result is being checked and spooled: its bytes are still in memory until acknowledged.
        #expect(inbound.drop(peer: Data("w1".utf8), now: 1).isEmpty)
        #expect(inbound.expire(idle: 0, now: 100).expired.isEmpty)
        #expect(inbound.finish(a, now: 101) == [b])
    }
}
