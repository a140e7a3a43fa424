import ArgumentParser

/// `tessera cancel JOB`.
struct CancelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Cancel a job that has not finished.",
        discussion: """
            Its queued segments are dropped and running ones withdrawn from the workers. Prints the job's \
            state afterwards.

            \(ExitStatus.farmHelpText)
            """)

    @Argument(help: "The job id.") var job: String
    @OptionGroup var coordinator: CoordinatorOptions
    @Flag(help: "Print the job's status as JSON on stdout.") var json = false

    func run() async throws {
        let id = job
        let status = try await coordinator.perform { try await $0.cancel(id) }
        print(json ? try ReportJSON.encode(status) : "\(status.id): \(status.state.rawValue)")
    }
}
