import CFFmpeg
import Foundation
import TesseraAV
import TesseraCore

/// The segment plan of an asset's video, as `tessera plan` shows it and a coordinator dispatches it.
public struct SegmentPlan: Sendable, Codable {
    public var path: String
    public var trackID: Int
    /// The video track's time base as `num/den`: the unit of `presentationRange` ticks.
    public var timeBase: Rational
    /// For a retimed plan, the output's time base (one tick per frame): segments' `outputFrames` count
    /// frames of the output grid, planned on the output timeline.
    public var outputTimeBase: Rational?
    public var packetCount: Int
    public var frameCount: Int
    public var segments: [SegmentSpec]
    /// Seconds spent reading the packet index and planning.
    public var planningSeconds: Double

    /// Indexes the video packets (no decoding) and plans segments about `segmentDuration` seconds long,
    /// the last round re-cut for `parallel` slots (see `SegmentPlanner.balanceTail`); with a retiming,
    /// about `segmentDuration` seconds of output long, on the output timeline.
    /// - Throws: the `InputFile` errors; `.invalidArgument` when the file has no video or the range no frame,
    ///   or naming the option for a retiming that does not fit the source.
    public static func make(
        path: String, segmentDuration: Double, parallel: Int = 1,
        timeRange: TimeRange? = nil, retiming: Retiming? = nil
    ) throws(MediaError)
        -> SegmentPlan
    {
        let started = Date()
        let reader = try AssetReader(path: path)
        reader.timeRange = timeRange
        var retime: ExportRetime?
        if let retiming, let track = reader.videoTrackID {
            do throws(JobRequestError) {
                retime = try reader.resolve(
                    retiming, videoTrack: track, range: timeRange, assetDuration: reader.duration, passthrough: false)
            } catch {
                throw MediaError(.invalidArgument, path: path, "\(error)")
            }
        }
        let video = try reader.planVideo(segmentSeconds: segmentDuration, parallel: parallel, retime: retime)
        let plan = video.planned, tb = video.timeBase
        guard !plan.segments.isEmpty else { throw MediaError(.invalidArgument, path: path, "the range holds no frame") }
        return SegmentPlan(
            path: path, trackID: video.trackID, timeBase: Rational(tb),
            outputTimeBase: retime == nil
                ? nil : Rational(video.outputTimeBase),
            packetCount: video.index.entries.count, frameCount: plan.outputTimes.count,
            segments: plan.segments, planningSeconds: Date().timeIntervalSince(started))
    }
}
