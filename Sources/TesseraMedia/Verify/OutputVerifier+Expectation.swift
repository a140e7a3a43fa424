import TesseraAV
import TesseraCore

extension OutputVerifier {
    /// What the output's video frames should be, from the export's frame timing policy.
    ///
    /// Times are compared relative to the first frame on each side (an expectation taken from an MPEG-TS
    /// source starting at 1.4 s describes an output starting at 0); where the first frame sits is the
    /// `first-frame-at-start` check's business. Each time may be off by one tick of the output's video
    /// time base, the rounding a container does when it stores times coarser than the expectation's
    /// (Matroska and WebM store milliseconds).
    public enum Expectation: Sendable, Hashable {
        /// The `constant(frameDuration)` policy: frame k at k · `frameDuration` after the first, exactly
        /// `frameCount` frames.
        case constantFrameRate(frameDuration: MediaTime, frameCount: Int)
        /// The `passthrough` policy: one frame at each of these times (sorted before use), and no others.
        case presentationTimes([MediaTime])
        /// Only a frame count, for when the times are not known.
        case frameCount(Int)

        /// The number of frames expected.
        public var frameCount: Int {
            switch self {
            case .constantFrameRate(_, let count), .frameCount(let count): return count
            case .presentationTimes(let times): return times.count
            }
        }

        /// Frame `k`'s expected time after the first frame, for `k` in `0..<frameCount`; nil when only a
        /// count is expected.
        func offsets() -> [MediaTime]? {
            switch self {
            case .constantFrameRate(let duration, let count):
                return (0..<count).map { duration.multiplied(by: Int64($0)) }
            case .presentationTimes(let times):
                let sorted = times.sorted()
                guard let first = sorted.first else { return [] }
                return sorted.map { $0 - first }
            case .frameCount:
                return nil
            }
        }
    }

    /// The `passthrough` expectation for an output made from `sourcePath`: every source video frame
    /// becomes one output frame at the same time relative to the start, so the output must have exactly
    /// the source's frame count and presentation times.
    ///
    /// Decodes the source's best video track (blocking; run it on a dedicated thread).
    /// - Throws: `MediaError` naming the source when it cannot be opened, has no video track, or does
    ///   not read or decode to the end: an expectation from part of a source would fail good outputs.
    public static func expectation(against sourcePath: String) throws(MediaError) -> Expectation {
        let input = try InputFile(path: sourcePath)
        let scan = MediaTimingScan(input, decodeAudio: false)
        if let failure = scan.failure { throw MediaError(.corrupt, path: sourcePath, failure.message) }
        guard scan.videoStream != nil else {
            throw MediaError(.unsupported, path: sourcePath, "has no video track to verify against")
        }
        let times = scan.frames.map { Asset.time($0.pts, in: scan.videoTimeBase) }
        if let missing = times.firstIndex(where: { !$0.isNumeric }) {
            throw MediaError(
                .corrupt, path: sourcePath,
                "video frame \(missing) (decode order) has no presentation time")
        }
        return .presentationTimes(times)
    }
}
