import Foundation
import TesseraAV
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraMedia

/// Every bad input gets one clear error naming the file and the cause, and leaves nothing behind.
@Suite(.serialized) struct ExportErrorTests {
    let dir: URL
    init() throws { dir = try TestMedia.makeDirectory("errors") }

    func good() throws -> URL {
        let url = dir.appendingPathComponent("good.mp4")
        if !FileManager.default.fileExists(atPath: url.path) {
            try TestMedia.make(url, seconds: 2, width: 320, height: 240)
        }
        return url
    }

    /// Runs an export expected to fail and returns its error; checks the output was not created.
    func failure(
        _ source: URL, out name: String = "out.mp4", configure: (ExportSession) -> Void = { _ in }
    )
        throws -> MediaError
    {
        let out = dir.appendingPathComponent(name)
        let session = ExportSession(sourcePath: source.path, outputPath: out.path, preset: .preset640x480)
        configure(session)
        do {
            _ = try session.export()
        } catch {
            let leftovers =
                (try? FileManager.default.contentsOfDirectory(atPath: dir.path))?
                .filter { $0.contains(".partial") } ?? []
            #expect(leftovers.isEmpty, "temporary files left: \(leftovers)")
            return error
        }
        Issue.record("export of \(source.lastPathComponent) succeeded but should have failed")
        return MediaError(.ffmpeg, "no error")
    }

    @Test func missingFile() throws {
        defer { TestMedia.cleanup(dir) }
        let e = try failure(dir.appendingPathComponent("nope.mp4"))
        #expect(e.kind == .notFound)
        #expect(e.description.contains("nope.mp4"))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.mp4").path))
    }

    @Test func emptyFile() throws {
        defer { TestMedia.cleanup(dir) }
        let url = dir.appendingPathComponent("empty.mp4")
        FileManager.default.createFile(atPath: url.path, contents: Data())
        let e = try failure(url)
        #expect(e.kind == .emptyFile)
        #expect(e.description.contains("empty.mp4"))
    }

    @Test func garbageFile() throws {
        defer { TestMedia.cleanup(dir) }
        let url = dir.appendingPathComponent("garbage.mp4")
        FileManager.default.createFile(atPath: url.path, contents: TestMedia.garbage(count: 65536))
        let e = try failure(url)
        #expect(e.kind == .notMedia || e.kind == .corrupt, "\(e)")
        #expect(e.description.contains("garbage.mp4"))
    }

    @Test func truncatedFile() throws {
        defer { TestMedia.cleanup(dir) }
        // moov at the end (no faststart): the first half has no index at all.
        let whole = try Data(contentsOf: try good())
        let url = dir.appendingPathComponent("cut.mp4")
        try whole.prefix(whole.count / 2).write(to: url)
        let e = try failure(url)
        #expect(e.kind == .corrupt || e.kind == .notMedia, "\(e)")
        #expect(e.description.contains("cut.mp4"))
    }

    @Test func truncatedFastStartFile() throws {
        defer { TestMedia.cleanup(dir) }
        // Index first: the file opens, and the missing second half must still be noticed.
        let full = dir.appendingPathComponent("fs.mp4")
        try TestMedia.make(full, seconds: 4, width: 320, height: 240, extra: ["-movflags", "+faststart"])
        let whole = try Data(contentsOf: full)
        let url = dir.appendingPathComponent("fscut.mp4")
        try whole.prefix(whole.count / 2).write(to: url)
        let e = try failure(url)
        #expect(e.kind == .corrupt, "\(e)")
        #expect(e.description.contains("fscut.mp4"))
    }

    @Test func bitFlippedFile() throws {
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("flip-src.mp4")
        try TestMedia.make(src, seconds: 3, width: 320, height: 240, audio: nil, extra: ["-movflags", "+faststart"])
        var bytes = [UInt8](try Data(contentsOf: src))
        // Damage the middle of the media data heavily, leaving the index intact.
        let mdat = try #require(Data(bytes).range(of: Data("mdat".utf8))).upperBound
        for i in stride(from: mdat + (bytes.count - mdat) / 4, to: bytes.count - 64, by: 61) { bytes[i] ^= 0x5A }
        let url = dir.appendingPathComponent("flipped.mp4")
        try Data(bytes).write(to: url)
        let e = try failure(url)
        #expect(e.kind == .corrupt, "\(e)")
        #expect(e.description.contains("flipped.mp4"))
    }

