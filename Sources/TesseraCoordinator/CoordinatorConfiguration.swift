import Foundation
import TesseraWire

/// How a coordinator runs: where it listens, keeps its state, may read and write, and its timing rules.
public struct CoordinatorConfiguration: Sendable {
    /// ZeroMQ endpoint of the ROUTER socket, e.g. `tcp://*:5555` (`tcp://127.0.0.1:*` picks a port).
    public var listen: String
    /// Job store (tessera.sqlite), spool of finished segments, uploads.
    public var dataDirectory: URL
    /// Sources must lie under one of these (uploads are always allowed).
    public var mediaRoots: [URL]
    /// Outputs are written under this folder; nil keeps them in the data folder (fetch only).
    public var outputRoot: URL?
    /// The coordinator's CURVE secret key file (`tessera keys generate`); nil runs without encryption
    /// (loopback and tests only).
    public var curveSecretFile: String?
    /// Worker public keys allowed in (a file of keys or a folder of *.pub); required with CURVE.
    public var allowedKeysPath: String?
    public var heartbeatInterval: Double = 1.0
    /// Silent intervals after which a worker counts as dead.
    public var liveness: Int = 5
    /// Seconds a leased segment may go without progress before it is given to another worker.
    public var stallTimeout: Double = 60
    /// A worker holding a task gets another (a prefetch) only while the source packets of what it holds
    /// stay within this: a mezzanine's segments are hundreds of megabytes each.
    public var prefetchBytes = 128 << 20
    /// When an idle worker takes a backup attempt of a segment out at a slow one; nil: never.
    public var backupPolicy: BackupPolicy? = BackupPolicy()
    /// Failed attempts of one segment that fail its job.
    public var maxAttempts: Int = 3
    /// The largest result (a segment's encoded packets, assembled from its parts) it takes.
    public var maxMessageBytes: Int = 256 << 20
    /// The most bytes of results it holds at once, every worker together: granted to workers before they
    /// send, held until each result is spooled or refused (PROTOCOL.md §8). At least `maxMessageBytes`.
    public var inboundBudgetBytes: Int = 512 << 20
    /// The most result bytes in one part; the socket refuses larger frames (`ZMQ_MAXMSGSIZE`).
    public var resultPartBytes: Int = WireCodec.defaultPartBytes

    /// The largest frame the workers' socket takes: a part and its envelope (`ZMQ_MAXMSGSIZE`,
    /// `Welcome.max_message_bytes`). A library caller's part size is held within 1 byte…1 GiB here.
    var frameLimitBytes: Int { min(max(1, resultPartBytes), 1 << 30) + WireCodec.partOverheadBytes }
    /// Threads a job's audio encode may use. The coordinator encodes each job's audio while the workers
    /// encode its video, and on a large farm the audio is the job's longest task: an AAC track is encoded in
    /// chunks on this many threads (`ExportSession.audioThreads`). Every core by default; a `LocalFarm`,
    /// whose workers have the cores, uses one.
    public var audioThreads = ProcessInfo.processInfo.activeProcessorCount
    /// Default seconds per segment when a job does not say.
    public var segmentDuration: Double = 4
    /// Whether each worker's result is checked against its task before it counts
    /// (`SegmentResultCheck`: it decodes to the task's frames, at its size and times, showing the
    /// source's pictures). A `LocalFarm` turns it off: its workers are this process's own threads.
    public var checkResults = true
    /// When set, only these worker ids may say Hello: a `LocalFarm`'s own workers, whose ids carry a
    /// random secret, so no other process on the machine joins the farm it does not check.
    public var allowedWorkerIDs: Set<String>?

    public init(listen: String, dataDirectory: URL, mediaRoots: [URL], outputRoot: URL?) {
        self.listen = listen
        self.dataDirectory = dataDirectory
        self.mediaRoots = mediaRoots
        self.outputRoot = outputRoot
    }
}
