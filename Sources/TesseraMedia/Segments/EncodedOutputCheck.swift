import CFFmpeg
import TesseraAV
import TesseraCore

/// Decodes an encoder's packets as it makes them, proving they decode to exactly the frames encoded, and
/// measures each decoded frame against the frame the encoder was given (`QualityMeter`). Every segment
/// is checked where it was made, so the stitched file's video needs no second decode (see
/// `OutputVerifier.VideoDecoding.bySegments`); a one-pass export asked to verify checks its video the
/// same way (`.byEncoder`). Skipped when the job asked for `VerificationLevel.timing`.
///
/// The frames given to the encoder are held (by reference, nothing copied) only until their decoded
/// twin comes out: the encoder's delay, a few frames. With `windows`, the figures are also kept per GOP
/// of the output (a one-pass file's stand-in for segments).
final class EncodedOutputCheck {
    /// One GOP's figures: from a keyframe to the frame before the next.
    struct Window {
        var firstPTS: Int64
        var stats: QualityStats?
        var frames = 0
        var bytes = 0
        /// The end of its last frame, in the encoder's time base.
        var endPTS: Int64
    }

    private let decoder: Decoder
    private let key: SegmentDecoders.Key
    private let decoders: SegmentDecoders
    /// For messages: "segment 3", "the video".
    private let what: String
    private let timeBase: Rational
    private var references: [Int64: Frame] = [:]
    private var sentPTS: [Int64] = []
    private var decoded: [Int64] = []
    private var meter: QualityMeter?
    /// The format cannot be measured (packed RGB, alpha): the frames are still checked.
    private var unmeasurable = false
    /// Every frame's figures so far (a window's meter adds its own at the window's end).
    private var total: QualityStats?
    private let splitsWindows: Bool
    private(set) var windows: [Window] = []
    /// Packet sizes and frame durations by pts, for the windows.
    private var sizes: [Int64: Int] = [:]
    private var durations: [Int64: Int64] = [:]

    /// - Parameter windows: keep the figures per GOP too.
    init(
        parameters: CodecParameters, timeBase: Rational, what: String, decoders: SegmentDecoders,
        windows: Bool = false
    ) throws(MediaError) {
        key = SegmentDecoders.Key(
            configuration: parameters.configuration, timeBase: timeBase, threads: 1, output: true)
        decoder = try decoders.take(key, parameters: parameters, path: "\(what)'s output")
        self.decoders = decoders
        self.what = what
        self.timeBase = timeBase
        splitsWindows = windows
    }

    /// The encoder was given `frame` (its `pts` in the encoder's time base).
    func sent(_ frame: Frame) {
        references[frame.pts] = frame
        sentPTS.append(frame.pts)
        if splitsWindows { durations[frame.pts] = frame.pointer.pointee.pkt_duration }
    }

    /// The encoder made `packet`: decode it now.
    func received(_ packet: Packet) throws(MediaError) {
        if splitsWindows { sizes[packet.pts] = Int(packet.pointer.pointee.size) }
        do throws(MediaError) {
            _ = try decoder.decode(packet) { (f) throws(MediaError) in
                try compare(f)
                return true
            }
        } catch {
            throw failed(error)
        }
    }

    /// Drains the decoder and checks every frame sent came out. Returns the figures of every frame (nil
    /// when the format cannot be measured); the decoder is kept for the next segment.
    /// - Throws: `.verificationFailed` when the output does not decode, or not to the frames sent.
    func finish() throws(MediaError) -> QualityStats? {
        do throws(MediaError) {
            _ = try decoder.decode(nil) { (f) throws(MediaError) in
                try compare(f)
                return true
            }
        } catch {
            throw failed(error)
        }
        guard decoded.sorted() == sentPTS.sorted() else {
            throw MediaError(
                .verificationFailed,
                "\(what)'s encoded output decodes to \(decoded.count) frames, "
                    + "\(sentPTS.count) were encoded (or their times differ)")
        }
        try closeWindow()
        decoders.keep(decoder, for: key)
        return total
    }

    /// `finish()`, then the figures per GOP as a report (a one-pass file's), the GOPs in the place of
    /// segments.
    func finishReport(rateControl: RateControl) throws(MediaError) -> QualityReport? {
        _ = try finish()
        let seconds = timeBase.seconds
        return QualityReport(
            segments: windows.enumerated().compactMap { (i, w) in
                SegmentQuality(
                    index: i, stats: w.stats, frames: w.frames,
                    span: (Double(w.firstPTS) * seconds)...(Double(max(w.firstPTS, w.endPTS)) * seconds),
                    bytes: w.bytes, encodeSeconds: 0, rateControl: rateControl)
            })
    }

    private func compare(_ frame: Frame) throws(MediaError) {
        decoded.append(frame.pts)
        if splitsWindows {
            if frame.pointer.pointee.key_frame != 0 || windows.isEmpty {
                try closeWindow()
                windows.append(Window(firstPTS: frame.pts, endPTS: frame.pts))
            }
            let d = durations.removeValue(forKey: frame.pts) ?? 0
            windows[windows.count - 1].frames += 1
            windows[windows.count - 1].bytes += sizes.removeValue(forKey: frame.pts) ?? 0
            windows[windows.count - 1].endPTS = max(windows[windows.count - 1].endPTS, frame.pts &+ max(0, d))
        }
        guard let reference = references.removeValue(forKey: frame.pts), !unmeasurable else { return }
        if meter == nil {
            let f = frame.pointer.pointee
            do throws(MediaError) {
                meter = try QualityMeter(
                    width: Int(f.width), height: Int(f.height), format: frame.pixelFormat, timeBase: timeBase)
            } catch  where error.kind == .unsupported {
                unmeasurable = true
                return
            }
        }
        try meter!.measure(frame, against: reference)
    }

    /// Measures what the meter still holds; its figures are the window's (and join the total). A new
    /// meter starts with the next frame.
    private func closeWindow() throws(MediaError) {
        guard let meter else { return }
        self.meter = nil
        let stats = try meter.finish()
        if var t = total {
            t.add(stats)
            total = t
        } else {
            total = stats
        }
        if splitsWindows, !windows.isEmpty { windows[windows.count - 1].stats = stats }
    }

    private func failed(_ error: MediaError) -> MediaError {
        MediaError(.verificationFailed, "\(what)'s encoded output does not decode: \(error.message)")
    }
}
