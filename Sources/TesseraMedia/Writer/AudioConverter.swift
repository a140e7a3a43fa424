import CFFmpeg
import TesseraAV

/// Turns decoded PCM of any format, rate and layout into the frames an audio encoder wants:
/// libswresample converts, and a FIFO cuts the stream into exactly `frameSize` samples per frame.
final class AudioConverter: @unchecked Sendable {
    private var resampler: OpaquePointer?
    private let fifo: OpaquePointer
    private let target: UnsafeMutablePointer<AVCodecContext>
    private let frameSize: Int
    /// Samples handed out so far: the `pts` of the next frame, in 1/sample-rate.
    private var produced: Int64 = 0

    init(encoder: Encoder) throws(MediaError) {
        target = encoder.context
        frameSize = encoder.frameSize == 0 ? 1024 : encoder.frameSize
        guard let f = av_audio_fifo_alloc(target.pointee.sample_fmt, target.pointee.ch_layout.nb_channels, 4096) else {
            throw MediaError(.internal, "out of memory allocating an audio FIFO")
        }
        fifo = f
    }

    deinit {
        swr_free(&resampler)
        av_audio_fifo_free(fifo)
    }

    /// Converts a decoded frame and hands out every full encoder frame now available.
    func push(_ frame: Frame, _ body: (Frame) throws(MediaError) -> Void) throws(MediaError) {
        if resampler == nil { try configure(from: frame) }
        let inSamples = Int32(frame.sampleCount)
        let capacity = swr_get_out_samples(resampler, inSamples)
        try convert(input: frame.pointer.pointee.extended_data, count: inSamples, capacity: capacity)
        try drain(minimum: frameSize, body)
    }

    /// Flushes the resampler and hands out the last, possibly short, frame.
    func finish(_ body: (Frame) throws(MediaError) -> Void) throws(MediaError) {
        if resampler != nil {
            let capacity = swr_get_out_samples(resampler, 0)
            if capacity > 0 { try convert(input: nil, count: 0, capacity: capacity) }
        }
        try drain(minimum: 1, body)
    }

    private func convert(
        input: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?, count: Int32,
        capacity: Int32
    ) throws(MediaError) {
        guard capacity > 0 else { return }
        let scratch = try Frame()
        scratch.pointer.pointee.format = target.pointee.sample_fmt.rawValue
        scratch.pointer.pointee.sample_rate = target.pointee.sample_rate
        try ff(av_channel_layout_copy(&scratch.pointer.pointee.ch_layout, &target.pointee.ch_layout), "copy layout")
        scratch.pointer.pointee.nb_samples = capacity
        try ff(av_frame_get_buffer(scratch.pointer, 0), "allocate resampler output")
        let made = try ff(
            swr_convert(
                resampler, scratch.pointer.pointee.extended_data, capacity,
                UnsafeMutablePointer(
                    mutating: input?.withMemoryRebound(
                        to: UnsafePointer<UInt8>?.self, capacity: 1
                    ) { $0 }), count),
            "resample audio")
        guard made > 0 else { return }
        let written = scratch.pointer.pointee.extended_data.withMemoryRebound(
            to: UnsafeMutableRawPointer?.self, capacity: 1
        ) { av_audio_fifo_write(fifo, $0, made) }
        try ff(written, "buffer audio")
    }

    private func drain(minimum: Int, _ body: (Frame) throws(MediaError) -> Void) throws(MediaError) {
        while Int(av_audio_fifo_size(fifo)) >= minimum {
            let count = min(Int(av_audio_fifo_size(fifo)), frameSize)
            let frame = try Frame()
            let f = frame.pointer
            f.pointee.format = target.pointee.sample_fmt.rawValue
            f.pointee.sample_rate = target.pointee.sample_rate
            try ff(av_channel_layout_copy(&f.pointee.ch_layout, &target.pointee.ch_layout), "copy layout")
            f.pointee.nb_samples = Int32(count)
            try ff(av_frame_get_buffer(f, 0), "allocate audio frame")
            let read = f.pointee.extended_data.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: 1) {
                av_audio_fifo_read(fifo, $0, Int32(count))
            }
            try ff(read, "read buffered audio")
            frame.pts = produced
            produced += Int64(count)
            try body(frame)
        }
    }

    private func configure(from frame: Frame) throws(MediaError) {
        let f = frame.pointer
        var inLayout = f.pointee.ch_layout
        if inLayout.order == AV_CHANNEL_ORDER_UNSPEC { av_channel_layout_default(&inLayout, inLayout.nb_channels) }
        try ff(
            swr_alloc_set_opts2(
                &resampler, &target.pointee.ch_layout, target.pointee.sample_fmt,
                target.pointee.sample_rate, &inLayout, AVSampleFormat(rawValue: f.pointee.format),
                f.pointee.sample_rate, 0, nil), "configure resampler")
        try ff(swr_init(resampler), "initialise resampler")
    }
}
