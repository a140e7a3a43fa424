import Foundation
import Testing

@testable import TesseraWire

@Suite struct ZMQSocketTests {
    @Test func bindOnAWildcardPortReportsThePortTheSystemChose() throws {
        let loopback = try Loopback()
        let port = try #require(loopback.endpoint.split(separator: ":").last.flatMap { Int($0) })
        #expect(loopback.endpoint.hasPrefix("tcp://127.0.0.1:"))
        #expect(port > 0 && port < 65536)
    }

    @Test func routerSeesEachDealersRoutingIDAndRepliesReachTheRightDealer() throws {
        let loopback = try Loopback()
        let alice = try loopback.dealer(id: "worker-alice")
        let bob = try loopback.dealer(id: "worker-bob")
        #expect(try alice.send([Data("from alice".utf8), Data(), Data([0, 1, 2])]))
        #expect(try bob.send([Data("from bob".utf8)]))

        var seen: [String: [Data]] = [:]
        for _ in 0..<2 {
            let frames = try #require(try loopback.router.receive(timeoutMilliseconds: 5000))
            seen[String(decoding: frames[0], as: UTF8.self)] = Array(frames.dropFirst())
        }
        #expect(seen["worker-alice"] == [Data("from alice".utf8), Data(), Data([0, 1, 2])])
        #expect(seen["worker-bob"] == [Data("from bob".utf8)])

        #expect(try loopback.router.send([Data("worker-bob".utf8), Data("to bob".utf8)]))
        #expect(try loopback.router.send([Data("worker-alice".utf8), Data("to alice".utf8)]))
        #expect(try bob.receive(timeoutMilliseconds: 5000) == [Data("to bob".utf8)])
        #expect(try alice.receive(timeoutMilliseconds: 5000) == [Data("to alice".utf8)])
    }

    @Test func aTwentyMegabyteMessageArrivesIntactBothWays() throws {
        let loopback = try Loopback()
        let dealer = try loopback.dealer(id: "big")
        let payload = patternedData(count: 20 << 20, seed: 7)
        #expect(try dealer.send([payload]))
        let received = try #require(try loopback.router.receive(timeoutMilliseconds: 10_000))
        #expect(received.count == 2)
        #expect(received[1].count == payload.count)
        #expect(received[1] == payload)

        #expect(try loopback.router.send([received[0], received[1]]))
        let echoed = try #require(try dealer.receive(timeoutMilliseconds: 10_000))
        #expect(echoed == [payload])
    }

    @Test func receiveReturnsNilWhenTheTimeRunsOut() throws {
        let loopback = try Loopback()
        let started = Date()
        #expect(try loopback.router.receive(timeoutMilliseconds: 200) == nil)
        let waited = Date().timeIntervalSince(started)
        #expect(waited >= 0.15 && waited < 5, "waited \(waited) s for a 200 ms timeout")
        #expect(try loopback.router.receive(timeoutMilliseconds: 0) == nil)
    }

    @Test func sendingToAnUnknownPeerWithRouterMandatoryReturnsFalse() throws {
        let loopback = try Loopback(routerOptions: [.routerMandatory(true)])
        #expect(try loopback.router.send([Data("nobody".utf8), Data("hello".utf8)]) == false)
    }

    @Test func withHandoverAReconnectingWorkerTakesOverItsRoutingID() throws {
        let loopback = try Loopback(routerOptions: [.routerHandover(true)])
        let old = try loopback.dealer(id: "worker-9")
        try old.send([Data("first life".utf8)])
        #expect(try loopback.router.receive(timeoutMilliseconds: 5000)?.last == Data("first life".utf8))

        // The old connection is still up when the worker comes back with the same id.
        let new = try loopback.dealer(id: "worker-9")
        try new.send([Data("second life".utf8)])
        #expect(try loopback.router.receive(timeoutMilliseconds: 5000)?.last == Data("second life".utf8))
        try loopback.router.send([Data("worker-9".utf8), Data("welcome back".utf8)])
        #expect(try new.receive(timeoutMilliseconds: 5000) == [Data("welcome back".utf8)])
        #expect(try old.receive(timeoutMilliseconds: 200) == nil)
    }

    @Test func aDealerWithNoPeerDoesNotBlockWithDontWait() throws {
        let context = ZMQContext()
        let dealer = try ZMQSocket(context, .dealer)
        #expect(try dealer.send([Data("x".utf8)], dontWait: true) == false)
    }

    @Test func aClosedSocketThrowsClosed() throws {
        let loopback = try Loopback()
        loopback.router.close()
        #expect(throws: WireError.self) { try loopback.router.receive(timeoutMilliseconds: 0) }
        do {
            _ = try loopback.router.send([Data()])
            Issue.record("send on a closed socket succeeded")
        } catch {
            #expect(error.kind == .closed)
        }
    }

    @Test func shuttingTheContextDownReleasesABlockedReceive() throws {
        let loopback = try Loopback()
        let router = loopback.router
        let outcome = LogLines()
        let thread = BackgroundThread {
            do {
                _ = try router.receive()
                outcome.sink("returned")
            } catch {
                outcome.sink((error as? WireError).map { "\($0.kind)" } ?? "\(error)")
            }
            router.close()
        }
        Thread.sleep(forTimeInterval: 0.2)
        loopback.context.shutdown()
        #expect(thread.join(seconds: 5))
        #expect(outcome.all == ["closed"])
    }

    @Test func badEndpointsAndOptionsAreErrorsNotCrashes() throws {
        let context = ZMQContext()
        let socket = try ZMQSocket(context, .router)
        for endpoint in ["tcp://", "nonsense", "tcp://999.1.1.1:1"] {
            do {
                try socket.bind(endpoint)
                Issue.record("bind \(endpoint) succeeded")
            } catch {
                #expect(error.message.contains(endpoint))
                guard case .zmq = error.kind else {
                    Issue.record("kind \(error.kind) for \(endpoint)")
                    continue
                }
            }
        }
        #expect(throws: WireError.self) { try socket.set(.routingID(Data())) }
        #expect(throws: WireError.self) { try socket.set(.routingID(Data(repeating: 65, count: 256))) }
        #expect(throws: WireError.self) { try socket.send([]) }
    }
}
