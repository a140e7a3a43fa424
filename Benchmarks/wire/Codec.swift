import Foundation
import TesseraCore
import TesseraWire

/// Protobuf alone, on one thread and no socket: how fast an 8 MB TaskAssign envelope is encoded
/// (`WireCodec.encode`, into a new Data) and decoded (`WireCodec.decode`), in GB/s of packet payload.
func measureCodec(payloadBytes: Int, repetitions: Int) throws -> (encode: Double, decode: Double) {
    let work = sampleWork(bytes: payloadBytes)
    let envelope = Tessera_V1_Envelope.assign(
        Tessera_V1_TaskRef(jobID: "bench", segment: 3, attempt: 1),
        task: try Tessera_V1_SegmentTask(work), leaseDeadlineUnixMilliseconds: 0)
    var encoded = WireCodec.encode(envelope)
    var start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<repetitions { encoded = WireCodec.encode(envelope) }
    let encodeSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<repetitions {
        guard case .assign(let assign) = try WireCodec.decode(encoded).body,
            assign.task.packets.count == work.packets.count
        else { throw BenchError.unexpected("decode") }
    }
    let decodeSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    let bytes = Double(work.payloadBytes * repetitions)
    return (bytes / encodeSeconds / 1e9, bytes / decodeSeconds / 1e9)
}
