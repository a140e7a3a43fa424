import Foundation
import TesseraAV
import TesseraCore

/// What a job will make, checked against its media before any work: the one check of a source's job
/// and of a composition's, for the coordinator's submission and `tessera run` alike.
///
/// A source is opened as an export opens it (its header, not a scan), must have video, and its time
/// range, retiming and audio-track choice must fit it; a composition's spec is planned against its assets
/// (`CompositionExport.check`) and its render's frames must fit a segment's memory. Either way the output
/// must be within a job's bounds (`JobRequestLimits.checkWorkload`).
public struct JobPreflight: Sendable {
    /// What a job is made from.
    public enum Input: Sendable {
        /// A file: its time range, retiming and audio choice (nil: every track, as exports take them).
        case source(path: String, range: TimeRange?, retiming: Retiming?, audioTracks: AudioTrackSelection?)
        /// A composition, its assets' paths resolved, rendered to `output`.
        /// `hdr`: what becomes of an HDR asset (`.keep` is refused: the render is 8-bit SDR).
        case composition(CompositionSpec, output: String, hdr: HDRHandling = .auto)
    }

    /// How errors name the fields: the command line's flags, or a job request's JSON.
    public enum Naming: Sendable {
        case flags
        case request

        var retiming: RetimeRequest.Naming { self == .flags ? .flags : .json(prefix: "retiming") }
        var timeRange: String { self == .flags ? "--time-range" : "timeRange" }
        var audioTracks: String { self == .flags ? "--audio-track" : "settings.audioTracks" }
        var retimed: String { self == .flags ? "--scale" : "retiming" }
        var spec: String { self == .flags ? "--spec" : "spec" }
    }

    /// Why a job cannot run.
    public enum Failure: Error, Sendable, CustomStringConvertible {
        /// The media cannot be opened or planned (missing, not media, a spec its assets do not satisfy).
        case media(MediaError)
        /// The source holds no video: the farm cuts video into segments.
        case noVideo(path: String)
        /// A request field out of its bounds, named as the caller names it.
        case request(JobRequestError)

        public var description: String {
            switch self {
            case .media(let error): "\(error)"
            case .noVideo(let path): "\(path) has no video track"
            case .request(let error): error.description
            }
        }
    }

    /// The output's video duration and frame duration.
    public var duration: Rational
    public var frameDuration: Rational
    /// A composition's render size; nil for a source.
    public var renderWidth: Int?
    public var renderHeight: Int?
    /// Frames in one segment at most (what a composition's segment holds at the render's size).
    public var framesPerSegment: Int

    /// - Parameters:
    ///   - naming: how errors name the fields.
    ///   - segmentDuration: the job's segment length in seconds.
    public static func check(
        _ input: Input, naming: Naming, segmentDuration: Double
    ) throws(Failure) -> JobPreflight {
        let made: JobPreflight
        let field: String
        switch input {
        case .source(let path, let range, let retiming, let audioTracks):
            let asset: Asset
            do { asset = try Asset.load(path, scanPackets: false) } catch { throw .media(error) }
            guard let video = asset.firstVideoTrack?.video else { throw .noVideo(path: path) }
            if let range, asset.duration.isNumeric, range.start >= asset.duration {
                throw .request(
                    JobRequestError(
                        field: naming.timeRange,
                        String(
                            format: "starts at %.3f s, after the source ends (%.3f s)", range.start.seconds,
                            asset.duration.seconds)))
            }
            let candidates = asset.tracks.filter { $0.mediaType == .audio }.map {
                AudioTrackSelection.Candidate(
                    id: $0.trackID, language: $0.language,
                    description: "track \($0.trackID) (\($0.language ?? "no language"))")
            }
            if let why = audioTracks?.refusal(candidates) {
                throw .request(JobRequestError(field: naming.audioTracks, why))
            }
            let sourceEnd = Rational(asset.duration)
            let start = range.map { Rational($0.start) } ?? .zero
            let plain = range.map { min(Rational($0.duration), sourceEnd - start) } ?? sourceEnd
            do throws(JobRequestError) {
                // A farm's segments are cut on a constant grid of output frames.
                if retiming?.frameTiming == .passthrough {
                    throw JobRequestError(
                        field: naming.retiming.name("frameTiming"),
                        "passthrough timing is made in one pass (tessera transcode); a farm's segments are cut on a "
                            + "constant frame rate")
                }
                let retimed = try retiming?.check(against: asset, range: range, naming: naming.retiming)
                made = JobPreflight(
                    duration: retimed?.duration ?? plain,
                    frameDuration: retimed?.frameDuration ?? Rational(video.nominalFrameDuration),
                    framesPerSegment: 0)
            } catch {
                throw .request(error)
            }
            field = retiming == nil ? "source" : naming.retimed
        case .composition(let spec, let output, let hdr):
            let checked: (end: Rational, frameDuration: Rational, width: Int, height: Int)
            do {
                let export = CompositionExport(spec: spec, assetPaths: spec.assets.map(\.path), outputPath: output)
                export.hdr = hdr
                checked = try export.check()
            } catch {
                throw .media(error)
            }
            made = JobPreflight(
                duration: checked.end, frameDuration: checked.frameDuration, renderWidth: checked.width,
                renderHeight: checked.height, framesPerSegment: 0)
            field = naming.spec
        }
        var result = made
        do throws(JobRequestError) {
            try JobRequestLimits.checkWorkload(
                duration: made.duration, frameDuration: made.frameDuration, segmentDuration: segmentDuration,
                field: field)
            // Bounded once the workload passed: at most 3,600 s in frames of at least 1 ms.
            result.framesPerSegment =
                Int(exactly: (segmentDuration / made.frameDuration.seconds).rounded(.up)) ?? 1
            if let w = made.renderWidth, let h = made.renderHeight {
                try SegmentLayer.checkMemory(
                    width: w, height: h, frames: result.framesPerSegment,
                    field: naming == .flags ? "videoComposition.renderSize" : "spec.videoComposition.renderSize")
            }
        } catch {
            throw .request(error)
        }
        return result
    }
}
