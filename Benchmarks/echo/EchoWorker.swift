// A worker for benchmarks: it speaks the wire protocol over a real ZeroMQ socket but does no work.
// Each result is the task's own source packets, a valid encoded segment for an all-intra H.264 source,
// so the job stitches and verifies for real; the farm's own costs are all that is left to measure.
import Foundation
import Synchronization
import TesseraWire

public final class EchoWorker: Sendable {
    /// Ready → TaskAssign, and ResultOffer → ResultAck (the offer, the coordinator's grant, the parts and
    /// its check of the result), in seconds, one per task.
    public struct Latencies: Sendable {
        public var dispatch: [Double] = []
        public var ack: [Double] = []
    }

    public let name: String
    private let state: Mutex<(latencies: Latencies, acknowledged: Int, stop: Bool, hold: Double)>
    private let done = DispatchSemaphore(value: 0)

    public init(name: String, holdSeconds: Double = 0) {
        self.name = name
        state = Mutex((Latencies(), 0, false, holdSeconds))
    }

    /// Seconds each task is held before its result goes back (0: at once), as a real segment takes time.
    public var holdSeconds: Double {
        get { state.withLock { $0.hold } }
        set { state.withLock { $0.hold = newValue } }
    }

    /// Results the coordinator has acknowledged so far.
    public var acknowledged: Int { state.withLock { $0.acknowledged } }
    public var latencies: Latencies { state.withLock { $0.latencies } }

    /// Runs on a thread of its own until `stop`; `failure` hears a socket or codec error.
    public func start(endpoint: String, failure: @escaping @Sendable (String) -> Void) {
        Thread {
            do { try self.run(endpoint: endpoint) } catch { failure("worker \(self.name): \(error)") }
            self.done.signal()
        }.start()
    }

    /// Asks the thread to end and waits until it has.
    public func stop() {
        state.withLock { $0.stop = true }
        done.wait()
    }

    private func run(endpoint: String) throws {
        let context = ZMQContext()
        let socket = try ZMQSocket(context, .dealer)
        try socket.set(.linger(milliseconds: 0))
        try socket.set(.routingID(Data(name.utf8)))
        try socket.connect(endpoint)
        func send(_ build: (inout Tessera_V1_Envelope) -> Void) throws {
            var e = Tessera_V1_Envelope()
            e.version = WireCodec.version
            build(&e)
            _ = try socket.send([WireCodec.encode(e)])
        }
        try send {
            var h = Tessera_V1_Hello()
            h.workerID = name
            h.versions = [WireCodec.version]
            h.capabilities.slots = 1
            h.capabilities.cores = 1
            $0.hello = h
        }
        var readyAt = 0.0, resultAt = 0.0
        var partBytes = WireCodec.defaultPartBytes
        // A result waits `hold` seconds, is offered, and goes in parts once the coordinator grants it room
        // (PROTOCOL.md §8), as a real worker's does.
        var held: (due: Double, ref: Tessera_V1_TaskRef, bytes: Data)?
        var offered: (ref: Tessera_V1_TaskRef, bytes: Data)?
        while !state.withLock({ $0.stop }) {
            let now = Date().timeIntervalSince1970
            if let h = held, h.due <= now {
                held = nil
                resultAt = now
                offered = (h.ref, h.bytes)
                _ = try socket.send([WireCodec.encode(.offer(h.ref, bytes: h.bytes.count))])
            }
            let wait = held.map { max(1, min(200, Int32(($0.due - now) * 1000))) } ?? 200
            guard let frames = try socket.receive(timeoutMilliseconds: wait), let data = frames.last else { continue }
            let at = Date().timeIntervalSince1970
            let e = try WireCodec.decode(data)
            switch e.body {
            case .welcome(let w)?:
                partBytes = w.resultPartBytes
                readyAt = at
                try send { $0.ready.credit = 1 }
            case .assign(let a)?:
                state.withLock { $0.latencies.dispatch.append(at - readyAt) }
                var output = Tessera_V1_SegmentOutput()
                output.parameters = a.task.source
                output.packets = a.task.packets
                output.frames = UInt32(clamping: a.task.spec.outputEndFrame - a.task.spec.outputFirstFrame)
                output.processor = "none"
                let bytes = WireCodec.encode(.result(a.ref, output: output))
                held = (at + state.withLock { $0.hold }, a.ref, bytes)
            case .grant(let g)?:
                if let o = offered, o.ref == g.ref {
                    for part in Tessera_V1_Envelope.parts(g.ref, of: o.bytes, partBytes: partBytes) {
                        _ = try socket.send([WireCodec.encode(part)])
                    }
                }
            case .ack?:
                offered = nil
                state.withLock {
                    $0.latencies.ack.append(at - resultAt)
                    $0.acknowledged += 1
                }
                readyAt = Date().timeIntervalSince1970
                try send { $0.ready.credit = 1 }
            case .heartbeat?:
                try send { $0.heartbeat.sentUnixMs = Int64(at * 1000) }
            default:
                break
            }
        }
        socket.close()
    }
}
