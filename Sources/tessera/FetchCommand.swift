import ArgumentParser
import Foundation

/// `tessera fetch JOB -o FILE`: downloads a completed job's output.
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Download a completed job's output.",
        discussion: """
            The bytes are written to a hidden temporary file beside FILE and renamed when complete; on any \
            error nothing is left at FILE.

            \(ExitStatus.farmHelpText)
            """)

    @Argument(help: "The job id.") var job: String
    @Option(name: .shortAndLong, help: "Where to save the output on this machine.") var output: String
    @Flag(help: "Replace FILE if it exists.") var overwrite = false
    @OptionGroup var coordinator: CoordinatorOptions

    func run() async throws {
        let destination = URL(fileURLWithPath: output)
        if !overwrite, FileManager.default.fileExists(atPath: destination.path) {
            throw failure("\(destination.path) exists; pass --overwrite to replace it", .cantCreate)
        }
        let (id, overwrite) = (job, overwrite)
        let bytes = try await coordinator.perform {
            try await $0.download(jobID: id, to: destination, overwrite: overwrite)
        }
        print("wrote \(destination.path) (\(bytes) bytes)")
    }
}
