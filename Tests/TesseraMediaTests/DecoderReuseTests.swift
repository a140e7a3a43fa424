import Foundation
import TesseraAV
import TesseraCompute
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraMedia

/// A segment thread flushes and reuses its decoders from one segment to the next
/// (`SegmentDecoders`). That must change nothing in the output: not a byte, for the sources where
/// decoder state matters most (B-pyramid reordering, HEVC open GOPs with leading pictures).
@Suite(.serialized) struct DecoderReuseTests {
    /// Runs each segment on the producer's thread as soon as it is scheduled, with one set of kept
    /// decoders for the whole job (`shared`) or fresh ones per segment.
    final class InlineExecutor: SegmentExecutor, @unchecked Sendable {
        let board = FinishedSegments()
        let shared: SegmentDecoders?
        let makeProcessor: SegmentRunner.MakeProcessor
        private(set) var segments = 0

        init(
            shared: SegmentDecoders?,
            makeProcessor: @escaping SegmentRunner.MakeProcessor = { (spec, _) throws(MediaError) in
                try CPUProcessor(spec: spec, threads: 1)
            }
        ) {
            self.shared = shared
            self.makeProcessor = makeProcessor
        }

        func schedule(_ work: SegmentWork) -> Bool {
            segments += 1
            board.post(
                work.spec.index,
                Result { () throws(MediaError) in
                    try SegmentRunner.run(
                        work, threads: 1, decoders: shared ?? SegmentDecoders(), makeProcessor: makeProcessor)
                })
            return true
        }
        func isFinished(_ index: Int) -> Bool { false }
        func output(_ index: Int) throws(MediaError) -> SegmentOutput { try board.take(index) }
        func cancel(_ error: MediaError) { board.cancel(error) }
        func finish() {}
    }

    static let sources: [(name: String, file: String, video: [String], settings: OutputSettings)] = [
        (
            "H.264 B-pyramid", "bpyr.mp4",
            [
                "-c:v", "libx264", "-preset", "fast", "-bf", "3", "-b-pyramid", "normal", "-g", "15", "-pix_fmt",
                "yuv420p",
            ],
            X264Reproducibility.settings
        ),
        (
            "HEVC 10-bit open GOP", "open.mkv",
            [
                "-c:v", "libx265", "-preset", "ultrafast", "-pix_fmt", "yuv420p10le",
                "-x265-params", "keyint=15:min-keyint=15:open-gop=1:bframes=4:log-level=error",
            ],
            OutputSettings(video: VideoSettings(codec: .hevc, speed: "ultrafast"), audio: nil)
        ),
    ]

    @Test(arguments: sources.indices)
    func reusedDecodersWriteTheSameBytes(_ n: Int) throws {
        let c = Self.sources[n]
        let dir = try TestMedia.makeDirectory("reuse")
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent(c.file)
        try TestMedia.make(src, seconds: 3, width: 320, height: 240, video: c.video, audio: nil)

        func export(_ executor: InlineExecutor, to name: String) throws -> Data {
            let out = dir.appendingPathComponent(name)
            let session = ExportSession(sourcePath: src.path, outputPath: out.path, settings: c.settings)
            session.segmentDuration = 0.5
            session.parallel = 1
            session.backend = .cpu
            session.makeSegmentExecutor = { _ in executor }
            _ = try session.export()
            return try Data(contentsOf: out)
        }
        let decoders = SegmentDecoders()
        let shared = InlineExecutor(shared: decoders), fresh = InlineExecutor(shared: nil)
        let reusing = try export(shared, to: "shared.mp4"), opening = try export(fresh, to: "fresh.mp4")

        #expect(shared.segments >= 5, "planned \(shared.segments) segments")
        // The source decoder and the check decoder are each opened once, then reused by every later segment.
        #expect(decoders.opened == 2)
        #expect(decoders.reused == 2 * (shared.segments - 1))
        #expect(!reusing.isEmpty)
        #expect(reusing == opening, "the output differs when decoders are reused (\(c.name))")
    }

    @Test func aDecoderThatFailedIsNotKept() throws {
        let dir = try TestMedia.makeDirectory("reuse-fail")
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("src.mp4")
        // Larger than the preset, so every segment needs its processor, which fails after the first frame decoded.
        try TestMedia.make(src, seconds: 2, width: 1280, height: 720, audio: nil, extra: ["-g", "15"])
        let decoders = SegmentDecoders()
        let failing = InlineExecutor(shared: decoders) { (_, _) throws(MediaError) in
            throw MediaError(.unsupported, "no processor in this test")
        }
        let session = ExportSession(
            sourcePath: src.path, outputPath: dir.appendingPathComponent("o.mp4").path,
            preset: .preset640x480)
        session.segmentDuration = 0.5
        session.backend = .cpu
        session.makeSegmentExecutor = { _ in failing }
        #expect(throws: MediaError.self) { try session.export() }
        // Every segment failed after its source decoder had decoded: none may be handed to the next (neither
        // the source's nor its output check's, which each segment opens before its first frame).
        #expect(failing.segments >= 1)
        #expect(decoders.reused == 0)
        #expect(decoders.opened == 2 * failing.segments)
    }
}
