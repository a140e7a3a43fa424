import CFFmpeg
import Foundation
import TesseraAV

/// Encodes one AAC track on several threads, in chunks of the converted frames, when the encode is on a
/// job's critical path (a farm's coordinator, an audio-only export).
///
/// AAC packets in MP4 stand alone: a decoder carries only the signal's overlap from one packet to the next.
/// So each chunk's encoder starts `preroll` frames before the chunk and runs `postroll` frames past it, and
/// keeps only the packets of its own frames: every packet is encoded with the real signal on both sides of
/// it, as one encoder would, and the packets' times and count are one encoder's. The frames are cut after
/// `AudioConverter`, so resampling and sample timing happen once, in order.
///
/// ```
///  frames ─▶ chunk 0 [0, 960) + 2 ───────────────▶ encoder ─▶ packets [−1024, 960·1024)
///            chunk 1 32 + [960, 1920) + 2 ────────▶ encoder ─▶ packets [960·1024, 1920·1024)   ─▶ in order
///            …  (at most `threads` encoding at once, holding at most 256 MB of frames)
/// ```
///
/// A track shorter than one chunk is encoded by one encoder, exactly as without chunks.
public final class ChunkedAudioEncoder: @unchecked Sendable {
    /// Frames per chunk: 20.48 s at 48 kHz.
    public static let chunkFrames = 960
    /// Frames encoded before a chunk and after it, for the encoder's analysis and the transform's overlap.
    public static let preroll = 32
    public static let postroll = 2

    private let makeEncoder: @Sendable () throws(MediaError) -> Encoder
    private let threads: Int
    /// The most bytes of frames the chunks encoding at once may hold: a 5.1 chunk is 24 MB, and 16 threads'
    /// worth would be 400 MB.
    static let heldBytes = 256 << 20
    /// Chunks encoding at once: `threads`, fewer when their frames would pass `heldBytes` (at least 2).
    private var inFlight: Int
    private let chunkFrames: Int
    /// The chunk being filled: its preroll, then its own frames, then the next chunk's first frames.
    private var filling: [Frame] = []
    /// How many of `filling` are the chunk's own or past it (not preroll).
    private var ownFrames = 0
    /// Where the chunk being filled starts (the pts of its first own frame); nil for the first chunk.
    private var start: Int64?
    /// Chunks encoding, oldest first.
    private var pending: [Job] = []

    /// One chunk's encode, on its own thread.
    private final class Job: @unchecked Sendable {
        let done = DispatchSemaphore(value: 0)
        var result: Result<[Packet], MediaError> = .success([])
    }

    /// - Parameters:
    ///   - threads: chunks encoded at once (at least 2 to make chunks at all).
    ///   - chunkFrames: frames per chunk (tests make them short).
    ///   - makeEncoder: a fresh encoder with the track's settings.
    init(
        threads: Int, chunkFrames: Int = chunkFrames, makeEncoder: @escaping @Sendable () throws(MediaError) -> Encoder
    ) {
        self.threads = max(2, threads)
        inFlight = self.threads
        self.chunkFrames = max(1, chunkFrames)
        self.makeEncoder = makeEncoder
    }

    /// Takes the next encoder-sized frame (pts in samples); writes, in order, every chunk already encoded.
    func push(_ frame: Frame, write: (Packet) throws(MediaError) -> Void) throws(MediaError) {
        if filling.isEmpty && pending.isEmpty && start == nil {
            let f = frame.pointer.pointee
            let bytes =
                Int(f.nb_samples) * Int(max(1, f.ch_layout.nb_channels))
                * Int(max(1, av_get_bytes_per_sample(AVSampleFormat(rawValue: f.format))))
            let chunkBytes = max(1, bytes * (chunkFrames + Self.preroll + Self.postroll))
            inFlight = max(2, min(threads, Self.heldBytes / chunkBytes))
        }
        filling.append(frame)
        ownFrames += 1
        guard ownFrames == chunkFrames + Self.postroll else {
            try writeFinished(waitingForRoom: false, write)
            return
        }
        // The chunk's own frames end where the next chunk starts: the first postroll frame.
        let end = filling[filling.count - Self.postroll].pts
        dispatch(filling, keep: (start ?? Int64.min)..<end)
        // The next chunk: the last frames of this one as its preroll, then its own first frames.
        filling = Array(filling.suffix(Self.preroll + Self.postroll))
        ownFrames = Self.postroll
        start = end
        try writeFinished(waitingForRoom: true, write)
    }

    /// Encodes what is left as the last chunk and writes every packet still held, in order.
    func finish(write: (Packet) throws(MediaError) -> Void) throws(MediaError) {
        if !filling.isEmpty { dispatch(filling, keep: (start ?? Int64.min)..<Int64.max) }
        filling = []
        while let job = pending.first {
            job.done.wait()
            pending.removeFirst()
            for packet in try job.result.get() { try write(packet) }
        }
    }

    private func dispatch(_ frames: [Frame], keep: Range<Int64>) {
        let job = Job()
        let makeEncoder = makeEncoder
        pending.append(job)
        let thread = Thread {
            job.result = Result { () throws(MediaError) -> [Packet] in
                let encoder = try makeEncoder()
                var kept: [Packet] = []
                let collect = { (packet: Packet) throws(MediaError) in
                    if keep.contains(packet.pointer.pointee.pts) { kept.append(packet) }
                }
                for frame in frames { try encoder.encode(frame, collect) }
                try encoder.encode(nil, collect)
                return kept
            }
            job.done.signal()
        }
        thread.name = "tessera.encode.audio.chunk"
        thread.start()
    }

    /// Writes the oldest chunks that are done; with `waitingForRoom`, first waits until fewer than
    /// `inFlight` chunks are encoding.
    private func writeFinished(waitingForRoom: Bool, _ write: (Packet) throws(MediaError) -> Void) throws(MediaError) {
        while let job = pending.first {
            if waitingForRoom && pending.count >= inFlight {
                job.done.wait()
            } else if job.done.wait(timeout: .now()) == .timedOut {
                return
            }
            pending.removeFirst()
            for packet in try job.result.get() { try write(packet) }
        }
    }
}
