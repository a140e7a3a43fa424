import ArgumentParser
import Foundation

/// `tessera watch JOB`: follows a job's progress until it ends.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Follow a job on the coordinator until it ends.",
        discussion: """
            Polls twice a second. On a terminal: a progress bar with segments done/total, frames/s and \
            ETA on stderr; otherwise a plain progress line every second. When the job ends, prints \
            'JOB completed: OUTPUT', or the job's error. A coordinator that stops answering for more than \
            10 seconds ends the watch (the job goes on).

            \(ExitStatus.farmHelpText)
            """)

    @Argument(help: "The job id (as `tessera submit` printed it).") var job: String
    @OptionGroup var coordinator: CoordinatorOptions
    @Flag(help: "Print the job's final status as JSON on stdout.") var json = false
    @Flag(name: .shortAndLong, help: "No progress output.") var quiet = false

    func run() async throws {
        let printer = ProgressPrinter(enabled: !quiet)
        let id = job
        let final = try await coordinator.perform { client in
            try await JobWatcher.watch(id, client: client, printer: printer)
        }
        let status = try JobWatcher.conclude(final, json: json)
        if status != .success { throw ExitCode(status.rawValue) }
    }
}
