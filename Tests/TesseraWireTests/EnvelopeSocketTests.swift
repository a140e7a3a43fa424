import Foundation
import TesseraCore
import Testing

@testable import TesseraWire

/// Envelopes through real sockets with `ZMQSocket.send(_:to:)`, the path that serializes straight into
/// libzmq's buffer.
@Suite struct EnvelopeSocketTests {
    @Test func aTwentyMegabyteResultAndItsAckCrossTheWireIntact() throws {
        let loopback = try Loopback()
        let worker = try loopback.dealer(id: "render-01")
        var generator = WorkGenerator(seed: 5)
        var output = generator.segmentOutput()
        output.packets = (0..<500).map { i in
            EncodedPacket(
                data: [UInt8](patternedData(count: 40_000, seed: UInt8(truncatingIfNeeded: i))),
                pts: Int64(i) * 512, dts: Int64(i) * 512 - 1024, duration: 512, isKeyframe: i % 60 == 0)
        }
        let ref = Tessera_V1_TaskRef(jobID: "job-big", segment: 4, attempt: 1)
        let sent = try worker.send(.result(ref, output: Tessera_V1_SegmentOutput(output)))
        #expect((sent ?? 0) > 500 * 40_000, "every payload byte, and the envelope: \(sent ?? 0)")

        let frames = try #require(try loopback.router.receive(timeoutMilliseconds: 10_000))
        #expect(frames.count == 2 && frames[0] == Data("render-01".utf8))
        #expect(frames[1].count > 20_000_000)
        let envelope = try WireCodec.decode(frames[1])
        guard case .result(let result) = envelope.body else {
            Issue.record("got \(envelope.kindName)")
            return
        }
        #expect(result.ref == ref)
        #expect(
            try SegmentOutput(wire: result.output, index: Int(result.ref.segment))
                == {
                    var expected = output
                    expected.index = 4
                    return expected
                }())

        #expect(try loopback.router.send(.ack(ref), to: frames[0]) != nil)
        let reply = try #require(try worker.receive(timeoutMilliseconds: 5000))
        #expect(reply.count == 1)
        #expect(try WireCodec.decode(reply[0]) == .ack(ref))
    }

    @Test func theFastPathWritesTheSameBytesAsTheCodec() throws {
        let loopback = try Loopback()
        let worker = try loopback.dealer(id: "w")
        for envelope in WireCodecTests.everyKind {
            try worker.send(envelope)
            let frames = try #require(try loopback.router.receive(timeoutMilliseconds: 5000))
            #expect(frames[1] == WireCodec.encode(envelope), "\(envelope.kindName)")
        }
    }

    @Test func sendingAnEnvelopeToAGoneWorkerSendsNothing() throws {
        let loopback = try Loopback(routerOptions: [.routerMandatory(true)])
        #expect(try loopback.router.send(.heartbeat(), to: Data("gone".utf8)) == nil)
    }
}
