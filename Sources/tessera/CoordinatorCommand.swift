import ArgumentParser
import Foundation
import Logging
import TesseraCoordinator
import TesseraFarm
import TesseraWire

/// `tessera coordinator`: the farm's coordinator — job store, dispatcher, HTTP API.
struct CoordinatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coordinator", abstract: "Run the farm's coordinator.",
        discussion: """
            Workers connect to --listen (ZeroMQ ROUTER; CURVE-encrypted with --curve-secret, admitting only \
            the public keys in --allowed-keys). People and scripts use the HTTP API on --http (Bearer token \
            from --token-file; /healthz and /metrics need none). Jobs and finished segments live under \
            --data: a coordinator restarted on the same folder resumes every unfinished job without redoing \
            finished segments. SIGTERM or Ctrl-C stops gracefully (jobs resume at the next start).
            """)

    @Option(help: "ZeroMQ endpoint workers connect to.") var listen: String = "tcp://*:5555"
    @Option(help: "HOST:PORT of the HTTP API.") var http: String = "127.0.0.1:8080"
    @Option(help: "Folder for the job store, the segment spool and uploads.") var data: String = "tessera-data"
    @Option(help: "A folder sources may be read from (repeatable).") var mediaRoot: [String] = []
    @Option(help: "Folder outputs are written under (job outputs are relative to it).") var outputRoot: String?
    @Option(help: "The coordinator's CURVE key file (PREFIX.key); enables encryption and the allow-list.")
    var curveSecret: String?
    @Option(help: "Worker public keys allowed in: a file with one key per line, or a folder of *.pub files.")
    var allowedKeys: String?
    @Option(help: "File holding the HTTP API's bearer token.") var tokenFile: String?
    @Option(help: "Milliseconds between heartbeats.") var heartbeatMs: Int = 1000
    @Option(help: "Missed heartbeats after which a worker counts as dead.") var liveness: Int = 5
    @Option(help: "Seconds a segment may go without progress before it is given to another worker.")
    var stallTimeout: Double = 60
    @Option(help: "Failed attempts of one segment that fail its job.") var maxAttempts: Int = 3
    @Option(
        help: ArgumentHelp(
            "An idle worker takes a backup attempt of a segment out at a slow one when that segment is expected "
                + "to end more than this many times later than the idle worker would need for all of it; 0: never.",
            valueName: "multiplier"))
    var backupMultiplier: Double = BackupPolicy().multiplier
    @Option(help: "Seconds per segment when a job does not say.") var segmentDuration: Double = 4
    @Option(
        help: "Largest result (MiB: one segment's encoded packets) taken from a worker; a larger one fails its attempt."
    )
    var maxMessageMb: Int = 256
    @Option(
        help: ArgumentHelp(
            "Most bytes (MiB) of results held at once, every worker together: a worker sends a result once it "
                + "is granted room, and the room is freed when the result is spooled. At least --max-message-mb."))
    var inboundBudgetMb: Int = 512
    @Option(
        help: "Most bytes (KiB) of a result in one message; a peer sending a larger message is disconnected.")
    var resultPartKb: Int = WireCodec.defaultPartBytes >> 10
    @Option(
        help: ArgumentHelp(
            "Threads each job's AAC audio encode may use, in 20 s chunks (1–64; default: every core). The "
                + "coordinator encodes a job's audio while the workers encode its video.",
            valueName: "n"))
    var audioThreads: Int = ProcessInfo.processInfo.activeProcessorCount

    func validate() throws {
        guard (curveSecret == nil) == (allowedKeys == nil) else {
            throw ValidationError("--curve-secret and --allowed-keys go together")
        }
        guard Self.hostPort(http) != nil else { throw ValidationError("--http must be HOST:PORT, e.g. 127.0.0.1:8080") }
        guard backupMultiplier == 0 || (1...100).contains(backupMultiplier) else {
            throw ValidationError("--backup-multiplier must be 0 (no backup attempts) or between 1 and 100")
        }
        guard (1...64).contains(audioThreads) else { throw ValidationError("--audio-threads must be 1…64") }
        // Upper bounds too: the timings become milliseconds on the wire (32 and 64 bits).
        guard (10...3_600_000).contains(heartbeatMs), (2...1000).contains(liveness),
            stallTimeout > 0, stallTimeout <= 604_800, maxAttempts >= 1, segmentDuration > 0, segmentDuration <= 3600,
            (1...2048).contains(maxMessageMb)
        else {
            throw ValidationError(
                "timings and limits out of range (heartbeat 10 ms…1 h, liveness 2…1000, stall timeout up to a week, "
                    + "segments up to an hour, --max-message-mb 1…2048)")
        }
        guard (maxMessageMb...1_048_576).contains(inboundBudgetMb) else {
            throw ValidationError(
                "--inbound-budget-mb must be at least --max-message-mb (\(maxMessageMb)) and at most 1048576")
        }
        guard (16...65536).contains(resultPartKb) else {
            throw ValidationError("--result-part-kb must be between 16 and 65536")
        }
    }

    static func hostPort(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port)
        else { return nil }
        let host = String(text[..<colon])
        return (host.isEmpty ? "0.0.0.0" : host, port)
    }

    func run() async throws {
        LoggingSetup.bootstrap()
        let logger = Logger(label: "tessera.coordinator")
        for (path, what) in [(tokenFile, "token file"), (curveSecret, "CURVE secret key")] {
            guard let path else { continue }
            do throws(WireError) {
                if let warning = try SecretFilePermissions.check(path, what: what) { logger.warning("\(warning)") }
            } catch {
                throw ValidationError(error.message)
            }
        }
        let token = try tokenFile.map {
            try String(contentsOfFile: $0, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        // An empty token would start a coordinator that refuses every request.
        if let tokenFile, token?.isEmpty != false { throw ValidationError("--token-file \(tokenFile) is empty") }
        if token == nil { logger.warning("no --token-file: the HTTP API is open to anyone who can reach \(http)") }
        func url(_ path: String) -> URL { URL(fileURLWithPath: path).standardizedFileURL }
        var config = CoordinatorConfiguration(
            listen: listen, dataDirectory: url(data), mediaRoots: mediaRoot.map(url),
            outputRoot: outputRoot.map(url))
        config.curveSecretFile = curveSecret
        config.allowedKeysPath = allowedKeys
        config.heartbeatInterval = Double(heartbeatMs) / 1000
        config.liveness = liveness
        config.stallTimeout = stallTimeout
        config.maxAttempts = maxAttempts
        config.backupPolicy = backupMultiplier > 0 ? BackupPolicy(multiplier: backupMultiplier) : nil
        config.segmentDuration = segmentDuration
        config.maxMessageBytes = maxMessageMb << 20
        config.inboundBudgetBytes = inboundBudgetMb << 20
        config.resultPartBytes = resultPartKb << 10
        config.audioThreads = audioThreads
        let coordinator = try Coordinator(configuration: config, logger: logger)
        try coordinator.start()  // a ZeroMQ address that cannot be bound fails here, before any HTTP
        let (host, port) = Self.hostPort(http)!
        let server = FarmServer(coordinator: coordinator, token: token, host: host, port: port) { bound in
            logger.info("HTTP API on http://\(host):\(bound)")
        }
        // SIGTERM/SIGINT shut the group down gracefully, in reverse order (see `FarmServer.services`).
        do {
            try await Lifecycle.run(server.services)
        } catch {
            coordinator.shutdown()
            FileHandle.standardError.write(Data("tessera: HTTP API on \(http): \(error)\n".utf8))
            throw ExitCode(ExitStatus.software.rawValue)
        }
        logger.info("stopped: jobs in progress resume at the next start")
    }
}
