/// A finished segment: encoded packets on the output timeline (in the task's time base).
public struct SegmentOutput: Sendable, Hashable {
    public var index: Int
    /// The encoder's output configuration; every segment of a job must have the same.
    public var parameters: CodecConfiguration
    /// Decode order.
    public var packets: [EncodedPacket]
    public var frames: Int
    /// Seconds the worker spent on it (informative).
    public var seconds: Double
    /// Which frame processor ran (`.none` when no conversion was needed).
    public var processor: ProcessorKind
    /// How close the encoded frames are to the frames given to the encoder, measured where the segment was
    /// made; nil when the job skips decoding its segments (`VerificationLevel.timing`) or the format
    /// cannot be measured.
    public var quality: QualityStats?
    /// The rate factor the packets were encoded at, when a search chose it (`SegmentWork.targetQuality`).
    public var crf: Double?
    /// Every encode of the search, in the order made (empty when the segment did not search).
    public var probes: [QualityProbe]
    /// The outputs of `SegmentWork.renditions`, in that order (each with none of its own).
    public var renditions: [SegmentOutput]

    public init(
        index: Int, parameters: CodecConfiguration, packets: [EncodedPacket], frames: Int, seconds: Double,
        processor: ProcessorKind, quality: QualityStats? = nil, crf: Double? = nil, probes: [QualityProbe] = [],
        renditions: [SegmentOutput] = []
    ) {
        self.renditions = renditions
        self.quality = quality
        self.crf = crf
        self.probes = probes
        self.index = index
        self.parameters = parameters
        self.packets = packets
        self.frames = frames
        self.seconds = seconds
        self.processor = processor
    }

    /// Bytes of every output's packets, the renditions' included.
    public var payloadBytes: Int {
        packets.reduce(0) { $0 + $1.data.count } + renditions.reduce(0) { $0 + $1.payloadBytes }
    }
}
