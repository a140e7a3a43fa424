import CFFmpeg
import TesseraAV

extension Asset {
    /// Owns one opened demuxer (`AVFormatContext`) with its stream information read; closed with the object.
    final class Input {
        let path: String
        let context: UnsafeMutablePointer<AVFormatContext>

        /// Opens `path` and reads enough packets to fill in every stream's parameters.
        ///
        /// - Throws: `MediaError` (without the path; `Asset.load` adds it): `.notFound`, `.emptyFile`,
        ///   `.notMedia`, `.corrupt` or `.ffmpeg`, as classified by `Asset.checkFile` and
        ///   `Asset.openFailure`.
        init(path: String) throws(MediaError) {
            let size = try Asset.checkFile(path)
            var context: UnsafeMutablePointer<AVFormatContext>? = nil
            let code = avformat_open_input(&context, path, nil, nil)
            guard code >= 0, let context else { throw Asset.openFailure(path: path, size: size, code: code) }
            self.path = path
            self.context = context
            let info = avformat_find_stream_info(context, nil)
            if info < 0 {
                let cause = "cannot read stream information: \(ffErrorString(info))"
                throw probeScore <= AVPROBE_SCORE_RETRY
                    ? MediaError(.notMedia, "not a media file FFmpeg recognises (\(cause))", code: info)
                    : MediaError(.corrupt, "damaged \(formatName) file: \(cause)", code: info)
            }
        }

        deinit {
            var context: UnsafeMutablePointer<AVFormatContext>? = context
            avformat_close_input(&context)
        }

        /// libavformat's demuxer name (`iformat->name`).
        var formatName: String { context.pointee.iformat.map { String(cString: $0.pointee.name) } ?? "unknown" }

        /// How sure libavformat was of the format, 0…100 (`AVPROBE_SCORE_MAX`); 25 or less is a guess.
        var probeScore: Int32 { context.pointee.probe_score }

        /// The streams, in index order. Demuxers of formats without a header (MPEG-TS) may add streams
        /// while packets are read, so this is read afresh each time.
        var streams: [UnsafeMutablePointer<AVStream>] {
            let count = Int(context.pointee.nb_streams)
            guard count > 0, let base = context.pointee.streams else { return [] }
            return (0..<count).compactMap { base[$0] }
        }
    }
}
