/// What an adaptive-streaming job delivers: renditions of the video, cut into aligned media segments and
/// listed in HLS and/or DASH manifests over the same CMAF files.
public struct PackageRequest: Sendable, Hashable, Codable {
    public var formats: [PackageFormat]
    /// Largest first (the order of the manifests); empty with `ladder` set: Apple's, fitted to the source.
    public var renditions: [Rendition]
    /// Seconds per media segment (the last may be shorter).
    public var segmentDuration: Double
    /// `--ladder auto`: the renditions are Apple's ladder, capped at the source's size.
    public var ladder: Bool

    public init(formats: [PackageFormat], renditions: [Rendition], segmentDuration: Double = 6, ladder: Bool = false) {
        self.formats = formats
        self.renditions = renditions
        self.segmentDuration = segmentDuration
        self.ladder = ladder
    }

    private enum CodingKeys: String, CodingKey { case formats, renditions, segmentDuration, ladder }

    /// JSON: `{"formats": ["hls", "dash"], "renditions": [{"size": "1280x720", "bitRate": 3000000}],
    /// "segmentDuration": 6}`, or `"ladder": "auto"` in place of the renditions.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let ladder = try c.decodeIfPresent(String.self, forKey: .ladder)
        guard ladder == nil || ladder == "auto" else {
            throw DecodingError.dataCorruptedError(forKey: .ladder, in: c, debugDescription: "only \"auto\"")
        }
        self.init(
            formats: try c.decode([PackageFormat].self, forKey: .formats),
            renditions: try c.decodeIfPresent([Rendition].self, forKey: .renditions) ?? [],
            segmentDuration: try c.decodeIfPresent(Double.self, forKey: .segmentDuration) ?? 6, ladder: ladder != nil)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(formats, forKey: .formats)
        if !renditions.isEmpty { try c.encode(renditions, forKey: .renditions) }
        try c.encode(segmentDuration, forKey: .segmentDuration)
        if ladder { try c.encode("auto", forKey: .ladder) }
    }

    public static let segmentDurations: ClosedRange<Double> = 1...30
    public static let maximumRenditions = 16
    /// Keyframes at least this often (Apple: every 2 s), whatever the segment length.
    public static let keyframeSeconds = 2.0

    /// How many farm segments make one media segment: pieces of at most `keyframeSeconds` (whose first
    /// frames are keyframes anyway), which share out among the workers.
    public var farmSegmentsPerMediaSegment: Int {
        guard segmentDuration.isFinite, segmentDuration > 0 else { return 1 }
        return max(1, Int(min(segmentDuration / Self.keyframeSeconds, 1000).rounded(.up)))
    }

    /// Checks what can be checked before the source is read.
    /// - Throws: `JobRequestError` naming `field` and its member.
    public func check(field: String) throws(JobRequestError) {
        guard !formats.isEmpty else { throw JobRequestError(field: "\(field).formats", "names no format (hls, dash)") }
        guard Self.segmentDurations.contains(segmentDuration) else {
            throw JobRequestError(
                field: "\(field).segmentDuration",
                "must be \(JobRequestError.range(Self.segmentDurations)) seconds, not \(segmentDuration)")
        }
        guard ladder || !renditions.isEmpty else {
            throw JobRequestError(field: "\(field).renditions", "names no rendition (or ask for the ladder)")
        }
        guard renditions.count <= Self.maximumRenditions else {
            throw JobRequestError(
                field: "\(field).renditions", "has \(renditions.count) renditions; at most \(Self.maximumRenditions)")
        }
        for (i, r) in renditions.enumerated() {
            let f = "\(field).renditions[\(i)]"
            guard JobRequestLimits.pictureSide.contains(r.width), JobRequestLimits.pictureSide.contains(r.height)
            else {
                throw JobRequestError(
                    field: "\(f).size", "sides must be \(JobRequestError.range(JobRequestLimits.pictureSide))")
            }
            guard JobRequestLimits.videoBitRate.contains(r.bitRate) else {
                throw JobRequestError(
                    field: "\(f).bitRate",
                    "must be \(JobRequestError.range(JobRequestLimits.videoBitRate)) bits per second, not \(r.bitRate)")
            }
            for format in formats where !format.canList(r.codec) {
                throw JobRequestError(
                    field: "\(f).codec", "\(format.rawValue.uppercased()) cannot list \(r.codec.rawValue)")
            }
            try r.cappedTarget?.validate(field: "\(f).targetQuality", codec: r.codec)
        }
    }

    /// The renditions for a source displayed at `width`×`height`: the ladder when asked, fitted sizes
    /// (aspect kept, even sides), largest first.
    /// - Throws: `JobRequestError` for a rendition larger than the source (refused, not upscaled: the
    ///   ladder leaves such rungs out) and for two renditions that come out the same size and codec.
    public func resolved(
        sourceWidth: Int, sourceHeight: Int, field: String
    ) throws(JobRequestError)
        -> [(rendition: Rendition, width: Int, height: Int)]
    {
        let fromLadder = ladder && renditions.isEmpty
        let asked =
            fromLadder ? Rendition.appleLadder(sourceWidth: sourceWidth, sourceHeight: sourceHeight) : renditions
        var out: [(rendition: Rendition, width: Int, height: Int)] = []
        for (i, r) in asked.enumerated() {
            let box = VideoSettings(codec: r.codec, maxWidth: r.width, maxHeight: r.height)
            let size = box.outputSize(forDisplayWidth: sourceWidth, height: sourceHeight)
            // A box the source fits in without scaling, and that is larger, would be an upscale.
            if !fromLadder && r.width > sourceWidth && r.height > sourceHeight {
                throw JobRequestError(
                    field: "\(field).renditions[\(i)]",
                    "\(r.width)x\(r.height) is larger than the source (\(sourceWidth)x\(sourceHeight)); a rendition "
                        + "is never enlarged: leave it out, or use --ladder auto, which caps at the source")
            }
            if let same = out.firstIndex(where: {
                $0.width == size.width && $0.height == size.height && $0.rendition.codec == r.codec
            }) {
                throw JobRequestError(
                    field: "\(field).renditions[\(i)]",
                    "comes out \(size.width)x\(size.height) \(r.codec.rawValue), the same as rendition \(same)")
            }
            out.append((r, size.width, size.height))
        }
        // Largest first; equal areas keep the order asked.
        return out.enumerated().sorted {
            ($0.element.width * $0.element.height, -$0.offset) > ($1.element.width * $1.element.height, -$1.offset)
        }.map(\.element)
    }
}
