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
    /// How much later the source's audio ends than its video over the exported range (negative:
    /// earlier); the output's audio must end that far from its video, give or take one audio frame.
    public var expectedAudioEndGap: MediaTime = .zero
    /// Who decodes the video to prove it decodable end to end.
    public var videoDecoding = VideoDecoding.verifier

    public enum VideoDecoding: Sendable {
        /// This verifier decodes every frame.
        case verifier
        /// The video is stitched from segments whose encoders each decoded their own output
        /// (`SegmentRunner` does, and every farm worker must unless told otherwise): the video is checked
        /// from its packets, not decoded again, which keeps a serial decode of the whole film off the end
        /// of every segmented job.
        case bySegments
        /// Nobody: the job asked for `VerificationLevel.timing`. The video is checked from its packets.
        case skipped
    }

    public init(path: String) {
        self.path = path
    }

    /// A verifier expecting exactly the frames of `sourcePath` (see `expectation(against:)`).
    /// - Throws: what `expectation(against:)` throws, naming the source.
    public init(path: String, against sourcePath: String) throws(MediaError) {
        self.path = path
        expectation = try Self.expectation(against: sourcePath)
        expectationSource = sourcePath
        expectedAudioEndGap = Self.audioEndGap(of: sourcePath)
    }

    /// How much later a source's audio ends than its video within `range` (zero when either is missing
    /// or the range ends before both): what a faithful output of it shows too. Both ends are where the
    /// last frame and the last audio packet end (a packet scan, no decoding), measured as the output's
    /// are: a stream's declared duration (an edit list cut with `-c copy`) can end before its last frame.
    public static func audioEndGap(of sourcePath: String, range: TimeRange? = nil) -> MediaTime {
        guard let asset = try? Asset.load(sourcePath, scanPackets: true),
              let video = asset.tracks.first(where: { $0.mediaType == .video }),
              let audio = asset.tracks.first(where: { $0.mediaType == .audio }) else { return .zero }
        let videoTrackEnd = video.presentationEnd ?? video.timeRange.end
        let audioTrackEnd = audio.presentationEnd ?? audio.timeRange.end
        guard videoTrackEnd.isNumeric, audioTrackEnd.isNumeric else { return .zero }
        var videoEnd = videoTrackEnd - asset.startTime, audioEnd = audioTrackEnd - asset.startTime
        if let range, range.end.isNumeric {
            videoEnd = min(videoEnd, range.end)
            audioEnd = min(audioEnd, range.end)
        }
        return audioEnd - videoEnd
    }

    /// Reads and decodes the whole file and runs every check.
    ///
    /// A file that opens but is damaged, cut short or mistimed is a failed report, not an error.
    /// - Throws: `MediaError` naming the file only when it cannot be opened at all: `.notFound`,
    ///   `.emptyFile`, `.notMedia`, `.corrupt` (unreadable container, or an index reaching past the end
    ///   of the file) or `.ffmpeg`, as `InputFile` classifies them.
    public func verify() throws(MediaError) -> VerificationReport {
        let scan = MediaTimingScan(try InputFile(path: path), decodeVideo: videoDecoding == .verifier)
        let checks = Self.checks(scan, expectation: expectation, expectedStart: expectedStart,
                                 expectedAudioEndGap: expectedAudioEndGap, videoDecoding: videoDecoding)
        let video = scan.videoStream != nil && !scan.frames.isEmpty ? scan.videoSpan : nil
        return VerificationReport(
            path: path, against: expectationSource, checks: checks, frameCount: scan.frames.count,
            expectedFrameCount: expectation?.frameCount, videoDuration: video.map { $0.end - $0.start },
            audioDuration: scan.audio.map { MediaTime(value: $0.samples, timescale: $0.sampleRate) },
            avStartOffset: scan.avStartOffset)
    }
}
