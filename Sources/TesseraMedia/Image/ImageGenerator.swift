import CFFmpeg
import Foundation
import TesseraAV
import TesseraCore

/// A still of an asset's video at a requested time, as AVFoundation's `AVAssetImageGenerator` makes
/// one: the frame on screen at that time (the latest whose presentation time is at or before it; zero
/// tolerance, so the frame is exact, not the nearest keyframe), as a PNG, fitted into `maximumSize`.
/// It reports the time it actually used: that frame's presentation time. The track's display matrix is
/// applied (`appliesPreferredTrackTransform`, as AVFoundation's option), so phone video comes out
/// upright. The dashboard's segment thumbnails and `tessera thumbnail` use it.
public final class ImageGenerator {
    /// The largest side of a still, in pixels, whatever the request or the file's sample aspect ratio asks.
    public static let maximumSide = 16384

    public struct Image: Sendable {
        public let png: Data
        public let width: Int
        public let height: Int
        /// The presentation time of the frame shown (asset time: 0 is the asset's start).
        public let actualTime: MediaTime
    }

    public let path: String
    /// Fit the image inside this box, keeping the displayed aspect ratio, never enlarging; nil keeps
    /// the picture's displayed size.
    public var maximumSize: (width: Int, height: Int)?
    /// Turn the picture as the track's display matrix says (default true).
    public var appliesPreferredTrackTransform = true

    public init(path: String) {
        self.path = path
    }

    /// The still at `time`. A time past the last frame gives the last frame.
    /// - Throws: the reader's errors for the file; `.invalidArgument` for a negative or non-numeric
    ///   time or a file without video.
    public func image(at time: MediaTime) throws(MediaError) -> Image {
        guard time.isNumeric, time >= .zero else {
            throw MediaError(.invalidArgument, path: path, "cannot take a still at \(time)")
        }
        let input = try InputFile(path: path)
        guard let id = input.bestStream(AVMEDIA_TYPE_VIDEO) else {
            throw MediaError(.invalidArgument, path: path, "has no video track")
        }
        let stream = input.streams[id]
        let tb = stream.pointee.time_base
        guard tb.num > 0, tb.den > 0 else { throw MediaError(.corrupt, path: path, "has no video time base") }
        let start = av_rescale_q(input.startTime, tessera_AV_TIME_BASE_Q(), tb)
        guard let offset = (Rational(time) * Rational(Int64(tb.den), Int64(tb.num))).floor,
            case let (target, overflow) = start.addingReportingOverflow(offset), !overflow,
            let micros = (Rational(time) * Rational(1_000_000)).floor
        else { throw MediaError(.invalidArgument, path: path, "cannot take a still at \(time)") }
        try input.seek(toKeyframeAtOrBefore: input.startTime &+ micros)
        let decoder = try Decoder(stream: stream, path: path)
        var held: Frame?
        var passed = false
        let keep = { (frame: Frame) -> Bool in
            if frame.pts <= target || held == nil { held = frame }
            passed = frame.pts > target
            return !passed
        }
        let packet = try Packet()
        while !passed, try input.read(into: packet) {
            defer { av_packet_unref(packet.pointer) }
            guard packet.streamIndex == id else { continue }
            _ = try decoder.decode(packet, keep)
        }
        if !passed { _ = try decoder.decode(nil, keep) }
        guard let frame = held else { throw MediaError(.corrupt, path: path, "no picture could be decoded") }
        let (value, overflowed) = (frame.pts &- start).multipliedReportingOverflow(by: Int64(tb.num))
        let actual = overflowed ? MediaTime.invalid : MediaTime(value: value, timescale: tb.den)
        let rotation = appliesPreferredTrackTransform ? AssetTrack.rotation(stream) : .none
        let (w, h) = outputSize(frame, swapped: rotation.swapsDimensions)
        let rgb = try Self.rgb(frame, width: w, height: h)
        let shown = rotation == .none ? rgb : try Self.turned(rgb, rotation)
        return Image(png: try Self.png(shown), width: shown.width, height: shown.height, actualTime: actual)
    }

