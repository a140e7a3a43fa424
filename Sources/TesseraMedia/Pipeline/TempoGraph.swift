import CFFmpeg
import Foundation
import TesseraAV
import TesseraCore

/// A libavfilter graph that changes audio tempo without changing pitch: abuffer → stretch → abuffersink,
/// the stretch being `stages` atempo filters (each within 0.5…2, where it sounds best) or one rubberband.
/// The tempo can change between pushes (`setTempo`), by filter command, without a join in the sound.
final class TempoGraph {
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private var source: UnsafeMutablePointer<AVFilterContext>?
    private var sink: UnsafeMutablePointer<AVFilterContext>?
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
        stages = algorithm == .spectral ? 1 : Int(min(6, max(1, log2(extreme).rounded(.up))))
        guard let g = avfilter_graph_alloc() else {
            throw MediaError(.internal, "out of memory allocating a filter graph")
        }
        graph = g
        var description = [CChar](repeating: 0, count: 256)
        av_channel_layout_describe(&layout, &description, description.count)
        let formatName = av_get_sample_fmt_name(format).map { String(cString: $0) } ?? "fltp"
        let args =
            "time_base=1/\(sampleRate):sample_rate=\(sampleRate):sample_fmt=\(formatName):channel_layout=\(String(cString: description))"
        try ff(
            avfilter_graph_create_filter(&source, avfilter_get_by_name("abuffer"), "in", args, nil, g),
            "create the audio source filter")
        try ff(
            avfilter_graph_create_filter(&sink, avfilter_get_by_name("abuffersink"), "out", nil, nil, g),
            "create the audio sink filter")
        let stretch =
            algorithm == .spectral
            ? "rubberband@s0=tempo=1:pitchq=quality"
            : (0..<stages).map { "atempo@s\($0)=tempo=1" }.joined(separator: ",")
        // The open ends of the stretch: its input is fed by "in", its output feeds "out". Parsing takes
        // both lists and leaves in `i` / `o` what it did not link; those are freed here, once.
        var o = avfilter_inout_alloc(), i = avfilter_inout_alloc()
        defer {
            avfilter_inout_free(&i)
            avfilter_inout_free(&o)
        }
        guard let outputs = o, let inputs = i else {
            throw MediaError(.internal, "out of memory describing a filter graph")
        }
        outputs.pointee.name = av_strdup("in")
        outputs.pointee.filter_ctx = source
        inputs.pointee.name = av_strdup("out")
        inputs.pointee.filter_ctx = sink
        try ff(avfilter_graph_parse_ptr(g, stretch, &i, &o, nil), "describe the tempo filters")
        try ff(avfilter_graph_config(g, nil), "configure the tempo filters")
    }

    deinit { avfilter_graph_free(&graph) }

    /// Plays what follows at `tempo` (source seconds per output second).
    func setTempo(_ tempo: Rational) throws(MediaError) {
        guard tempo != self.tempo else { return }
        self.tempo = tempo
        let perStage = pow(tempo.seconds, 1 / Double(stages))
        for stage in 0..<stages {
            let target = algorithm == .spectral ? "rubberband@s\(stage)" : "atempo@s\(stage)"
            let value = String(format: "%.9f", perStage)
            try ff(
                avfilter_graph_send_command(graph, target, "tempo", value, nil, 0, 0), "set the audio tempo")
        }
    }

    /// Feeds samples; hands out what the filters have ready.
    func push(_ frame: Frame, _ out: (Frame) throws(MediaError) -> Void) throws(MediaError) {
        frame.pts = pts
        pts += Int64(frame.sampleCount)
        try ff(
            av_buffersrc_add_frame_flags(source, frame.pointer, Int32(AV_BUFFERSRC_FLAG_KEEP_REF)),
            "feed the tempo filters")
        try pull(out)
    }

    /// Ends the input and hands out everything left.
    func finish(_ out: (Frame) throws(MediaError) -> Void) throws(MediaError) {
        try ff(av_buffersrc_add_frame_flags(source, nil, 0), "end the tempo filters' input")
        try pull(out)
    }

    private func pull(_ out: (Frame) throws(MediaError) -> Void) throws(MediaError) {
        while true {
            let frame = try Frame()
            let code = av_buffersink_get_frame(sink, frame.pointer)
            if code == tessera_AVERROR_EAGAIN() || code == tessera_AVERROR_EOF() { return }
            try ff(code, "read the tempo filters' output")
            try out(frame)
        }
    }
}
