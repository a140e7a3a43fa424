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
        ///   `Asset.openFailure`; `.corrupt` too when the container's index reaches past the end of the file.
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
            if let damage = samplesPastTheEnd(fileSize: size) {
                let longName = context.pointee.iformat.flatMap { $0.pointee.long_name }.map { String(cString: $0) }
                throw MediaError(.corrupt, "truncated \(longName ?? formatName) file: \(damage)")
            }
        }

        deinit {
            var context: UnsafeMutablePointer<AVFormatContext>? = context
            avformat_close_input(&context)
        }

        /// Where the container's own index (an MP4's sample tables, an AVI's idx1) places samples beyond the
        /// end of the file: the file was cut short, and reading would quietly stop early. Nil when every
        /// indexed sample lies inside the file, or the size is unknown (a pipe).
        func samplesPastTheEnd(fileSize: Int64) -> String? {
            guard fileSize > 0 else { return nil }
            for stream in streams {
                let count = Int(avformat_index_get_entries_count(stream))
                var missing = 0, end: Int64 = 0
                for i in 0..<count {
                    guard let entry = avformat_index_get_entry(stream, Int32(i)) else { continue }
                    let entryEnd = entry.pointee.pos + Int64(entry.pointee.size)
                    end = max(end, entryEnd)
                    if entryEnd > fileSize { missing += 1 }
                }
                if missing > 0 {
                    return "the index of track \(stream.pointee.index) lists \(count) samples reaching byte \(end), "
                        + "but the file ends at byte \(fileSize); \(missing) samples are missing"
                }
            }
            return nil
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
