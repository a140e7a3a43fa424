import ArgumentParser
import Foundation
import Logging
import TesseraCore
import TesseraWire
import TesseraWorker

/// `tessera worker`: join a farm and transcode the segments the coordinator hands out.
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker", abstract: "Run a farm worker.",
        discussion: """
            Connects to the coordinator (reconnecting with back-off when it goes away), announces its \
            codecs, backends, cores and memory, and transcodes segments: one running, one prefetched. \
            SIGTERM or Ctrl-C drains: the running segment is finished and delivered, the prefetched one is \
            handed back, then the worker leaves. Exit status: 0 after draining; 69 when the coordinator \
            refuses this worker; 64 bad arguments.
            """)

    @Option(help: "The coordinator's ZeroMQ endpoint.") var coordinator: String = "tcp://127.0.0.1:5555"
    @Option(help: "This worker's CURVE key file (PREFIX.key from `tessera keys generate`).") var curveKey: String?
    @Option(help: "The coordinator's public key file (its PREFIX.pub).") var coordinatorKey: String?
    @Option(help: "Colour/scale backend when a job does not choose: auto, cpu or vulkan.") var backend:
        ProcessingBackend = .auto
    @Option(help: "Segments held at once (one running, the rest prefetched).") var slots: Int = 2
    @Option(help: "Codec threads per segment (0 = every core).") var threads: Int = 0
    @Option(help: "Worker name in logs and `tessera workers` (default host-pid-random).") var id: String?
    @Option(
        help: ArgumentHelp(
            "A folder this worker reads sources from itself, e.g. a shared mount: LOCAL, or LOCAL=COORDINATOR when "
                + "the coordinator names it otherwise (repeatable). Tasks for sources under it come without "
                + "their packets; a task it cannot read falls back to packets.",
            valueName: "folder"))
    var mediaRoot: [String] = []
    @Option(
        help: ArgumentHelp(
            "The coordinator's HTTP API (http://HOST:PORT): sources under none of the --media-root folders are "
                + "read from it (GET /v1/media, range requests), so tasks come without their packets.",
            valueName: "url"))
    var mediaURL: String?
    @Option(help: "A file holding the coordinator's API token, sent with --media-url's requests.")
    var tokenFile: String?

    func validate() throws {
        guard (curveKey == nil) == (coordinatorKey == nil) else {
            throw ValidationError("--curve-key and --coordinator-key go together")
        }
        guard (1...8).contains(slots) else { throw ValidationError("--slots must be 1…8") }
        if tokenFile != nil, mediaURL == nil { throw ValidationError("--token-file goes with --media-url") }
        if let mediaURL, MediaURL(mediaURL, token: nil) == nil {
            throw ValidationError("--media-url \(mediaURL): an http:// or https:// address of a host and port, no path")
        }
        for root in mediaRoot where MediaRootMapping(root) == nil {
            throw ValidationError(
                "--media-root \(root): LOCAL or LOCAL=COORDINATOR, both absolute paths without . or .. components")
        }
    }

    func run() async throws {
        LoggingSetup.bootstrap()
        var config = Worker.Configuration(coordinator: coordinator, id: id)
        config.backend = backend
        config.slots = slots
        config.threads = threads
        config.mediaRoots = mediaRoot.compactMap(MediaRootMapping.init)
        if let mediaURL {
            var token: String?
            if let tokenFile {
                do throws(WireError) {
                    if let warning = try SecretFilePermissions.check(tokenFile, what: "token file") {
                        Logger(label: "tessera.worker").warning("\(warning)")
                    }
                } catch {
                    throw ValidationError(error.message)
                }
                guard let text = try? String(contentsOfFile: tokenFile, encoding: .utf8) else {
                    throw ValidationError("cannot read --token-file \(tokenFile)")
                }
                token = text.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            guard let url = MediaURL(mediaURL, token: token) else {
                throw ValidationError("--token-file \(tokenFile ?? ""): the token must be one line of visible ASCII")
            }
            config.mediaURL = url
        }
        if let curveKey, let coordinatorKey {
            do throws(WireError) {
                if let warning = try SecretFilePermissions.check(curveKey, what: "CURVE secret key") {
                    Logger(label: "tessera.worker").warning("\(warning)")
                }
            } catch {
                throw ValidationError(error.message)
            }
            config.keyPair = try CurveKeyPair.load(secretFile: curveKey)
            config.coordinatorPublicKey = try CurveKeyPair.loadPublicKeys(coordinatorKey).first
        }
        let worker = Worker(configuration: config)
        // SIGINT/SIGTERM drain the worker; its loop then ends by itself.
        switch try await Lifecycle.runBlocking("tessera.worker", { try worker.run() }, onSignal: { worker.drain() }) {
        case .stopped:
            return
        case .rejected(let why):
            FileHandle.standardError.write(Data("tessera: the coordinator refused this worker: \(why)\n".utf8))
            throw ExitCode(69)
        }
    }
}
