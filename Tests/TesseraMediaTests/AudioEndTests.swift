import Foundation
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraMedia

/// The output's audio ends exactly where the source's does. A source whose last AAC packet holds 240
/// samples (its MP4 edit list trims the rest of the frame) came out 16 ms longer, as the ffmpeg CLI's
/// output of it does: the decoder outputs the padded frame whole.
@Suite(.serialized) struct AudioEndTests {
    /// Where the first audio stream's last packet ends, in samples at 48 kHz (ffprobe's packet pts + duration).
    static func audioEnd(_ url: URL) throws -> Int64 {
        let last =
            try TestMedia.run(
                "ffprobe",
                [
                    "-v", "error", "-select_streams", "a:0", "-show_entries",
                    "packet=pts,duration", "-of", "csv=p=0", url.path,
                ]
            )
            .split(separator: "\n").last.map { $0.split(separator: ",").compactMap { Int64($0) } } ?? []
        return last.count == 2 ? last[0] + last[1] : -1
    }

    @Test(arguments: [false, true])
    func audioEndsWhereTheSourceAudioEnds(segmented: Bool) throws {
        let dir = try TestMedia.makeDirectory("audio-end")
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("src.mp4")
        // 93 AAC frames and 240 samples more.
        try TestMedia.make(src, seconds: 2, extra: ["-af", "atrim=end_sample=95472", "-shortest"])
        let sourceEnd = try Self.audioEnd(src)
        #expect(sourceEnd == 95472, "the fixture's audio should end at sample 95472, not \(sourceEnd)")
        let out = dir.appendingPathComponent("out.mp4")
        let session = ExportSession(
            sourcePath: src.path, outputPath: out.path,
            settings: OutputSettings(
                video: VideoSettings(codec: .h264, speed: "superfast"),
                audio: AudioSettings(codec: .aac)))
        if segmented {
            session.segmentDuration = 1
            session.parallel = 2
        }
        _ = try session.export()
        #expect(try Self.audioEnd(out) == sourceEnd)
    }
}
