import CFFmpeg
import TesseraAV
import TesseraCore

/// A segment's packets read by its worker from the source itself (a task by reference, PROTOCOL.md §7):
/// the task lists each packet's timestamps and size; the reader seeks to the keyframe at or before the
/// first one's decode time, reads that stream on to the first packet, and takes the listed packets in
/// order, checking each against the list. The result is what the coordinator would have sent.
public enum SourcePacketReader {
    /// A packet as the task lists it.
    public struct Expected: Sendable, Equatable {
        public var pts: Int64
        public var dts: Int64
        public var size: Int

        public init(pts: Int64, dts: Int64, size: Int) {
            self.pts = pts
            self.dts = dts
            self.size = size
        }

        /// A packet as listed, read or not.
        public init(_ packet: EncodedPacket) { self.init(pts: packet.pts, dts: packet.dts, size: packet.size) }
    }

    /// The bytes of packets known from the index (`EncodedPacket.indexedSize`), read from `source`: as
    /// byte ranges (`ByteRangeReader`) when each has its place in the file (an MP4 or QuickTime source),
    /// else by demuxing `stream` and checking each packet against the list (`read`). Packets that hold
    /// their bytes already are given back as they are.
    /// - Parameters:
    ///   - httpHeaders: `source` is an http(s) URL, read with these request headers.
    ///   - sourceBytes: the file's size as the index knows it; another size means another file.
    /// - Throws: as `ByteRangeReader.read` or `read`, naming the source.
    public static func load(
        _ packets: [EncodedPacket], from source: String, httpHeaders: String? = nil, stream: Int,
        sourceBytes: Int64?
    ) throws(MediaError) -> [EncodedPacket] {
        guard !packets.allSatisfy(\.isLoaded) else { return packets }
        guard packets.allSatisfy({ $0.position != nil }) else {
            return try read(
                path: source, httpHeaders: httpHeaders, stream: stream, expected: packets.map(Expected.init))
        }
        let data = try ByteRangeReader.read(
            source, httpHeaders: httpHeaders,
            pieces: packets.map { .init(position: $0.position ?? 0, size: $0.size) }, sourceBytes: sourceBytes)
        return zip(packets, data).map { packet, bytes in
            var loaded = packet
            loaded.data = bytes
            loaded.indexedSize = nil
            return loaded
        }
    }

    /// Packets of the stream read past the seek point before the first listed one is given up on.
    static let searchLimit = 100_000

    /// - Parameter httpHeaders: `path` is an http(s) URL, read with these request headers (`InputFile(url:)`).
    /// - Throws: `MediaError` naming the file when it cannot be opened or read, has no such stream, or
    ///   its packets are not the ones listed (another file at that path, or one changed since).
    public static func read(
        path: String, httpHeaders: String? = nil, stream: Int, expected: [Expected]
    ) throws(MediaError) -> [EncodedPacket] {
        guard let first = expected.first else { return [] }
        let input: InputFile
        if let httpHeaders {
            input = try InputFile(url: path, headers: httpHeaders)
        } else {
            input = try InputFile(path: path)
        }
        guard stream >= 0, stream < input.streams.count else {
            throw MediaError(.notFound, path: path, "has no stream \(stream)")
        }
        input.seek(stream: stream, toKeyframeAtOrBefore: first.dts)
        var packets: [EncodedPacket] = []
        packets.reserveCapacity(expected.count)
        var skipped = 0
        let packet = try Packet()
        while packets.count < expected.count, try input.read(into: packet) {
            defer { av_packet_unref(packet.pointer) }
            guard packet.streamIndex == stream else { continue }
            if packets.isEmpty && (packet.dts != first.dts || packet.pts != first.pts) {
                // Between the keyframe the seek found and the segment's first packet.
                skipped += 1
                guard skipped < searchLimit, packet.dts == tessera_AV_NOPTS_VALUE() || packet.dts <= first.dts else {
                    throw MediaError(
                        .corrupt, path: path,
                        "has no packet at decode time \(first.dts) in stream \(stream): not the file the task names")
                }
                continue
            }
            try check(packet, expected[packets.count], packets.count, path)
            packets.append(EncodedPacket(packet))
        }
        guard packets.count == expected.count else {
            throw MediaError(
                .corrupt, path: path, "ends after \(packets.count) of the segment's \(expected.count) packets")
        }
        return packets
    }

    private static func check(_ packet: Packet, _ e: Expected, _ i: Int, _ path: String) throws(MediaError) {
        guard packet.pts == e.pts, packet.dts == e.dts, packet.size == e.size else {
            throw MediaError(
                .corrupt, path: path,
                "packet \(i) of the segment is pts \(packet.pts) dts \(packet.dts), \(packet.size) bytes, where the "
                    + "task lists pts \(e.pts) dts \(e.dts), \(e.size) bytes: the file differs from the coordinator's")
        }
    }
}
