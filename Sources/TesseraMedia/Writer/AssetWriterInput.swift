import CFFmpeg
import TesseraAV
import TesseraCore

/// One track of an `AssetWriter`, as AVAssetWriterInput: takes frames to encode, or packets to copy.
///
/// Each input is fed from one thread at a time; several inputs may be fed from different threads.
public final class AssetWriterInput: @unchecked Sendable {
    enum Kind { case video, audio, passthrough }

    private unowned let writer: AssetWriter
    let stream: UnsafeMutablePointer<AVStream>
    private let encoder: Encoder?
    private let converter: AudioConverter?
    /// Encodes the audio in chunks on several threads instead of with `encoder` (`ChunkedAudioEncoder`).
    private let chunks: ChunkedAudioEncoder?
    private let kind: Kind
    /// Video frame durations by pts: libx264 and friends do not carry them onto packets.
    private var durations: [Int64: Int64] = [:]
    private(set) var isFinished = false
    private var framesAppended = 0
    /// Encoded (or copied) packets and bytes so far.
    public private(set) var packetCount = 0
    public private(set) var byteCount = 0

    /// Decodes and measures the video as it is encoded (a one-pass export that verifies); set before the
    /// first frame.
    var check: EncodedOutputCheck?

    /// Has the video decoded and measured as it is encoded (`check`), per GOP.
    func checkAsEncoded() throws(MediaError) {
        guard let encoder, kind == .video else { return }
        check = try EncodedOutputCheck(
            parameters: try CodecParameters(encoder: encoder.context), timeBase: Rational(timeBase),
            what: "the video", decoders: SegmentDecoders(), windows: true)
    }

    /// The time base appended timestamps are in. Fixed at creation: the muxer may change the output
    /// stream's own time base when it writes the header (Matroska uses 1/1000).
    public let timeBase: AVRational

    init(
        writer: AssetWriter, stream: UnsafeMutablePointer<AVStream>, encoder: Encoder?, kind: Kind,
        converter: AudioConverter? = nil, chunks: ChunkedAudioEncoder? = nil, timeBase: AVRational
    ) {
        self.chunks = chunks
        self.writer = writer
        self.timeBase = timeBase
        self.stream = stream
        self.encoder = encoder
        self.kind = kind
        self.converter = converter
    }

    /// Encodes a frame. Video: `pts` (and `pkt_duration`, if known) in `timeBase`. Audio: any PCM; it is
    /// converted to the encoder's format and its timing is the running sample count.
    /// - Throws: `.ffmpeg` when encoding or writing fails.
    public func append(_ frame: Frame) throws(MediaError) {
        guard let encoder else { throw MediaError(.invalidArgument, "a passthrough input takes packets, not frames") }
        framesAppended += 1
        switch kind {
        case .audio:
            try converter!.push(frame) { (f) throws(MediaError) in
                if let chunks { try chunks.push(f, write: output) } else { try encode(f, with: encoder) }
            }
        default:
            let duration = frame.pointer.pointee.pkt_duration
            if duration > 0 { durations[frame.pts] = duration }
            frame.pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE
            check?.sent(frame)
            try encode(frame, with: encoder)
        }
    }

    /// Copies a compressed packet whose timestamps are in `timeBase` (a passthrough input).
    public func append(_ packet: Packet) throws(MediaError) {
        guard encoder == nil else { throw MediaError(.invalidArgument, "an encoding input takes frames, not packets") }
        try output(packet)
    }

    /// Flushes the encoder: no more frames will come.
    public func markAsFinished() throws(MediaError) {
        guard !isFinished else { return }
        isFinished = true
        // SVT-AV1 (FFmpeg 5.1) blocks forever when flushed before it has seen a frame.
        guard let encoder, framesAppended > 0 else { return }
        if let chunks, let converter {
            try converter.finish { (f) throws(MediaError) in try chunks.push(f, write: output) }
            try chunks.finish(write: output)
            return
        }
        if let converter { try converter.finish { (f) throws(MediaError) in try encode(f, with: encoder) } }
        try encoder.encode(nil) { (p) throws(MediaError) in try output(p) }
    }

    private func encode(_ frame: Frame, with encoder: Encoder) throws(MediaError) {
        try encoder.encode(frame) { (p) throws(MediaError) in try output(p) }
    }

    private func output(_ packet: Packet) throws(MediaError) {
        if kind == .video, let d = durations.removeValue(forKey: packet.pointer.pointee.pts) {
            packet.pointer.pointee.duration = d
        }
        try check?.received(packet)
        packetCount += 1
        byteCount += packet.size
        try writer.write(packet, stream: stream, from: timeBase)
    }
}
