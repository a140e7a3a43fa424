import ArgumentParser
import TesseraCore

/// Retiming on `transcode`, `run` and `submit`: scaled ranges, speed ramps and freezes (every time is source time), exported
/// at a constant frame rate, or (`--frame-timing passthrough`, one pass) every source frame at its mapped time.
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
            "How retimed audio keeps its pitch: spectral (rubberband), timeDomain (atempo), lowQualityZeroLatency; "
                + "or varispeed (resampled: the pitch follows the rate)."))
    var timePitch: TimePitchAlgorithm = .spectral
    @Option(
        help: ArgumentHelp(
            "constant: one frame per --frame-rate interval, each the source frame on screen then; passthrough: every "
                + "source frame once, at its mapped time (the variable rate kept), one pass only."))
    var frameTiming: FrameTiming = .constant

    func validate() throws {
        _ = try retiming()
    }

    /// The options as a job request carries them.
    var request: RetimeRequest? {
        let r = RetimeRequest(
            scale: scale, ramp: ramp, freeze: freeze, frameRate: frameRate, frameDuration: frameDuration,
            frameSelection: frameSelection, timePitch: timePitch, frameTiming: frameTiming)
        return r.isEmpty ? nil : r
    }

    /// The retiming asked for; nil when no option of this group was given.
    func retiming() throws -> Retiming? {
        do throws(JobRequestError) { return try request?.retiming(naming: .flags) } catch {
            throw ValidationError(error.description)
        }
    }
}

extension FrameSelection: ExpressibleByArgument {}
extension TimePitchAlgorithm: ExpressibleByArgument {}
extension FrameTiming: ExpressibleByArgument {}
