import Foundation
import TesseraTestSupport
import Testing

/// `tessera thumbnail` (ImageGenerator): the exact frame on screen at the requested time, read back from
/// the PNG by its burned-in barcode, and the time it reports.
@Suite(.serialized) struct ThumbnailCommandTests {
    let dir: URL
    init() throws { dir = try TestMedia.makeDirectory("thumb") }

    func tessera(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try TestMedia.runCapturing(TestMedia.tesseraBinary.path, arguments)
    }

    /// The frame index a still shows (`TestMedia.barcodeIndices`); -1 when it is not one picture.
    static func index(_ png: URL) throws -> Int {
        let indices = try TestMedia.barcodeIndices(png)
        return indices.count == 1 ? indices[0] : -1
    }

    @Test func theFrameOnScreenAtTheTimeAndItsTime() throws {
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("src.mp4")
        // Frame n shows n; B-frames and a keyframe every 30 frames, so most times need decoding past a seek.
        try TestMedia.makeBarcoded(src, rate: 30, seconds: 4, video: ["-preset", "medium", "-bf", "2"])
        for (at, frame) in [("0", 0), ("1.5s", 45), ("1.51s", 45), ("2.99s", 89), ("45f@30", 45), ("100s", 119)] {
            let png = dir.appendingPathComponent("t.png")
            let r = try tessera(["thumbnail", src.path, "--at", at, "-o", png.path, "--overwrite", "--json"])
            #expect(r.status == 0, "\(at): \(r.stderr)")
            #expect(try Self.index(png) == frame, "--at \(at)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            let actual = try #require(json["actualSeconds"] as? Double)
            #expect(abs(actual - Double(frame) / 30) < 1e-6, "--at \(at) used \(actual) s")
            #expect(json["width"] as? Int == 192 && json["height"] as? Int == 16)
        }
        let small = dir.appendingPathComponent("small.png")
        let r = try tessera(["thumbnail", src.path, "--at", "1s", "-o", small.path, "--max-size", "96x96", "--json"])
        let fitted = r.stdout.contains("\"width\" : 96") && r.stdout.contains("\"height\" : 8")
        #expect(r.status == 0 && fitted, "\(r.stdout)")
    }

    @Test func badRequestsAreRefused() throws {
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("a.m4a"), png = dir.appendingPathComponent("x.png")
        try TestMedia.make(src, seconds: 1, video: nil)
        #expect(try tessera(["thumbnail", src.path, "--at", "-1s", "-o", png.path]).status == 64)
        #expect(try tessera(["thumbnail", src.path, "--at", "0.5s", "-o", png.path]).status == 64, "no video")
        #expect(
            try tessera(["thumbnail", dir.appendingPathComponent("nope.mp4").path, "--at", "0", "-o", png.path]).status
                == 66)
        #expect(!FileManager.default.fileExists(atPath: png.path))
    }

    /// A phone-style clip (a display matrix turning it) gives an upright still, as ffmpeg shows it.
    @Test(arguments: [90, 180, 270])
    func theStillIsTurnedAsTheTrackSays(tag: Int) throws {
        defer { TestMedia.cleanup(dir) }
        let plain = dir.appendingPathComponent("plain.mp4"), turned = dir.appendingPathComponent("turned.mp4")
        try TestMedia.run(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                "color=black:size=320x240:duration=0.5,drawbox=x=0:y=0:w=40:h=40:color=white:t=fill",
                "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", plain.path,
            ])
        try TestMedia.tagRotation(plain, tag, to: turned)
        let png = dir.appendingPathComponent("still.png")
        let r = try tessera(["thumbnail", turned.path, "--at", "0.1s", "-o", png.path])
        #expect(r.status == 0, "\(r.stderr)")
        let ffmpegShows = try TestMedia.clockwiseRotationShownByFFmpeg(turned, dir: dir)
        let ours = try TestMedia.clockwiseRotationShownByFFmpeg(png, dir: dir)
        #expect(ffmpegShows.degrees > 0, "the fixture is turned: \(ffmpegShows)")
        let same = ours.degrees == ffmpegShows.degrees && ours.width == ffmpegShows.width
        #expect(same && ours.height == ffmpegShows.height, "ours \(ours), ffmpeg's \(ffmpegShows)")
    }
}
