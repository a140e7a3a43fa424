import Foundation
import TesseraWire

/// Round trips of a Heartbeat envelope: the DEALER thread encodes and sends, the ROUTER thread receives,
/// decodes, and answers with an encoded Heartbeat, which the DEALER thread receives and decodes. The first
/// 10% are a warm-up and not counted.
func measureLatency(rounds: Int) throws -> (envelopeBytes: Int, p50: Double, p99: Double, max: Double) {
    // Two contexts, so each side has its own I/O thread, as two processes would.
    let router = try ZMQSocket(ZMQContext(), .router)
    let endpoint = try router.bind("tcp://127.0.0.1:*")
    let dealer = try ZMQSocket(ZMQContext(), .dealer)
    try dealer.set(.routingID(Data("worker-1".utf8)))
    try dealer.connect(endpoint)
    let ref = Tessera_V1_TaskRef(jobID: "job-1", segment: 7, attempt: 1)
    let warmUp = rounds / 10
    let envelopeBytes = WireCodec.encode(.heartbeat(holding: [ref])).count

    let done = Counter()
    let echo = Thread {
        do {
            for _ in 0..<(warmUp + rounds) {
                guard let frames = try router.receive(timeoutMilliseconds: 10_000) else { throw BenchError.timeout }
                _ = try WireCodec.decode(frames[1])
                try router.send([frames[0], WireCodec.encode(.heartbeat())])
            }
        } catch { done.fail("\(error)") }
    }
    echo.start()

    let samples = Samples(capacity: rounds)
    let client = Thread {
        do {
            for round in 0..<(warmUp + rounds) {
                let start = DispatchTime.now().uptimeNanoseconds
                try dealer.send([WireCodec.encode(.heartbeat(holding: [ref]))])
                guard let frames = try dealer.receive(timeoutMilliseconds: 10_000) else { throw BenchError.timeout }
                _ = try WireCodec.decode(frames[0])
                if round >= warmUp { samples.append(DispatchTime.now().uptimeNanoseconds - start) }
            }
        } catch { done.fail("\(error)") }
        done.finish()
    }
    client.start()
    try done.wait()
    let sorted = samples.sorted.map { Double($0) / 1000 }
    func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
    return (envelopeBytes, percentile(0.5), percentile(0.99), sorted.last ?? 0)
}
