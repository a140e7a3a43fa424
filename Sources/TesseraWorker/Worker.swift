import Foundation
import Logging
import Synchronization
import TesseraCompute
import TesseraCore
import TesseraMedia
import TesseraWire

/// A farm worker: connects to a coordinator, announces what it can do, transcodes the segments it is
/// given, and reports progress and results (Protocols/PROTOCOL.md).
///
/// `run()` is the network loop and blocks its thread (the CLI's main thread, or a thread of
/// `tessera run`); segments are encoded on a second, dedicated thread. `drain()` finishes the running
/// segment, hands back the prefetched one and leaves; `stop()` leaves at once.
public final class Worker: @unchecked Sendable {
    public struct Configuration: Sendable {
        /// e.g. `tcp://coordinator:5555`.
        public var coordinator: String
        public var id: String
        /// The worker's own CURVE key pair, and the coordinator's public key; both nil = no CURVE.
        public var keyPair: CurveKeyPair?
        public var coordinatorPublicKey: String?
        /// Used when a job asks for `auto`.
        public var backend: ProcessingBackend = .auto
        /// Tasks held at once: one running, the rest prefetched.
        public var slots: Int = 2
        /// Codec threads for each segment; 0 = every core.
        public var threads: Int = 0
        /// Folders it reads sources from itself: tasks for sources under them may come by reference.
        public var mediaRoots: [MediaRootMapping] = []
        /// Reads sources under no media root from the coordinator's HTTP API: its tasks come by reference.
        public var mediaURL: MediaURL?
        /// Seconds between reconnect attempts: doubles from `backoffInitial` up to `backoffMax`.
        public var backoffInitial: Double = 0.5
        public var backoffMax: Double = 16

        public init(coordinator: String, id: String? = nil) {
            self.coordinator = coordinator
            self.id = id ?? Self.defaultID()
        }

        static func defaultID() -> String {
            "\(ProcessInfo.processInfo.hostName.split(separator: ".").first ?? "worker")-\(getpid())-\(UUID().uuidString.prefix(4).lowercased())"
        }
    }

    public enum Exit: Sendable, Equatable {
        /// Drained or stopped on request.
        case stopped
        /// The coordinator refused this worker (version, bad Hello).
        case rejected(String)
    }

    public let configuration: Configuration
    let logger: Logger
    let outbox = Mutex<[Tessera_V1_Envelope]>([])
    private let wakeUpBox = Mutex<ZMQWakeUp?>(nil)
    let draining = Atomic<Bool>(false)
    let stopping = Atomic<Bool>(false)
    var codec: WorkerCodecThread!

    public init(configuration: Configuration, logger: Logger = Logger(label: "tessera.worker")) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Finish the running segment, return the waiting one, say goodbye, and return from `run()`.
    public func drain() {
        draining.store(true, ordering: .releasing)
        wake()
    }

    /// Leave now; the coordinator re-leases whatever this worker held.
    public func stop() {
        stopping.store(true, ordering: .releasing)
        wake()
    }

    func wake() { wakeUpBox.withLock { $0 }?.signal() }

    /// Runs until drained, stopped or rejected.
    public func run() throws(WireError) -> Exit {
        // A context of this run only: when its last socket is released at the end of `run()`, its
        // termination waits for the sockets' linger, so a final Goodbye or result is on the wire before
        // the process can exit.
        let context = ZMQContext()
        let wakeUp = try ZMQWakeUp(context: context)
        wakeUpBox.withLock { $0 = wakeUp }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        codec = WorkerCodecThread(
            threads: configuration.threads > 0 ? configuration.threads : cores,
            backend: configuration.backend, mediaRoots: configuration.mediaRoots, mediaURL: configuration.mediaURL,
            logger: logger
        ) { [weak self] e in
            self?.outbox.withLock { $0.append(e) }
            self?.wake()
        }
        defer {
            codec.stop()
            wakeUpBox.withLock { $0 = nil }
            wakeUp.close()
        }
        var session = WorkerConnection(worker: self, context: context)
        return try session.run(wake: wakeUp)
    }

    /// What this worker tells the coordinator in Hello.
    var capabilities: Tessera_V1_Capabilities {
        var c = Tessera_V1_Capabilities()
        c.hostname = ProcessInfo.processInfo.hostName
        c.cores = UInt32(ProcessInfo.processInfo.activeProcessorCount)
        c.memoryBytes = ProcessInfo.processInfo.physicalMemory
        c.videoEncoders = CodecSupport.videoEncoders.map(\.rawValue)
        c.videoDecoders = CodecSupport.videoDecoders
        c.features = WorkerFeature.all + (configuration.mediaURL != nil ? [WorkerFeature.httpSource] : [])
        c.readableRoots = configuration.mediaRoots.map(\.coordinator)
        var backends: [ProcessingBackend] = [.cpu]
        if configuration.backend != .cpu, case .success(let device) = VulkanDeviceProbe.device() {
            backends.append(.vulkan)
            c.vulkanDevice = device
        }
        c.backends = backends.map(\.rawValue)
        c.software = "tessera / \(CodecSupport.libraryVersion)"
        c.slots = UInt32(configuration.slots)
        c.backendChoices = codec.backendChoices
        return c
    }
}
