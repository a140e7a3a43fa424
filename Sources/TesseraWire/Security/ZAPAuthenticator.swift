import Foundation

/// The ZAP 1.0 handler (ZeroMQ RFC 27) of a context: decides which CURVE clients a server socket in the
/// same context accepts.
///
/// ```
///  worker ──CURVE handshake──▶ coordinator ROUTER ──ZAP request──▶ inproc://zeromq.zap.01 (this thread)
///                                                  ◀── 200 / 400 ──
/// ```
///
/// A CURVE client whose public key is on the allow-list gets 200 (its Z85 key becomes the connection's
/// user id); anything else gets 400 and a log line naming the refused key (Z85) and peer address. A
/// refused client retries at its reconnect interval, so each key is logged at most once a minute, with a
/// count of the refusals in between. libzmq asks only if a handler is bound, so `start()` must run before
/// the server socket binds.
///
/// Runs its own thread with a REP socket. The allow-list and counters sit behind a lock, so every method
/// is safe from any thread (hence `@unchecked Sendable`). `stop()` ends the thread; so does shutting the
/// context down.
public final class ZAPAuthenticator: @unchecked Sendable {
    /// The endpoint libzmq sends ZAP requests to.
    public static let endpoint = "inproc://zeromq.zap.01"

    private let context: ZMQContext
    private let log: @Sendable (String) -> Void
    private let lock = NSLock()
    private var allowed: Set<String>
    private var counts = (accepted: 0, refused: 0)
    private var refusalLog = RefusalLog()
    private var wakeUp: ZMQWakeUp?
    private var finished: DispatchSemaphore?
    private var stopping = false

    /// - Parameters:
    ///   - allowedPublicKeys: Z85 public keys of the clients to accept (see `CurveKeyPair.loadPublicKeys`).
    ///   - log: receives one line per refusal and per handler failure.
    public init(context: ZMQContext, allowedPublicKeys: Set<String>, log: @escaping @Sendable (String) -> Void) {
        self.context = context
        self.allowed = allowedPublicKeys
        self.log = log
    }

    /// The keys accepted from now on; replacing them does not drop connections already made.
    public var allowedPublicKeys: Set<String> {
        get { lock.withLock { allowed } }
        set { lock.withLock { allowed = newValue } }
    }

    /// Connections accepted and refused so far.
    public var decisions: (accepted: Int, refused: Int) { lock.withLock { counts } }

    /// Binds the ZAP endpoint and starts answering on a dedicated thread.
    /// - Throws: `.zmq(errno: EADDRINUSE)` when the context already has a ZAP handler; `.closed`.
    public func start() throws(WireError) {
        let socket = try ZMQSocket(context, .rep)
        try socket.bind(Self.endpoint)
        let wakeUp = try ZMQWakeUp(context: context)
        let finished = DispatchSemaphore(value: 0)
        lock.withLock {
            self.wakeUp = wakeUp
            self.finished = finished
            stopping = false
        }
        let thread = Thread { [self] in
            serve(socket, wakeUp)
            socket.close()
            wakeUp.close()
            finished.signal()
        }
        thread.name = "tessera-zap"
        thread.start()
    }

    /// Stops the thread and waits for it to end. Blocks (briefly): call it from a plain thread, not from
    /// async code. Does nothing when not running.
    public func stop() {
        let (wakeUp, finished) = lock.withLock { () -> (ZMQWakeUp?, DispatchSemaphore?) in
            stopping = true
            defer {
                self.wakeUp = nil
                self.finished = nil
            }
            return (self.wakeUp, self.finished)
        }
        guard let wakeUp, let finished else { return }
        wakeUp.signal()
        finished.wait()
    }

    private func serve(_ socket: ZMQSocket, _ wakeUp: ZMQWakeUp) {
        let poller = ZMQPoller([socket, wakeUp.socket])
        while !lock.withLock({ stopping }) {
            do {
                guard try poller.poll(timeoutMilliseconds: nil)[0],
                    let request = try socket.receive(timeoutMilliseconds: 0)
                else { continue }
                try socket.send(answer(request))
            } catch {
                if error.kind != .closed { log("ZAP handler stopped: \(error)") }
                return
            }
        }
    }

    /// The reply frames for one request: version, request id, status code, status text, user id, metadata.
    func answer(_ request: [Data]) -> [Data] {
        guard request.count >= 6, request[0] == Data("1.0".utf8) else {
            log("ZAP: malformed request of \(request.count) frames")
            return reply(request.count > 1 ? request[1] : Data(), "500", "malformed ZAP request")
        }
        let address = String(decoding: request[3], as: UTF8.self)
        let mechanism = String(decoding: request[5], as: UTF8.self)
        guard mechanism == "CURVE", request.count == 7, let key = CurveKeyPair.encode(Array(request[6])) else {
            lock.withLock { counts.refused += 1 }
            log("ZAP: refused a \(mechanism) connection from \(address): only CURVE clients are accepted")
            return reply(request[1], "400", "CURVE required")
        }
        let accepted = lock.withLock {
            let ok = allowed.contains(key)
            if ok { counts.accepted += 1 } else { counts.refused += 1 }
            return ok
        }
        guard accepted else {
            if let repeats = lock.withLock({ refusalLog.shouldLog(key) }) {
                let also = repeats > 0 ? " (refused \(repeats) more times since the last report)" : ""
                log("ZAP: refused CURVE key \(key) from \(address): not on the allow-list\(also)")
            }
            return reply(request[1], "400", "key not allowed", key)
        }
        return reply(request[1], "200", "OK", key)
    }

    private func reply(_ requestID: Data, _ code: String, _ text: String, _ userID: String = "") -> [Data] {
        [Data("1.0".utf8), requestID, Data(code.utf8), Data(text.utf8), Data(userID.utf8), Data()]
    }
}
