import Foundation
import TesseraCore
import Testing

@testable import TesseraWire

@Suite struct WireCodecTests {
    static let ref = Tessera_V1_TaskRef(jobID: "job-7f3a", segment: 12, attempt: 2)

    /// One envelope of every kind, with every field set to something other than its default.
    static var everyKind: [Tessera_V1_Envelope] {
        var capabilities = Tessera_V1_Capabilities()
        capabilities.hostname = "render-04"
        capabilities.cores = 16
        capabilities.memoryBytes = 64 << 30
        capabilities.videoEncoders = ["h264", "hevc"]
        capabilities.videoDecoders = ["h264", "hevc", "vp9"]
        capabilities.backends = ["cpu", "vulkan"]
        capabilities.vulkanDevice = "NVIDIA H100"
        capabilities.software = "tessera 0.2 / libavcodec 59.37.100"
        capabilities.slots = 2
        var generator = WorkGenerator(seed: 99)
        let task = (try? Tessera_V1_SegmentTask(generator.segmentWork())) ?? Tessera_V1_SegmentTask()
        let output = (try? Tessera_V1_SegmentOutput(generator.segmentOutput())) ?? Tessera_V1_SegmentOutput()
        return [
            .hello(workerID: "render-04-1234-5f2c", capabilities: capabilities, versions: [1, 2]),
            .ready(credit: 2),
            .progress(ref, framesDone: 40, framesTotal: 120, framesPerSecond: 87.5),
            .result(ref, output: output),
            .failed(ref, code: .corruptSource, message: "packet 17 failed to decode"),
            .goodbye(reason: "SIGTERM"),
            .welcome(heartbeatIntervalMilliseconds: 750, liveness: 4, maxMessageBytes: 1 << 20),
            .reject(code: .unknownWorker, message: "send Hello again"),
            .assign(ref, task: task, leaseDeadlineUnixMilliseconds: 1_760_000_000_123),
            .cancel(ref, reason: "job cancelled"),
            .ack(ref),
            .heartbeat(holding: [ref], sentUnixMilliseconds: 1_760_000_000_000),
            .offer(ref, bytes: 12_345_678),
            .grant(ref),
            .parts(ref, of: Data("part".utf8), partBytes: 1024)[0],
        ]
    }

    @Test func everyKindOfMessageRoundTrips() throws {
        let envelopes = Self.everyKind
        #expect(Set(envelopes.map(\.kindName)).count == 15)
        for envelope in envelopes {
            let data = WireCodec.encode(envelope)
            let back = try WireCodec.decode(data, maxBytes: WireCodec.defaultMaxMessageBytes)
            #expect(back == envelope, "\(envelope.kindName)")
            // The session's opening messages travel in version 1, so any peer can read why it is refused.
            let opens = ["Hello", "Welcome", "Reject"].contains(envelope.kindName)
            #expect(back.version == (opens ? WireCodec.sessionVersion : WireCodec.version), "\(envelope.kindName)")
        }
    }

    @Test func partsCutAResultInOrderAndPutItBackWhole() throws {
        let bytes = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        for size in [1, 999, 4096, 10_000, 50_000] {
            let parts = Tessera_V1_Envelope.parts(Self.ref, of: bytes[100...], partBytes: size)
            #expect(parts.count == (9_900 + size - 1) / size)
            var joined = Data()
            for envelope in parts {
                guard case .part(let p)? = envelope.body else { throw WireError(.malformed, "not a part") }
                #expect(p.offset == UInt64(joined.count))
                #expect(p.data.count <= size)
                joined.append(p.data)
            }
            #expect(joined == bytes[100...])
        }
        #expect(Tessera_V1_Envelope.parts(Self.ref, of: Data(), partBytes: 10).isEmpty)
    }

