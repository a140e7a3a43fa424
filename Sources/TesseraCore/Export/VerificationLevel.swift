/// How much of a finished segmented job is proven before it is put in place.
///
/// Both levels check every packet and timestamp of the stitched file (first packet a keyframe, DTS
/// strictly increasing, PTS ≥ DTS, frame count and presentation times, audio end and start) and decode
/// its audio. They differ in the video:
///
/// - `decode` (the default): every segment's video is decoded by the worker that encoded it, before
///   the result is sent (PROTOCOL.md §8), so the stitched file is known to decode end to end. On a
///   CPU-bound machine this costs about a tenth of the encode (an H.264 720p decode per frame).
/// - `timing`: the video is not decoded anywhere; only its packets are read. (ffmpeg's CLI checks
///   nothing after a transcode.) For trusted encoders, where that CPU matters more.
public enum VerificationLevel: String, Sendable, Hashable, Codable, CaseIterable {
    case decode
    case timing

    /// Whether each worker decodes the segment it encoded.
    public var decodesSegments: Bool { self == .decode }
}
