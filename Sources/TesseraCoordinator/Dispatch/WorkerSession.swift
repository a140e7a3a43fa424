import Foundation
import TesseraCore
import TesseraWire

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
    /// Frames per second over its finished segments (each segment's frames over its encode seconds,
    /// averaged with weight ½ on the newest): what a backup decision expects of it. Nil until one.
    var segmentRate: Double?
    var framesDone = 0
    var draining = false
    /// How its requested backends resolved (from Hello, then each Ready that says).
    var backendChoices: [Tessera_V1_BackendChoice] = []
    /// Until when its busy time has been counted (`tessera_worker_busy_seconds_total`).
    var busySince: Double

    var status: WorkerStatus {
        WorkerStatus(
            id: id, hostname: capabilities.hostname, cores: Int(capabilities.cores),
            memoryBytes: capabilities.memoryBytes,
            backends: capabilities.backends.compactMap(ProcessingBackend.init(rawValue:)),
            encoders: capabilities.videoEncoders,
            state: draining ? .draining : holding.isEmpty ? .idle : .busy,
            tasks: holding.sorted { ($0.job, $0.segment, $0.attempt) < ($1.job, $1.segment, $1.attempt) },
            segmentsDone: segmentsDone,
            lastSeenSeconds: max(0, Date().timeIntervalSince1970 - lastSeen),
            backendChoices: backendChoices.compactMap { c in
                guard let requested = ProcessingBackend(rawValue: c.requested),
                    let chosen = ProcessingBackend(rawValue: c.chosen)
                else { return nil }
                return .init(requested: requested, chosen: chosen, reason: c.reason)
            },
            framesDone: framesDone,
            mediaRoots: capabilities.readableRoots
                + (capabilities.features.contains(WorkerFeature.httpSource) ? [WorkerStatus.httpSource] : []))
    }
}
