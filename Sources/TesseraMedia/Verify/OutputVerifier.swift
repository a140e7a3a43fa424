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
    /// For each audio track of the output, in order: how much later its source track ends than the
    /// source's video over the exported range (negative: earlier); the output's track must end that far
    /// from its video, give or take one audio frame. A track without an entry must end with the video.
    public var expectedAudioEndGaps: [MediaTime] = []
    /// The first audio track's expected gap (see `expectedAudioEndGaps`).
    public var expectedAudioEndGap: MediaTime {
        get { expectedAudioEndGaps.first ?? .zero }
        set { expectedAudioEndGaps = [newValue] }
    }
    /// Who decodes the video to prove it decodable end to end.
    public var videoDecoding = VideoDecoding.verifier
    /// A CMAF track file (a package's rendition): a sample's duration the reader does not report is its
    /// decode-time step. FFmpeg 5.1's MP4 reader reports none for fragments whose durations are the
    /// fragment's default (AV1's), though the file holds them.
    public var durationsFromDecodeTimes = false

    public enum VideoDecoding: Sendable {
        /// This verifier decodes every frame.
        case verifier
        /// The video is stitched from segments whose encoders each decoded their own output
        /// (`SegmentRunner` does, and every farm worker must unless told otherwise): the video is checked
        /// from its packets, not decoded again, which keeps a serial decode of the whole film off the end
        /// of every segmented job.
        case bySegments
        /// A one-pass export's encoder: its check decoded every frame as it was made (`EncodedOutputCheck`),
        /// so the video is checked from its packets.
        case byEncoder
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
        let gaps = Self.audioEndGaps(of: sourcePath)
        expectedAudioEndGaps = gaps.keys.sorted().map { gaps[$0]! }
        expectedStart = Self.videoStart(of: sourcePath)
    }

    /// How far a source's video starts after its audio (an Opus track's pre-skip in WebM, say), measured
    /// as the output's is: a faithful output keeps that offset. Zero when the video starts first or the
    /// file cannot be read.
    public static func videoStart(of sourcePath: String) -> MediaTime {
        guard let input = try? InputFile(path: sourcePath),
            let offset = MediaTimingScan(input, decodeVideo: false).avStartOffset, offset.isNumeric
        else { return .zero }
        return MediaTime.maximum(.zero, .zero - offset)
    }

    /// How much later a source's first audio track ends than its video within `range` (see `audioEndGaps`).
    public static func audioEndGap(of sourcePath: String, range: TimeRange? = nil) -> MediaTime {
        audioEndGaps(of: sourcePath, range: range).sorted { $0.key < $1.key }.first?.value ?? .zero
    }

    /// For each audio track (by track number), how much later it ends than the video within `range`
    /// (zero when the video is missing or the range ends before both): what a faithful output of it
    /// shows too. Both ends are where the last frame and the last audio packet end (a packet scan, no
    /// decoding), measured as the output's are: a stream's declared duration (an edit list cut with
    /// `-c copy`) can end before its last frame. Empty when the file cannot be read.
    public static func audioEndGaps(of sourcePath: String, range: TimeRange? = nil) -> [Int: MediaTime] {
        guard let asset = try? Asset.load(sourcePath, scanPackets: true) else { return [:] }
        let video = asset.tracks.first(where: { $0.mediaType == .video })
        var gaps: [Int: MediaTime] = [:]
        for audio in asset.tracks where audio.mediaType == .audio {
            gaps[audio.trackID] = endGap(
                video: video.map { $0.presentationEnd ?? $0.timeRange.end },
                audio: audio.presentationEnd ?? audio.timeRange.end, start: asset.startTime, range: range)
        }
        return gaps
    }

    /// How much later an audio track ending at `audio` ends than a video track ending at `video` (both
    /// absolute, as is `start`, the file's start) within `range` (relative to `start`): zero without a
    /// video track or a known end.
    static func endGap(video: MediaTime?, audio: MediaTime, start: MediaTime, range: TimeRange?) -> MediaTime {
        guard let video, video.isNumeric, audio.isNumeric else { return .zero }
        var videoEnd = video - start, audioEnd = audio - start
        if let range, range.end.isNumeric {
            videoEnd = min(videoEnd, range.end)
            audioEnd = min(audioEnd, range.end)
        }
        return audioEnd - videoEnd
    }

    /// `verify()` for an export about to put its file in place: a failed check is an error naming it.
    /// - Throws: `.verificationFailed` at `outputPath` ("nothing written"), or what `verify()` throws.
    func verifyPassing(outputPath: String) throws(MediaError) -> VerificationReport {
        let report = try verify()
        guard report.passed else {
            throw MediaError(
                .verificationFailed, path: outputPath,
                "verification failed, nothing written: \(report.firstFailure ?? "unknown check")")
        }
        return report
    }

    /// Reads and decodes the whole file and runs every check.
    ///
    /// A file that opens but is damaged, cut short or mistimed is a failed report, not an error.
    /// - Throws: `MediaError` naming the file only when it cannot be opened at all: `.notFound`,
    ///   `.emptyFile`, `.notMedia`, `.corrupt` (unreadable container, or an index reaching past the end
    ///   of the file) or `.ffmpeg`, as `InputFile` classifies them.
    public func verify() throws(MediaError) -> VerificationReport {
        var scan = MediaTimingScan(try InputFile(path: path), decodeVideo: videoDecoding == .verifier)
        if durationsFromDecodeTimes { scan.fillDurationsFromDecodeTimes() }
        let checks = Self.checks(
            scan, expectation: expectation, expectedStart: expectedStart,
            expectedAudioEndGaps: expectedAudioEndGaps, videoDecoding: videoDecoding)
        let video = scan.videoStream != nil && !scan.frames.isEmpty ? scan.videoSpan : nil
        return VerificationReport(
            path: path, against: expectationSource, checks: checks, frameCount: scan.frames.count,
            expectedFrameCount: expectation?.frameCount, videoDuration: video.map { $0.end - $0.start },
            audioDuration: scan.audio.map { MediaTime(value: $0.samples, timescale: $0.sampleRate) },
            avStartOffset: scan.avStartOffset)
    }
}
