import Foundation
import Testing

@testable import TesseraWire

@Suite struct MaxMessageSizeTests {
    @Test func anOversizedMessageIsDroppedAndTheRouterKeepsServingOthers() throws {
        let limit = 1 << 20
        // Handover as the coordinator sets it: the flooder's reconnect may arrive before the router has
        // dropped the old connection, and without handover the routing id would still be taken.
        let loopback = try Loopback(routerOptions: [.maxMessageSize(Int64(limit)), .routerHandover(true)])
        let flooder = try loopback.dealer(id: "flooder")
        let polite = try loopback.dealer(id: "polite")
        let (politeID, flooderID) = (Data("polite".utf8), Data("flooder".utf8))

        #expect(try flooder.send([patternedData(count: limit + 1)]))
        try polite.send([Data("small 1".utf8)])
        #expect(try loopback.router.receive(timeoutMilliseconds: 5000) == [politeID, Data("small 1".utf8)])

        // A frame exactly at the limit still goes through.
        let atLimit = patternedData(count: limit, seed: 3)
        try polite.send([atLimit])
        #expect(try loopback.router.receive(timeoutMilliseconds: 5000) == [politeID, atLimit])

        // The oversized message never arrives; the flooder's connection was dropped, and once libzmq has
        // reconnected it, the flooder is served again like anyone else.
        #expect(try loopback.router.receive(timeoutMilliseconds: 500) == nil)
        // A message sent before the flooder has noticed the drop dies with the old connection, so it
        // tries a few times, as a real peer would.
        var answer: [Data]? = nil
        for _ in 0..<20 where answer == nil {
            try flooder.send([Data("sorry".utf8)])
            answer = try loopback.router.receive(timeoutMilliseconds: 500)
        }
        #expect(answer == [flooderID, Data("sorry".utf8)])
    }
}
