import ArgumentParser
import Foundation
import TesseraAV
import TesseraCore
import TesseraMedia

/// `tessera plan FILE`: how the farm would cut a file into segments.
struct PlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan", abstract: "Show the GOP-aligned segment plan of a file's video.",
        discussion: ExitStatus.helpText)

    @Argument(help: "The source media file (left out with --spec).") var source: String?
    @Option(
        help: ArgumentHelp(
            "A job spec instead of a source (JSON or .otio): each run of its timeline and its segments, in the "
                + "composition's frames and seconds and in the asset's time.", valueName: "file"))
    var spec: String?
    @Option(help: "Wished segment length in seconds.") var segmentDuration: Double = 4
    @Option(help: "Only this part of the source, e.g. 1s-4s.") var timeRange: String?
    @Option(help: "Segments expected to run at once: the last round is re-cut so they finish together.")
    var parallel = 1
    @Flag(help: "Print the plan as JSON.") var json = false
    @OptionGroup(title: "Retiming (shows the time map; segments are planned on the output timeline)")
    var retime: RetimeOptions

    func validate() throws {
        if !(segmentDuration > 0) { throw ValidationError("--segment-duration must be positive") }
        if parallel < 1 { throw ValidationError("--parallel must be at least 1") }
        guard (source == nil) != (spec == nil) else {
            throw ValidationError(
                source == nil ? "give a source file or --spec FILE" : "give a source file or --spec, not both")
        }
        if spec != nil, try timeRange != nil || retime.retiming() != nil {
            throw ValidationError("--time-range and the retiming options cannot go with --spec: its edits say them")
        }
        if let timeRange, TimeRange(string: timeRange) == nil {
            throw ValidationError("cannot read time range '\(timeRange)'; write it as START-END, e.g. 1s-4s")
        }
    }

    func run() throws {
        if let spec {
            try planSpec(spec)
            return
        }
        guard let source else { throw ValidationError("give a source file or --spec FILE") }
        let plan: SegmentPlan
        let range = timeRange.flatMap(TimeRange.init(string:))
        var timeline: RetimedTimeline?
        do {
            let retiming = try retime.retiming()
            plan = try SegmentPlan.make(
                path: source, segmentDuration: segmentDuration, parallel: parallel, timeRange: range,
                retiming: retiming)
            if let retiming {
                timeline = try RetimedTimeline(plan: plan, retiming: retiming, range: range)
            }
        } catch let error as MediaError {
            FileHandle.standardError.write(Data("tessera: \(error)\n".utf8))
            throw ExitCode(ExitStatus(error).rawValue)
        } catch let error as JobRequestError {
            FileHandle.standardError.write(Data("tessera: \(error)\n".utf8))
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        if json {
            print(try timeline.map { try ReportJSON.encode($0) } ?? ReportJSON.encode(plan))
            return
        }
        if let timeline { print(timeline.text) }
        let tb = plan.timeBase.seconds
        print(
            String(
                format: "%@: %d frames in %d segments (planned in %.3fs)", plan.path, plan.frameCount,
                plan.segments.count, plan.planningSeconds))
        for s in plan.segments {
            let start = Double(s.presentationRange.lowerBound) * tb
            // The last segment runs to the end of the video: its range is open, not infinitely long.
            let shown =
                s.presentationRange.upperBound == Int64.max
                ? "end" : String(format: "%.3fs", Double(s.presentationRange.upperBound) * tb)
            let end = String(repeating: " ", count: max(0, 10 - shown.count)) + shown
            print(
                String(
                    format: "  #%-4d frames %6d..<%-6d  %9.3fs – %@  decode packets %d..<%d", s.index,
                    s.outputFrames.lowerBound, s.outputFrames.upperBound, start, end,
                    s.decodePackets.lowerBound, s.decodePackets.upperBound))
        }
    }

    /// `--spec FILE`: the composition's segments as the farm would cut them.
    private func planSpec(_ path: String) throws {
        let planned: (frameDuration: Rational, segments: [CompositionExport.PlannedSegment])
        do {
            let (spec, paths) = try SpecFile.load(path)
            planned = try CompositionExport(spec: spec, assetPaths: paths, outputPath: "plan.mp4").segmentPlan(
                seconds: segmentDuration)
        } catch let error as SpecFile.LoadError {
            FileHandle.standardError.write(Data("tessera: \(error)\n".utf8))
            throw ExitCode(error.status.rawValue)
        } catch {
            FileHandle.standardError.write(Data("tessera: \(error)\n".utf8))
            throw ExitCode(ExitStatus(error).rawValue)
        }
        let segments = planned.segments
        if json {
            print(try ReportJSON.encode(segments))
            return
        }
        let frames = segments.last?.endFrame ?? 0
        print("\(path): \(frames) frames of \(planned.frameDuration) s in \(segments.count) segments")
        for s in segments {
            let source =
                s.sourceStart.map { String(format: "%@ %9.3fs – %9.3fs", s.asset ?? "", $0, s.sourceEnd ?? 0) }
                ?? "gap (background)"
            let decode =
                s.decodePackets.count == 2 ? "  decode packets \(s.decodePackets[0])..<\(s.decodePackets[1])" : ""
            print(
                String(
                    format: "  #%-4d frames %6d..<%-6d  %9.3fs – %9.3fs  %@%@", s.index, s.firstFrame, s.endFrame,
                    s.start, s.end, source, decode))
        }
    }
}
