import CFFmpeg
import TesseraAV
import TesseraCore

/// Decodes a segment's packets as its encoder makes them, proving the segment decodes to exactly the
/// frames encoded, and measures each decoded frame against the frame the encoder was given
/// (`QualityMeter`). Every segment is checked where it was made, so the stitched file's video needs no
/// second decode (see `OutputVerifier.VideoDecoding.bySegments`). Skipped when the job asked for
/// `VerificationLevel.timing` (`SegmentWork.checkDecodes`).
///
/// The frames given to the encoder are held (by reference, nothing copied) only until their decoded
/// twin comes out: the encoder's delay, a few frames.
final class EncodedOutputCheck {
    private let decoder: Decoder
    private let key: SegmentDecoders.Key
    private let decoders: SegmentDecoders
    private let segment: Int
    private let timeBase: Rational
    private var references: [Int64: Frame] = [:]
    private var decoded: [Int64] = []
    private var meter: QualityMeter?
    /// Why quality is not measured, once that is known (a format the filters cannot compare).
    private var unmeasurable = false

    init(
        parameters: CodecParameters, timeBase: Rational, segment: Int, decoders: SegmentDecoders
    ) throws(MediaError) {
        key = SegmentDecoders.Key(
            configuration: parameters.configuration, timeBase: timeBase, threads: 1, output: true)
        decoder = try decoders.take(key, parameters: parameters, path: "segment \(segment) output")
        self.decoders = decoders
        self.segment = segment
        self.timeBase = timeBase
    }

    /// The encoder was given `frame` (its `pts` on the output timeline).
    func sent(_ frame: Frame) { references[frame.pts] = frame }

    /// The encoder made `packet`: decode it now.
    func received(_ packet: Packet) throws(MediaError) {
        do throws(MediaError) {
            _ = try decoder.decode(packet) { (f) throws(MediaError) in
                try compare(f)
                return true
            }
        } catch {
            throw failed(error)
        }
    }

    /// Drains the decoder and checks every frame encoded came out. Returns the segment's quality (nil
    /// when its format cannot be measured); the decoder is kept for the next segment.
    func finish(encodedPTS: [Int64]) throws(MediaError) -> QualityStats? {
        do throws(MediaError) {
            _ = try decoder.decode(nil) { (f) throws(MediaError) in
                try compare(f)
                return true
            }
        } catch {
            throw failed(error)
        }
        guard decoded.sorted() == encodedPTS.sorted() else {
            throw MediaError(
                .verificationFailed,
                "segment \(segment)'s encoded output decodes to \(decoded.count) frames, "
                    + "\(encodedPTS.count) were encoded (or their times differ)")
        }
        let stats = try meter?.finish()
        decoders.keep(decoder, for: key)
        return stats
    }

    private func compare(_ frame: Frame) throws(MediaError) {
        decoded.append(frame.pts)
        guard let reference = references.removeValue(forKey: frame.pts), !unmeasurable else { return }
        if meter == nil {
            let f = frame.pointer.pointee
            do throws(MediaError) {
                meter = try QualityMeter(
                    width: Int(f.width), height: Int(f.height), format: frame.pixelFormat,
                    timeBase: timeBase)
            } catch where error.kind == .unsupported {
                unmeasurable = true
                return
            }
        }
        try meter!.measure(frame, against: reference)
    }

    private func failed(_ error: MediaError) -> MediaError {
        MediaError(             .verificationFailed, "segment \(segment)'s encoded output does not decode: \(error.message)")
    }
}
