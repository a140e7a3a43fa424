import CFFmpeg
import TesseraCore

/// Conversions between libav* enums and Tessera's named formats.
extension PixelFormat {
    public init(_ format: AVPixelFormat) {
        if let name = av_get_pix_fmt_name(format) {
            self.init(rawValue: String(cString: name))
        } else {
            self.init(rawValue: "none")
        }
    }

    /// The libavutil value, or `AV_PIX_FMT_NONE` for an unknown name.
    public var avFormat: AVPixelFormat { av_get_pix_fmt(rawValue) }
}

/// A libav rational as a fraction of two integers.
@inline(__always) public func rational(_ num: Int32, _ den: Int32) -> AVRational { AVRational(num: num, den: den) }
