import Foundation
import Logging
import Synchronization
import TesseraAV
import TesseraCompute
import TesseraCore
import TesseraMedia
import TesseraWire

/// The worker's codec thread: runs the tasks the coordinator assigned, one at a time, in order, and
/// hands each outcome (progress, result, failure) to the network thread as a ready-to-send envelope.
/// It never touches the socket (ZeroMQ sockets belong to one thread).
final class WorkerCodecThread: @unchecked Sendable {
    struct Held: Sendable {
        let key: TaskKey
        let task: Tessera_V1_SegmentTask
    }

    private let condition = NSCondition()
    private var queue: [Held] = []
    private var running: TaskKey?
    private var cancelled: Set<TaskKey> = []
    private var stopped = false
    private let threads: Int
    private let selectors: BackendSelectors
    private let mediaRoots: [MediaRootMapping]
    private let mediaURL: MediaURL?
    private let logger: Logger
    /// Called on this thread with each envelope to send.
    private let post: @Sendable (Tessera_V1_Envelope) -> Void

    /// How each requested backend resolved so far, for the coordinator (Capabilities, Ready).
    var backendChoices: [Tessera_V1_BackendChoice] { selectors.choices }

    init(
        threads: Int, backend: ProcessingBackend, mediaRoots: [MediaRootMapping] = [], mediaURL: MediaURL? = nil,
        logger: Logger,
        post: @escaping @Sendable (Tessera_V1_Envelope) -> Void
    ) {
        self.threads = threads
        self.mediaRoots = mediaRoots
        self.mediaURL = mediaURL
        selectors = BackendSelectors(default: backend)
        self.logger = logger
        self.post = post
        let thread = Thread { [self] in loop() }
        thread.name = "tessera.worker.codec"
        thread.stackSize = 8 << 20
        thread.start()
    }

    func enqueue(_ held: Held) {
        condition.withLock {
            queue.append(held)
            condition.broadcast()
        }
    }

    enum CancelOutcome { case dropped, stopping, notHeld }

    /// Stops a task: drops it if waiting; if running, stops it between packets (it then reports
    /// TaskFailed CANCELLED).
    func cancel(_ key: TaskKey) -> CancelOutcome {
        condition.withLock {
            if let i = queue.firstIndex(where: { $0.key == key }) {
                queue.remove(at: i)
                return .dropped
            }
            if running == key {
                cancelled.insert(key)
                return .stopping
            }
            return .notHeld
        }
    }

    /// Removes and returns the tasks not started yet (to hand back when draining or reconnecting).
    func takeWaiting() -> [TaskKey] {
        condition.withLock {
            let keys = queue.map(\.key)
            queue.removeAll()
            return keys
        }
    }

    /// Tasks held: waiting plus running.
    var holding: [TaskKey] {
        condition.withLock { queue.map(\.key) + (running.map { [$0] } ?? []) }
    }

    var isIdle: Bool { condition.withLock { queue.isEmpty && running == nil } }

    func stop() {
        condition.withLock {
            stopped = true
            if let running { cancelled.insert(running) }
            queue.removeAll()
            condition.broadcast()
        }
    }

    private func loop() {
        let decoders = SegmentDecoders()
        while true {
            let next: Held? = condition.withLock {
                while queue.isEmpty && !stopped { condition.wait() }
                guard !stopped else { return nil }
                let held = queue.removeFirst()
                running = held.key
                return held
            }
            guard let held = next else { return }
            run(held, decoders: decoders)
            // A segment's pictures, packets and encoders (megabytes each, freed by several threads) leave free
            // pages in glibc's arenas. They go back to the system when the worker has nothing queued, not after
            // every segment: the next segment would fault them in again and the kernel clear them. Measured
            // (one run each, alternating): trimming after every segment kept `run --workers 2`'s peak at
            // 404–406 MB instead of 424–457, but cost 3 % of the farm job's wall and 5 % of a three-rendition
            // ladder's (15.57 s against 14.80; sys 2.3–2.7 s against 1.1–1.3).
            #if os(Linux)
            if condition.withLock({ queue.isEmpty }) { _ = mallocTrim(0) }
            #endif
            condition.withLock {
                running = nil
                cancelled.remove(held.key)
            }
        }
    }

