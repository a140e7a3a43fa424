import Foundation
import TesseraCore
import TesseraWire

/// What travels in the throughput runs.
enum ThroughputMode: String, CaseIterable {
    /// One frame of raw bytes: libzmq and TCP alone.
    case raw = "raw zmq frame"
    /// A TaskAssign envelope whose SegmentTask carries the packets: protobuf encode, send, receive, decode.
    case envelope = "Envelope proto"
    /// As `envelope`, plus SegmentWork → SegmentTask on the sender and back on the receiver.
    case segmentWork = "SegmentWork"
}

/// A segment's worth of source packets: 40 KiB each (a 1080p H.264 frame at ~10 Mb/s), `bytes` in all.
func sampleWork(bytes: Int) -> SegmentWork {
    let size = 40 << 10
    let count = max(1, bytes / size)
    var generator = SystemRandomNumberGenerator()
    let block = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
    let packets = (0..<count).map { i in
        EncodedPacket(
            data: i == count - 1 ? Array(block.prefix(bytes - size * (count - 1))) : block,
            pts: Int64(i) * 512, dts: Int64(i) * 512 - 1024, duration: 512, isKeyframe: i % 60 == 0)
    }
    let spec = SegmentSpec(
        index: 3, outputFrames: 180..<(180 + count), presentationRange: 92160..<(92160 + Int64(count) * 512),
        decodePackets: 180..<(180 + count), timeMap: TimeMapPiece(sourceStart: 92160, outputStart: 92160))
    let source = CodecConfiguration(
        codec: "h264", width: 1920, height: 1080, pixelFormat: "yuv420p",
        extradata: Array(block.prefix(48)))
    return SegmentWork(
        spec: spec, source: source, timeBase: Rational(1, 15360), frameRate: Rational(30), rotation: .none,
        packets: packets, settings: VideoSettings(codec: .hevc, rateControl: .crf(26)), endTick: nil,
        sourceName: "bench.mp4", backend: .cpu)
}

/// Sends `messages` payloads of about `payloadBytes` from a DEALER thread to a ROUTER thread, after one
/// untimed warm-up message, and times from the first send to the last message decoded.
func measureThroughput(
    _ mode: ThroughputMode, payloadBytes: Int, messages: Int
) throws
    -> (seconds: Double, payloadBytes: Int)
{
    // Two contexts, so each side has its own I/O thread, as two processes would.
    let router = try ZMQSocket(ZMQContext(), .router)
    // Few messages in flight, so the sender cannot run ahead into memory and the pipe stays full.
    try router.set(.receiveHighWaterMark(4))
    let endpoint = try router.bind("tcp://127.0.0.1:*")
    let dealer = try ZMQSocket(ZMQContext(), .dealer)
    try dealer.set(.sendHighWaterMark(4))
    try dealer.set(.routingID(Data("bench".utf8)))
    try dealer.connect(endpoint)

    let work = sampleWork(bytes: payloadBytes)
    let task = try Tessera_V1_SegmentTask(work)
    let ref = Tessera_V1_TaskRef(jobID: "bench", segment: 3, attempt: 1)
    let raw = Data(work.packets.flatMap(\.data))
    let payload = work.payloadBytes

    @Sendable func send() throws {
        switch mode {
        case .raw: try dealer.send([raw])
        case .envelope, .segmentWork:
            let body = mode == .envelope ? task : try Tessera_V1_SegmentTask(work)
            try dealer.send(.assign(ref, task: body, leaseDeadlineUnixMilliseconds: 0))
        }
    }
    @Sendable func receive() throws -> Int {
        guard let frames = try router.receive(timeoutMilliseconds: 30_000) else { throw BenchError.timeout }
        switch mode {
        case .raw: return frames[1].count
        case .envelope, .segmentWork:
            let envelope = try WireCodec.decode(frames[1])
            guard case .assign(let assign) = envelope.body else { throw BenchError.unexpected(envelope.kindName) }
            if mode == .envelope { return assign.task.packets.reduce(0) { $0 + $1.data.count } }
            return try SegmentWork(wire: assign.task).payloadBytes
        }
    }

    try send()
    guard try receive() == payload else { throw BenchError.unexpected("a short warm-up message") }

    let received = Counter()
    let start = DispatchTime.now().uptimeNanoseconds
    let receiver = Thread {
        do { for _ in 0..<messages { received.add(try receive()) } } catch { received.fail("\(error)") }
        received.finish()
    }
    receiver.start()
    let sender = Thread {
        do { for _ in 0..<messages { try send() } } catch { received.fail("\(error)") }
    }
    sender.start()
    try received.wait()
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    guard received.total == payload * messages else { throw BenchError.unexpected("\(received.total) bytes") }
    dealer.close()
    router.close()
    return (seconds, received.total)
}
