import CFFmpeg
import TesseraCore

extension Rational {
    /// The value of a libav* rational: a time base, a rate; a zero denominator is `.invalid`.
    public init(_ value: AVRational) { self.init(numerator: Int128(value.num), denominator: Int128(value.den)) }
}

extension AVRational {
    /// `value` as libav* carries it (reduced); nil when it is invalid or a term does not fit 32 bits.
    public init?(exactly value: Rational) {
        guard value.isValid, let num = Int32(exactly: value.numerator), let den = Int32(exactly: value.denominator)
        else { return nil }
        self.init(num: num, den: den)
    }

    /// `value` as libav* carries it.
    /// - Throws: `.invalidArgument` naming `what` when it is invalid or a term does not fit 32 bits.
    public init(_ value: Rational, _ what: String) throws(MediaError) {
        guard let exact = AVRational(exactly: value) else {
            throw MediaError(.invalidArgument, "\(what) \(value) does not fit a libav rational (32-bit terms)")
        }
        self = exact
    }

    /// One over this: a time base from a rate, or a rate from a time base.
    public var inverse: AVRational { AVRational(num: den, den: num) }
}
