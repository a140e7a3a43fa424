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

    /// The libavfilter graph for a source of `fieldOrder`, or nil when nothing is done. One frame out per
    /// frame in (the frame rate kept), the field order taken from each frame's flags; `auto` leaves the
    /// frames flagged progressive as they are.
    public func filter(for fieldOrder: FieldOrder?) -> String? {
        filterName(for: fieldOrder).map {
            "\($0)=mode=send_frame:parity=auto:deint=\(self == .auto ? "interlaced" : "all")"
        }
    }
}
