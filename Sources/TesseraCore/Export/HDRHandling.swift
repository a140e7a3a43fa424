/// What becomes of an HDR (PQ or HLG) source's dynamic range (`--hdr`).
public enum HDRHandling: String, Sendable, Hashable, Codable, CaseIterable {
    /// Kept where the output can carry it (10 bits: HEVC keeps the HDR10 metadata too), tone-mapped to
    /// BT.709 SDR where it cannot (8 bits).
    case auto
    /// Kept; an output that cannot carry it is refused.
    case keep
    /// Tone-mapped to BT.709 SDR whatever the output's depth.
    case tonemap
}
