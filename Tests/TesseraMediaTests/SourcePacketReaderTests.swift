import CFFmpeg
import Foundation
import TesseraAV
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraMedia

/// A worker reading a task's packets from the source itself (a task by reference): it must get exactly
/// the packets the coordinator would have sent, or say why not.
@Suite struct SourcePacketReaderTests {
    /// Every video packet of `path`, in decode order, as the coordinator's producer reads them.
    static func allPackets(_ path: String, verbatim: Bool = false) throws -> (stream: Int, packets: [EncodedPacket]) {
        let input = try InputFile(path: path)
        let stream = try #require(
            input.streams.firstIndex { $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO })
        var packets: [EncodedPacket] = []
        let packet = try Packet()
        while try input.read(into: packet) {
            defer { av_packet_unref(packet.pointer) }
            if packet.streamIndex == stream { packets.append(EncodedPacket(packet, verbatim: verbatim)) }
        }
        return (stream, packets)
    }

    static func expected(_ packets: ArraySlice<EncodedPacket>) -> [SourcePacketReader.Expected] {
        packets.map(SourcePacketReader.Expected.init)
    }

    @Test("MP4 and QuickTime packets read as byte ranges are the demuxed packets; a file of another size is refused")
    func byteRanges() throws {
        let dir = try TestMedia.makeDirectory("byte-ranges")
        defer { TestMedia.cleanup(dir) }
        for name in ["src.mp4", "src.mov", "src.mkv"] {
            let src = dir.appendingPathComponent(name)
            try TestMedia.make(
                src, seconds: 3,
                video: ["-c:v", "libx264", "-preset", "veryfast", "-bf", "3", "-g", "30", "-pix_fmt", "yuv420p"])
            let input = try InputFile(path: src.path)
            // Matroska frames its blocks: no positions there, and the worker demuxes instead.
            #expect(input.storesPacketsVerbatim == (name != "src.mkv"), "\(name)")
            guard input.storesPacketsVerbatim else { continue }
            let packets = try Self.allPackets(src.path, verbatim: true).packets
            let size = try #require(
                (try FileManager.default.attributesOfItem(atPath: src.path)[.size] as? NSNumber)?.int64Value)
            let slice = packets[20..<50]
            let pieces = slice.map { ByteRangeReader.Piece(position: $0.position!, size: $0.data.count) }
            let read = try ByteRangeReader.read(src.path, httpHeaders: nil, pieces: pieces, sourceBytes: size)
            #expect(read == slice.map(\.data), "\(name)")
            #expect(throws: MediaError.self) {
                try ByteRangeReader.read(src.path, httpHeaders: nil, pieces: pieces, sourceBytes: size + 1)
            }
            #expect(throws: MediaError.self) {
                try ByteRangeReader.read(
                    src.path, httpHeaders: nil, pieces: [.init(position: size - 2, size: 10)], sourceBytes: size)
            }
        }
    }

    @Test("from a keyframe in the middle, with B-frames and audio between: the same packets, byte for byte")
    func samePackets() throws {
        let dir = try TestMedia.makeDirectory("source-read")
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("src.mp4")
        try TestMedia.make(
            src, seconds: 4,
            video: ["-c:v", "libx264", "-preset", "veryfast", "-bf", "3", "-g", "30", "-pix_fmt", "yuv420p"])
        let (stream, all) = try Self.allPackets(src.path)
        let keyframes = all.indices.filter { all[$0].isKeyframe }
        #expect(keyframes.count >= 3)
        // The second GOP and a few packets past the next keyframe, as a segment's decode range runs.
        let range = keyframes[1]..<min(all.count, keyframes[2] + 3)
        let read = try SourcePacketReader.read(path: src.path, stream: stream, expected: Self.expected(all[range]))
        #expect(read == Array(all[range]))
        // From the very first packet too.
        let head = try SourcePacketReader.read(path: src.path, stream: stream, expected: Self.expected(all[0..<10]))
        #expect(head == Array(all[0..<10]))
    }

    @Test("another file at the path, a missing file or stream: refused with the reason")
    func refusals() throws {
        let dir = try TestMedia.makeDirectory("source-read-bad")
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("src.mp4")
        try TestMedia.make(src, seconds: 2, video: ["-c:v", "libx264", "-preset", "ultrafast", "-g", "15"])
        let (stream, all) = try Self.allPackets(src.path)
        var wrong = Self.expected(all[15..<20])
        wrong[2].size += 1
        #expect {
            try SourcePacketReader.read(path: src.path, stream: stream, expected: wrong)
        } throws: { error in
            (error as? MediaError)?.kind == .corrupt && "\(error)".contains("differs from the coordinator's")
        }
        var elsewhere = Self.expected(all[15..<20])
        elsewhere[0].dts += 7
        elsewhere[0].pts += 7
        #expect(throws: MediaError.self) {
            try SourcePacketReader.read(path: src.path, stream: stream, expected: elsewhere)
        }
        #expect {
            try SourcePacketReader.read(
                path: dir.appendingPathComponent("gone.mp4").path, stream: stream, expected: Self.expected(all[0..<2]))
        } throws: { ($0 as? MediaError)?.kind == .notFound }
        #expect(throws: MediaError.self) {
            try SourcePacketReader.read(path: src.path, stream: 9, expected: Self.expected(all[0..<2]))
        }
        #expect(try SourcePacketReader.read(path: "/nonexistent", stream: 0, expected: []).isEmpty)
    }
}
