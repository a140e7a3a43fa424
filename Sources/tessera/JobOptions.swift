import ArgumentParser
import TesseraCore

/// What to make of the source, shared by `transcode`, `run` and `submit` (one option block, not three
/// copies): the preset, the range, the codec options, the backend, the segment length and the retiming. Each command
/// applies its own defaults where an option is left out.
struct JobOptions: ParsableArguments {
    @Option(help: "An export preset (see `tessera presets`).") var preset: String?
    @Option(help: "Only this part of the source, e.g. 1s-4s, 00:00:01.5-00:00:03, 30f@30-90f@30.")
    var timeRange: String?
    @OptionGroup var codec: CodecOptions
    @Option(help: "Colour/scale backend: auto (calibrate both on the first frame, keep the faster), vulkan, cpu.")
    var backend: ProcessingBackend?
    @Option(
        help: ArgumentHelp(
            "Cut the video into segments about this many seconds long at keyframes.",
            discussion: "transcode: without it, one pass; run: 4; submit: the coordinator's default (4)."))
    var segmentDuration: Double?
    @OptionGroup(title: "Retiming (every time is source time)") var retime: RetimeOptions

    func validate() throws {
        try CodecOptions.validate(preset: preset, timeRange: timeRange)
        try codec.validate()
        if let s = segmentDuration, !(s > 0) { throw ValidationError("--segment-duration must be positive") }
    }

    /// A command takes a source file or `--spec FILE`, one of them; with a spec, whose edits say what the
    /// range and the retiming would, those options (and any in `refused`) are refused.
    func validate(source: String?, spec: String?, refused: [(Bool, String)] = []) throws {
        guard (source == nil) != (spec == nil) else {
            throw ValidationError(
                source == nil ? "give a source file or --spec FILE" : "give a source file or --spec, not both")
        }
        guard spec != nil else { return }
        let all =
            [(timeRange != nil, "--time-range"), (try retime.retiming() != nil, "the retiming options")] + refused
        if let (_, name) = all.first(where: { $0.0 }) {
            throw ValidationError("\(name) cannot go with --spec: the spec names its assets and edits")
        }
    }

    /// The preset named, if any.
    var exportPreset: ExportPreset? { preset.flatMap(ExportPreset.init(name:)) }
    /// The preset's settings (or the standard ones) with the codec options applied.
    var settings: OutputSettings { codec.settings(preset: exportPreset) }
    var range: TimeRange? { timeRange.flatMap(TimeRange.init(string:)) }
}
