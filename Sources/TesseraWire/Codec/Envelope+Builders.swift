import Foundation

/// One-line constructors for every message, so senders read as the protocol does:
/// `socket.send([WireCodec.encode(.ready(credit: 2))])`.
extension Tessera_V1_Envelope {
    private static func with(_ body: OneOf_Body, version: UInt32 = WireCodec.version) -> Tessera_V1_Envelope {
        var envelope = Tessera_V1_Envelope()
        envelope.version = version
        envelope.body = body
        return envelope
    }

    // MARK: worker → coordinator

    public static func hello(
        workerID: String, capabilities: Tessera_V1_Capabilities,
        versions: [UInt32] = [WireCodec.version]
    ) -> Tessera_V1_Envelope {
        var hello = Tessera_V1_Hello()
        hello.workerID = workerID
        hello.versions = versions
        hello.capabilities = capabilities
        return with(.hello(hello), version: WireCodec.sessionVersion)
    }

    public static func ready(credit: UInt32) -> Tessera_V1_Envelope {
        var ready = Tessera_V1_Ready()
        ready.credit = credit
        return with(.ready(ready))
    }

    public static func progress(
        _ ref: Tessera_V1_TaskRef, framesDone: UInt32, framesTotal: UInt32,
        framesPerSecond: Double
    ) -> Tessera_V1_Envelope {
        var progress = Tessera_V1_TaskProgress()
        progress.ref = ref
        progress.framesDone = framesDone
        progress.framesTotal = framesTotal
        progress.framesPerSecond = framesPerSecond
        return with(.progress(progress))
    }

    /// The envelope a result's bytes are (never sent as it is: `offer` and `parts` carry it).
    public static func result(_ ref: Tessera_V1_TaskRef, output: Tessera_V1_SegmentOutput) -> Tessera_V1_Envelope {
        var result = Tessera_V1_TaskResult()
        result.ref = ref
        result.output = output
        return with(.result(result))
    }

    /// Offers a serialized result envelope of `bytes` bytes (PROTOCOL.md §8).
    public static func offer(_ ref: Tessera_V1_TaskRef, bytes: Int) -> Tessera_V1_Envelope {
        var offer = Tessera_V1_ResultOffer()
        offer.ref = ref
        offer.bytes = UInt64(max(0, bytes))
        return with(.offer(offer))
    }

    /// A granted result's bytes, in order, at most `partBytes` (≥ 1) of them in each part (a worker takes
    /// `partBytes` from the coordinator's Welcome: `Tessera_V1_Welcome.resultPartBytes`).
    public static func parts(_ ref: Tessera_V1_TaskRef, of bytes: Data, partBytes: Int) -> [Tessera_V1_Envelope] {
        let step = max(1, partBytes)
        return stride(from: 0, to: bytes.count, by: step).map { start in
            var part = Tessera_V1_ResultPart()
            part.ref = ref
            part.offset = UInt64(start)
            let from = bytes.startIndex + start
            part.data = bytes[from..<min(bytes.endIndex, from + step)]
            return with(.part(part))
        }
    }

    public static func failed(
        _ ref: Tessera_V1_TaskRef, code: Tessera_V1_ErrorCode,
        message: String
    ) -> Tessera_V1_Envelope {
        var failed = Tessera_V1_TaskFailed()
        failed.ref = ref
        failed.code = code
        failed.message = message
        return with(.failed(failed))
    }

    public static func goodbye(reason: String) -> Tessera_V1_Envelope {
        var goodbye = Tessera_V1_Goodbye()
        goodbye.reason = reason
        return with(.goodbye(goodbye))
    }

    // MARK: coordinator → worker

