import ArgumentParser
import TesseraCore
import TesseraHTTP

/// `tessera workers [list]`: the workers known to the coordinator; `tessera workers drain|pause|resume ID`.
struct WorkersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workers",
        abstract: "List the coordinator's workers, or drain, pause or resume one.",
        discussion: """
            `tessera workers` lists (the `list` subcommand); each subcommand takes --coordinator <url>, \
            --token or --token-file, and --json.

            \(ExitStatus.farmHelpText)
            """,
        subcommands: [List.self, Control<Drain>.self, Control<Pause>.self, Control<Resume>.self],
        defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the workers known to the coordinator.",
            discussion: """
                A table: id, host, cores, processing backends, state (idle, busy, draining, paused, \
                quarantined, lost), tasks held (JOB/segment#attempt), segments done, and how long ago it \
                was last heard from. A lost worker (silent past heartbeat × liveness) stays listed for an hour.

                \(ExitStatus.farmHelpText)
                """)

        @OptionGroup var coordinator: CoordinatorOptions
        @Flag(help: "Print JSON (an array of WorkerStatus) on stdout.") var json = false

        func run() async throws {
            let workers = try await coordinator.perform { try await $0.workers() }
            print(
                json ? try ReportJSON.encode(workers) : workers.isEmpty ? "no workers" : StatusText.workerTable(workers)
            )
        }
    }

    /// Which control a `Control` subcommand sends.
    protocol Action { static var control: WorkerControl { get } }
    enum Drain: Action { static let control = WorkerControl.drain }
    enum Pause: Action { static let control = WorkerControl.pause }
    enum Resume: Action { static let control = WorkerControl.resume }

    struct Control<A: Action>: AsyncParsableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                commandName: A.control.rawValue,
                abstract: A.control == .resume
                    ? "Lease segments to a drained or paused worker again."
                    : A.control == .drain
                        ? "Give a worker nothing new; it finishes what it holds (before taking it away)."
                        : "Give a worker nothing new for now; it keeps what it holds.",
                discussion: """
                    The coordinator stops (or resumes) leasing to the worker itself; the worker is not told. \
                    The mode belongs to the worker id and outlasts a reconnect.

                    \(ExitStatus.farmHelpText)
                    """)
        }

        @OptionGroup var coordinator: CoordinatorOptions
        @Argument(help: "The worker's id (see `tessera workers`).") var id: String
        @Flag(help: "Print the worker's status as JSON on stdout.") var json = false

        func run() async throws {
            let status = try await coordinator.perform { try await $0.control(worker: id, A.control) }
            print(json ? try ReportJSON.encode(status) : "worker \(status.id): \(status.state.rawValue)")
        }
    }
}