    private func run(_ held: Held, decoders: SegmentDecoders) {
        let key = held.key
        var lastProgress = 0.0
        let started = Date()
        do throws(MediaError) {
            var work: SegmentWork
            do throws(WireError) { work = try SegmentWork(wire: held.task) } catch {
                throw MediaError(.invalidArgument, "malformed task: \(error)")
            }
            if held.task.hasSourceStream {
                // A task by reference: the packets come from the file itself, or the coordinator sends them.
                do throws(MediaError) { work.packets = try readSource(held.task, work) } catch {
                    logger.warning("segment \(key): cannot read its source here: \(error)")
                    post(.failed(key.ref, code: .sourceUnreadable, message: error.description))
                    return
                }
            }
            let selector = selectors.selector(for: work.backend)
            let output = try SegmentRunner.run(
                work, threads: threads, decoders: decoders,
                makeProcessor: selector.factory,
                progress: { p in
                    let now = Date().timeIntervalSince1970
                    guard now - lastProgress >= 0.5 || p.framesDone == p.framesTotal else { return }
                    lastProgress = now
                    self.post(
                        .progress(
                            key.ref, framesDone: UInt32(clamping: p.framesDone),
                            framesTotal: UInt32(clamping: p.framesTotal),
                            framesPerSecond: Double(p.framesDone) / max(0.001, Date().timeIntervalSince(started))))
                }, isCancelled: { [self] in condition.withLock { cancelled.contains(key) || stopped } })
            let wire: Tessera_V1_SegmentOutput
            do throws(WireError) { wire = try Tessera_V1_SegmentOutput(output) } catch {
                throw MediaError(.internal, "segment output cannot be sent: \(error)")
            }
            logger.info(
                "segment \(key) done: \(output.frames) frames in \(String(format: "%.2f", output.seconds)) s (\(output.processor))"
            )
            post(.result(key.ref, output: wire))
        } catch {
            if error.kind == .cancelled {
                logger.info("segment \(key) cancelled")
                post(.failed(key.ref, code: .cancelled, message: error.message))
                return
            }
            logger.error("segment \(key) failed: \(error)")
            post(.failed(key.ref, code: Self.code(error), message: error.description))
        }
    }

    /// The packets of a task by reference (`work.packets` as its task lists them), read from its source
    /// under one of this worker's media roots, or else over the coordinator's HTTP API (`--media-url`).
    private func readSource(_ task: Tessera_V1_SegmentTask, _ work: SegmentWork) throws(MediaError) -> [EncodedPacket] {
        let stream = Int(clamping: task.sourceStream)
        if let path = mediaRoots.localPath(for: task.sourceName) {
            return try SourcePacketReader.read(
                path: path, stream: stream, expected: work.packets.map(SourcePacketReader.Expected.init))
        }
        guard let mediaURL else {
            throw MediaError(.notFound, path: task.sourceName, "is under none of this worker's --media-root folders")
        }
        // Packets with their places in the file (MP4, QuickTime) are read as byte ranges; others by
        // demuxing the file over HTTP.
        return try SourcePacketReader.load(
            work.packets, from: mediaURL.url(for: task.sourceName), httpHeaders: mediaURL.headers, stream: stream,
            sourceBytes: task.sourceBytes > 0 ? Int64(clamping: task.sourceBytes) : nil)
    }

    static func code(_ error: MediaError) -> Tessera_V1_ErrorCode {
        switch error.kind {
        case .corrupt, .notMedia, .emptyFile: .corruptSource
        case .unsupported: .unsupported
        case .cancelled: .cancelled
        case .ffmpeg: .encoder
        case .device: .device
        case .io, .outputLocation: .io
        default: .internal
        }
    }
}

/// One backend selector per requested backend, kept for the worker's life: `auto` calibrates once.
final class BackendSelectors: Sendable {
    private let selectors = Mutex<[ProcessingBackend: BackendSelector]>([:])
    private let fallback: ProcessingBackend

    init(default fallback: ProcessingBackend) { self.fallback = fallback }

    /// Every selector that has decided, as the protocol reports it, in a stable order.
    var choices: [Tessera_V1_BackendChoice] {
        let decided = selectors.withLock {
            $0.sorted { $0.key.rawValue < $1.key.rawValue }.compactMap { $0.value.choice }
        }
        return decided.map { choice in
            var c = Tessera_V1_BackendChoice()
            c.requested = choice.requested.rawValue
            c.chosen = choice.chosen.rawValue
            c.reason = choice.reason
            return c
        }
    }

    /// `auto` in a task means the worker's own default (`--backend`).
    func selector(for requested: ProcessingBackend) -> BackendSelector {
        let backend = requested == .auto ? fallback : requested
        return selectors.withLock { selectors in
            if let s = selectors[backend] { return s }
            let s = BackendSelector(requested: backend)
            selectors[backend] = s
            return s
        }
    }
}

#if os(Linux)
/// glibc's `malloc_trim` (malloc.h), which the Glibc module does not import: returns free pages of every
/// arena to the system.
@_silgen_name("malloc_trim") private func mallocTrim(_ pad: Int) -> Int32
#endif