    public static func welcome(
        heartbeatIntervalMilliseconds: UInt32 = 1000, liveness: UInt32 = 5,
        maxMessageBytes: UInt64 = UInt64(WireCodec.defaultPartBytes + WireCodec.partOverheadBytes),
        maxResultBytes: UInt64 = UInt64(WireCodec.defaultMaxMessageBytes),
        partBytes: UInt64 = UInt64(WireCodec.defaultPartBytes),
        version: UInt32 = WireCodec.version
    ) -> Tessera_V1_Envelope {
        var welcome = Tessera_V1_Welcome()
        welcome.version = version
        welcome.heartbeatIntervalMs = heartbeatIntervalMilliseconds
        welcome.liveness = liveness
        welcome.maxMessageBytes = maxMessageBytes
        welcome.maxResultBytes = maxResultBytes
        welcome.partBytes = partBytes
        return with(.welcome(welcome), version: WireCodec.sessionVersion)
    }

    public static func reject(code: Tessera_V1_ErrorCode, message: String) -> Tessera_V1_Envelope {
        var reject = Tessera_V1_Reject()
        reject.code = code
        reject.message = message
        return with(.reject(reject), version: WireCodec.sessionVersion)
    }

    public static func assign(
        _ ref: Tessera_V1_TaskRef, task: Tessera_V1_SegmentTask,
        leaseDeadlineUnixMilliseconds: Int64
    ) -> Tessera_V1_Envelope {
        var assign = Tessera_V1_TaskAssign()
        assign.ref = ref
        assign.task = task
        assign.leaseDeadlineUnixMs = leaseDeadlineUnixMilliseconds
        return with(.assign(assign))
    }

    public static func cancel(_ ref: Tessera_V1_TaskRef, reason: String) -> Tessera_V1_Envelope {
        var cancel = Tessera_V1_TaskCancel()
        cancel.ref = ref
        cancel.reason = reason
        return with(.cancel(cancel))
    }

    public static func ack(_ ref: Tessera_V1_TaskRef) -> Tessera_V1_Envelope {
        var ack = Tessera_V1_ResultAck()
        ack.ref = ref
        return with(.ack(ack))
    }

    public static func grant(_ ref: Tessera_V1_TaskRef) -> Tessera_V1_Envelope {
        var grant = Tessera_V1_ResultGrant()
        grant.ref = ref
        return with(.grant(grant))
    }

    // MARK: both directions

    /// - Parameter sentUnixMilliseconds: defaults to now.
    public static func heartbeat(
        holding: [Tessera_V1_TaskRef] = [],
        sentUnixMilliseconds: Int64 = Int64(Date().timeIntervalSince1970 * 1000)
    )
        -> Tessera_V1_Envelope
    {
        var heartbeat = Tessera_V1_Heartbeat()
        heartbeat.sentUnixMs = sentUnixMilliseconds
        heartbeat.holding = holding
        return with(.heartbeat(heartbeat))
    }

    /// The body's name as PROTOCOL.md writes it ("Hello", "TaskAssign", …), for logs.
    public var kindName: String {
        switch body {
        case .hello: "Hello"
        case .ready: "Ready"
        case .progress: "TaskProgress"
        case .result: "TaskResult"
        case .failed: "TaskFailed"
        case .goodbye: "Goodbye"
        case .offer: "ResultOffer"
        case .part: "ResultPart"
        case .grant: "ResultGrant"
        case .welcome: "Welcome"
        case .reject: "Reject"
        case .assign: "TaskAssign"
        case .cancel: "TaskCancel"
        case .ack: "ResultAck"
        case .heartbeat: "Heartbeat"
        case nil: "(no body)"
        }
    }
}

extension Tessera_V1_TaskRef {
    public init(jobID: String, segment: UInt32, attempt: UInt32) {
        self.init()
        self.jobID = jobID
        self.segment = segment
        self.attempt = attempt
    }
}

extension Tessera_V1_Welcome {
    /// The most bytes of a result in one part, as a worker sends them (PROTOCOL.md §8): what the Welcome
    /// announces (1 MiB when it says nothing), kept so that a part's envelope fits the coordinator's frame
    /// limit whatever it announces, and at least 4 KiB.
    public var resultPartBytes: Int {
        let frameRoom = maxMessageBytes == 0 ? Int.max : Int(clamping: maxMessageBytes) - WireCodec.partOverheadBytes
        let announced = partBytes == 0 ? WireCodec.defaultPartBytes : Int(clamping: partBytes)
        return max(4096, min(announced, frameRoom))
    }
}
