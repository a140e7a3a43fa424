import CFFmpeg
import TesseraAV
import TesseraCore

/// Concatenates encoded segments at packet level into one track.
///
/// Segments arrive with timestamps already on the output timeline. The stitcher refuses a segment
/// whose codec parameters differ from the first (it could not be decoded with the others), and checks
/// across every boundary that DTS strictly increases and PTS ≥ DTS.
final class SegmentStitcher {
    private let reference: CodecConfiguration
    private let timeBase: AVRational
    private let path: String
    private var lastDTS = Int64.min
    private var end: Int64 = 0
    /// Audio segments may start with any packet; video segments must start with a keyframe.
    private let isVideo: Bool

    init(reference: CodecConfiguration, timeBase: AVRational, path: String) {
        self.reference = reference
        isVideo = reference.width > 0
        self.timeBase = timeBase
        self.path = path
    }

    /// Seconds of output written so far (end of the latest frame).
    var endSeconds: Double { Double(end) * Double(timeBase.num) / Double(timeBase.den) }

    /// - Throws: `.invalidArgument` naming the segment when its parameters differ or its timestamps
    ///   would break decode order at the boundary; the writer's errors otherwise.
    func append(_ segment: SegmentOutput, to input: AssetWriterInput) throws(MediaError) {
        try check(segment.parameters, segment: segment.index)
        for (n, p) in segment.packets.enumerated() {
            try append(try p.makePacket(), segment: segment.index, number: n, to: input)
        }
    }

    /// Refuses a segment whose stream could not be decoded with the first one's parameters.
    func check(_ parameters: CodecConfiguration, segment: Int) throws(MediaError) {
        if let why = parameters.mismatch(with: reference) {
            throw MediaError(.invalidArgument, path: path, "segment \(segment) cannot be stitched: \(why)")
        }
    }

    /// Writes one packet already on the output timeline, checking decode order across boundaries.
    func append(_ packet: Packet, segment: Int, number: Int, to input: AssetWriterInput) throws(MediaError) {
        let p = packet.pointer.pointee
        if number == 0 && p.flags & AV_PKT_FLAG_KEY == 0 && isVideo {
            throw MediaError(.invalidArgument, path: path, "segment \(segment) does not start with a keyframe")
        }
        guard p.dts > lastDTS, p.pts >= p.dts else {
            throw MediaError(
                .invalidArgument, path: path,
                "segment \(segment) packet \(number): DTS \(p.dts) after \(lastDTS), PTS \(p.pts)"
                    + " — timestamps out of order at the boundary")
        }
        let (packetEnd, overflow) = p.pts.addingReportingOverflow(max(0, p.duration))
        guard !overflow else {
            throw MediaError(
                .invalidArgument, path: path,
                "segment \(segment) packet \(number): PTS \(p.pts) + "
                    + "duration \(p.duration) is past the end of time")
        }
        lastDTS = p.dts
        end = max(end, packetEnd)
        try input.append(packet)
    }
}
