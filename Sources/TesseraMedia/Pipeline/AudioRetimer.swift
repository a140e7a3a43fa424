import CFFmpeg
import Foundation
import TesseraAV
import TesseraCore

/// Retimes a decoded audio track along a `TimeMap`, once over the whole output timeline: scaled ranges
/// and ramps are time-stretched (libavfilter: atempo in stages of at most 2×, or rubberband; or resampled,
/// for varispeed, so the pitch follows the rate), freezes are
/// silent, and every stretch of output between freezes is cut or padded to exactly the map's length in
/// samples, so the audio ends with the video; silence then runs to `end`, the video's end on its frame
/// grid (up to a frame duration after the map's).
///
/// Within a stretch one filter graph runs, its tempo changed by command at each piece and every 20 ms
/// of a ramp (the tempo of a 20 ms chunk is the source it covers over its output length: the ramp's
/// integral is kept chunk by chunk), so there is no join, hence no click, where the speed changes.
final class AudioRetimer {
    private let map: TimeMap
    private let origin: Rational
    private let rate: Int64
    private let algorithm: TimePitchAlgorithm
    /// Source samples decoded and not yet fed: they start at source sample `fifoStart` (relative to the
    /// reader's tick 0).
    private var fifo: OpaquePointer?
    private var fifoStart: Int64 = 0
    private var sourceEnded = false
    private var format = AV_SAMPLE_FMT_NONE
    private var layout = AVChannelLayout()
    /// Output samples handed out: the next frame's pts.
    private var produced: Int64 = 0
    /// Where the output ends: the video's end, at or after the map's.
    private let end: Rational

    init(map: TimeMap, origin: Rational, sampleRate: Int, algorithm: TimePitchAlgorithm, end: Rational? = nil) {
        self.map = map
        self.end = max(end ?? map.outputDuration, map.outputDuration)
        self.origin = origin
        rate = Int64(sampleRate)
        self.algorithm = algorithm
    }

    deinit {
        if fifo != nil { av_audio_fifo_free(fifo) }
        av_channel_layout_uninit(&layout)
    }

    /// Output sample index of output time `t` (rounded down).
    private func outputSample(_ t: Rational) -> Int64 { (t * Rational(rate)).floor ?? 0 }
    /// Source sample index (relative to tick 0) of source time `s`.
    private func sourceSample(_ s: Rational) -> Int64 { ((s - origin) * Rational(rate)).floor ?? 0 }

    /// Pulls source frames with `next` and hands the retimed frames to `emit`.
    func run(next: () throws(MediaError) -> Frame?, emit: (Frame) throws(MediaError) -> Void) throws(MediaError) {
        // The first frame tells the format; an audio track with no frame gives silence... of nothing.
        guard let first = try next() else { return }
        format = AVSampleFormat(rawValue: first.pointer.pointee.format)
        try ff(av_channel_layout_copy(&layout, &first.pointer.pointee.ch_layout), "copy channel layout")
        if layout.order == AV_CHANNEL_ORDER_UNSPEC { av_channel_layout_default(&layout, layout.nb_channels) }
        guard let f = av_audio_fifo_alloc(format, layout.nb_channels, 8192) else {
            throw MediaError(.internal, "out of memory allocating an audio FIFO")
        }
        fifo = f
        fifoStart = first.pts
        try write(first)

        var stretch: [TimeMap.Piece] = []
        for piece in map.pieces {
            if piece.motion == .freeze {
                try play(stretch, next: next, emit: emit)
                stretch = []
                try silence(until: outputSample(piece.outputEnd), emit: emit)
            } else {
                stretch.append(piece)
            }
        }
        try play(stretch, next: next, emit: emit)
        try silence(until: outputSample(end), emit: emit)
    }

    /// One filter graph over consecutive moving pieces; its output cut or padded to their length.
    private func play(
        _ pieces: [TimeMap.Piece], next: () throws(MediaError) -> Frame?, emit: (Frame) throws(MediaError) -> Void
    ) throws(MediaError) {
        guard let firstPiece = pieces.first, let lastPiece = pieces.last else { return }
        let end = outputSample(lastPiece.outputEnd)
        let graph: any AudioStretch =
            algorithm == .varispeed
            ? try VarispeedStretch(sampleRate: rate, format: format, layout: &layout)
            : try TempoGraph(
                algorithm: algorithm, sampleRate: rate, format: format, layout: &layout,
                slowest: pieces.map(\.slowestSpeed).min() ?? .one, fastest: pieces.map(\.fastestSpeed).max() ?? .one)
        var cursor = firstPiece.sourceStart
        var emitted: [Frame] = []
        func collect(_ frame: Frame) throws(MediaError) {
            emitted.append(frame)
            try drain(&emitted, limit: end, emit: emit)
        }
        for piece in pieces {
            // Chunks of at most 20 ms of output; one for a constant speed.
            var t = Rational.zero
            let step = piece.motion == .linear ? piece.outputDuration : Rational(1, 50)
            while t < piece.outputDuration {
                let u = min(t + step, piece.outputDuration)
                let s = piece.source(atOffset: u)
                let tempo = (s - cursor) / (u - t)
                let count = sourceSample(s) - sourceSample(cursor)
                if count > 0, tempo > .zero {
                    try graph.setTempo(algorithm == .lowQualityZeroLatency ? TimePitchAlgorithm.snapped(tempo) : tempo)
                    // In small frames, pulling after each: the filters then hold little input when the
                    // tempo next changes (a command applies to what they hold, too).
                    var from = sourceSample(cursor)
                    let to = from + count
                    while from < to {
                        let n = min(1024, to - from)
                        try graph.push(try take(from: from, count: n, next: next), collect)
                        from += n
                    }
                }
                cursor = s
                t = u
            }
        }
        try graph.finish(collect)
        try drain(&emitted, limit: end, emit: emit)
        if produced < end { try silence(until: end, emit: emit) }
    }

