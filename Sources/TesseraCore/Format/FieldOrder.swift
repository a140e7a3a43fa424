/// How an interlaced picture's fields are stored and shown, as FFmpeg's `field_order` names them
/// (`tt`: top field coded and shown first; `tb`: top coded first, bottom shown first).
public enum FieldOrder: String, Sendable, Hashable, Codable, CaseIterable {
    case progressive, tt, bb, tb, bt

    /// True for the interlaced orders.
    public var isInterlaced: Bool { self != .progressive }

    /// From libavcodec's `AVFieldOrder` value (`CodecConfiguration.fieldOrder`): 1 progressive, then tt,
    /// bb, tb, bt; nil for 0 (unknown) or anything else.
    public init?(libavValue value: Int) {
        switch value {
        case 1: self = .progressive
        case 2: self = .tt
        case 3: self = .bb
        case 4: self = .tb
        case 5: self = .bt
        default: return nil
        }
    }
}
