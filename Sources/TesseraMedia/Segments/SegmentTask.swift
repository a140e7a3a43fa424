import CFFmpeg
import TesseraCompute
import TesseraCore

/// Everything a worker needs to produce one segment, with no file access: the source codec
/// parameters and packets, the frames to produce, and the encoder settings every segment shares.
public struct SegmentTask: @unchecked Sendable {
    public let spec: SegmentSpec
    let source: CodecParameters
    let sourceTimeBase: AVRational
    /// The packets `spec.decodePackets` names, in decode order.
    let packets: [EncodedPacket]
    let settings: VideoSettings
    let encoderInput: Encoder.VideoInput
    let processing: ProcessingSpec?
    /// Output ticks where this segment's last frame ends; nil keeps that frame's own duration.
    let endTick: Int64?
    /// For error messages.
    let sourcePath: String
    /// Codec threads for this task: the machine's cores shared among the segments running at once.
    let threads: Int
}

/// A finished segment: encoded packets on the output timeline, and how to decode them.
public struct SegmentResult: @unchecked Sendable {
    public let index: Int
    let parameters: CodecParameters
    let packets: [EncodedPacket]
    public let frames: Int
    /// Seconds the worker spent on it.
    public let seconds: Double
    /// Which FrameProcessor ran ("none" when no conversion was needed).
    public let processor: String
}