    @Test func unsupportedCodec() throws {
        defer { TestMedia.cleanup(dir) }
        // a64multi can be encoded and muxed but FFmpeg has no decoder for it.
        let url = dir.appendingPathComponent("c64.mkv")
        try TestMedia.run(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x200:rate=10:duration=1",
                "-c:v", "a64multi", "-f", "matroska", url.path,
            ])
        let e = try failure(url)
        #expect(e.kind == .unsupported, "\(e)")
        #expect(e.description.contains("c64.mkv"))
    }

    @Test func outputInMissingDirectory() throws {
        defer { TestMedia.cleanup(dir) }
        let e = try failure(try good(), out: "no/such/dir/out.mp4")
        #expect(e.kind == .outputLocation)
        #expect(e.description.contains("no/such/dir"))
    }

    @Test func existingOutputIsRefusedAndUntouched() throws {
        defer { TestMedia.cleanup(dir) }
        let out = dir.appendingPathComponent("out.mp4")
        try Data("precious".utf8).write(to: out)
        let e = try failure(try good())
        #expect(e.kind == .outputExists)
        #expect(try Data(contentsOf: out) == Data("precious".utf8))
        // With overwrite it is replaced.
        let session = ExportSession(sourcePath: try good().path, outputPath: out.path, preset: .preset640x480)
        session.overwrite = true
        _ = try session.export()
        #expect(TestMedia.stream(try TestMedia.probe(out), "video") != nil)
    }

    @Test func timeRangeOutsideTheAsset() throws {
        defer { TestMedia.cleanup(dir) }
        let e = try failure(try good()) {
            $0.timeRange = TimeRange(
                start: MediaTime(value: 5, timescale: 1), duration: MediaTime(value: 1, timescale: 1))
        }
        #expect(e.kind == .invalidArgument)
        #expect(e.description.contains("after the asset ends"))
    }

    @Test func cancelLeavesNothing() throws {
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("long.mp4")
        try TestMedia.make(src, seconds: 20, width: 640, height: 360)
        let session = ExportSession(
            sourcePath: src.path, outputPath: dir.appendingPathComponent("out.mp4").path,
            preset: .highestQuality)
        session.progressHandler = { p in if p.frames > 10 { session.cancel() } }
        do {
            _ = try session.export()
            Issue.record("cancelled export finished")
        } catch {
            #expect(error.kind == .cancelled)
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.mp4").path))
    }
}

/// A finished file that fails its final check never reaches the destination.
@Suite struct WriterCheckTests {
    /// One second of video made at `src`, and an MP4 writer at `out` with a track to copy its packets
    /// into; neither started.
    static func copying(
        _ src: URL, to out: URL
    ) throws -> (
        AssetReader, AssetReaderTrackOutput, AssetWriter, AssetWriterInput
    ) {
        try TestMedia.make(src, seconds: 1, audio: nil)
        let reader = try AssetReader(path: src.path)
        let id = try #require(reader.videoTrackID)
        let output = try reader.addOutput(trackID: id, decode: false)
        let writer = try AssetWriter(outputPath: out.path, fileType: .mp4)
        let input = try writer.addPassthroughInput(
            parameters: output.codecParameters, timeBase: output.streamTimeBase, sideDataFrom: nil)
        return (reader, output, writer, input)
    }

    @Test func failedCheckLeavesNoOutput() throws {
        let dir = try TestMedia.makeDirectory("check")
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("src.mp4"), out = dir.appendingPathComponent("out.mp4")
        let (reader, output, writer, input) = try Self.copying(src, to: out)
        try writer.startWriting()
        try reader.startReading()
        while let packet = try output.copyNextPacket() { try input.append(packet) }
        var checked = ""
        #expect(throws: MediaError.self) {
            try writer.finishWriting { (temporary) throws(MediaError) in
                checked = temporary
                throw MediaError(.verificationFailed, "deliberately refused")
            }
        }
        #expect(checked.contains(".partial-"), "the check must see the temporary file, not the destination")
        #expect(!FileManager.default.fileExists(atPath: out.path))
        #expect(!FileManager.default.fileExists(atPath: checked))
    }
}
