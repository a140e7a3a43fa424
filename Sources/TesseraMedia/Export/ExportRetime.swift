import TesseraCore

/// A one-pass export's retiming, resolved against its source: the time map over the exported range,
/// the output frame duration, the frame selection, the audio's time-pitch algorithm, and the source
/// time of the reader's tick 0.
struct ExportRetime {
    let map: TimeMap
    let frameDuration: Rational
    let selection: FrameSelection
    let timePitch: TimePitchAlgorithm
    let origin: Rational

    /// Every output frame's presentation time: k·frameDuration for k < ⌈duration / frameDuration⌉.
    var outputTimes: [MediaTime] {
        let count = (map.outputDuration / frameDuration).ceiling ?? 0
        guard count > 0, let num = Int64(exactly: frameDuration.numerator),
            let den = Int32(exactly: frameDuration.denominator)
        else { return [] }
        return (0..<count).map { MediaTime(value: $0 * num, timescale: den) }
    }
}
