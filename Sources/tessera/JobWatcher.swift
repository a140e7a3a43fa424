import Foundation
import TesseraClient
import TesseraCore

/// Follows a job until it ends, for `tessera watch` and `tessera submit --wait`.
enum JobWatcher {
    /// Polling interval: twice a second.
    static let interval = Duration.milliseconds(500)
    /// After the first answer, how long the coordinator may stay unreachable (a restart) before giving up.
    static let patience: Double = 10

    /// Polls the job, showing progress, until it reaches a terminal state; answers that last status.
    ///
    /// - Throws: `ClientError` when the first poll fails, or when polls keep failing for `patience`
    ///   seconds; `CancellationError` when the task is cancelled.
    static func watch(_ id: String, client: CoordinatorClient, printer: ProgressPrinter) async throws -> JobStatus {
        var job = try await client.job(id)
        var failingSince: Date?
        while !job.state.isTerminal {
            show(job, printer)
            try await Task.sleep(for: interval)
            do {
                job = try await client.job(id)
                failingSince = nil
            } catch let error as ClientError where error.kind == .unreachable {
                let since = failingSince ?? Date()
                failingSince = since
                if Date().timeIntervalSince(since) > patience { throw error }
            }
        }
        show(job, printer)
        printer.finish()
        return job
    }

    static func show(_ job: JobStatus, _ printer: ProgressPrinter) {
        let fraction = StatusText.fraction(job)
        let eta = job.etaSeconds.map { ProgressPrinter.clock($0) } ?? "--:--"
        printer.draw(
            fraction: fraction,
            detail: String(
                format: "%@  %d/%d segments  %6.1f fps  ETA %@ ",
                job.state.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0), job.segmentsDone,
                job.segmentsTotal, job.framesPerSecond, eta),
            line: String(
                format: "job %@ %@ %.1f%% segments=%d/%d frames=%d/%d fps=%.1f eta=%@", job.id,
                job.state.rawValue, fraction * 100, job.segmentsDone, job.segmentsTotal, job.framesDone,
                job.framesTotal, job.framesPerSecond, eta))
    }

    /// Prints how the job ended (its JSON status on stdout with `json`) and answers the exit code:
    /// 0 completed, 70 failed, 130 cancelled.
    static func conclude(_ job: JobStatus, json: Bool) throws -> ExitStatus {
        if json { print(try ReportJSON.encode(job)) }
        switch job.state {
        case .completed:
            if !json { print("\(job.id) completed: \(job.output)") }
            return .success
        case .cancelled:
            FileHandle.standardError.write(Data("tessera: job \(job.id) was cancelled\n".utf8))
            return .interrupted
        default:
            let reason = job.error ?? "no reason given"
            FileHandle.standardError.write(Data("tessera: job \(job.id) failed: \(reason)\n".utf8))
            return .software
        }
    }
}
