/// Everything a worker needs to produce one segment, with no file access: what `SegmentTask` on the
/// wire carries (Protocols/tessera.proto).
public struct SegmentWork: Sendable, Hashable {
    public var spec: SegmentSpec
    /// The source video stream's decoder configuration.
    public var source: CodecConfiguration
    /// The source stream's time base (`spec` ticks); the output uses the same unless retimed.
    public var timeBase: Rational
    /// The declared source frame rate.
    public var frameRate: Rational
    public var rotation: Rotation
    /// `spec.decodePackets`, in decode order.
    public var packets: [EncodedPacket]
    public var settings: VideoSettings
    /// Output tick where the segment's last frame ends; nil keeps that frame's own duration.
    public var endTick: Int64?
    /// For error messages.
    public var sourceName: String
    /// "auto", "cpu" or "vulkan".
    public var backend: ProcessingBackend
    /// Decode the encoded segment before returning it (`VerificationLevel.decode`).
    public var checkDecodes: Bool
    /// Set for a retimed export: the segment's frames are chosen along the time map on the constant
    /// grid of the output frame duration, which is then the output's time base.
    public var retime: SegmentRetime?
    /// Set for a segment of a composition: how its frames are placed on the render. A gap's segment
    /// (`layer.isGap`) has no packets and no retime; its time base is the frame duration.
    public var layer: SegmentLayer?
    /// Set when the output keeps HDR: the HDR10 static metadata the encoder signals (a 10-bit HEVC
    /// encode of a PQ or HLG source).
    public var hdr: HDRMetadata?
    /// Set when the job asks for a quality: the segment searches the rate factor that meets it
    /// (`CRFSearch`), starting from `settings`' factor, and is measured whatever `checkDecodes` says.
    public var targetQuality: TargetQuality?
    /// Whether the decoded frames are deinterlaced before they are processed (resolved against
    /// `source.fieldOrder` by `Deinterlace.filter(for:)`).
    public var deinterlace: Deinterlace
    /// Set when the frames are tone-mapped from HDR to BT.709 SDR as they are processed.
    public var toneMap: ToneMap?
    /// A streaming ladder's other renditions: the segment is decoded once and also encoded with each of
    /// these settings (`SegmentOutput.renditions`, in this order).
    public var renditions: [VideoSettings]
    /// Each rendition's own target quality, in `renditions`' order (empty: none has one).
    public var renditionTargets: [TargetQuality?] = []
    /// The stream of `sourceName` the packets come from, when the coordinator knows it: a worker that
    /// reads that file itself can be sent the task by reference, without the packets' data.
    public var sourceStream: Int?
    /// The size of `sourceName` when its packets carry their positions: a worker reading byte ranges
    /// checks that the file it reads is this size.
    public var sourceBytes: Int64?

    public init(
        spec: SegmentSpec, source: CodecConfiguration, timeBase: Rational, frameRate: Rational,
        rotation: Rotation, packets: [EncodedPacket], settings: VideoSettings, endTick: Int64?,
        sourceName: String, backend: ProcessingBackend, checkDecodes: Bool = true, retime: SegmentRetime? = nil,
        layer: SegmentLayer? = nil, hdr: HDRMetadata? = nil, targetQuality: TargetQuality? = nil,
        deinterlace: Deinterlace = .off, toneMap: ToneMap? = nil, renditions: [VideoSettings] = []
    ) {
        self.renditions = renditions
        self.toneMap = toneMap
        self.deinterlace = deinterlace
        self.targetQuality = targetQuality
        self.spec = spec
        self.source = source
        self.timeBase = timeBase
        self.frameRate = frameRate
        self.rotation = rotation
        self.packets = packets
        self.settings = settings
        self.endTick = endTick
        self.sourceName = sourceName
        self.backend = backend
        self.checkDecodes = checkDecodes
        self.retime = retime
        self.layer = layer
        self.hdr = hdr
    }

    /// The deinterlacing filter this segment's frames go through, if any.
    /// A segment that chooses its frames along a time map (`retime`) chooses among fields.
    public var deinterlaceFilter: String? {
        deinterlace.filter(for: FieldOrder(libavValue: source.fieldOrder), fields: retime != nil)
    }

    /// The output's time base: the source's, or one tick per frame of a retimed export.
    public var outputTimeBase: Rational { retime?.frameDuration ?? timeBase }

    /// Bytes of compressed source data (what a worker holds for it), read or not.
    public var payloadBytes: Int { packets.reduce(0) { $0 + $1.size } }

    /// Bytes of source data this work holds in memory: none when its packets come from the index alone.
    public var loadedBytes: Int { packets.reduce(0) { $0 + $1.data.count } }

    /// Whether every packet holds its bytes (a task with its packets, a local run); otherwise they are
    /// read by position first (`SourcePacketReader.load`).
    public var packetsLoaded: Bool { packets.allSatisfy(\.isLoaded) }
}
