import CFFmpeg
import Foundation
import TesseraAV
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraMedia

/// CEA-608 captions travel inside the pictures (ATSC A/53 user data in H.264 SEI): `probe` finds them in
/// the first frames. No caption encoder is at hand, so the test writes its own: frames carrying A/53
/// side data, which libx264 puts in the stream as SEI, as it does for captions decoded from a source.
@Suite struct ClosedCaptionProbeTests {
    /// A 320x240 H.264 MP4 of `frames` frames, each carrying a 608 caption byte pair when `captions`.
    static func make(_ path: String, frames: Int, captions: Bool) throws {
        let writer = try AssetWriter(outputPath: path, fileType: .mp4)
        let input = try writer.addVideoInput(
            settings: VideoSettings(codec: .h264, speed: "ultrafast"),
            input: Encoder.VideoInput(
                width: 320, height: 240, pixelFormat: AV_PIX_FMT_YUV420P, timeBase: AVRational(num: 1, den: 30),
                frameRate: AVRational(num: 30, den: 1), sampleAspectRatio: AVRational(num: 1, den: 1),
                colorSpace: AVCOL_SPC_BT709, colorPrimaries: AVCOL_PRI_BT709, colorTransfer: AVCOL_TRC_BT709,
                colorRange: AVCOL_RANGE_MPEG, chromaLocation: AVCHROMA_LOC_LEFT),
            rotation: .none, tagsFrom: nil)
        try writer.startWriting()
        for n in 0..<frames {
            let frame = try Frame(width: 320, height: 240, format: AV_PIX_FMT_YUV420P)
            let f = frame.pointer.pointee
            for (data, stride, rows) in [
                (f.data.0, f.linesize.0, 240), (f.data.1, f.linesize.1, 120), (f.data.2, f.linesize.2, 120),
            ] {
                if let data { memset(data, Int32(16 + (n * 7 + rows) % 200), Int(stride) * rows) }
            }
            frame.pointer.pointee.pts = Int64(n)
            if captions, let side = av_frame_new_side_data(frame.pointer, AV_FRAME_DATA_A53_CC, 3) {
                // cc_valid, cc_type 0 (608 field 1), then "T" and "e" with odd parity.
                side.pointee.data[0] = 0xFC
                side.pointee.data[1] = 0x54
                side.pointee.data[2] = 0xE5
            }
            try input.append(frame)
        }
        try writer.finishWriting()
    }

    @Test("captions in the pictures are found by the probe; a file without them says none")
    func captionsAreFound() throws {
        let dir = try TestMedia.makeDirectory("captions")
        defer { TestMedia.cleanup(dir) }
        let with = dir.appendingPathComponent("cc.mp4").path
        let without = dir.appendingPathComponent("plain.mp4").path
        try Self.make(with, frames: 60, captions: true)
        try Self.make(without, frames: 12, captions: false)
        // ffprobe, the independent check, sees them in the decoded frames. (Its stream-level
        // `closed_captions` stays 0 here: it is set only when probing happened to decode a frame.)
        func sideData(_ path: String) throws -> String {
            try TestMedia.run(
                "ffprobe", ["-v", "error", "-show_frames", "-select_streams", "v:0", "-read_intervals", "%+#3", path])
        }
        #expect(try sideData(with).contains("ATSC A53 Part 4 Closed Captions"))
        #expect(try !sideData(without).contains("Closed Captions"))
        let found = try Asset.load(with).tracks.compactMap(\.video).first
        #expect(found?.closedCaptions == true)
        #expect(try Asset.load(without).tracks.compactMap(\.video).first?.closedCaptions == false)
        let text = try TestMedia.run(TestMedia.tesseraBinary.path, ["probe", with])
        #expect(text.contains("closed captions: CEA-608/708"), "\(text)")
        // A transcode keeps them: the output's pictures carry them again (libx264 writes the side data
        // each decoded frame brings).
        let out = dir.appendingPathComponent("out.mp4").path
        _ = try TestMedia.run(
            TestMedia.tesseraBinary.path, ["transcode", with, "-o", out, "--preset", "1280x720", "--quiet"])
        #expect(try sideData(out).contains("ATSC A53 Part 4 Closed Captions"))
        #expect(try Asset.load(out).tracks.compactMap(\.video).first?.closedCaptions == true)
        // So does a farm of local workers, segment by segment.
        let farmed = dir.appendingPathComponent("farmed.mp4").path
        _ = try TestMedia.run(
            TestMedia.tesseraBinary.path,
            ["run", with, "-o", farmed, "--workers", "2", "--segment-duration", "1", "--quiet"])
        #expect(try sideData(farmed).contains("ATSC A53 Part 4 Closed Captions"))
        let json = try TestMedia.run(TestMedia.tesseraBinary.path, ["probe", with, "--json"])
        #expect(json.contains("\"closedCaptions\" : true") || json.contains("\"closedCaptions\":true"), "\(json)")
    }
}
