/// A transcode job as a client submits it to a coordinator (HTTP API, `tessera submit`, `tessera run`).
///
/// The source is either a path the coordinator can read (it must lie under one of the coordinator's
/// media roots) or an upload made first through the API. The output is a path relative to the
/// coordinator's output root, or nil to keep the result for `tessera fetch`.
public struct JobRequest: Sendable, Hashable, Codable {
    /// A path on the coordinator's machine (absolute, under a media root).
    public var source: String?
    /// An id returned by the upload endpoint, instead of `source`.
    public var uploadID: String?
    /// Relative to the output root; nil keeps the result in the coordinator's data folder.
    public var output: String?
    /// Container; nil infers it from `output`'s extension (mp4 when there is none).
    public var fileType: FileType?
    /// An `ExportPreset` name; ignored when `settings` is given.
    public var preset: String?
    /// Custom settings (as `tessera transcode`'s codec options build them).
    public var settings: OutputSettings?
    /// On the source's timeline; nil is the whole asset.
    public var timeRange: TimeRange?
    /// Seconds per segment (default 4).
    public var segmentDuration: Double?
    /// The frame processor the workers use; nil is `.auto`.
    public var backend: ProcessingBackend?
    /// Higher runs first; equal priorities share workers fairly.
    /// Segments expected to run at once. The last round of segments is re-cut so they all finish
    /// together; the coordinator fills in its connected workers when a request leaves it out, and keeps
    /// the value with the job so a restarted coordinator plans the same segments.
    public var parallelism: Int?
    public var priority: Int
    /// Replace an existing file at the output path.
    public var overwrite: Bool
    /// How the finished video is proven; nil is `.decode`.
    public var verification: VerificationLevel?
    /// Scaled ranges, ramps and freezes, exported at a constant frame rate; nil keeps the source's timing.
    public var retiming: RetimeRequest?
    /// A composition of several assets instead of `source` (Protocols/composition.schema.json): its asset
    /// paths are absolute paths on the coordinator's machine, under its media roots. Its edits, video
    /// composition and audio mix say what `timeRange` and `retiming` would, so those are left out.
    public var spec: CompositionSpec?
    /// A quality each segment reaches with the fewest bits (a rate-factor search per segment).
    public var targetQuality: TargetQuality?
    /// Whether interlaced video is deinterlaced; nil is `.auto`.
    public var deinterlace: Deinterlace?
    /// What becomes of an HDR source's range; nil is `.auto`.
    public var hdr: HDRHandling?
    /// An adaptive-streaming package to the folder `output` instead of one file.
    public var package: PackageRequest?

    public init(
        source: String? = nil, uploadID: String? = nil, output: String? = nil, fileType: FileType? = nil,
        preset: String? = nil, settings: OutputSettings? = nil, timeRange: TimeRange? = nil,
        segmentDuration: Double? = nil, backend: ProcessingBackend? = nil, parallelism: Int? = nil, priority: Int = 0,
        overwrite: Bool = false, verification: VerificationLevel? = nil, retiming: RetimeRequest? = nil,
        spec: CompositionSpec? = nil, targetQuality: TargetQuality? = nil, deinterlace: Deinterlace? = nil,
        hdr: HDRHandling? = nil, package: PackageRequest? = nil
    ) {
        self.package = package
        self.hdr = hdr
        self.deinterlace = deinterlace
        self.targetQuality = targetQuality
        self.source = source
        self.uploadID = uploadID
        self.output = output
        self.fileType = fileType
        self.preset = preset
        self.settings = settings
        self.timeRange = timeRange
        self.segmentDuration = segmentDuration
        self.backend = backend
        self.parallelism = parallelism
        self.priority = priority
        self.overwrite = overwrite
        self.verification = verification
        self.retiming = retiming
        self.spec = spec
    }

    private enum CodingKeys: String, CodingKey {
        case source, uploadID, output, fileType, preset, settings, timeRange, segmentDuration, backend, parallelism,
            priority
        case overwrite, verification, retiming, spec, targetQuality, deinterlace, hdr, package
    }

    /// Every field is optional on the wire: `priority` defaults to 0 and `overwrite` to false.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            source: try c.decodeIfPresent(String.self, forKey: .source),
            uploadID: try c.decodeIfPresent(String.self, forKey: .uploadID),
            output: try c.decodeIfPresent(String.self, forKey: .output),
            fileType: try c.decodeIfPresent(FileType.self, forKey: .fileType),
            preset: try c.decodeIfPresent(String.self, forKey: .preset),
            settings: try c.decodeIfPresent(OutputSettings.self, forKey: .settings),
            timeRange: try c.decodeIfPresent(TimeRange.self, forKey: .timeRange),
            segmentDuration: try c.decodeIfPresent(Double.self, forKey: .segmentDuration),
            backend: try c.decodeIfPresent(ProcessingBackend.self, forKey: .backend),
            parallelism: try c.decodeIfPresent(Int.self, forKey: .parallelism),
            priority: try c.decodeIfPresent(Int.self, forKey: .priority) ?? 0,
            overwrite: try c.decodeIfPresent(Bool.self, forKey: .overwrite) ?? false,
            verification: try c.decodeIfPresent(VerificationLevel.self, forKey: .verification),
            retiming: try c.decodeIfPresent(RetimeRequest.self, forKey: .retiming),
            spec: try c.decodeIfPresent(CompositionSpec.self, forKey: .spec),
            targetQuality: try c.decodeIfPresent(TargetQuality.self, forKey: .targetQuality),
            deinterlace: try c.decodeIfPresent(Deinterlace.self, forKey: .deinterlace),
            hdr: try c.decodeIfPresent(HDRHandling.self, forKey: .hdr),
            package: try c.decodeIfPresent(PackageRequest.self, forKey: .package))
    }
}
