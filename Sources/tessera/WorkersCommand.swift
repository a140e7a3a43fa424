import ArgumentParser

/// `tessera workers`: the workers connected to the coordinator.
struct WorkersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workers",
        abstract: "List the workers connected to the coordinator.",
        discussion: """
            A table: id, host, cores, processing backends, state (idle, busy, draining), tasks held \
            (JOB/segment#attempt), segments done, and how long ago it was last heard from.

            \(ExitStatus.farmHelpText)
            """)

    @OptionGroup var coordinator: CoordinatorOptions
    @Flag(help: "Print JSON (an array of WorkerStatus) on stdout.") var json = false

    func run() async throws {
        let workers = try await coordinator.perform { try await $0.workers() }
        print(json ? try ReportJSON.encode(workers) : workers.isEmpty ? "no workers" : FarmText.workerTable(workers))
    }
}
