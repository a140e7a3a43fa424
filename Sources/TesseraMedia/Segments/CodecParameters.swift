import CFFmpeg
import TesseraAV

/// An owned copy of `AVCodecParameters` (codec, size, format, extradata, colour…), so a segment task
/// or result is a self-contained value that can cross threads now and the wire later.
public final class CodecParameters: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<AVCodecParameters>

    /// Takes ownership of parameters allocated with `avcodec_parameters_alloc`.
    init(adopting pointer: UnsafeMutablePointer<AVCodecParameters>) {
        self.pointer = pointer
    }

    init(copying source: UnsafePointer<AVCodecParameters>) throws(MediaError) {
        guard let p = avcodec_parameters_alloc() else {
            throw MediaError(.internal, "out of memory copying codec parameters")
        }
        pointer = p
        try ff(avcodec_parameters_copy(p, source), "copy codec parameters")
    }

    init(encoder: UnsafePointer<AVCodecContext>) throws(MediaError) {
        guard let p = avcodec_parameters_alloc() else {
            throw MediaError(.internal, "out of memory copying codec parameters")
        }
        pointer = p
        try ff(avcodec_parameters_from_context(p, encoder), "describe encoder output")
    }

    deinit {
        var p: UnsafeMutablePointer<AVCodecParameters>? = pointer
        avcodec_parameters_free(&p)
    }

    var codecName: String { String(cString: avcodec_get_name(pointer.pointee.codec_id)) }
    var extradata: [UInt8] {
        let p = pointer.pointee
        guard let data = p.extradata, p.extradata_size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(p.extradata_size)))
    }

    /// Why two segments' streams cannot be joined at packet level, or nil when they can.
    func mismatch(with other: CodecParameters) -> String? { configuration.mismatch(with: other.configuration) }
}
