import ArgumentParser
import TesseraCore

/// Retiming on `transcode`: scaled ranges, speed ramps and freezes (every time is source time), exported
/// at a constant frame rate.
struct RetimeOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Scale a source range to a duration, e.g. 2s-4s:16s (slow motion ×8); repeatable.",
            valueName: "RANGE:DURATION"))
    var scale: [String] = []
    @Option(
        help: ArgumentHelp(
            "Ramp the speed linearly over a source range, e.g. 4s-6s:1-0.25; repeatable.", valueName: "RANGE:FROM-TO"))
    var ramp: [String] = []
    @Option(
        help: ArgumentHelp(
            "Hold the frame on screen at a source time, e.g. 5s:2s; repeatable.", valueName: "TIME:DURATION"))
    var freeze: [String] = []
    @Option(help: "Output frame rate for a retimed export, e.g. 30 or 30000/1001 (default: the source's).")
    var frameRate: String?
    @Option(help: "Output frame duration instead of --frame-rate, e.g. 1/30.") var frameDuration: String?
    @Option(help: "Which source frame an output frame shows: hold (on screen at that time), nearest, blend.")
    var frameSelection: FrameSelection = .hold
    @Option(
        help: ArgumentHelp(
            "How retimed audio keeps its pitch: spectral (rubberband), timeDomain (atempo), lowQualityZeroLatency.",
            discussion: "varispeed (the pitch follows the rate) is not built yet."))
    var timePitch: TimePitchAlgorithm = .spectral

    func validate() throws {
        _ = try retiming()
    }

    /// The retiming asked for; nil when no option of this group was given.
    func retiming() throws -> Retiming? {
        guard
            !scale.isEmpty || !ramp.isEmpty || !freeze.isEmpty || frameRate != nil || frameDuration != nil
                || frameSelection != .hold || timePitch != .spectral
        else { return nil }
        guard frameRate == nil || frameDuration == nil else {
            throw ValidationError("--frame-rate and --frame-duration say the same thing; give one")
        }
        var edits: [RetimeEdit] = []
        do throws(JobRequestError) {
            edits += try scale.map { text throws(JobRequestError) in try RetimeEdit.scale(parsing: text) }
            edits += try ramp.map { text throws(JobRequestError) in try RetimeEdit.ramp(parsing: text) }
            edits += try freeze.map { text throws(JobRequestError) in try RetimeEdit.freeze(parsing: text) }
        } catch {
            throw ValidationError(error.description)
        }
        var duration: Rational?
        if let text = frameRate {
            guard let rate = MediaTime(string: text), rate.isNumeric, rate > .zero else {
                throw ValidationError("--frame-rate '\(text)' is not a rate, e.g. 30 or 30000/1001")
            }
            duration = Rational.one / Rational(rate)
        } else if let text = frameDuration {
            guard let d = MediaTime(string: text), d.isNumeric else {
                throw ValidationError("--frame-duration '\(text)' is not a duration, e.g. 1/30")
            }
            duration = Rational(d)
        }
        if let duration {
            do throws(JobRequestError) {
                try Retiming.checkFrameDuration(duration, field: frameRate != nil ? "--frame-rate" : "--frame-duration")
            } catch {
                throw ValidationError(error.description)
            }
        }
        return Retiming(edits: edits, frameDuration: duration, selection: frameSelection, timePitch: timePitch)
    }
}

extension FrameSelection: ExpressibleByArgument {}
extension TimePitchAlgorithm: ExpressibleByArgument {}
