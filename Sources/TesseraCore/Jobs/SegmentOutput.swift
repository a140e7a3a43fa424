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

    public init(
        index: Int, parameters: CodecConfiguration, packets: [EncodedPacket], frames: Int, seconds: Double,
        processor: ProcessorKind
    ) {
        self.index = index
        self.parameters = parameters
        self.packets = packets
        self.frames = frames
        self.seconds = seconds
        self.processor = processor
    }

    public var payloadBytes: Int { packets.reduce(0) { $0 + $1.data.count } }
}