    /// The part size a worker takes from a Welcome: what it announces, 1 MiB when it announces nothing,
    /// never past the coordinator's frame limit less a part's overhead, and at least 4 KiB.
    @Test func aWorkersPartSizeComesFromTheWelcome() {
        func size(maxMessage: UInt64, part: UInt64) -> Int {
            var w = Tessera_V1_Welcome()
            w.maxMessageBytes = maxMessage
            w.partBytes = part
            return w.resultPartBytes
        }
        let overhead = WireCodec.partOverheadBytes
        #expect(size(maxMessage: 0, part: 0) == WireCodec.defaultPartBytes)
        #expect(size(maxMessage: 0, part: 300_000) == 300_000)
        #expect(size(maxMessage: UInt64(overhead + 100_000), part: 300_000) == 100_000)
        #expect(size(maxMessage: UInt64(overhead + 100_000), part: 0) == 100_000)
        #expect(size(maxMessage: 1, part: 1) == 4096)
        #expect(size(maxMessage: .max, part: .max) == Int.max - overhead)
    }

    @Test func encodeFillsInTheVersion() throws {
        var envelope = Tessera_V1_Envelope.ready(credit: 1)
        envelope.version = 0
        #expect(try WireCodec.decode(WireCodec.encode(envelope)).version == WireCodec.version)
    }

    @Test(arguments: [
        Data([0xFF, 0xFF, 0xFF, 0xFF]),  // field 31 with wire type 7, which does not exist
        Data([0x08]),  // a varint field cut off
        Data([0x52, 0x10, 0x01]),  // a Hello claiming 16 bytes, holding 1
        Data("GET / HTTP/1.1\r\n\r\n".utf8),
    ])
    func garbageIsMalformed(bytes: Data) {
        do {
            _ = try WireCodec.decode(bytes)
            Issue.record("decoded \(bytes as NSData)")
        } catch {
            #expect(error.kind == .malformed, "\(error)")
        }
    }

    @Test func anEnvelopeOverTheLimitIsTooLarge() {
        let data = WireCodec.encode(.goodbye(reason: String(repeating: "x", count: 2000)))
        do {
            _ = try WireCodec.decode(data, maxBytes: 1000)
            Issue.record("accepted \(data.count) bytes over a 1000-byte limit")
        } catch {
            #expect(error.kind == .tooLarge)
        }
        #expect(throws: Never.self) { try WireCodec.decode(data, maxBytes: data.count) }
    }

    @Test func anotherVersionIsUnsupportedButASessionOpensInVersionOne() throws {
        for version in [WireCodec.sessionVersion, WireCodec.version + 1] {
            var envelope = Tessera_V1_Envelope.ready(credit: 1)
            envelope.version = version
            do {
                _ = try WireCodec.decode(WireCodec.encode(envelope))
                Issue.record("accepted a Ready in version \(version)")
            } catch {
                #expect(error.kind == .unsupportedVersion)
            }
        }
        // A version-1 worker's Hello is read (and answered with a Reject it can read); a Hello in a later
        // version is not.
        var hello = Tessera_V1_Envelope.hello(workerID: "old", capabilities: .init(), versions: [1])
        #expect(try WireCodec.decode(WireCodec.encode(hello)).hello.versions == [1])
        hello.version = WireCodec.version + 1
        #expect(throws: WireError.self) { try WireCodec.decode(WireCodec.encode(hello)) }
    }

    @Test func anEnvelopeWithoutABodyOrWithoutAVersionIsMalformed() throws {
        var empty = Tessera_V1_Envelope()
        empty.version = WireCodec.version
        let ready: Data = try Tessera_V1_Envelope.ready(credit: 1).serializedBytes()
        let noVersion = ready.dropFirst(2)  // field 1 (version) is serialized first
        // A body field number version 1 does not know (a later version's message).
        var unknownBody = WireCodec.encode(empty)
        unknownBody.append(contentsOf: [0xFA, 0x01, 0x00])  // field 31, length-delimited, empty
        for data in [WireCodec.encode(empty), Data(noVersion), unknownBody] {
            do {
                _ = try WireCodec.decode(data)
                Issue.record("accepted \(data as NSData)")
            } catch {
                #expect(error.kind == .malformed, "\(error)")
            }
        }
    }
}
