import Foundation
import Synchronization
import TesseraAV
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraMedia

/// A segmented export encodes its audio from the end of planning, not from the first segment's result:
/// the writer holds the packets (up to `earlyPacketBytes`) until segment 0 shows the video's parameters
/// and the header is written.
@Suite struct EarlyAudioTests {
    /// Runs segments inline; hands segment 0 over only once `release` says so (or after a minute).
    final class GateExecutor: SegmentExecutor, @unchecked Sendable {
        let inner = DecoderReuseTests.InlineExecutor(shared: nil)
        let release: @Sendable () -> Bool
        /// Whether segment 0 was released by `release` rather than by the minute running out.
        let released = Atomic(false)

        init(release: @escaping @Sendable () -> Bool) { self.release = release }

        func schedule(_ work: SegmentWork) -> Bool { inner.schedule(work) }
        func isFinished(_ index: Int) -> Bool { false }
        func output(_ index: Int) throws(MediaError) -> SegmentOutput {
            if index == 0 {
                let deadline = Date().addingTimeInterval(60)
                while !release() && Date() < deadline { usleep(10_000) }
                released.store(release(), ordering: .relaxed)
            }
            return try inner.output(index)
        }
        func cancel(_ error: MediaError) { inner.cancel(error) }
        func finish() {}
    }

    @Test func audioIsEncodedBeforeTheFirstSegmentIsIn() throws {
        let dir = try TestMedia.makeDirectory("early-audio")
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("src.mp4"), out = dir.appendingPathComponent("out.mp4")
        try TestMedia.make(src, seconds: 3, extra: ["-g", "15"])
        let writer = Mutex<AssetWriter?>(nil)
        // Segment 0 is withheld until the writer holds audio packets: before this change the audio only
        // started once segment 0 had opened the file, so the gate would wait out its minute.
        let gate = GateExecutor { writer.withLock { ($0?.earlyPacketCount ?? 0) > 0 } }
        let session = ExportSession(
            sourcePath: src.path, outputPath: out.path,
            settings: OutputSettings(video: X264Reproducibility.settings.video, audio: AudioSettings(codec: .aac)))
        session.segmentDuration = 0.5
        session.parallel = 1
        session.backend = .cpu
        session.makeSegmentExecutor = { _ in gate }
        session.writerMade = { made in writer.withLock { $0 = made } }
        let report = try session.export()

        let released = gate.released.load(ordering: .relaxed)
        #expect(released, "no audio packet was made before segment 0 was in")
        #expect(writer.withLock { $0?.earlyPacketCount } == 0, "every held packet was written")
        #expect(report.verification != nil)
        // The file is whole: video first, then the audio, which ends with the source's.
        let probe = try TestMedia.probe(out)
        let streams = try #require(probe["streams"] as? [[String: Any]])
        #expect(streams.map { $0["codec_type"] as? String } == ["video", "audio"])
        #expect(abs(try TestMedia.streamEnd(out, stream: "a:0") - TestMedia.streamEnd(src, stream: "a:0")) < 0.03)
        #expect(try TestMedia.framePTS(out).count == 90)
    }

    /// A file's packets before the header: held in order, at most about `earlyPacketBytes`, written once it
    /// starts; a writer abandoned first wakes the one waiting, whose write then throws.
    @Test(arguments: [false, true])
    func packetsBeforeTheHeaderWaitForIt(abandon: Bool) throws {
        let dir = try TestMedia.makeDirectory("early-packets")
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("src.mp4"), out = dir.appendingPathComponent("out.mp4")
        let (reader, output, writer, input) = try WriterCheckTests.copying(src, to: out)
        try reader.startReading()
        var packets: [Packet] = []
        while let packet = try output.copyNextPacket() { packets.append(packet) }
        let sourcePTS = packets.map(\.pts)
        // Room for the first three packets' bytes: the fourth write waits.
        writer.earlyPacketBytes = packets.prefix(3).reduce(0) { $0 + $1.size }

        final class Feeder: @unchecked Sendable {
            let done = DispatchSemaphore(value: 0)
            var written = 0
            var error: MediaError?
        }
        let feeder = Feeder()
        let toWrite = packets
        let thread = Thread {
            do throws(MediaError) {
                for packet in toWrite {
                    try input.append(packet)
                    feeder.written += 1
                }
            } catch { feeder.error = error }
            feeder.done.signal()
        }
        thread.start()
        let deadline = Date().addingTimeInterval(30)
        while writer.earlyPacketCount < 3 && Date() < deadline { usleep(5_000) }
        #expect(writer.earlyPacketCount == 3)
        // Still waiting for room: the header has not been written.
        #expect(feeder.done.wait(timeout: .now() + 0.3) == .timedOut)
        #expect(writer.earlyPacketCount == 3)

        if abandon {
            writer.abandonBeforeHeader()
            feeder.done.wait()
            #expect(feeder.error != nil, "the waiting write must throw once the writer is abandoned")
            #expect(feeder.written == 3)
            #expect(writer.earlyPacketCount == 0)
            // A started writer is not touched by a later abandon; this one never starts.
            writer.cancelWriting()
            #expect(!FileManager.default.fileExists(atPath: out.path))
            return
        }
        try writer.startWriting()
        feeder.done.wait()
        #expect(feeder.error == nil)
        #expect(feeder.written == packets.count)
        writer.abandonBeforeHeader()  // after the header: changes nothing
        try writer.finishWriting()
        let times = try TestMedia.framePTS(out)
        #expect(times.count == packets.count)
        let tb = output.streamTimeBase
        let expected = sourcePTS.sorted().map { Double($0) * Double(tb.num) / Double(tb.den) }
        #expect(zip(times, expected).allSatisfy { abs($0 - $1) < 0.001 })
    }
}
