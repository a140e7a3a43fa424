import CFFmpeg
import Foundation
import TesseraAV
import TesseraCore

/// Owns an encoding `AVCodecContext` configured from Tessera's settings, with the send/receive loop.
final class Encoder: @unchecked Sendable {
    let context: UnsafeMutablePointer<AVCodecContext>
    let name: String

    /// Geometry, format and timing of the pictures a video encoder will be given.
    struct VideoInput {
        var width: Int
        var height: Int
        var pixelFormat: AVPixelFormat
        var timeBase: AVRational
        var frameRate: AVRational
        var sampleAspectRatio: AVRational
        var colorSpace: AVColorSpace
        var colorPrimaries: AVColorPrimaries
        var colorTransfer: AVColorTransferCharacteristic
        var colorRange: AVColorRange
        var chromaLocation: AVChromaLocation
        /// HDR10 static metadata to signal (mastering display, content light level): set only for an
        /// output that keeps HDR (`VideoEncoding`).
        var hdr: HDRMetadata? = nil
    }

    /// - Throws: `.unsupported` when the encoder is not in this FFmpeg build or rejects the pixel format,
    ///   `.invalidArgument` for settings it refuses (e.g. an unknown speed preset).
    /// - Parameters:
    ///   - threads: encoder threads; 0 lets the encoder use every core.
    ///   - stitchable: headers that do not depend on the rate factor (x264 writes its initial QP in the
    ///     PPS), so segments encoded at different factors concatenate.
    ///   - maxBitRate: a cap on a CRF encode (the VBV maximum rate, with a one-second buffer).
    ///   - rateFactor: a CRF encode's factor with its fraction (x264 and x265 take tenths; a search's
    ///     probe), in place of the settings' whole one.
    init(
        video settings: VideoSettings, input: VideoInput, globalHeader: Bool, threads: Int = 0,
        stitchable: Bool = false, maxBitRate: Int? = nil, rateFactor: Double? = nil
    ) throws(MediaError) {
        let codec = try Self.find(settings.codec.encoderName)
        name = settings.codec.encoderName
        context = try Self.allocate(codec, name)
        let c = context
        c.pointee.width = try Self.int32(input.width, "width", name)
        c.pointee.height = try Self.int32(input.height, "height", name)
        c.pointee.pix_fmt = input.pixelFormat
        c.pointee.time_base = input.timeBase
        c.pointee.framerate = input.frameRate
        c.pointee.sample_aspect_ratio = input.sampleAspectRatio
        c.pointee.colorspace = input.colorSpace
        c.pointee.color_primaries = input.colorPrimaries
        c.pointee.color_trc = input.colorTransfer
        c.pointee.color_range = input.colorRange
        c.pointee.chroma_sample_location = input.chromaLocation
        let fps =
            input.frameRate.num > 0 && input.frameRate.den > 0
            ? Double(input.frameRate.num) / Double(input.frameRate.den) : 30
        c.pointee.gop_size = try Self.int32(
            settings.gopLength ?? max(1, Int((min(fps, 1000) * 2).rounded())),
            "gopLength", name)
        c.pointee.thread_count = try Self.int32(threads, "threads", name)
        if globalHeader { c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        if let level = settings.level { c.pointee.level = try Self.int32(level, "level", name) }

        let speed = settings.speed ?? settings.codec.defaultSpeed
        switch settings.codec {
        case .h264:
            try set("preset", speed)
            // x264 takes VFR input by default and then writes the time base (1/15360 for a 30 fps MP4
            // track) as the VUI timing, so parsers read 15360 fps and packet durations come out N/A.
            // With force-cfr its VUI says the frame rate; timestamps still pass through unchanged.
            let params =
                (input.frameRate.num > 0 && input.frameRate.den > 0 ? ["force-cfr=1"] : [])
                + (stitchable ? ["stitchable=1"] : [])
            if !params.isEmpty { try set("x264-params", params.joined(separator: ":")) }
        case .hevc:
            try set("preset", speed)
            // Stitchable: no "x265 (build …) - options: … crf=…" SEI in the headers, which would differ by factor.
            try set(
                "x265-params",
                (["log-level=error"] + (stitchable ? ["info=0"] : []) + (input.hdr.map(Self.x265HDR) ?? []))
                    .joined(separator: ":"))
        case .av1:
            try set("preset", speed)
        case .vp9:
            try set("deadline", Int(speed).map { $0 >= 5 ? "realtime" : "good" } ?? speed)
            if let n = Int(speed) { try set("cpu-used", String(n)) }
            try set("row-mt", "1")
        }
        switch settings.rateControl {
        case .crf(let q):
            try set("crf", rateFactor.map { String(format: "%.2f", $0) } ?? String(q))
            if let cap = maxBitRate {
                // Constrained quality: the factor sets the quality, the cap the most bits it may spend (over a
                // one-second buffer, as streaming ladders use).
                c.pointee.rc_max_rate = Int64(cap)
                c.pointee.rc_buffer_size = try Self.int32(cap, "bufsize", name)
                if settings.codec == .vp9 { c.pointee.bit_rate = Int64(cap) }
            } else if settings.codec == .vp9 {
                c.pointee.bit_rate = 0
            }
        case .bitRate(let b):
            c.pointee.bit_rate = Int64(b)
            if let cap = settings.maxBitRate {
                // Capped VBR: the average, and the peak over a one-second buffer.
                c.pointee.rc_max_rate = Int64(cap)
                c.pointee.rc_buffer_size = try Self.int32(cap, "bufsize", name)
            }
        }
        if let profile = settings.profile { try set("profile", profile) }
        try open(codec)
    }

    /// An audio encoder; the sample format is the encoder's first supported one.
    init(audio settings: AudioSettings, sampleRate: Int, channels: Int, globalHeader: Bool) throws(MediaError) {
        let codec = try Self.find(settings.codec.encoderName)
        name = settings.codec.encoderName
        context = try Self.allocate(codec, name)
        let c = context
        c.pointee.sample_fmt = codec.pointee.sample_fmts?.pointee ?? AV_SAMPLE_FMT_FLTP
        c.pointee.sample_rate = try Self.int32(settings.codec == .opus ? 48_000 : sampleRate, "sampleRate", name)
        av_channel_layout_default(&c.pointee.ch_layout, try Self.int32(channels, "channelCount", name))
        c.pointee.bit_rate = Int64(settings.bitRate)
        c.pointee.time_base = AVRational(num: 1, den: c.pointee.sample_rate)
        if globalHeader { c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        try open(codec)
    }

    deinit {
        var p: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&p)
    }

    /// Samples per frame the encoder wants (0: any).
    var frameSize: Int {
        context.pointee.codec.pointee.capabilities & AV_CODEC_CAP_VARIABLE_FRAME_SIZE != 0
            ? 0 : Int(context.pointee.frame_size)
    }

    /// Sends a frame (nil = flush) and hands every packet that comes out to `body`.
    /// - Throws: `.ffmpeg` naming the encoder when encoding fails.
    func encode(_ frame: Frame?, _ body: (Packet) throws(MediaError) -> Void) throws(MediaError) {
        let sent = avcodec_send_frame(context, frame?.pointer)
        if sent < 0 && !(frame == nil && sent == tessera_AVERROR_EOF()) {
            try ff(sent, "encode with \(name)")
        }
        while true {
            let packet = try Packet()
            let got = avcodec_receive_packet(context, packet.pointer)
            if got == tessera_AVERROR_EAGAIN() || got == tessera_AVERROR_EOF() { return }
            try ff(got, "receive packet from \(name)")
            try body(packet)
        }
    }

    /// x265's HDR10 SEI parameters: chromaticities in units of 0.00002, luminance in 0.0001 cd/m²,
    /// green first, as SMPTE ST 2086 orders them. Values from a file are clamped into the fields' ranges.
    static func x265HDR(_ hdr: HDRMetadata) -> [String] {
        var params: [String] = []
        if let m = hdr.masteringDisplay, m.primaries.count == 3, m.primaries.allSatisfy({ $0.count == 2 }),
            m.whitePoint.count == 2
        {
            // A non-number is 0 (Swift's min and max pass NaN through), so no conversion can trap.
            func bounded(_ v: Double, _ top: Double) -> Double { v.isFinite ? min(max(v, 0), top) : 0 }
            func xy(_ p: [Double]) -> String {
                "(\(Int((bounded(p[0], 1) * 50000).rounded())),\(Int((bounded(p[1], 1) * 50000).rounded())))"
            }
            func lum(_ v: Double) -> Int { Int((bounded(v, 100_000) * 10000).rounded()) }
            let (r, g, b) = (m.primaries[0], m.primaries[1], m.primaries[2])
            params.append(
                "master-display=G\(xy(g))B\(xy(b))R\(xy(r))WP\(xy(m.whitePoint))L(\(lum(m.maxLuminance)),\(lum(m.minLuminance)))"
            )
        }
        if let cll = hdr.maxContentLightLevel {
            params.append(
                "max-cll=\(min(max(cll, 0), 65535)),\(min(max(hdr.maxFrameAverageLightLevel ?? 0, 0), 65535))")
        }
        return params
    }

    /// Settings come from requests and the wire: a value out of the C field's range is refused, never trapped on.
    private static func int32(_ value: Int, _ field: String, _ name: String) throws(MediaError) -> Int32 {
        guard let narrow = Int32(exactly: value), narrow >= 0 else {
            throw MediaError(.invalidArgument, "\(name) cannot take \(field) \(value)")
        }
        return narrow
    }

    private func set(_ key: String, _ value: String) throws(MediaError) {
        let code = av_opt_set(context.pointee.priv_data, key, value, 0)
        if code < 0 {
            throw MediaError(.invalidArgument, "\(name) rejects \(key)=\(value): \(ffErrorString(code))", code: code)
        }
    }

    private func open(_ codec: UnsafePointer<AVCodec>) throws(MediaError) {
        let code = avcodec_open2(context, codec, nil)
        if code < 0 {
            throw MediaError(.unsupported, "cannot open encoder \(name): \(ffErrorString(code))", code: code)
        }
    }

    private static func find(_ name: String) throws(MediaError) -> UnsafePointer<AVCodec> {
        guard let codec = avcodec_find_encoder_by_name(name) else {
            throw MediaError(.unsupported, "encoder \(name) is not available in this FFmpeg build")
        }
        return codec
    }

    private static func allocate(
        _ codec: UnsafePointer<AVCodec>, _ name: String
    ) throws(MediaError)
        -> UnsafeMutablePointer<AVCodecContext>
    {
        guard let c = avcodec_alloc_context3(codec) else {
            throw MediaError(.internal, "out of memory allocating encoder \(name)")
        }
        return c
    }

    /// Whether the encoder accepts a pixel format (the codec's `pix_fmts` list).
    static func supports(_ encoderName: String, pixelFormat: AVPixelFormat) -> Bool {
        guard let codec = avcodec_find_encoder_by_name(encoderName), var p = codec.pointee.pix_fmts else {
            return false
        }
        while p.pointee != AV_PIX_FMT_NONE {
            if p.pointee == pixelFormat { return true }
            p += 1
        }
        return false
    }
}

/// What this machine's FFmpeg build can do, for a worker's capabilities.
public enum CodecSupport {
    /// The Tessera video codecs whose encoders are present.
    public static var videoEncoders: [VideoCodec] {
        VideoCodec.allCases.filter { avcodec_find_encoder_by_name($0.encoderName) != nil }
    }

    /// Names of the video decoders present (libavcodec codec names such as "h264", "hevc").
    public static var videoDecoders: [String] {
        var names: Set<String> = []
        var state: UnsafeMutableRawPointer? = nil
        while let codec = av_codec_iterate(&state) {
            if av_codec_is_decoder(codec) != 0, codec.pointee.type == AVMEDIA_TYPE_VIDEO {
                names.insert(String(cString: avcodec_get_name(codec.pointee.id)))
            }
        }
        return names.sorted()
    }

    /// "libavcodec 59.37.100".
    public static var libraryVersion: String {
        let v = avcodec_version()
        return "libavcodec \(v >> 16).\((v >> 8) & 0xff).\(v & 0xff)"
    }
}
