import Foundation
import TesseraAV
import TesseraCompute
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraMedia

/// `SegmentResultCheck` passes every honest segment (B-pyramids, HEVC open GOPs with leading pictures,
/// a scale to another size) with its pictures compared, and refuses a result showing another segment's
/// pictures at this segment's times.
@Suite(.serialized) struct SegmentResultCheckTests {
    /// Runs each segment as it is scheduled, checks its output against its work, and keeps both.
    /// With `takesIndexedPackets`, as a farm's: the packets it is given are read from the source as a
    /// worker reading the source does, and the check reads the ones it decodes (the work kept as given).
    final class CheckingExecutor: SegmentExecutor, @unchecked Sendable {
        let board = FinishedSegments()
        let takesIndexedPackets: Bool
        var checked:
            [(work: SegmentWork, output: SegmentOutput, report: Result<SegmentResultCheck.Report, MediaError>)] =
                []
        /// Each segment's packets as the worker had them.
        var ran: [Int: [EncodedPacket]] = [:]

        init(indexed: Bool = false) { takesIndexedPackets = indexed }

        func schedule(_ work: SegmentWork) -> Bool {
            let result = Result { () throws(MediaError) in
                var loaded = work
                loaded.packets = try SourcePacketReader.load(
                    work.packets, from: work.sourceName, stream: work.sourceStream ?? 0, sourceBytes: work.sourceBytes)
                ran[work.spec.index] = loaded.packets
                return try SegmentRunner.run(loaded, threads: 1) { (spec, _) throws(MediaError) in
                    try CPUProcessor(spec: spec, threads: 1)
                }
            }
            if case .success(let output) = result {
                checked.append(
                    (
                        work, output,
                        Result { () throws(MediaError) in try SegmentResultCheck.check(output, against: work) }
                    ))
            }
            board.post(work.spec.index, result)
            return true
        }
        func isFinished(_ index: Int) -> Bool { false }
        func output(_ index: Int) throws(MediaError) -> SegmentOutput { try board.take(index) }
        func cancel(_ error: MediaError) { board.cancel(error) }
        func finish() {}
    }

    /// DecoderReuseTests' sources (B-pyramid, HEVC open GOP), and the B-pyramid scaled down.
    static let sources =
        DecoderReuseTests.sources + [
            (
                "H.264 B-pyramid, scaled", DecoderReuseTests.sources[0].file, DecoderReuseTests.sources[0].video,
                OutputSettings(
                    video: VideoSettings(codec: .h264, maxWidth: 160, maxHeight: 120, speed: "superfast"), audio: nil)
            )
        ]

    /// Indexed: as a farm's producer gives the work (an MP4's packets by place and size, unread), the
    /// same packets once read, and the check reads what it decodes.
    @Test(arguments: sources.indices, [false, true])
    func honestSegmentsPassAndAnotherSegmentsPicturesDoNot(_ n: Int, indexed: Bool) throws {
        let c = Self.sources[n]
        let dir = try TestMedia.makeDirectory("result-check")
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent(c.file)
        try TestMedia.make(src, seconds: 3, width: 320, height: 240, video: c.video, audio: nil)
        let executor = CheckingExecutor(indexed: indexed)
        let session = ExportSession(
            sourcePath: src.path, outputPath: dir.appendingPathComponent("out.mp4").path, settings: c.settings)
        session.segmentDuration = 0.5
        session.parallel = 1
        session.backend = .cpu
        session.makeSegmentExecutor = { _ in executor }
        _ = try session.export()
        #expect(executor.checked.count >= 5)
        // Only an MP4's samples lie in the file as they are: another container's packets are read whole.
        let unread = executor.checked.filter { !$0.work.packetsLoaded }
        #expect(unread.count == (indexed && c.file.hasSuffix(".mp4") ? executor.checked.count : 0))
        if indexed {
            let all = try SourcePacketReaderTests.allPackets(src.path).packets
            for (work, _, _) in executor.checked {
                let read = try #require(executor.ran[work.spec.index])
                let plain = all[work.spec.decodePackets]
                #expect(read.map(\.data) == plain.map(\.data), "segment \(work.spec.index)")
                #expect(read.map(\.pts) == plain.map(\.pts) && read.map(\.dts) == plain.map(\.dts))
                #expect(work.packets.map(\.size) == plain.map(\.data.count))
                #expect(work.payloadBytes == plain.reduce(0) { $0 + $1.data.count })
                if !work.packetsLoaded { #expect(work.loadedBytes == 0) }
            }
        }
        for (work, _, report) in executor.checked {
            let r = try report.get()
            #expect(r.frames == work.spec.frameCount)
            #expect((r.firstPSNR ?? 0) >= 30 && (r.lastPSNR ?? 0) >= 30, "segment \(work.spec.index): \(r)")
        }
        // Segment 0's pictures moved onto segment 2's times: every count and time is right, the pictures are not.
        let (target, honest, _) = executor.checked[2], donor = executor.checked[0].output
        try #require(donor.packets.count == honest.packets.count)
        var swapped = honest
        let shift = (honest.packets.map(\.pts).min() ?? 0) - (donor.packets.map(\.pts).min() ?? 0)
        swapped.packets = donor.packets.map { p in
            var q = p
            q.pts += shift
            q.dts += shift
            return q
        }
        #expect {
            _ = try SegmentResultCheck.check(swapped, against: target)
        } throws: { error in
            (error as? MediaError)?.kind == .verificationFailed
                && (error as? MediaError)?.message.contains("is not the source's pictures") == true
        }
    }
}
