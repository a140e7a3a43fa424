/// How an export retimes its source: the edits (source time), the output's constant frame duration,
/// and which source frame each output instant shows.
public struct Retiming: Sendable, Hashable {
    public var edits: [RetimeEdit]
    /// The output's frame duration; nil keeps the source's nominal frame rate.
    public var frameDuration: Rational?
    public var selection: FrameSelection
    /// How the audio is stretched (spectral by default, as AVFoundation's export).
    public var timePitch: TimePitchAlgorithm
    /// A constant frame rate, or every source frame at its mapped time.
    public var frameTiming: FrameTiming

    public init(
        edits: [RetimeEdit] = [], frameDuration: Rational? = nil, selection: FrameSelection = .hold,
        timePitch: TimePitchAlgorithm = .spectral, frameTiming: FrameTiming = .constant
    ) {
        self.frameTiming = frameTiming
        self.edits = edits
        self.frameDuration = frameDuration
        self.selection = selection
        self.timePitch = timePitch
    }

    /// The frame durations an output may have: 1/1000 s to 1 s (1 to 1000 fps), as n/d with both
    /// fitting a 32-bit time base.
    public static func checkFrameDuration(_ d: Rational, field: String) throws(JobRequestError) {
        guard d.isValid, d >= Rational(1, 1000), d <= .one, d.numerator <= Int128(Int32.max),
            d.denominator <= Int128(Int32.max)
        else {
            throw JobRequestError(field: field, "a frame duration goes from 1/1000 s to 1 s (1 to 1000 fps), not \(d)")
        }
    }
}
