import CFFmpeg

/// Owns one `AVPacket` (a compressed sample with its timestamps); freed with the object.
public final class Packet: @unchecked Sendable {
    public let pointer: UnsafeMutablePointer<AVPacket>

    public init() throws(MediaError) {
        guard let p = av_packet_alloc() else { throw MediaError(.internal, "out of memory allocating a packet") }
        pointer = p
    }

    deinit {
        var p: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&p)
    }

    public var pts: Int64 { pointer.pointee.pts }
    public var dts: Int64 { pointer.pointee.dts }
    public var streamIndex: Int { Int(pointer.pointee.stream_index) }
    public var isKeyframe: Bool { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }
    public var size: Int { Int(pointer.pointee.size) }
}
