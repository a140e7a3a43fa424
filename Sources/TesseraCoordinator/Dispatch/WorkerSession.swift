import Foundation
import TesseraCore
import TesseraWire

/// One attempt at one segment, as leases and results name it.
struct TaskKey: Hashable, Sendable, CustomStringConvertible {
    var job: String
    var segment: Int
    var attempt: Int

    init(job: String, segment: Int, attempt: Int) {
        self.job = job
        self.segment = segment
        self.attempt = attempt
    }

    init(_ ref: Tessera_V1_TaskRef) {
        self.init(job: ref.jobID, segment: Int(ref.segment), attempt: Int(ref.attempt))
    }

    var ref: Tessera_V1_TaskRef {
        var r = Tessera_V1_TaskRef()
        r.jobID = job
        r.segment = UInt32(segment)
        r.attempt = UInt32(attempt)
        return r
    }

    var description: String { "\(job)/\(segment)#\(attempt)" }
}

/// A connected worker as the dispatcher sees it (dispatcher thread only).
struct WorkerSession {
    let routingID: Data
    let id: String
    let capabilities: Tessera_V1_Capabilities
    /// Tasks it may hold at once (one running, the rest prefetched).
    let slots: Int
    /// Free slots it has announced with Ready and not yet been given work for.
    var credit = 0
    var lastSeen: Double
    var lastSent: Double
    var holding: Set<TaskKey> = []
    var segmentsDone = 0
    var draining = false

    var status: WorkerStatus {
        WorkerStatus(id: id, hostname: capabilities.hostname, cores: Int(capabilities.cores),
                     memoryBytes: capabilities.memoryBytes, backends: capabilities.backends,
                     encoders: capabilities.videoEncoders,
                     state: draining ? "draining" : holding.isEmpty ? "idle" : "busy",
                     tasks: holding.map(\.description).sorted(), segmentsDone: segmentsDone,
                     lastSeenSeconds: max(0, Date().timeIntervalSince1970 - lastSeen))
    }
}
