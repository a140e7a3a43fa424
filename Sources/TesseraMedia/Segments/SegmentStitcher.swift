import CFFmpeg
import TesseraAV
import TesseraCore

/// Concatenates encoded segments at packet level into one track.
///
/// Segments arrive with timestamps already on the output timeline. The stitcher refuses a segment
/// whose codec parameters differ from the first (it could not be decoded with the others), and checks
/// across every boundary that DTS strictly increases and PTS ≥ DTS.
///
/// An encoder starts a segment's decode times one reorder delay before its first frame, counted in that
/// segment's frame durations. Where the frame rate changed at the boundary (variable-rate video) they can
/// fall at or before the previous segment's last: those lead packets then take the presentation times of
/// the frames just before the segment, as one encoder over both would have given them (decode time = the
/// presentation time a reorder delay earlier). Presentation times are never changed.
final class SegmentStitcher {
    private let reference: CodecConfiguration
    private let timeBase: AVRational
    private let path: String
    private var lastDTS = Int64.min
    /// The latest presentation times written, ascending (a reorder delay's worth and more).
    private var recentPTS: [Int64] = []
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
        var leadDTS: [Int64] = []
        if isVideo, let first = segment.packets.first, first.dts <= lastDTS {
            let lead = segment.packets.prefix { $0.dts < first.pts }.count
            if lead > 0 && lead <= recentPTS.count { leadDTS = Array(recentPTS.suffix(lead)) }
        }
        for (n, p) in segment.packets.enumerated() {
            let packet = try p.makePacket()
            if n < leadDTS.count { packet.pointer.pointee.dts = leadDTS[n] }
            try append(packet, segment: segment.index, number: n, to: input)
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
        recentPTS.insert(p.pts, at: recentPTS.firstIndex { $0 > p.pts } ?? recentPTS.count)
        if recentPTS.count > 32 { recentPTS.removeFirst(recentPTS.count - 32) }
        try input.append(packet)
    }
}
