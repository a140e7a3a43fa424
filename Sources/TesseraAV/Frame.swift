import CFFmpeg

/// Owns one `AVFrame` (decoded video picture or audio samples); freed with the object.
///
/// Frames move between pipeline stages on different threads but are never touched by two at once,
/// hence `@unchecked Sendable`.
public final class Frame: @unchecked Sendable {
    public let pointer: UnsafeMutablePointer<AVFrame>

    public init() throws(MediaError) {
        guard let p = av_frame_alloc() else { throw MediaError(.internal, "out of memory allocating a frame") }
        pointer = p
    }

    /// A video frame with freshly allocated (pooled by libavutil) planes.
    public convenience init(width: Int, height: Int, format: AVPixelFormat) throws(MediaError) {
        try self.init()
        pointer.pointee.width = Int32(width)
        pointer.pointee.height = Int32(height)
        pointer.pointee.format = format.rawValue
        try ff(av_frame_get_buffer(pointer, 0), "allocate a \(width)x\(height) frame")
    }

    /// An audio frame of `samples` samples with freshly allocated planes, silent when `silent`.
    public static func audio(
        samples: Int32, format: AVSampleFormat, sampleRate: Int32, layout: inout AVChannelLayout, silent: Bool = false
    ) throws(MediaError) -> Frame {
        let frame = try Frame()
        let f = frame.pointer
        f.pointee.format = format.rawValue
        f.pointee.sample_rate = sampleRate
        try ff(av_channel_layout_copy(&f.pointee.ch_layout, &layout), "copy channel layout")
        f.pointee.nb_samples = samples
        try ff(av_frame_get_buffer(f, 0), "allocate audio samples")
        if silent {
            try ff(
                av_samples_set_silence(f.pointee.extended_data, 0, samples, layout.nb_channels, format), "write silence"
            )
        }
        return frame
    }

    private init(owning pointer: UnsafeMutablePointer<AVFrame>) {
        self.pointer = pointer
    }

    /// A new frame sharing this one's pictures (reference-counted, nothing copied) with its own
    /// properties, so its timestamps can differ: a picture shown more than once in a retimed export.
    public func clone() throws(MediaError) -> Frame {
        guard let p = av_frame_clone(pointer) else { throw MediaError(.internal, "out of memory cloning a frame") }
        return Frame(owning: p)
    }

    /// Gives this frame pictures of its own to draw on, copying them when they are shared with another
    /// frame (`clone()`); nothing is copied when they are not.
    public func makeWritable() throws(MediaError) {
        let status = av_frame_make_writable(pointer)
        guard status >= 0 else { throw MediaError(.internal, "out of memory copying a frame (\(status))") }
    }

    deinit {
        var p: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&p)
    }

    public var width: Int { Int(pointer.pointee.width) }
    public var height: Int { Int(pointer.pointee.height) }
    public var pixelFormat: AVPixelFormat { AVPixelFormat(rawValue: pointer.pointee.format) }
    /// Presentation time in the time base of whoever produced the frame.
    public var pts: Int64 {
        get { pointer.pointee.pts }
        set { pointer.pointee.pts = newValue }
    }
    public var sampleCount: Int { Int(pointer.pointee.nb_samples) }
}