    /// The picture's size before turning: its displayed size (sample aspect ratio applied; turned when
    /// `swapped`) fitted into `maximumSize`, then turned back; even, at least 2.
    private func outputSize(_ frame: Frame, swapped: Bool) -> (Int, Int) {
        let sar = frame.pointer.pointee.sample_aspect_ratio
        var w = Double(frame.width) * (sar.num > 0 && sar.den > 0 ? Double(sar.num) / Double(sar.den) : 1)
        var h = Double(frame.height)
        if let box = maximumSize, box.width > 0, box.height > 0 {
            let (shownW, shownH) = swapped ? (h, w) : (w, h)
            let scale = min(1, Double(box.width) / shownW, Double(box.height) / shownH)
            w *= scale
            h *= scale
        }
        // A file's sample aspect ratio may ask for any width: the still stays within `maximumSide`.
        let limit = min(1, Double(Self.maximumSide) / max(w, h))
        let fit = { (v: Double) in max(2, Int((v * limit).rounded()) & ~1) }
        return (fit(w), fit(h))
    }

    /// An RGB picture turned clockwise by `rotation` (and mirrored left to right after, when it says so).
    private static func turned(_ rgb: Frame, _ rotation: Rotation) throws(MediaError) -> Frame {
        let (w, h) = (rgb.width, rgb.height)
        let (outW, outH) = rotation.swapsDimensions ? (h, w) : (w, h)
        let out = try Frame(width: outW, height: outH, format: AV_PIX_FMT_RGB24)
        guard let src = rgb.pointer.pointee.data.0, let dst = out.pointer.pointee.data.0 else { return rgb }
        let srcLine = Int(rgb.pointer.pointee.linesize.0), dstLine = Int(out.pointer.pointee.linesize.0)
        for y in 0..<h {
            for x in 0..<w {
                var (u, v): (Int, Int)
                switch rotation.degrees {
                case 90: (u, v) = (h - 1 - y, x)
                case 180: (u, v) = (w - 1 - x, h - 1 - y)
                case 270: (u, v) = (y, w - 1 - x)
                default: (u, v) = (x, y)
                }
                if rotation.mirrored { u = outW - 1 - u }
                for c in 0..<3 { dst[v * dstLine + u * 3 + c] = src[y * srcLine + x * 3 + c] }
            }
        }
        return out
    }

    /// The frame converted to RGB at `width`×`height`.
    private static func rgb(_ frame: Frame, width: Int, height: Int) throws(MediaError) -> Frame {
        let rgb = try Frame(width: width, height: height, format: AV_PIX_FMT_RGB24)
        guard
            let sws = sws_getContext(
                Int32(frame.width), Int32(frame.height), frame.pixelFormat, Int32(width), Int32(height),
                AV_PIX_FMT_RGB24, SWS_BICUBIC, nil, nil, nil)
        else { throw MediaError(.unsupported, "cannot convert \(PixelFormat(frame.pixelFormat)) pictures to RGB") }
        defer { sws_freeContext(sws) }
        let src = frame.pointer, dst = rgb.pointer
        _ = withUnsafePointer(to: &src.pointee.data) { srcData in
            withUnsafePointer(to: &src.pointee.linesize) { srcLines in
                withUnsafePointer(to: &dst.pointee.data) { dstData in
                    withUnsafePointer(to: &dst.pointee.linesize) { dstLines in
                        sws_scale(
                            sws,
                            UnsafeRawPointer(srcData).assumingMemoryBound(to: UnsafePointer<UInt8>?.self),
                            UnsafeRawPointer(srcLines).assumingMemoryBound(to: Int32.self), 0, Int32(frame.height),
                            UnsafeRawPointer(dstData).assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self),
                            UnsafeRawPointer(dstLines).assumingMemoryBound(to: Int32.self))
                    }
                }
            }
        }
        return rgb
    }

    /// An RGB picture encoded as PNG.
    private static func png(_ rgb: Frame) throws(MediaError) -> Data {
        let (width, height) = (rgb.width, rgb.height)
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_PNG), let ctx = avcodec_alloc_context3(codec) else {
            throw MediaError(.unsupported, "this FFmpeg has no PNG encoder")
        }
        var context: UnsafeMutablePointer<AVCodecContext>? = ctx
        defer { avcodec_free_context(&context) }
        ctx.pointee.width = Int32(width)
        ctx.pointee.height = Int32(height)
        ctx.pointee.pix_fmt = AV_PIX_FMT_RGB24
        ctx.pointee.time_base = AVRational(num: 1, den: 1)
        try ff(avcodec_open2(ctx, codec, nil), "open the PNG encoder")
        rgb.pts = 0
        try ff(avcodec_send_frame(ctx, rgb.pointer), "encode the PNG")
        try ff(avcodec_send_frame(ctx, nil), "finish the PNG")
        let packet = try Packet()
        try ff(avcodec_receive_packet(ctx, packet.pointer), "receive the PNG")
        defer { av_packet_unref(packet.pointer) }
        return Data(bytes: packet.pointer.pointee.data, count: Int(packet.pointer.pointee.size))
    }
}
