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

    @Argument(help: "The source media file.") var source: String
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
        if let timeRange, TimeRange(string: timeRange) == nil {
            throw ValidationError("cannot read time range '\(timeRange)'; write it as START-END, e.g. 1s-4s")
        }
    }

    func run() throws {
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
        let tb = Double(plan.timeBase.numerator) / Double(plan.timeBase.denominator)
        print(
            String(
                format: "%@: %d frames in %d segments (planned in %.3fs)", plan.path, plan.frameCount,
                plan.segments.count, plan.planningSeconds))
        for s in plan.segments {
            let start = Double(s.presentationRange.lowerBound) * tb
            let end =
                s.presentationRange.upperBound == Int64.max
                ? Double.infinity
                : Double(s.presentationRange.upperBound) * tb
            print(
                String(
                    format: "  #%-4d frames %6d..<%-6d  %9.3fs – %9.3fs  decode packets %d..<%d", s.index,
                    s.outputFrames.lowerBound, s.outputFrames.upperBound, start, end,
                    s.decodePackets.lowerBound, s.decodePackets.upperBound))
        }
    }
}
