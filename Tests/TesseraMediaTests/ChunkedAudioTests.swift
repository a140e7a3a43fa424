import CFFmpeg
import Foundation
import Synchronization
import TesseraAV
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraMedia

/// An AAC track encoded in chunks on several threads (`ChunkedAudioEncoder`) is one encoder's stream: the
/// same packets at the same times, and as close to the source as one encoder's, at the chunks' joins too.
struct ChunkedAudioTests {
    /// A 41 s source (two joins at 20.48 s chunks): a gliding tone with 3 kHz bursts on the left, a tone with
    /// clicks every 0.53 s on the right (transients that make the encoder switch windows). No noise: AAC
    /// codes noise as noise, not as its waveform, so a signal-to-noise ratio says nothing there.
    static func source(_ dir: URL, rate: Int) throws -> URL {
        let url = dir.appendingPathComponent("source-\(rate).wav")
        try TestMedia.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i",
                "aevalsrc=0.25*sin(2*PI*(220+60*t)*t)+0.2*sin(2*PI*3000*t)*lt(mod(t\\,0.7)\\,0.05)"
                    + "|0.25*sin(2*PI*330*t)+0.3*lt(mod(t\\,0.53)\\,0.004):s=\(rate):d=41",
                "-c:a", "pcm_s16le", url.path,
            ])
        return url
    }

    /// The file's first audio stream decoded to 48 kHz stereo floats, interleaved.
    static func samples(_ url: URL) throws -> [Float] {
        let r = try TestMedia.runCapturingBytes(
            "ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:a:0", "-ar", "48000", "-ac", "2", "-f", "f32le", "-"])
        guard r.status == 0 else { throw TestMedia.ToolFailure(description: r.stderr) }
        return r.stdout.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// Each packet's pts and duration, as ffprobe reads them.
    static func packets(_ url: URL) throws -> [String] {
        try TestMedia.run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "a:0", "-show_entries", "packet=pts,duration", "-of", "csv=p=0",
                url.path,
            ]
        ).split(separator: "\n").map(String.init)
    }

    /// Signal-to-noise ratio in dB of `output` against `reference` over interleaved samples `range`.
    static func snr(_ output: [Float], _ reference: [Float], _ range: Range<Int>) -> Double {
        var signal = 0.0, noise = 0.0
        for i in range where i < output.count && i < reference.count {
            signal += Double(reference[i]) * Double(reference[i])
            noise += Double(output[i] - reference[i]) * Double(output[i] - reference[i])
        }
        return 10 * log10(signal / max(noise, 1e-20))
    }

    @Test("chunks on three threads give one encoder's packets, as close to the source", arguments: [48_000, 44_100])
    func chunkedIsOneEncodersStream(rate: Int) throws {
        let dir = try TestMedia.makeDirectory("chunked-audio")
        defer { TestMedia.cleanup(dir) }
        let src = try Self.source(dir, rate: rate)
        var outputs: [Int: URL] = [:]
        for threads in [1, 3] {
            let out = dir.appendingPathComponent("out-\(threads).m4a")
            let session = ExportSession(
                sourcePath: src.path, outputPath: out.path,
                settings: OutputSettings(
                    video: nil, audio: AudioSettings(codec: .aac, sampleRate: 48_000), fileType: .m4a))
            session.audioThreads = threads
            _ = try session.export()
            outputs[threads] = out
        }
        let single = try #require(outputs[1]), chunked = try #require(outputs[3])
        let singlePackets = try Self.packets(single)
        #expect(singlePackets.count > 2 * ChunkedAudioEncoder.chunkFrames, "the source makes at least two joins")
        #expect(try Self.packets(chunked) == singlePackets, "the same packets at the same times and durations")

        let reference = try Self.samples(src)
        let a = try Self.samples(single), b = try Self.samples(chunked)
        // ffmpeg decodes 128 samples past the end of an MP4's last AAC packet (its own files' too): compare the
        // source's length.
        #expect(a.count == b.count && a.count >= reference.count, "\(a.count), \(b.count), \(reference.count)")
        let whole = 0..<reference.count
        let (snrSingle, snrChunked) = (Self.snr(a, reference, whole), Self.snr(b, reference, whole))
        #expect(snrChunked >= snrSingle - 0.5, "whole track: \(snrChunked) dB chunked, \(snrSingle) dB one encoder")
        // Around each join (4096 samples either side, both channels): no worse than the rest, no click.
        func peakError(_ x: [Float], _ range: Range<Int>) -> Float {
            range.clamped(to: 0..<min(x.count, reference.count)).map { abs(x[$0] - reference[$0]) }.max() ?? 0
        }
        let peakSingle = peakError(a, whole)
        for join in 1...(reference.count / 2 / (ChunkedAudioEncoder.chunkFrames * 1024)) {
            let at = 2 * join * ChunkedAudioEncoder.chunkFrames * 1024
            let window = (at - 2 * 4096)..<(at + 2 * 4096)
            let (s, c) = (Self.snr(a, reference, window), Self.snr(b, reference, window))
            #expect(c >= snrChunked - 3, "join \(join): \(c) dB, the whole chunked track \(snrChunked) dB")
            #expect(peakError(b, window) <= peakSingle, "join \(join): a click")
            print(
                "join \(join): chunked \(c) dB, one encoder \(s) dB, peak error \(peakError(b, window)) of \(peakSingle)"
            )
        }
        print("whole: chunked \(snrChunked) dB, one encoder \(snrSingle) dB")
    }

    @Test("a chunk whose encoder fails fails the track with that error, after the chunks before it are written")
    func aFailingChunkIsReported() throws {
        let made = Mutex(0)
        let encoder = ChunkedAudioEncoder(threads: 2, chunkFrames: 8) { () throws(MediaError) -> Encoder in
            let n = made.withLock { count -> Int in
                count += 1
                return count
            }
            if n == 3 { throw MediaError(.unsupported, "chunk three's encoder") }
            return try Encoder(
                audio: AudioSettings(codec: .aac), sampleRate: 48_000, channels: 2, globalHeader: true)
        }
        var layout = AVChannelLayout()
        av_channel_layout_default(&layout, 2)
        var written: [Int64] = []
        var failure: MediaError?
        do throws(MediaError) {
            for n in 0..<40 {
                let frame = try Frame.audio(
                    samples: 1024, format: AV_SAMPLE_FMT_FLTP, sampleRate: 48_000, layout: &layout, silent: true)
                frame.pts = Int64(n) * 1024
                try encoder.push(frame) { written.append($0.pointer.pointee.pts) }
            }
            try encoder.finish { written.append($0.pointer.pointee.pts) }
        } catch {
            failure = error
        }
        #expect(failure?.message.contains("chunk three's encoder") == true, "\(String(describing: failure))")
        #expect(written == (-1...15).map { Int64($0) * 1024 }, "chunks one and two, in order, and nothing after")
    }
}
