import CFFmpeg
import Foundation
import TesseraAV

#if canImport(Glibc)
import Glibc
#endif

/// The byte source of an `InputFile` opened for its packets' timing alone (`InputFile(indexing:)`): a
/// file read with `pread`, which, once told where the samples lie, stops reading their bytes.
///
/// An MP4 or QuickTime file's `moov` lists every sample: its position, size, decode time, composition
/// offset and sync flag. libavformat's demuxer turns that table into packets, reading each sample's bytes
/// as it goes, and a scan for timing (the segment planner's index) then reads the whole film: 6.5 GB for a
/// two-hour 1080p film. Here, after the file is opened, a read that lies wholly inside the samples'
/// bytes is answered without touching the file (the buffer is left as it is), so the demuxer still gives
/// every packet with its timing, flags, position and size, from the table, and reads only the boxes.
/// A packet's data is then not the file's: such an input is for timing scans only.
///
/// The demuxer must not look into a sample's bytes on the way, so this is done only where libavformat's
/// MP4 demuxer does not: for the codecs in `indexableCodecs`, with every other stream discarded
/// (`InputFile.skipSampleBytes`). A read that reaches outside the samples (a fragment's `moof`, the
/// `moov` at the end) is a real one, so a fragmented file stays correct, only not faster.
final class SampleTableIO {
    private let fd: Int32
    private let size: Int64
    private var position: Int64 = 0
    /// The samples' bytes, sorted and merged; empty until `skip(samples:)`.
    private var samples: [Range<Int64>] = []
    /// Bytes read from the file.
    private(set) var bytesRead: Int64 = 0
    private(set) var context: UnsafeMutablePointer<AVIOContext>?

    /// The codecs whose samples libavformat's MP4 demuxer passes on without reading their bytes (it parses
    /// MP3, AC-3, E-AC-3, VC-1, VP8, VP9, AV1 and MPEG-1 samples, and EIA-608 tracks are read as boxes).
    static let indexableCodecs: Set<AVCodecID> = [
        AV_CODEC_ID_H264, AV_CODEC_ID_HEVC, AV_CODEC_ID_PRORES, AV_CODEC_ID_DNXHD, AV_CODEC_ID_MPEG4,
        AV_CODEC_ID_MJPEG, AV_CODEC_ID_RAWVIDEO, AV_CODEC_ID_V210, AV_CODEC_ID_AAC, AV_CODEC_ID_ALAC,
        AV_CODEC_ID_PCM_S16LE, AV_CODEC_ID_PCM_S16BE, AV_CODEC_ID_PCM_S24LE, AV_CODEC_ID_PCM_S24BE,
        AV_CODEC_ID_PCM_S32LE, AV_CODEC_ID_PCM_S32BE, AV_CODEC_ID_PCM_F32LE, AV_CODEC_ID_PCM_F32BE,
        AV_CODEC_ID_PCM_F64LE, AV_CODEC_ID_PCM_F64BE, AV_CODEC_ID_PCM_U8, AV_CODEC_ID_PCM_S8,
    ]

    /// - Throws: `.notFound` when the file cannot be opened; `.internal` when libavformat cannot allocate.
    static func open(path: String, size: Int64) throws(MediaError) -> SampleTableIO {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw MediaError(.notFound, path: path, "cannot be opened: \(String(cString: strerror(errno)))")
        }
        let io = SampleTableIO(fd: fd, size: size)
        guard io.context != nil else { throw MediaError(.internal, path: path, "out of memory opening the file") }
        return io
    }

    private init(fd: Int32, size: Int64) {
        self.fd = fd
        self.size = size
        let bufferSize: Int32 = 256 << 10
        if let buffer = av_malloc(Int(bufferSize))?.assumingMemoryBound(to: UInt8.self) {
            context = avio_alloc_context(
                buffer, bufferSize, 0, Unmanaged.passUnretained(self).toOpaque(), sampleTableRead, nil,
                sampleTableSeek)
            if context == nil { av_free(buffer) }
        }
    }

    deinit {
        if let io = context {
            av_freep(&context!.pointee.buffer)
            var freeing: UnsafeMutablePointer<AVIOContext>? = io
            avio_context_free(&freeing)
        }
        close(fd)
    }

    /// From now on, reads inside `samples` (byte ranges, any order) are answered without reading.
    func skip(samples ranges: [Range<Int64>]) {
        var merged: [Range<Int64>] = []
        for r in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) where !r.isEmpty {
            if let last = merged.last, r.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, r.upperBound)
            } else {
                merged.append(r)
            }
        }
        samples = merged
    }

    /// How many bytes from `offset` on lie inside the run of samples that holds it (0 outside the samples).
    private func sampleBytes(from offset: Int64) -> Int64 {
        var low = 0, high = samples.count
        while low < high {  // the first run starting after offset
            let mid = (low + high) / 2
            if samples[mid].lowerBound <= offset { low = mid + 1 } else { high = mid }
        }
        return low > 0 ? max(0, samples[low - 1].upperBound - offset) : 0
    }

    /// A read inside the samples answers up to their end without reading (a short read, which libavformat
    /// takes as such); any other reads the file.
    fileprivate func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int32) -> Int32 {
        guard count > 0 else { return 0 }
        guard position < size else { return tessera_AVERROR_EOF() }
        let n = min(Int64(count), size - position)
        let skippable = min(n, sampleBytes(from: position))
        if skippable > 0 {
            position += skippable
            return Int32(skippable)
        }
        let got = pread(fd, buffer, Int(n), off_t(position))
        guard got >= 0 else { return tessera_AVERROR(errno) }
        guard got > 0 else { return tessera_AVERROR_EOF() }
        position += Int64(got)
        bytesRead += Int64(got)
        return Int32(got)
    }

    /// A seek to a position the file cannot have (before its start, past Int64) is refused, the position
    /// kept.
    fileprivate func seek(_ offset: Int64, whence: Int32) -> Int64 {
        let base: Int64
        switch whence & ~AVSEEK_FORCE {
        case AVSEEK_SIZE: return size
        case SEEK_SET: base = 0
        case SEEK_CUR: base = position
        case SEEK_END: base = size
        default: return Int64(tessera_AVERROR(EINVAL))
        }
        let (target, overflow) = base.addingReportingOverflow(offset)
        guard !overflow, target >= 0 else { return Int64(tessera_AVERROR(EINVAL)) }
        position = target
        return position
    }
}

private func sampleTableRead(
    _ opaque: UnsafeMutableRawPointer?, _ buffer: UnsafeMutablePointer<UInt8>?, _ count: Int32
)
    -> Int32
{
    guard let opaque, let buffer else { return tessera_AVERROR(EINVAL) }
    return Unmanaged<SampleTableIO>.fromOpaque(opaque).takeUnretainedValue().read(into: buffer, count: count)
}

private func sampleTableSeek(_ opaque: UnsafeMutableRawPointer?, _ offset: Int64, _ whence: Int32) -> Int64 {
    guard let opaque else { return Int64(tessera_AVERROR(EINVAL)) }
    return Unmanaged<SampleTableIO>.fromOpaque(opaque).takeUnretainedValue().seek(offset, whence: whence)
}
