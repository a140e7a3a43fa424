import CFFmpeg
import TesseraAV

/// A segment's packets read from its source as byte ranges, without demuxing: for a task by reference
/// whose packets carry their positions (an MP4 or QuickTime source, `EncodedPacket.position`). Packets
/// close together are read in one range, so a segment costs a request or two and about its own bytes,
/// where demuxing over HTTP would read the file's index and ask for open-ended ranges.
public enum ByteRangeReader {
    public struct Piece: Sendable, Equatable {
        public var position: Int64
        public var size: Int

        public init(position: Int64, size: Int) {
            self.position = position
            self.size = size
        }
    }

    /// Pieces closer than this are read in one range (the bytes between are read and dropped).
    static let joinGap: Int64 = 256 << 10
    /// The most one segment may read.
    static let maxBytes: Int64 = 1 << 31

    /// Each piece's bytes, in the order given.
    /// - Parameters:
    ///   - source: an http(s) URL (read with `httpHeaders`, as `InputFile(url:)` does) or a local path.
    ///   - sourceBytes: the file's size as the coordinator knows it; another size means another file.
    /// - Throws: `MediaError` naming the source: `.notFound` or `.io` when it cannot be opened, `.corrupt`
    ///   when it is not `sourceBytes` long or ends before a piece, `.invalidArgument` for a piece outside it.
    public static func read(
        _ source: String, httpHeaders: String?, pieces: [Piece], sourceBytes: Int64?
    ) throws(MediaError) -> [[UInt8]] {
        var total: Int64 = 0
        for piece in pieces {
            let (end, overflow) = piece.position.addingReportingOverflow(Int64(piece.size))
            guard piece.position >= 0, piece.size >= 0, !overflow, sourceBytes.map({ end <= $0 }) ?? true else {
                throw MediaError(
                    .invalidArgument, path: source, "a packet at byte \(piece.position) lies outside the file")
            }
            total += Int64(piece.size)
            guard total <= maxBytes else { throw MediaError(.invalidArgument, path: source, "a segment of over 2 GiB") }
        }
        // Runs of pieces in file order.
        let order = pieces.indices.sorted { pieces[$0].position < pieces[$1].position }
        var runs: [(start: Int64, end: Int64, members: [Int])] = []
        for i in order {
            let p = pieces[i]
            let end = p.position + Int64(p.size)
            if let last = runs.last, p.position <= last.end + joinGap {
                runs[runs.count - 1].end = max(last.end, end)
                runs[runs.count - 1].members.append(i)
            } else {
                runs.append((p.position, end, [i]))
            }
        }
        // The gaps joined in count too: what is read stays within the bound.
        guard runs.reduce(0, { $0 + ($1.end - $1.start) }) <= maxBytes else {
            throw MediaError(.invalidArgument, path: source, "a segment's byte ranges add up to over 2 GiB")
        }
        var out = [[UInt8]](repeating: [], count: pieces.count)
        for run in runs {
            let bytes = try readRange(source, httpHeaders: httpHeaders, run.start..<run.end, sourceBytes: sourceBytes)
            for i in run.members {
                let from = Int(pieces[i].position - run.start)
                out[i] = Array(bytes[from..<(from + pieces[i].size)])
            }
        }
        return out
    }

    private static func readRange(
        _ source: String, httpHeaders: String?, _ range: Range<Int64>, sourceBytes: Int64?
    ) throws(MediaError) -> [UInt8] {
        var options: OpaquePointer? = nil
        defer { av_dict_free(&options) }
        if let httpHeaders {
            av_dict_set(&options, "headers", httpHeaders, 0)
            av_dict_set(&options, "protocol_whitelist", "http,https,tcp,tls", 0)
            // A closed range: the server sends these bytes and no more.
            av_dict_set(&options, "offset", "\(range.lowerBound)", 0)
            av_dict_set(&options, "end_offset", "\(range.upperBound)", 0)
        } else {
            av_dict_set(&options, "protocol_whitelist", "file", 0)
        }
        var io: UnsafeMutablePointer<AVIOContext>? = nil
        let opened = avio_open2(&io, source, AVIO_FLAG_READ, nil, &options)
        guard opened >= 0, let io else {
            throw MediaError(.notFound, path: source, "cannot be read: \(ffErrorString(opened))", code: opened)
        }
        defer {
            var closing: UnsafeMutablePointer<AVIOContext>? = io
            avio_closep(&closing)
        }
        if let sourceBytes {
            let size = avio_size(io)
            guard size == sourceBytes else {
                throw MediaError(
                    .corrupt, path: source,
                    "is \(size) bytes where the coordinator's is \(sourceBytes): not the file the task names")
            }
        }
        if httpHeaders == nil {
            let at = avio_seek(io, range.lowerBound, SEEK_SET)
            guard at == range.lowerBound else {
                throw MediaError(.corrupt, path: source, "cannot seek to byte \(range.lowerBound)")
            }
        }
        let count = Int(range.upperBound - range.lowerBound)
        var bytes = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = bytes.withUnsafeMutableBufferPointer { buffer in
                avio_read(io, buffer.baseAddress! + got, Int32(clamping: count - got))
            }
            guard n > 0 else {
                throw MediaError(
                    .corrupt, path: source,
                    "ends at byte \(range.lowerBound + Int64(got)), before the segment's packets do "
                        + "(\(n < 0 ? ffErrorString(n) : "end of file"))")
            }
            got += Int(n)
        }
        return bytes
    }
}
