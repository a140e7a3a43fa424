import CFFmpeg
import TesseraAV

/// A packet's timing as demuxed, in its stream's time base (`AV_NOPTS_VALUE` where the container has
/// none): what the segment planner's index and the verifier keep of each video packet.
struct PacketTiming: Sendable, Hashable {
    var pts: Int64
    var dts: Int64
    /// As demuxed (MP4: from the sample table through the parser); 0 where the file says nothing.
    var duration: Int64
    var isKeyframe: Bool

    init(pts: Int64, dts: Int64, duration: Int64 = 0, isKeyframe: Bool) {
        self.pts = pts
        self.dts = dts
        self.duration = duration
        self.isKeyframe = isKeyframe
    }

    init(_ packet: Packet) {
        self.init(
            pts: packet.pts, dts: packet.dts, duration: packet.pointer.pointee.duration, isKeyframe: packet.isKeyframe)
    }
}
