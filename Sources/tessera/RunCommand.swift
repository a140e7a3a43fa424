import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import TesseraCoordinator
import TesseraCore
import TesseraFarm
import TesseraMedia

/// `tessera run`: the farm on one machine — a coordinator and N workers in this process, speaking the
/// same ZeroMQ protocol over loopback as a real farm does across machines.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Transcode a file on a farm of local workers (coordinator + workers in one process).",
        discussion: """
            Cuts the video into segments at keyframes, has --workers local workers transcode them through \
            the farm's protocol, stitches them, verifies the timing and puts the file in place. Options as \
            for `tessera transcode`. The job's state lives in a temporary folder removed at the end.
            """ + "\n" + ExitStatus.helpText)

    @Argument(help: "The source file (left out with --spec).") var source: String?
    @Option(
        help: ArgumentHelp(
            "A job spec instead of a source: JSON or OpenTimelineIO (.otio), as for `tessera transcode`; each run "
                + "of its timeline is cut into segments for the workers.",
            valueName: "file"))
    var spec: String?
    @Option(name: .shortAndLong, help: "The output file; its extension picks the container.") var output: String
    @OptionGroup var job: JobOptions
    @Option(help: "Local workers (default: one per core).") var workers: Int = ProcessInfo.processInfo
        .activeProcessorCount
    @Option(help: VerificationLevel.help) var verification = VerificationLevel.decode
    @Flag(help: "Replace OUT if it exists.") var overwrite = false
    @Option(
        help: ArgumentHelp(
            "Also serve the HTTP API and the live dashboard on HOST:PORT while the job runs (port 0 picks one; "
                + "no token, so keep it on loopback).", valueName: "host:port"))
    var http: String?
    @OptionGroup(title: "Adaptive streaming") var streaming: PackageOptions
    @Flag(help: "Print a JSON report on stdout when done.") var json = false
    @Flag(name: .shortAndLong, help: "No progress output.") var quiet = false

    func validate() throws {
        guard (1...64).contains(workers) else { throw ValidationError("--workers must be 1…64") }
        if let http, CoordinatorCommand.hostPort(http) == nil {
            throw ValidationError("--http must be HOST:PORT, e.g. 127.0.0.1:0")
        }
        try job.validate(source: source, spec: spec)
        _ = try streaming.request()
    }

    func run() async throws {
        if ProcessInfo.processInfo.environment["TESSERA_LOG_LEVEL"] == nil { setenv("TESSERA_LOG_LEVEL", "warning", 1) }
        LoggingSetup.bootstrap()
        let outputURL = URL(fileURLWithPath: output).standardizedFileURL
        var composition: CompositionSpec?
        if let spec {
            // The spec is checked against its assets here, as `tessera transcode --spec` does, before the farm
            // starts; the coordinator checks it again at submission.
            do throws(SpecFile.LoadError) {
                var (loaded, paths) = try SpecFile.load(spec)
                for i in loaded.assets.indices { loaded.assets[i].path = paths[i] }
                composition = loaded
            } catch {
                FileHandle.standardError.write(Data("tessera: \(error)\n".utf8))
                throw ExitCode(error.status.rawValue)
            }
        }
        let sourceURL = URL(fileURLWithPath: source ?? composition?.assets.first?.path ?? "").standardizedFileURL
        // Opened and checked as the coordinator checks a submission (`JobPreflight`), naming the options,
        // before the farm starts: a missing, empty or broken source fails here with transcode's errors.
        let duration: Double
        do {
            let input: JobPreflight.Input
            if var checked = composition {
                if checked.settings == nil && checked.preset == nil { checked.settings = job.settings }
                input = .composition(checked, output: outputURL.path, hdr: job.codec.hdr)
            } else {
                let settings = job.settings
                input = .source(
                    path: sourceURL.path, range: job.range, retiming: try job.retime.retiming(),
                    audioTracks: settings.audio != nil ? settings.audioTracks : nil)
            }
            duration = try JobPreflight.check(input, naming: .flags, segmentDuration: job.segmentDuration ?? 4)
                .duration.seconds
        } catch let failure as JobPreflight.Failure {
            switch failure {
            case .media(let error):
                FileHandle.standardError.write(Data("tessera: \(error)\n".utf8))
                throw ExitCode(ExitStatus(error).rawValue)
            case .noVideo(let path):
                // The farm cuts video into segments; a file without any is unusable input here (65), not a bad
                // argument, and `transcode` makes it in one pass.
                FileHandle.standardError.write(
                    Data("tessera: \(path) has no video track; `tessera transcode` makes audio-only files\n".utf8))
                throw ExitCode(ExitStatus.dataError.rawValue)
            case .request(let error):
                FileHandle.standardError.write(Data("tessera: \(error)\n".utf8))
                throw ExitCode(ExitStatus.usage.rawValue)
            }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            FileHandle.standardError.write(Data("tessera: \(error)\n".utf8))
            throw ExitCode(ExitStatus(error).rawValue)
        }
        let data = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tessera-run-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: data) }
        var coordinator = CoordinatorConfiguration(
            listen: "tcp://127.0.0.1:*", dataDirectory: data,
            mediaRoots: composition.map { spec in
                Array(Set(spec.assets.map { URL(fileURLWithPath: $0.path).deletingLastPathComponent().path }))
                    .sorted().map { URL(fileURLWithPath: $0) }
            } ?? [sourceURL.deletingLastPathComponent()],
            outputRoot: outputURL.deletingLastPathComponent())
        coordinator.segmentDuration = job.segmentDuration ?? 4
        var config = LocalFarm.Configuration(workers: workers, coordinator: coordinator)
        // The cores shared among the workers. Giving each worker every core was measured too: no better
        // in wall time against ffmpeg (1.096× vs 1.089×), 6 % more CPU and 40 % more memory.
        config.threadsPerWorker = max(1, ProcessInfo.processInfo.activeProcessorCount / workers)
        config.backend = job.backend ?? .auto
        let farm = try LocalFarm(configuration: config)
        try farm.start()
        defer { farm.stop() }

        let request = JobRequest(
            source: composition == nil ? sourceURL.path : nil, output: outputURL.lastPathComponent,
            preset: job.exportPreset?.rawValue,
            settings: job.settings, timeRange: job.range,
            segmentDuration: job.segmentDuration ?? 4, backend: job.backend ?? .auto, parallelism: workers,
            overwrite: overwrite, verification: verification, retiming: job.retime.request, spec: composition,
            targetQuality: job.codec.target, deinterlace: job.codec.deinterlace, hdr: job.codec.hdr,
            package: try streaming.request())
        let submitted: JobStatus
        do { submitted = try await farm.submit(request) } catch {
            FileHandle.standardError.write(Data("tessera: \(error.message)\n".utf8))
            throw ExitCode(error.kind == .conflict ? ExitStatus.cantCreate.rawValue : ExitStatus.usage.rawValue)
        }
        let reporter = ProgressPrinter(enabled: !quiet)
        let started = Date()
        // The farm and a watcher of the job, in one group: the job's end ends the watcher, which shuts the
        // farm down; SIGINT/SIGTERM cancel the job first (nothing is written), and the watcher then sees
        // it end the same way.
        let watcher = JobWatchService(farm: farm, id: submitted.id) { status in
            let fraction = status.framesTotal > 0 ? Double(status.framesDone) / Double(status.framesTotal) : 0
            reporter.show(
                ExportProgress(
                    frames: status.framesDone, seconds: fraction * duration, totalSeconds: duration,
                    elapsedSeconds: Date().timeIntervalSince(started)))
        }
        // With --http, the farm's API and dashboard run beside it (`FarmServer`), stopped before it.
        var served: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let http, let (host, port) = CoordinatorCommand.hostPort(http) {
            served =
                FarmServer(coordinator: farm.coordinator, token: nil, host: host, port: port) { bound in
                    FileHandle.standardError.write(Data("tessera: dashboard on http://\(host):\(bound)/\n".utf8))
                }.httpServices
        }
        try await Lifecycle.run(
            [.init(service: farm)] + served
                + [.init(service: watcher, successTerminationBehavior: .gracefullyShutdownGroup)])
        let status = watcher.last.withLockedValue { $0 } ?? submitted
        reporter.finish()
        switch status.state {
        case .completed:
            let report = farm.coordinator.report(of: status.id)
            let decoded = report.flatMap { try? JSONDecoder().decode(ExportReport.self, from: Data($0.utf8)) }
            if let decoded { ReportWarnings.write(decoded) }
            if json, let report {
                print(report)
            } else if !quiet, let decoded, decoded.package != nil {
                // A package's rungs, rates and quality, as transcode prints them.
                print(TranscodeCommand.summary(decoded))
            } else if !quiet {
                print(
                    String(
                        format: "wrote %@, %d frames in %d segments, %.1f fps, %.2fs", outputURL.path,
                        status.framesTotal, status.segmentsTotal,
                        Double(status.framesTotal) / max(0.001, Date().timeIntervalSince(started)),
                        Date().timeIntervalSince(started))
                        + (decoded?.quality.map { "\nquality: " + $0.summary } ?? ""))
            }
        case .cancelled:
            FileHandle.standardError.write(Data("tessera: cancelled, nothing written\n".utf8))
            throw ExitCode(ExitStatus.interrupted.rawValue)
        default:
            FileHandle.standardError.write(Data("tessera: \(status.error ?? "the job failed")\n".utf8))
            throw ExitCode(ExitStatus.software.rawValue)
        }
    }
}
