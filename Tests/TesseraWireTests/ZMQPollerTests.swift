import Foundation
import Testing

@testable import TesseraWire

@Suite struct ZMQPollerTests {
    @Test func pollerReportsWhichSocketIsReadable() throws {
        let loopback = try Loopback()
        let wakeUp = try ZMQWakeUp(context: loopback.context)
        defer { wakeUp.close() }
        let poller = ZMQPoller([loopback.router, wakeUp.socket])

        #expect(try poller.poll(timeoutMilliseconds: 50) == [false, false])

        // Another thread rings the bell while this one waits with no time limit.
        let ringer = BackgroundThread {
            Thread.sleep(forTimeInterval: 0.1)
            wakeUp.signal()
        }
        #expect(try poller.poll(timeoutMilliseconds: nil) == [false, true])
        #expect(ringer.join())
        wakeUp.drain()
        #expect(try poller.poll(timeoutMilliseconds: 0) == [false, false])

        let dealer = try loopback.dealer(id: "w")
        try dealer.send([Data("work".utf8)])
        #expect(try poller.poll(timeoutMilliseconds: 5000) == [true, false])
        let frames = try #require(try loopback.router.receive(timeoutMilliseconds: 0))
        #expect(frames == [Data("w".utf8), Data("work".utf8)])
        #expect(try poller.poll(timeoutMilliseconds: 0) == [false, false])
    }

    @Test func manySignalsFromManyThreadsDrainAtOnce() throws {
        let context = ZMQContext()
        let wakeUp = try ZMQWakeUp(context: context)
        defer { wakeUp.close() }
        let threads = (0..<4).map { _ in BackgroundThread { for _ in 0..<250 { wakeUp.signal() } } }
        for thread in threads { #expect(thread.join()) }
        let poller = ZMQPoller([wakeUp.socket])
        #expect(try poller.poll(timeoutMilliseconds: 1000) == [true])
        wakeUp.drain()
        #expect(try poller.poll(timeoutMilliseconds: 0) == [false])
    }
}
