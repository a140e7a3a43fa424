import CFFmpeg
import TesseraAV
import TesseraCore

/// The decoders one segment thread keeps from one segment to the next.
///
/// Every segment of a job decodes the same source stream and checks output encoded with the same
/// settings, so when the next segment's stream is described the same way its decoder is flushed
/// (`avcodec_flush_buffers`, as a seek does) and reused instead of opened afresh: its frame pools and
/// tables are not allocated, and page-faulted in, again for every segment. A decoder is kept only
/// after a segment succeeded with it; one that saw an error or a cancellation is closed.
///
/// Not thread-safe: one per segment thread.
public final class SegmentDecoders {
    /// What a decoder was opened for: reusable only for exactly the same.
    struct Key: Hashable {
        let configuration: CodecConfiguration
        let timeBase: Rational
        let threads: Int
        /// A decoder of a segment's own output (`EncodedOutputCheck`), else of its source.
        let output: Bool
    }

    private var source: (key: Key, decoder: Decoder)?
    private var check: (key: Key, decoder: Decoder)?
    /// Decoders opened and reused so far (tests check reuse happens, and only after success).
    private(set) var opened = 0
    private(set) var reused = 0

    public init() {}

    /// A decoder for `configuration`: the kept one, flushed, when it matches, else a new one.
    /// The caller hands it back with `keep` once the segment succeeded.
    func take(_ key: Key, parameters: CodecParameters, path: String) throws(MediaError) -> Decoder {
        let kept = key.output ? check : source
        // Out of the slot while in use: a segment that fails never hands it back.
        if key.output { check = nil } else { source = nil }
        if let kept, kept.key == key {
            kept.decoder.flush()
            reused += 1
            return kept.decoder
        }
        let timeBase = try AVRational(key.timeBase, "\(path): the time base")
        let decoder = try Decoder(
            parameters: parameters.pointer, timeBase: timeBase, path: path,
            threads: key.threads)
        opened += 1
        return decoder
    }

    /// Keeps `decoder` for the next segment with the same key (replacing the one kept before).
    func keep(_ decoder: Decoder, for key: Key) {
        if key.output { check = (key, decoder) } else { source = (key, decoder) }
    }
}
