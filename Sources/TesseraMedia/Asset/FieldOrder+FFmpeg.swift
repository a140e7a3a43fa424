import CFFmpeg
import TesseraCore

extension FieldOrder {
    /// FFmpeg's field order; nil for unknown.
    init?(_ order: AVFieldOrder) { self.init(libavValue: Int(order.rawValue)) }
}
