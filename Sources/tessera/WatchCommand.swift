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
            10 seconds ends the watch (the job goes on). Then the segment map: a character per segment             (. queued, > running, = racing a backup, # done, B done by a backup, R retried, X failed), and for each retried or failed segment its             worker and what went wrong; --map prints it at once, without waiting for the end.

            \(ExitStatus.farmHelpText)
            """)

    @Argument(help: "The job id (as `tessera submit` printed it).") var job: String
    @OptionGroup var coordinator: CoordinatorOptions
    @Flag(help: "Print the job's final status as JSON on stdout.") var json = false
    @Flag(name: .shortAndLong, help: "No progress output.") var quiet = false
    @Flag(help: "Print the segment map now and exit, without following the job.") var map = false

    func run() async throws {
        let id = job
        if map {
            let segments = try await coordinator.perform { try await $0.segments(of: id) }
            print(StatusText.segmentMap(segments))
            return
        }
        let printer = ProgressPrinter(enabled: !quiet)
        let final = try await coordinator.perform { client in
            try await JobWatcher.watch(id, client: client, printer: printer)
        }
        if !quiet && !json, let segments = try? await coordinator.perform({ try await $0.segments(of: id) }) {
            FileHandle.standardError.write(Data((StatusText.segmentMap(segments) + "\n").utf8))
        }
        let status = try JobWatcher.conclude(final, json: json)
        if status != .success { throw ExitCode(status.rawValue) }
    }
}
