import ArgumentParser

/// `tessera status [JOB]`: one job in detail, or every job as a table.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show a job, or list the coordinator's jobs.",
        discussion: """
            Without JOB: a table of jobs, newest first (id, state, progress, frames/s, segments done/total, \
            age, error). With JOB: that job in detail.

            \(ExitStatus.farmHelpText)
            """)

    @Argument(help: "A job id; leave out to list every job.") var job: String?
    @OptionGroup var coordinator: CoordinatorOptions
    @Flag(help: "Print JSON (a JobStatus, or an array of them) on stdout.") var json = false
    @Option(help: "List at most this many jobs, newest first (1–1000); leave out for every job.") var limit: Int?

    func run() async throws {
        if let id = job {
            let status = try await coordinator.perform { try await $0.job(id) }
            print(json ? try ReportJSON.encode(status) : StatusText.jobDetail(status))
        } else {
            let limit = self.limit
            let jobs = try await coordinator.perform { client in
                if let limit { try await client.jobs(limit: limit) } else { try await client.jobs() }
            }
            print(json ? try ReportJSON.encode(jobs) : jobs.isEmpty ? "no jobs" : StatusText.jobTable(jobs))
        }
    }
}