    /// Hands out frames up to output sample `limit` (the last one cut there), with their pts.
    private func drain(
        _ frames: inout [Frame], limit: Int64, emit: (Frame) throws(MediaError) -> Void
    ) throws(MediaError) {
        while let frame = frames.first {
            frames.removeFirst()
            let room = limit - produced
            guard room > 0 else { continue }  // beyond the stretch: cut
            if Int64(frame.sampleCount) > room { frame.pointer.pointee.nb_samples = Int32(room) }
            frame.pts = produced
            frame.pointer.pointee.pkt_duration = Int64(frame.sampleCount)
            produced += Int64(frame.sampleCount)
            try emit(frame)
        }
    }

    /// Silence up to output sample `end`.
    private func silence(until end: Int64, emit: (Frame) throws(MediaError) -> Void) throws(MediaError) {
        while produced < end {
            let count = Int32(min(end - produced, 1024))
            let frame = try makeFrame(count, silent: true)
            frame.pts = produced
            produced += Int64(count)
            try emit(frame)
        }
    }

    /// `count` source samples from sample `start`: decoded ones, silence where the source has none.
    private func take(
        from start: Int64, count: Int64, next: () throws(MediaError) -> Frame?
    ) throws(MediaError) -> Frame {
        // Drop what lies before `start`; read until the FIFO reaches start + count or the source ends.
        while fifoStart + Int64(av_audio_fifo_size(fifo)) < start + count, !sourceEnded {
            if let frame = try next() { try write(frame) } else { sourceEnded = true }
        }
        if start > fifoStart {
            let drop = Int32(min(start - fifoStart, Int64(av_audio_fifo_size(fifo))))
            av_audio_fifo_drain(fifo, drop)
            fifoStart += Int64(drop)
        }
        let frame = try makeFrame(Int32(count), silent: true)
        let data = frame.pointer.pointee.extended_data!
        // Samples the FIFO holds for [start, start + count): the source may begin after `start`.
        let lead = max(0, fifoStart - start)
        let available = min(count - lead, Int64(av_audio_fifo_size(fifo)))
        if available > 0 {
            let scratch = try makeFrame(Int32(available))
            let read = scratch.pointer.pointee.extended_data.withMemoryRebound(
                to: UnsafeMutableRawPointer?.self, capacity: 1
            ) { av_audio_fifo_read(fifo, $0, Int32(available)) }
            try ff(read, "read source audio")
            try ff(
                av_samples_copy(
                    data, scratch.pointer.pointee.extended_data, Int32(lead), 0, Int32(available),
                    layout.nb_channels, format), "place source audio")
            fifoStart += available
        }
        return frame
    }

    private func write(_ frame: Frame) throws(MediaError) {
        if fifoStart + Int64(av_audio_fifo_size(fifo)) < frame.pts, av_audio_fifo_size(fifo) == 0 {
            fifoStart = frame.pts
        }
        let written = frame.pointer.pointee.extended_data.withMemoryRebound(
            to: UnsafeMutableRawPointer?.self, capacity: 1
        ) { av_audio_fifo_write(fifo, $0, Int32(frame.sampleCount)) }
        try ff(written, "buffer source audio")
    }

    private func makeFrame(_ count: Int32, silent: Bool = false) throws(MediaError) -> Frame {
        try Frame.audio(samples: count, format: format, sampleRate: Int32(rate), layout: &layout, silent: silent)
    }
}

extension TimeMap.Piece {
    /// The lowest speed the piece plays at (zero for a freeze).
    var slowestSpeed: Rational {
        switch motion {
        case .freeze: return .zero
        case .linear: return sourceDuration / outputDuration
        case .ramp(let a, let b): return min(a, b)
        }
    }

    /// The highest speed the piece plays at.
    var fastestSpeed: Rational {
        switch motion {
        case .freeze: return .zero
        case .linear: return sourceDuration / outputDuration
        case .ramp(let a, let b): return max(a, b)
        }
    }
}

/// What stretches audio in time: `TempoGraph` (pitch kept) or `VarispeedStretch` (pitch follows).
protocol AudioStretch {
    /// Plays what follows at `tempo` (source seconds per output second).
    func setTempo(_ tempo: Rational) throws(MediaError)
    /// Feeds samples; hands out what is ready.
    func push(_ frame: Frame, _ out: (Frame) throws(MediaError) -> Void) throws(MediaError)
    /// Ends the input and hands out everything left.
    func finish(_ out: (Frame) throws(MediaError) -> Void) throws(MediaError)
}

extension TempoGraph: AudioStretch {}
extension VarispeedStretch: AudioStretch {}
