import CFFmpeg
import TesseraAV
import TesseraCompute
import TesseraCore

/// One encode of a segment's output frames at one setting: the encoder, the check that decodes each
/// packet as it comes out (`EncodedOutputCheck`, measuring it), and the packets made. A segment encodes
/// once; a segment that searches its rate factor (`CRFSearch`) encodes its held frames once per probe.
final class SegmentEncodePass {
    let encoder: Encoder
    private let check: EncodedOutputCheck?
    private(set) var packets: [EncodedPacket] = []
    private var durations: [Int64: Int64] = [:]
    private(set) var frames = 0
    /// The rate factor this pass encodes at (nil for a bit-rate encode).
    let crf: Double?

    /// - Parameters:
    ///   - decoders: where the check takes its decoder; nil encodes unchecked (and unmeasured).
    ///   - search: the target a search of rate factors is after: its encoders must make packets that
    ///     stitch whatever factor each segment ends at, within its bit-rate cap.
    ///   - rateFactor: a probe's factor, in place of the settings'.
    init(
        settings: VideoSettings, input: Encoder.VideoInput, threads: Int, timeBase: Rational, segment: Int,
        decoders: SegmentDecoders?, search: TargetQuality? = nil, rateFactor: Double? = nil
    ) throws(MediaError) {
        let encoder = try Encoder(
            video: settings, input: input, globalHeader: true, threads: threads, stitchable: search != nil,
            maxBitRate: search?.maxBitRate, rateFactor: rateFactor)
        self.encoder = encoder
        if case .crf(let q) = settings.rateControl { crf = rateFactor ?? Double(q) } else { crf = nil }
        if let decoders {
            check = try EncodedOutputCheck(
                parameters: try CodecParameters(encoder: encoder.context), timeBase: timeBase,
                what: "segment \(segment)", decoders: decoders)
        } else {
            check = nil
        }
    }

    /// Encodes `frame` (its `pts` on the output timeline, its `pkt_duration` set); nil drains the encoder.
    /// - Parameter keyframe: code it as a keyframe (a sample's run starts with one, as the segment does).
    func encode(_ frame: Frame?, keyframe: Bool = false) throws(MediaError) {
        if let frame {
            durations[frame.pts] = frame.pointer.pointee.pkt_duration
            frame.pointer.pointee.pict_type = keyframe ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
            frames += 1
            check?.sent(frame)
        }
        try encoder.encode(frame) { (packet) throws(MediaError) in
            try check?.received(packet)
            var p = EncodedPacket(packet)
            if let d = durations.removeValue(forKey: p.pts) { p.duration = d }
            packets.append(p)
        }
    }

    /// Finishes the check once the encoder is drained: the output's quality when it was checked and
    /// could be measured.
    /// - Throws: `.verificationFailed` when the output does not decode to the frames encoded.
    func finish() throws(MediaError) -> QualityStats? { try check?.finish() }

    /// Bytes of the packets made.
    var bytes: Int { packets.reduce(0) { $0 + $1.data.count } }

    /// The encoder's output parameters, once finished.
    func parameters() throws(MediaError) -> CodecParameters { try CodecParameters(encoder: encoder.context) }
}
