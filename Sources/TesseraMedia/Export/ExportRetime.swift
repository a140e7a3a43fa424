import CFFmpeg
import TesseraCore

/// An export's retiming, resolved against its source: how its pictures are chosen (the `SegmentRetime`
/// every segment, or the one pass, follows: the time map over the exported range, the output frame
/// duration, the frame selection, the source time of the range start) and the audio's time-pitch
/// algorithm.
struct ExportRetime {
    /// Its source stream tick at the range start is filled in per reader (`segmentRetime(rangeStartTick:)`).
    private let video: SegmentRetime
    let timePitch: TimePitchAlgorithm
    /// `.passthrough`: every source frame once at its mapped time (`outputTick`), no grid.
    var frameTiming = FrameTiming.constant
    var map: TimeMap { video.map }
    var frameDuration: Rational { video.frameDuration }
    var selection: FrameSelection { video.selection }
    var origin: Rational { video.origin }

    init(
        map: TimeMap, frameDuration: Rational, selection: FrameSelection, timePitch: TimePitchAlgorithm,
        origin: Rational
    ) {
        video = SegmentRetime(
            map: map, frameDuration: frameDuration, selection: selection, origin: origin, rangeStartTick: 0)
        self.timePitch = timePitch
    }

    /// Where the video ends: its last frame's end on the grid, at most a frame duration after the map's;
    /// with passthrough timing, the map's end.
    var videoEnd: Rational {
        frameTiming == .passthrough ? map.outputDuration : Rational(video.frameCount) * frameDuration
    }

    /// Every output frame's presentation time: k·frameDuration for k < ⌈duration / frameDuration⌉.
    var outputTimes: [MediaTime] {
        let count = video.frameCount
        guard count > 0, let num = Int64(exactly: frameDuration.numerator),
            let den = Int32(exactly: frameDuration.denominator)
        else { return [] }
        return (0..<count).map { MediaTime(value: $0 * num, timescale: den) }
    }

    /// The timescale mapped times are written in for a stream of time base `tb`: its own ticks when they
    /// are 1/N s (N ≥ 1000), else 1/90000 s.
    static func timescale(for tb: AVRational) -> Int64 {
        tb.num == 1 && tb.den >= 1000 ? Int64(tb.den) : 90000
    }

    /// Where the map reaches a source time given in `tb` ticks from the range start: the first output tick
    /// (of 1/`timescale` s) at which it shows that time or later. Nil when the value does not fit.
    func outputTick(relative t: Int64, tb: AVRational, timescale: Int64) -> Int64? {
        map.outputTick(reaching: origin + Rational(t) * Rational(tb), timescale: timescale)
    }

    /// A chapter (relative to the range start) on the retimed timeline, in microseconds; nil when it
    /// comes to nothing.
    func mapped(_ chapter: AssetWriter.Chapter) -> AssetWriter.Chapter? {
        guard let start = outputTick(relative: chapter.start, tb: chapter.timeBase, timescale: 1_000_000),
            let end = outputTick(relative: chapter.end, tb: chapter.timeBase, timescale: 1_000_000), end > start
        else { return nil }
        return AssetWriter.Chapter(
            start: start, end: end, timeBase: AVRational(num: 1, den: 1_000_000), title: chapter.title)
    }

    /// What each segment of a segmented export carries, given the source stream's tick of the range start.
    func segmentRetime(rangeStartTick: Int64) -> SegmentRetime {
        var timing = video
        timing.rangeStartTick = rangeStartTick
        return timing
    }

    /// A retiming resolved against a source: its map over the exported range (`range`, else the whole
    /// asset), and the frame duration asked for or the source's nominal one. Passthrough keeps the
    /// source's frames and never uses a frame duration (a variable-rate source may declare no rate).
    /// - Throws: `JobRequestError` naming the option (`--scale`, `--frame-rate`, ...).
    static func resolve(
        _ retiming: Retiming, range: TimeRange?, assetDuration: MediaTime, nominalFrameDuration: Rational?,
        passthrough: Bool
    ) throws(JobRequestError) -> ExportRetime {
        let frameDuration = retiming.frameDuration ?? (passthrough ? Rational(1, 30) : nominalFrameDuration ?? .invalid)
        guard frameDuration.isValid, frameDuration > .zero else {
            throw JobRequestError(field: "--frame-rate", "the source declares no frame rate; give --frame-rate")
        }
        let origin = Rational(range?.start ?? .zero)
        let length = Rational(range?.duration ?? assetDuration)
        try Retiming.checkFrameDuration(
            frameDuration, field: retiming.frameDuration == nil ? "source frame rate" : "--frame-duration")
        let map = try TimeMap.retiming(start: origin, duration: length, edits: retiming.edits)
        let frames = (map.outputDuration / frameDuration).ceiling ?? Int64.max
        guard frames <= SegmentRetime.maxFrames else {
            throw JobRequestError(
                field: "--frame-duration",
                "the retimed output would have \(frames) frames; at most \(SegmentRetime.maxFrames)")
        }
        var resolved = ExportRetime(
            map: map, frameDuration: frameDuration, selection: retiming.selection, timePitch: retiming.timePitch,
            origin: origin)
        resolved.frameTiming = passthrough ? .passthrough : .constant
        return resolved
    }
}

extension Retiming {
    /// Checks this retiming against a probed source before any work (a coordinator's submission, `run`):
    /// ranges inside the source, a frame rate known, a bounded frame count. Returns the output duration
    /// and frame duration.
    /// - Throws: `JobRequestError` naming the field as `naming` names it.
    public func check(
        against asset: Asset, range: TimeRange?, naming: RetimeRequest.Naming
    ) throws(JobRequestError) -> (duration: Rational, frameDuration: Rational) {
        let nominal = asset.firstVideoTrack?.video.map { Rational($0.nominalFrameDuration) }
        do throws(JobRequestError) {
            let resolved = try ExportRetime.resolve(
                self, range: range, assetDuration: asset.duration,
                nominalFrameDuration: nominal.flatMap { $0.isValid && $0 > .zero ? $0 : nil }, passthrough: false)
            return (resolved.map.outputDuration, resolved.frameDuration)
        } catch {
            throw JobRequestError(field: naming.rename(error.field), error.message)
        }
    }
}

extension AssetReader {
    /// `ExportRetime.resolve` with the video track's nominal frame duration
    /// (`StreamDescription.nominalFrameRate(of:)`, the rule the checks before a job use too).
    func resolve(
        _ retiming: Retiming, videoTrack: Int, range: TimeRange?, assetDuration: MediaTime, passthrough: Bool
    ) throws(JobRequestError) -> ExportRetime {
        let rate = StreamDescription.nominalFrameRate(of: input.streams[videoTrack])
        return try ExportRetime.resolve(
            retiming, range: range, assetDuration: assetDuration,
            nominalFrameDuration: rate.map { Rational(Int64($0.den), Int64($0.num)) }, passthrough: passthrough)
    }
}
