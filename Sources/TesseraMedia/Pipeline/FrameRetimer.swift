import CFFmpeg
import TesseraAV
import TesseraCompute
import TesseraCore

/// Turns a source's frames (presentation order) into a retimed constant-rate sequence: output frame k,
/// at k·frameDuration, shows the frame `selection` chooses at the time map's source time for that
/// instant. Streaming: it holds one frame back, the latest at or before the next instant, so a frame
/// shown many times (slow motion, a freeze) is kept once and shared (`Frame.clone`), never copied.
///
/// Output frames carry `pts = k` and a duration of 1 in ticks of the frame duration. A segment of a
/// segmented export makes only its own instants `[a, b)`: fed the source frames from the one on screen
/// at instant a to the first after instant b − 1, it chooses exactly as the whole export's retimer.
struct FrameRetimer {
    let map: TimeMap
    let frameDuration: Rational
    let selection: FrameSelection
    /// The source stream's time base, and the source time of the reader's tick 0 (its range start).
    let timeBase: Rational
    let origin: Rational
    /// The instants made: all ⌈map.outputDuration / frameDuration⌉, or a segment's.
    let instants: Range<Int64>
    var frameCount: Int64 { instants.upperBound }

    private var next: Int64
    private var held: (frame: Frame, time: Rational)?

    init(
        map: TimeMap, frameDuration: Rational, selection: FrameSelection, timeBase: AVRational, origin: Rational,
        instants: Range<Int64>? = nil
    ) {
        self.map = map
        self.frameDuration = frameDuration
        self.selection = selection
        self.timeBase = Rational(timeBase)
        self.origin = origin
        self.instants = instants ?? 0..<max(0, (map.outputDuration / frameDuration).ceiling ?? 0)
        next = self.instants.lowerBound
    }

    /// The source time an output instant shows.
    private func sourceTime(_ k: Int64) -> Rational {
        map.source(atFrame: k, frameDuration: frameDuration)
    }

    /// Takes the next source frame; returns the output frames now decided.
    mutating func push(_ frame: Frame) throws(MediaError) -> [Frame] {
        let time = origin + Rational(frame.pts) * timeBase
        var out: [Frame] = []
        while next < frameCount {
            let s = sourceTime(next)
            guard time > s else { break }
            // Instant `next` falls before this frame: `held` (≤ s) and `frame` (> s) surround it.
            guard let held else {
                out.append(try emit(frame))
                continue
            }
            // The one statement of hold / nearest / blend, over the two frames around the instant.
            let pair = [held.frame, frame]
            let choice = selection.choose(s, in: [held.time, time])
            if let second = choice.second, !choice.weight.isZero {
                let mixed = try FrameBlend.blend(pair[choice.first], pair[second], weight: choice.weight.seconds)
                out.append(try emit(mixed))
            } else {
                out.append(try emit(pair[choice.first]))
            }
        }
        held = (frame, time)
        return out
    }

    /// The instants after the last source frame, which show it.
    mutating func finish() throws(MediaError) -> [Frame] {
        guard let held else { return [] }
        var out: [Frame] = []
        while next < frameCount { out.append(try emit(held.frame)) }
        return out
    }

    private mutating func emit(_ frame: Frame) throws(MediaError) -> Frame {
        let copy = try frame.clone()
        copy.pts = next
        copy.pointer.pointee.pkt_duration = 1
        next += 1
        return copy
    }
}
