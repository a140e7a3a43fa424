import CFFmpeg
import Foundation
import TesseraAV
import TesseraCore

/// Joins segment files into one at packet level (`tessera stitch`): each file's timestamps start at
/// zero and are offset to where the previous file's video ended; every stream must carry the same
/// codec parameters in every file. Packets stream through; nothing is decoded.
public enum SegmentFileStitcher {
    public struct Report: Sendable, Codable {
        public var output: String
        public var segments: Int
        public var packets: Int
        public var bytes: Int
        @SecondsAndExact public var duration: MediaTime
        public var wallSeconds: Double
    }

    /// - Throws: the `InputFile` errors for an unreadable segment; `.invalidArgument` when segments
    ///   differ in streams or codec parameters, or their timestamps would go backwards; the
    ///   `AssetWriter` errors for the output. Nothing is left at `output` on failure.
    public static func stitch(
        _ paths: [String], to output: String, overwrite: Bool = false
    ) throws(MediaError) -> Report {
        let started = Date()
        guard let firstPath = paths.first else { throw MediaError(.invalidArgument, "no segments to stitch") }
        guard let fileType = FileType.inferred(fromPath: output) else {
            throw MediaError(.invalidArgument, path: output, "cannot tell the container from the extension")
        }
        let first = try InputFile(path: firstPath)
        let writer = try AssetWriter(outputPath: output, fileType: fileType, overwrite: overwrite)
        let kinds = [AVMEDIA_TYPE_VIDEO, AVMEDIA_TYPE_AUDIO]
        let chosen = first.streams.filter { kinds.contains($0.pointee.codecpar.pointee.codec_type) }
        var inputs: [AssetWriterInput] = []
        var stitchers: [SegmentStitcher] = []
        for stream in chosen {
            inputs.append(
                try writer.addPassthroughInput(
                    parameters: stream.pointee.codecpar,
                    timeBase: stream.pointee.time_base,
                    frameRate: stream.pointee.avg_frame_rate, sideDataFrom: stream))
            stitchers.append(
                SegmentStitcher(
                    reference: try CodecParameters(copying: stream.pointee.codecpar).configuration,
                    timeBase: stream.pointee.time_base, path: output))
        }
        let timeBases = chosen.map { $0.pointee.time_base }
        try writer.startWriting()
        // Where the next file starts, as exact time in the first stream's (the video's) time base.
        var offset: Int64 = 0
        var packets = 0
        for (number, path) in paths.enumerated() {
            let file = number == 0 ? first : try InputFile(path: path)
            let streams = file.streams.filter { kinds.contains($0.pointee.codecpar.pointee.codec_type) }
            guard streams.count == chosen.count else {
                throw MediaError(
                    .invalidArgument, path: path,
                    "has \(streams.count) audio/video streams, "
                        + "the first segment has \(chosen.count)")
            }
            var slot: [Int32: Int] = [:]
            for (i, stream) in streams.enumerated() {
                try stitchers[i].check(
                    try CodecParameters(copying: stream.pointee.codecpar).configuration, segment: number)
                slot[stream.pointee.index] = i
            }
            var counts = Array(repeating: 0, count: streams.count)
            var fileEnd: Int64 = 0
            var lastStep: Int64 = 0, lastPTS = Int64.min
            let packet = try Packet()
            while try file.read(into: packet) {
                defer { av_packet_unref(packet.pointer) }
                guard let i = slot[packet.pointer.pointee.stream_index] else { continue }
                let p = packet.pointer
                let tb = streams[i].pointee.time_base
                let shift = av_rescale_q(offset, timeBases[0], tb)
                av_packet_rescale_ts(p, tb, timeBases[i])
                p.pointee.pts += av_rescale_q(shift, tb, timeBases[i])
                p.pointee.dts += av_rescale_q(shift, tb, timeBases[i])
                if i == 0 {
                    let pts = p.pointee.pts - offset
                    if lastPTS != Int64.min, pts > lastPTS { lastStep = pts - lastPTS }
                    lastPTS = max(lastPTS, pts)
                    fileEnd = max(fileEnd, pts + (p.pointee.duration > 0 ? p.pointee.duration : lastStep))
                }
                try stitchers[i].append(packet, segment: number, number: counts[i], to: inputs[i])
                counts[i] += 1
                packets += 1
            }
            offset += fileEnd
        }
        try writer.finishWriting()
        let bytes = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
        return Report(
            output: output, segments: paths.count, packets: packets, bytes: bytes ?? 0,
            duration: TickMath.time(offset, timeBases[0]),
            wallSeconds: Date().timeIntervalSince(started))
    }
}
