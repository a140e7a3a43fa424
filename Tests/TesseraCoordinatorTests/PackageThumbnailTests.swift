import Foundation
import TesseraCore
import TesseraMedia
import TesseraTestSupport
import Testing

@testable import TesseraCoordinator

/// A package's segment thumbnails (`Coordinator.packageThumbnail`): the frame a farm segment starts at,
/// found by the media segments' own times, is the one the whole rendition shows there, wherever it falls
/// within a media segment (farm segments need not cut media segments evenly).
struct PackageThumbnailTests {
    @Test func eachThumbnailIsTheFrameTheWholeRenditionShowsThere() throws {
        let dir = try TestMedia.makeDirectory("package-thumbnails")
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("src.mp4")
        try TestMedia.make(src, seconds: 7, width: 320, height: 240, audio: nil, extra: ["-g", "30"])
        let package = dir.appendingPathComponent("pkg")
        let made = try TestMedia.runCapturing(
            TestMedia.tesseraBinary.path,
            [
                "transcode", src.path, "-o", package.path, "--package", "hls", "--rendition", "320x240:600k",
                "--rendition", "160x120:200k", "--package-segment", "2", "--speed", "superfast", "--quiet",
            ])
        #expect(made.status == 0, "\(made.stderr)")
        let whole = try TestMedia.joinedTrack(package, "320x240", into: dir.appendingPathComponent("whole.mp4"))
        // Frames at a media segment's start, inside one, in the last, and the very last.
        for frame in [0, 60, 75, 131, 185, 209] {
            let thumbnail = try Coordinator.packageThumbnail(package.path, startFrame: frame)
            let generator = ImageGenerator(path: whole.path)
            generator.maximumSize = (160, 90)
            let seconds = Double(frame) / 30
            let expected = try generator.image(at: MediaTime(seconds: seconds, preferredTimescale: 90_000)).png
            #expect(thumbnail == expected, "frame \(frame)")
        }
        // The check can fail: another frame's picture differs.
        let other = try Coordinator.packageThumbnail(package.path, startFrame: 100)
        #expect(other != (try Coordinator.packageThumbnail(package.path, startFrame: 160)))
    }
}
