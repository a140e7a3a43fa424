import CFFmpeg
import Foundation
import TesseraAV

/// Why a file cannot be opened, in words a user can act on. libavformat answers "Invalid data found
/// when processing input" both for random bytes and for an MP4 cut short, so the cause is worked out here.
extension Asset {
    /// Checks that `path` is a readable, non-empty regular file (or a device/FIFO), returning its size.
    ///
    /// - Throws: `.notFound` when it does not exist, is a directory or cannot be read; `.emptyFile`
    ///   for zero bytes.
    static func checkFile(_ path: String) throws(MediaError) -> Int64 {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw MediaError(.notFound, "no such file")
        }
        if isDirectory.boolValue { throw MediaError(.notFound, "is a directory, not a media file") }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw MediaError(.notFound, "cannot be read: permission denied")
        }
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        let size = (attributes?[.size] as? NSNumber)?.int64Value ?? -1
        if size == 0, attributes?[.type] as? FileAttributeType == .typeRegular {
            throw MediaError(.emptyFile, "the file is empty (0 bytes)")
        }
        return size
    }

    /// The error for a failed `avformat_open_input`.
    ///
    /// A file whose first megabyte no demuxer claims with more than a guess (score ≤ 25) is `.notMedia`;
    /// a recognised one that still fails is `.corrupt`, with the damage described where the format is
    /// known well enough (ISO BMFF/QuickTime box structure).
    static func openFailure(path: String, size: Int64, code: Int32) -> MediaError {
        if code == tessera_AVERROR(ENOENT) { return MediaError(.notFound, "no such file", code: code) }
        if code == tessera_AVERROR(EACCES) { return MediaError(.notFound, "cannot be read: permission denied") }
        // This process's (or the system's) descriptors ran out: the file is not to blame, and sniffing it
        // would fail the same way and call it "not a media file".
        if code == tessera_AVERROR(EMFILE) || code == tessera_AVERROR(ENFILE) {
            return MediaError(
                .io, "cannot be opened now: too many open files in this process (\(ffErrorString(code)))",
                code: code)
        }
        guard let (format, score) = sniff(path), score > AVPROBE_SCORE_RETRY else {
            return MediaError(.notMedia, "not a media file FFmpeg recognises", code: code)
        }
        let name = String(cString: format.pointee.name)
        let longName = format.pointee.long_name.map { String(cString: $0) } ?? name
        if name.hasPrefix("mov,"), let damage = isoBoxDamage(path, size: size) {
            return MediaError(.corrupt, "truncated or damaged \(longName) file: \(damage)", code: code)
        }
        let kind: MediaError.Kind = code == tessera_AVERROR_INVALIDDATA() ? .corrupt : .ffmpeg
        return MediaError(
            kind, "damaged \(longName) file: libavformat cannot read it (\(ffErrorString(code)))",
            code: code)
    }

    /// The demuxer libavformat would pick for the first megabyte of the file, with its score (0…100).
    static func sniff(_ path: String) -> (UnsafePointer<AVInputFormat>, Int32)? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 1 << 20), !head.isEmpty else { return nil }
        // libavformat's probes may read past the end by up to AVPROBE_PADDING_SIZE zero bytes.
        var buffer = [UInt8](head)
        buffer.append(contentsOf: repeatElement(0, count: Int(AVPROBE_PADDING_SIZE)))
        var score: Int32 = 0
        let format = buffer.withUnsafeMutableBufferPointer { bytes in
            path.withCString { name in
                var probe = AVProbeData(
                    filename: name, buf: bytes.baseAddress, buf_size: Int32(head.count),
                    mime_type: nil)
                return av_probe_input_format3(&probe, 1, &score)
            }
        }
        return format.map { ($0, score) }
    }

    /// Walks the top-level boxes of an ISO BMFF / QuickTime file and says what is wrong with them:
    /// a box running past the end of the file, or no `moov` (the index every MP4 needs). Nil when the
    /// structure looks whole, so the damage is somewhere this walk does not look.
    static func isoBoxDamage(_ path: String, size: Int64) -> String? {
        guard size > 0, let walk = TopLevelBoxes(path: path, size: size) else { return nil }
        let seen = walk.boxes.map(\.type) + (walk.overrun.map { [$0.type] } ?? [])
        if let damage = walk.damage {
            return damage + (walk.overrun != nil && !seen.contains("moov") ? ", and no 'moov' index box was found" : "")
        }
        return seen.contains("moov")
            ? nil
            : "no 'moov' index box among the top-level boxes (\(seen.joined(separator: ", "))); the file was "
                + "cut short or never finished"
    }
}
