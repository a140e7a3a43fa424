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
    /// Set for a packet read from its container's index alone: the size of its data, which was not
    /// read (`data` is empty). Such a packet gets its bytes from `SourcePacketReader.load` before it is
    /// decoded or sent with its data.
    public var indexedSize: Int?

    /// Bytes of the packet's data, read or not.
    public var size: Int { indexedSize ?? data.count }

    /// Whether `data` holds the packet's bytes.
    public var isLoaded: Bool { indexedSize == nil }

    /// A packet known from its container's index: its timestamps, flags, place and size, not its data.
    public static func indexed(
        pts: Int64, dts: Int64, duration: Int64, isKeyframe: Bool, position: Int64?, size: Int
    ) -> EncodedPacket {
        var packet = EncodedPacket(data: [], pts: pts, dts: dts, duration: duration, isKeyframe: isKeyframe)
        packet.position = position
        packet.indexedSize = max(0, size)
        return packet
    }

    public init(data: [UInt8], pts: Int64, dts: Int64, duration: Int64, isKeyframe: Bool, position: Int64? = nil) {
        self.data = data
        self.pts = pts
        self.dts = dts
        self.duration = duration
        self.isKeyframe = isKeyframe
        self.position = position
    }
}
