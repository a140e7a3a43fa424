import TesseraCore

/// What `OutputVerifier` found in a finished output (`tessera verify --json` prints this).
///
/// `passed` is true only when every check passed. `firstFailure` repeats the first failed check's
/// detail, which names the first offending frame (index and time) or packet (index in demux order).
public struct VerificationReport: Codable, Sendable {
    /// The file verified.
    public var path: String
    /// The source the expectation came from (`--against`), if any.
    public var against: String?
    public var passed: Bool
    /// Every check that ran, in the order they ran; see `Check.Name` for what each one means.
    public var checks: [Check]
    /// Video frames decoded.
    public var frameCount: Int
    /// The frame count the expectation asked for, if it asked for one.
    public var expectedFrameCount: Int?
    /// `"<check>: <detail>"` for the first failed check; nil when everything passed.
    public var firstFailure: String?
    /// From the first frame's presentation time to the end of the last frame (its time plus its duration).
    @OptionalSecondsAndExact public var videoDuration: MediaTime?
    /// The decoded audio samples' total duration; nil without an audio track.
    @OptionalSecondsAndExact public var audioDuration: MediaTime?
    /// First audio sample's time minus the first video frame's; negative when the audio starts first.
    @OptionalSecondsAndExact public var avStartOffset: MediaTime?

    public init(
        path: String, against: String? = nil, checks: [Check], frameCount: Int,
        expectedFrameCount: Int? = nil, videoDuration: MediaTime? = nil, audioDuration: MediaTime? = nil,
        avStartOffset: MediaTime? = nil
    ) {
        self.path = path
        self.against = against
        self.checks = checks
        self.passed = checks.allSatisfy(\.passed)
        self.frameCount = frameCount
        self.expectedFrameCount = expectedFrameCount
        self.firstFailure = checks.first { !$0.passed }.map { "\($0.name.rawValue): \($0.detail)" }
        self.videoDuration = videoDuration
        self.audioDuration = audioDuration
        self.avStartOffset = avStartOffset
    }

    /// The check of that name, if it ran.
    public func check(_ name: Check.Name) -> Check? { checks.first { $0.name == name } }
}
