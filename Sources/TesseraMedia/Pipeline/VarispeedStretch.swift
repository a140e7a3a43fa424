import CFFmpeg
import TesseraAV
import TesseraCore

/// Varispeed: audio played faster or slower by resampling, so the pitch follows the rate, as tape does
/// (AVFoundation's `varispeed`). The same interface as `TempoGraph`. Samples are converted to planar
/// float, read at a position advancing by the tempo per output sample (linear interpolation between
/// neighbours), and converted back to the format they came in.
final class VarispeedStretch {
    private let toFloat: FilterGraph
    private let back: FilterGraph
    private let sampleRate: Int32
    private var layout = AVChannelLayout()
    private var tempo = 1.0
    /// Input samples not yet passed (per channel), and the read position in them.
    private var held: [[Float]] = []
    private var position = 0.0
    private var pts: Int64 = 0

    init(sampleRate: Int64, format: AVSampleFormat, layout: inout AVChannelLayout) throws(MediaError) {
        self.sampleRate = Int32(clamping: sampleRate)
        try ff(av_channel_layout_copy(&self.layout, &layout), "copy channel layout")
        let source = FilterGraph.audioSource(sampleRate: sampleRate, format: format, layout: &layout)
        var floatLayout = layout
        toFloat = try FilterGraph(
            video: false, source: source, description: "aformat=sample_fmts=fltp", what: "the varispeed input")
        let name = av_get_sample_fmt_name(format).map { String(cString: $0) } ?? "fltp"
        back = try FilterGraph(
            video: false,
            source: FilterGraph.audioSource(sampleRate: sampleRate, format: AV_SAMPLE_FMT_FLTP, layout: &floatLayout),
            description: "aformat=sample_fmts=\(name)", what: "the varispeed output")
        held = Array(repeating: [], count: Int(layout.nb_channels))
    }

    deinit { av_channel_layout_uninit(&layout) }

    /// Plays what follows at `tempo` (source seconds per output second).
    func setTempo(_ tempo: Rational) throws(MediaError) { self.tempo = max(tempo.seconds, 1e-6) }

    /// Feeds samples; hands out the resampled ones ready.
    func push(_ frame: Frame, _ out: (Frame) throws(MediaError) -> Void) throws(MediaError) {
        try toFloat.push(frame) { (f) throws(MediaError) in
            let p = f.pointer.pointee
            for c in held.indices {
                guard let plane = p.extended_data[c] else { continue }
                plane.withMemoryRebound(to: Float.self, capacity: Int(p.nb_samples)) { samples in
                    held[c].append(contentsOf: UnsafeBufferPointer(start: samples, count: Int(p.nb_samples)))
                }
            }
        }
        try resample(out)
    }

    /// Ends the input and hands out what is left.
    func finish(_ out: (Frame) throws(MediaError) -> Void) throws(MediaError) {
        try resample(out)
        try back.finish(out)
    }

    /// Output samples while two neighbours are held for the read position.
    private func resample(_ out: (Frame) throws(MediaError) -> Void) throws(MediaError) {
        let available = held.first?.count ?? 0
        guard available >= 2, position + 1 < Double(available) else { return }
        let count = Int(((Double(available - 1) - position) / tempo).rounded(.up))
        guard count > 0 else { return }
        let frame = try Frame.audio(
            samples: Int32(count), format: AV_SAMPLE_FMT_FLTP, sampleRate: sampleRate, layout: &layout)
        var read = position
        for c in held.indices {
            guard let plane = frame.pointer.pointee.extended_data[c] else { continue }
            read = position
            plane.withMemoryRebound(to: Float.self, capacity: count) { o in
                held[c].withUnsafeBufferPointer { s in
                    for i in 0..<count {
                        let j = Int(read), t = Float(read - Double(j))
                        o[i] = s[j] + t * (s[min(j + 1, s.count - 1)] - s[j])
                        read += tempo
                    }
                }
            }
        }
        // Keep from the sample the read position has reached.
        let used = min(Int(read), available - 1)
        for c in held.indices { held[c].removeFirst(used) }
        position = read - Double(used)
        frame.pts = pts
        pts += Int64(count)
        try back.push(frame, out)
    }
}
