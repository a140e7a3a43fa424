import CFFmpeg
import Foundation
import TesseraAV
import TesseraCore

/// A libavfilter graph that changes audio tempo without changing pitch: abuffer → stretch → abuffersink,
/// the stretch being `stages` atempo filters (each within 0.5…2, where it sounds best) or one rubberband.
/// The tempo can change between pushes (`setTempo`), by filter command, without a join in the sound.
final class TempoGraph {
    private let graph: FilterGraph
    private let algorithm: TimePitchAlgorithm
    private let stages: Int
    private var tempo: Rational?
    private var pts: Int64 = 0

    /// - Parameter slowest, fastest: the range of tempos to come (how many atempo stages are needed).
    init(
        algorithm: TimePitchAlgorithm, sampleRate: Int64, format: AVSampleFormat, layout: inout AVChannelLayout,
        slowest: Rational, fastest: Rational
    ) throws(MediaError) {
        self.algorithm = algorithm
        let extreme = max(slowest > .zero ? 1 / slowest.seconds : 1, fastest.seconds, 1)
        let stages = algorithm == .spectral ? 1 : Int(min(6, max(1, log2(extreme).rounded(.up))))
        self.stages = stages
        let stretch =
            algorithm == .spectral
            ? "rubberband@s0=tempo=1:pitchq=quality"
            : (0..<stages).map { "atempo@s\($0)=tempo=1" }.joined(separator: ",")
        // Out in the format it came in (atempo would hand out packed samples for planar ones), so that the
        // stretched audio and the retimer's own silence are one stream.
        let formatName = av_get_sample_fmt_name(format).map { String(cString: $0) } ?? "fltp"
        graph = try FilterGraph(
            video: false, source: FilterGraph.audioSource(sampleRate: sampleRate, format: format, layout: &layout),
            description: stretch + ",aformat=sample_fmts=\(formatName)", what: "the tempo filters")
    }

    /// Plays what follows at `tempo` (source seconds per output second).
    func setTempo(_ tempo: Rational) throws(MediaError) {
        guard tempo != self.tempo else { return }
        self.tempo = tempo
        let perStage = pow(tempo.seconds, 1 / Double(stages))
        for stage in 0..<stages {
            let target = algorithm == .spectral ? "rubberband@s\(stage)" : "atempo@s\(stage)"
            try graph.command(target, "tempo", String(format: "%.9f", perStage))
        }
    }

    /// Feeds samples; hands out what the filters have ready.
    func push(_ frame: Frame, _ out: (Frame) throws(MediaError) -> Void) throws(MediaError) {
        frame.pts = pts
        pts += Int64(frame.sampleCount)
        try graph.push(frame, out)
    }

    /// Ends the input and hands out everything left.
    func finish(_ out: (Frame) throws(MediaError) -> Void) throws(MediaError) { try graph.finish(out) }
}
