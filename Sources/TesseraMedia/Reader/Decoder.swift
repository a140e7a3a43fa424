import CFFmpeg
import Foundation
import TesseraAV

/// Owns a decoding `AVCodecContext` for one stream, with the send/receive loop.
///
/// Decoding is strict: damage the decoder detects (`AV_EF_EXPLODE`, corrupt-frame flags) is an error
/// naming the file and the time, not a silently concealed picture in the output.
final class Decoder: @unchecked Sendable {
    let context: UnsafeMutablePointer<AVCodecContext>
    let timeBase: AVRational
    let codecName: String
    private let path: String

    /// - Throws: `.unsupported` when no decoder exists for the stream's codec, `.ffmpeg` when it fails to open.
    /// - Parameter checkOnly: skip the in-loop deblocking filter: every packet is still parsed and
    ///   reconstructed (damage is still an error) but the pictures are not fit to show. For verifiers.
    convenience init(
        stream: UnsafeMutablePointer<AVStream>, path: String, threads: Int = 0,
        checkOnly: Bool = false
    ) throws(MediaError) {
        try self.init(
            parameters: stream.pointee.codecpar, timeBase: stream.pointee.time_base, path: path,
            threads: threads, checkOnly: checkOnly)
    }

    /// A decoder for packets described by `parameters` with timestamps in `timeBase`.
    init(
        parameters: UnsafePointer<AVCodecParameters>, timeBase: AVRational, path: String,
        threads: Int = 0, checkOnly: Bool = false
    ) throws(MediaError) {
        self.path = path
        codecName = String(cString: avcodec_get_name(parameters.pointee.codec_id))
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw MediaError(.unsupported, path: path, "no decoder for codec \(codecName)")
        }
        guard let ctx = avcodec_alloc_context3(codec) else {
            throw MediaError(.internal, path: path, "out of memory allocating a \(codecName) decoder")
        }
        context = ctx
        self.timeBase = timeBase
        do {
            try ff(avcodec_parameters_to_context(ctx, parameters), "configure \(codecName) decoder")
            ctx.pointee.pkt_timebase = timeBase
            ctx.pointee.thread_count = Int32(threads)
            ctx.pointee.thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE
            ctx.pointee.err_recognition |= AV_EF_EXPLODE
            if checkOnly {
                ctx.pointee.skip_loop_filter = AVDISCARD_ALL
                // A check reports damage; concealing it would only cost time.
                ctx.pointee.error_concealment = 0
            }
            try ff(avcodec_open2(ctx, codec, nil), "open \(codecName) decoder")
        } catch {
            throw error.about(path)
        }
    }

    /// Forgets every packet and frame in flight (as after a seek), ready for a new keyframe.
    func flush() { avcodec_flush_buffers(context) }

    deinit {
        var p: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&p)
    }

    /// Sends a packet (nil = end of stream, drain) and hands every frame that comes out to `body`.
    /// `body` returns false to stop early (the caller has all it needs).
    ///
    /// Frames carry `best_effort_timestamp` in `pts` (stream time base).
    /// - Throws: `.corrupt` when the decoder reports damage.
    @discardableResult
    func decode(_ packet: Packet?, _ body: (Frame) throws(MediaError) -> Bool) throws(MediaError) -> Bool {
        let sent = avcodec_send_packet(context, packet?.pointer)
        if sent < 0 && sent != tessera_AVERROR_EOF() {
            throw damaged(sent, at: packet?.pts)
        }
        while true {
            let frame = try Frame()
            let got = avcodec_receive_frame(context, frame.pointer)
            if got == tessera_AVERROR_EAGAIN() || got == tessera_AVERROR_EOF() { return true }
            if got < 0 { throw damaged(got, at: packet?.pts) }
            let f = frame.pointer.pointee
            if f.flags & AV_FRAME_FLAG_CORRUPT != 0 || f.decode_error_flags != 0 {
                throw MediaError(
                    .corrupt, path: path, "damaged \(codecName) picture at \(seconds(f.best_effort_timestamp))")
            }
            frame.pts = f.best_effort_timestamp
            if try !body(frame) { return false }
        }
    }

    private func damaged(_ code: Int32, at pts: Int64?) -> MediaError {
        let when = pts.map { " at \(seconds($0))" } ?? ""
        return MediaError(
            .corrupt, path: path, "\(codecName) data is damaged\(when): \(ffErrorString(code))", code: code)
    }

    private func seconds(_ pts: Int64) -> String {
        guard pts != tessera_AV_NOPTS_VALUE() else { return "unknown time" }
        let s = Double(pts) * Double(timeBase.num) / Double(timeBase.den)
        return String(format: "%.3fs", s)
    }
}
