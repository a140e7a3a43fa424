import ArgumentParser
import Foundation
import TesseraAV
import TesseraMedia

/// `tessera stitch SEG... -o OUT`: join segment files at packet level.
struct StitchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stitch",
        abstract: "Join segment files (same codec settings, each starting at 0) into one file without re-encoding.",
        discussion: ExitStatus.helpText)

    @Argument(help: "Segment files, in order.") var segments: [String]
    @Option(name: .shortAndLong, help: "The joined file; its extension picks the container.") var output: String
    @Flag(help: "Replace OUT if it exists.") var overwrite = false
    @Flag(help: "Print a JSON report.") var json = false

    func run() throws {
        let report: SegmentFileStitcher.Report
        do {
            report = try SegmentFileStitcher.stitch(segments, to: output, overwrite: overwrite)
        } catch {
            FileHandle.standardError.write(Data("tessera: \(error)\n".utf8))
            throw ExitCode(ExitStatus(error).rawValue)
        }
        if json {
            print(try ReportJSON.encode(report))
        } else {
            print(
                String(
                    format: "wrote %@: %d segments, %d packets, %.3fs", report.output, report.segments,
                    report.packets, report.duration.seconds))
        }
    }
}
