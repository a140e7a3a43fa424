/// The optional behaviours a worker lists in `Capabilities.features` (PROTOCOL.md §7): a task that needs
/// one is leased only to workers that list it, so an older worker never drops what it does not know.
public enum WorkerFeature {
    /// It signals `SegmentTask.hdr` (HDR10 static metadata) in its encodes.
    public static let hdr10 = "hdr10"
    /// It searches the rate factor for `SegmentTask.target_quality` (and reports every probe).
    public static let targetQuality = "target-quality"
    /// It deinterlaces the decoded frames as `SegmentTask.deinterlace` asks.
    public static let deinterlace = "deinterlace"
    /// A task that chooses its frames along a time map (`retime`) and deinterlaces: it deinterlaces to one
    /// frame per field (bwdif's `send_field`), and chooses among those.
    public static let deinterlaceFields = "deinterlace-fields"
    /// It tone-maps HDR frames to BT.709 SDR as `SegmentTask.tone_map` and `tone_map_curve` ask, in its
    /// processor (BT.2390). Workers that listed "tonemap" applied Hable's curve before processing: a job
    /// whose segments mixed the two would not match itself, so the name changed with the curve.
    public static let toneMap = "tonemap-bt2390"
    /// It deinterlaces and tone-maps a composition's layer (`SegmentTask.layer`) as the one pass does: the
    /// first segment of each run of the timeline takes no frame before its range as a neighbour.
    public static let layerFilters = "layer-filters"
    /// It encodes `SegmentTask.renditions` from the one decode and returns their outputs.
    public static let renditions = "renditions"
    /// It reads any source the coordinator serves over HTTP (`GET /v1/media/{path}`, `--media-url`): its
    /// tasks may come by reference whatever its media roots. Announced only when configured.
    public static let httpSource = "http-source"
    /// Every feature this build implements, as a worker announces them.
    public static let all = [
        hdr10, targetQuality, deinterlace, deinterlaceFields, toneMap, layerFilters, renditions,
    ]
}
