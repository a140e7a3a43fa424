import CFFmpeg
import TesseraAV

/// A libavfilter graph with one or more inputs and one output: a buffer source (`abuffer` or `buffer`) per
/// input, the filters of `description` between them, a buffer sink. Frames go in with `push`, come out
/// with `pull`; `finish` ends the input. Filters addressed as `name@instance` take commands.
final class FilterGraph {
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private var inputs: [UnsafeMutablePointer<AVFilterContext>] = []
    private var output: UnsafeMutablePointer<AVFilterContext>?
    private let what: String

    /// - Parameters:
    ///   - video: a `buffer`/`buffersink` pair; else `abuffer`/`abuffersink`.
    ///   - source: the buffer source's arguments (`time_base=1/48000:sample_rate=...`).
    ///   - description: the filters, e.g. `atempo@s0=tempo=1` (libavfilter's graph syntax).
    ///   - what: for error messages ("the tempo filters").
    convenience init(video: Bool, source: String, description: String, what: String) throws(MediaError) {
        try self.init(video: video, sources: [source], description: description, what: what)
    }

    /// A graph of several inputs: `sources[i]` describes the input the description names `[in<i>]`
    /// (`[in0][in1]psnr`). With one source, the description's open input is it.
    init(video: Bool, sources: [String], description: String, what: String) throws(MediaError) {
        self.what = what
        guard let g = avfilter_graph_alloc() else {
            throw MediaError(.internal, "out of memory allocating a filter graph")
        }
        graph = g
        g.pointee.nb_threads = 1
        let names = sources.count == 1 ? ["in"] : sources.indices.map { "in\($0)" }
        for (name, source) in zip(names, sources) {
            var input: UnsafeMutablePointer<AVFilterContext>?
            try ff(
                avfilter_graph_create_filter(
                    &input, avfilter_get_by_name(video ? "buffer" : "abuffer"), name, source, nil, g),
                "create the source of \(what)")
            guard let input else { throw MediaError(.internal, "no source made for \(what)") }
            inputs.append(input)
        }
        try ff(
            avfilter_graph_create_filter(
                &output, avfilter_get_by_name(video ? "buffersink" : "abuffersink"), "out", nil, nil, g),
            "create the sink of \(what)")
        // The open ends of the description: its inputs are fed by the sources, its output feeds "out".
        // Parsing takes both lists and leaves in `i` / `o` what it did not link; those are freed here, once.
        var o: UnsafeMutablePointer<AVFilterInOut>? = nil
        var i = avfilter_inout_alloc()
        defer {
            avfilter_inout_free(&i)
            avfilter_inout_free(&o)
        }
        for (name, input) in zip(names, inputs).reversed() {
            guard let end = avfilter_inout_alloc() else {
                throw MediaError(.internal, "out of memory describing a filter graph")
            }
            end.pointee.name = av_strdup(name)
            end.pointee.filter_ctx = input
            end.pointee.next = o
            o = end
        }
        guard let sink = i else { throw MediaError(.internal, "out of memory describing a filter graph") }
        sink.pointee.name = av_strdup("out")
        sink.pointee.filter_ctx = output
        try ff(avfilter_graph_parse_ptr(g, description, &i, &o, nil), "describe \(what)")
        try ff(avfilter_graph_config(g, nil), "configure \(what)")
    }

    deinit { avfilter_graph_free(&graph) }

    /// The time base of the frames that come out (a filter may change it: yadif and bwdif halve it).
    var outputTimeBase: AVRational { av_buffersink_get_time_base(output) }

    /// Sends a command to the filter instance `target` (`atempo@s0`).
    func command(_ target: String, _ name: String, _ value: String) throws(MediaError) {
        try ff(avfilter_graph_send_command(graph, target, name, value, nil, 0, 0), "command \(what)")
    }

    /// Feeds a frame to input `index` (kept: the caller's reference stays valid) and hands out what is ready.
    func push(_ frame: Frame, into index: Int = 0, _ out: (Frame) throws(MediaError) -> Void) throws(MediaError) {
        try ff(
            av_buffersrc_add_frame_flags(inputs[index], frame.pointer, Int32(AV_BUFFERSRC_FLAG_KEEP_REF)),
            "feed \(what)")
        try pull(out)
    }

    /// Ends every input and hands out everything left.
    func finish(_ out: (Frame) throws(MediaError) -> Void) throws(MediaError) {
        for input in inputs { try ff(av_buffersrc_add_frame_flags(input, nil, 0), "end the input of \(what)") }
        try pull(out)
    }

    private func pull(_ out: (Frame) throws(MediaError) -> Void) throws(MediaError) {
        while true {
            let frame = try Frame()
            let code = av_buffersink_get_frame(output, frame.pointer)
            if code == tessera_AVERROR_EAGAIN() || code == tessera_AVERROR_EOF() { return }
            try ff(code, "read the output of \(what)")
            try out(frame)
        }
    }

    /// The `abuffer` arguments for PCM of this rate, format and layout.
    static func audioSource(sampleRate: Int64, format: AVSampleFormat, layout: inout AVChannelLayout) -> String {
        var description = [CChar](repeating: 0, count: 256)
        av_channel_layout_describe(&layout, &description, description.count)
        let formatName = av_get_sample_fmt_name(format).map { String(cString: $0) } ?? "fltp"
        return "time_base=1/\(sampleRate):sample_rate=\(sampleRate):sample_fmt=\(formatName)"
            + ":channel_layout=\(String(cString: description))"
    }
}
