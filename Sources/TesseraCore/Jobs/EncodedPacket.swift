/// A compressed packet as plain data with its timestamps (in its stream's time base).
public struct EncodedPacket: Sendable, Hashable {
    public var data: [UInt8]
    public var pts: Int64
    public var dts: Int64
    public var duration: Int64
    public var isKeyframe: Bool
    /// Where `data` lies in its source file, byte for byte, when the container stores it so (MP4 and
    /// QuickTime): a worker can then read it as a byte range, without demuxing.
    public var position: Int64?

    public init(data: [UInt8], pts: Int64, dts: Int64, duration: Int64, isKeyframe: Bool, position: Int64? = nil) {
        self.data = data
        self.pts = pts
        self.dts = dts
        self.duration = duration
        self.isKeyframe = isKeyframe
        self.position = position
    }
}
