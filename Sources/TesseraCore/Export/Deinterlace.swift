/// Whether and how a progressive output of interlaced video is deinterlaced (`--deinterlace`).
public enum Deinterlace: String, Sendable, Hashable, Codable, CaseIterable {
    /// bwdif on a source whose stream says it is interlaced (each frame flagged interlaced is
    /// deinterlaced; progressive frames pass), nothing otherwise.
    case auto
    /// Keep the fields as they are (a vertical scale then blends them).
    case off
    /// libavfilter's bwdif (Bob Weaver) on every frame: motion-adaptive, with w3fdif's cubic
    /// interpolation; the reference deinterlacer of FFmpeg.
    case bwdif
    /// libavfilter's yadif on every frame.
    case yadif

    /// The deinterlacer a source of `fieldOrder` (nil: unknown) goes through, or nil when none.
    public func filterName(for fieldOrder: FieldOrder?) -> String? {
        switch self {
        case .off: nil
        case .auto: fieldOrder?.isInterlaced == true ? "bwdif" : nil
        case .bwdif, .yadif: rawValue
        }
    }

    /// The libavfilter graph for a source of `fieldOrder`, or nil when nothing is done: one frame out per
    /// frame in (the frame rate kept), or with `fields` one per field (twice the rate: the second at half a
    /// frame's duration); the field order taken from each frame's flags; `auto` leaves the frames flagged
    /// progressive as they are (one frame out, with `fields` too).
    ///
    /// Fields are what an export that chooses its frames along a time map (a retimed export at a constant
    /// rate, a composition's run) chooses among: 59.94p from 29.97i shows every field, and slow motion
    /// the motion between them.
    public func filter(for fieldOrder: FieldOrder?, fields: Bool = false) -> String? {
        filterName(for: fieldOrder).map {
            "\($0)=mode=\(fields ? "send_field" : "send_frame"):parity=auto:deint=\(self == .auto ? "interlaced" : "all")"
        }
    }
}
