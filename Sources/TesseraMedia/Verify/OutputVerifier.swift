import CFFmpeg
import TesseraAV
import TesseraCore

/// Proves a finished output frame-exact, as the last step of every job and `tessera verify`.
///
/// ```
///  output ──▶ MediaTimingScan (read every packet, decode video and audio)
///                 │
///                 ├─ packets: first a keyframe, DTS strictly increasing, PTS ≥ DTS
///                 ├─ decoding: end to end without damage
///                 ├─ frames: increasing PTS, first one a keyframe at the start,
///                 │          times and count as the `Expectation` says
///                 └─ audio: ends within one audio frame of the video; starts within one of it
///                 ▼
///           VerificationReport (passed, every check, the first offending frame or packet)
/// ```
///
/// Verification reads and decodes the whole file, so it blocks: call it from a dedicated thread.
public struct OutputVerifier: Sendable {
    /// The file to verify.
    public let path: String
    /// What the frames should be; without one only the file's own consistency is checked.
    public var expectation: Expectation?
    /// Where the expectation came from, for the report (`init(path:against:)` sets it).
    public var expectationSource: String?
    /// Where the first frame belongs on the output timeline when it is not 0: a source whose video
    /// starts after its audio keeps that offset (the export knows it from its plan).
    public var expectedStart: MediaTime = .zero

    public init(path: String) {
        self.path = path
    }

    /// A verifier expecting exactly the frames of `sourcePath` (see `expectation(against:)`).
    /// - Throws: what `expectation(against:)` throws, naming the source.
    public init(path: String, against sourcePath: String) throws(MediaError) {
        self.path = path
        expectation = try Self.expectation(against: sourcePath)
        expectationSource = sourcePath
    }

    /// Reads and decodes the whole file and runs every check.
    ///
    /// A file that opens but is damaged, cut short or mistimed is a failed report, not an error.
    /// - Throws: `MediaError` naming the file only when it cannot be opened at all: `.notFound`,
    ///   `.emptyFile`, `.notMedia`, `.corrupt` (unreadable container, or an index reaching past the end
    ///   of the file) or `.ffmpeg`, as `InputFile` classifies them.
    public func verify() throws(MediaError) -> VerificationReport {
        let scan = MediaTimingScan(try InputFile(path: path))
        let checks = Self.checks(scan, expectation: expectation, expectedStart: expectedStart)
        let video = scan.videoStream != nil && !scan.frames.isEmpty ? scan.videoSpan : nil
        return VerificationReport(
            path: path, against: expectationSource, checks: checks, frameCount: scan.frames.count,
            expectedFrameCount: expectation?.frameCount, videoDuration: video.map { $0.end - $0.start },
            audioDuration: scan.audio.map { MediaTime(value: $0.samples, timescale: $0.sampleRate) },
            avStartOffset: scan.avStartOffset)
    }
}
