import CFFmpeg
import Foundation
import TesseraAV

/// Owns an opened `AVFormatContext` for reading (a demuxer); closed with the object.
///
/// Opening classifies failures so the user learns the cause: a missing path, an empty file,
/// bytes FFmpeg does not recognise as media, or a damaged file.
final class InputFile: @unchecked Sendable {
    let path: String
    private(set) var context: UnsafeMutablePointer<AVFormatContext>?

    /// - Throws: `.notFound` (no such file, or a directory), `.emptyFile`, `.notMedia` (unrecognised bytes
    ///   or no audio/video stream), `.corrupt` (recognised but damaged, e.g. truncated).
    init(path: String) throws(MediaError) {
        self.path = path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw MediaError(.notFound, path: path, "no such file")
        }
        guard !isDirectory.boolValue else { throw MediaError(.notFound, path: path, "is a directory, not a file") }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        guard size != 0 else { throw MediaError(.emptyFile, path: path, "file is empty (0 bytes)") }

        var ctx: UnsafeMutablePointer<AVFormatContext>? = nil
        let opened = avformat_open_input(&ctx, path, nil, nil)
        if opened < 0 {
            if opened == tessera_AVERROR_INVALIDDATA() {
                throw MediaError(.notMedia, path: path, "not a media file FFmpeg recognises", code: opened)
            }
            throw MediaError(.corrupt, path: path, "cannot open: \(ffErrorString(opened))", code: opened)
        }
        context = ctx
        let found = avformat_find_stream_info(ctx, nil)
        if found < 0 {
            throw MediaError(.corrupt, path: path, "cannot read stream information: \(ffErrorString(found))",
                             code: found)
        }
        guard streams.contains(where: { [AVMEDIA_TYPE_VIDEO, AVMEDIA_TYPE_AUDIO].contains($0.pointee.codecpar.pointee.codec_type) })
        else { throw MediaError(.notMedia, path: path, "contains no audio or video stream") }
    }

    deinit { avformat_close_input(&context) }

    var streams: [UnsafeMutablePointer<AVStream>] {
        guard let ctx = context else { return [] }
        return (0..<Int(ctx.pointee.nb_streams)).compactMap { ctx.pointee.streams[$0] }
    }

    /// The best stream of a type (FFmpeg's choice: default disposition, then most frames), or nil.
    func bestStream(_ type: AVMediaType) -> Int? {
        let index = av_find_best_stream(context, type, -1, -1, nil, 0)
        return index >= 0 ? Int(index) : nil
    }

    /// The container's start time in `AV_TIME_BASE` units (0 when unknown).
    var startTime: Int64 {
        guard let t = context?.pointee.start_time, t != tessera_AV_NOPTS_VALUE() else { return 0 }
        return t
    }

    /// The container's duration in `AV_TIME_BASE` units (0 when unknown).
    var duration: Int64 {
        guard let d = context?.pointee.duration, d != tessera_AV_NOPTS_VALUE(), d > 0 else { return 0 }
        return d
    }

    /// Seeks so the next packet read is at or before `timestamp` (`AV_TIME_BASE` units) on a keyframe.
    func seek(toKeyframeAtOrBefore timestamp: Int64) throws(MediaError) {
        let code = avformat_seek_file(context, -1, Int64.min, timestamp, timestamp, 0)
        if code < 0 {
            // Some demuxers cannot seek; reading from the start is always correct, only slower.
            _ = avformat_seek_file(context, -1, Int64.min, 0, 0, AVSEEK_FLAG_BYTE)
        }
    }

    /// Reads the next packet into `packet`; false at the end of the file.
    ///
    /// - Throws: `.corrupt` naming the file when the demuxer fails for any reason other than EOF.
    func read(into packet: Packet) throws(MediaError) -> Bool {
        let code = av_read_frame(context, packet.pointer)
        if code == tessera_AVERROR_EOF() { return false }
        if code < 0 {
            // A file cut short often ends in an I/O error rather than a clean EOF.
            throw MediaError(.corrupt, path: path, "read failed: \(ffErrorString(code)) (truncated or damaged?)",
                             code: code)
        }
        return true
    }
}
