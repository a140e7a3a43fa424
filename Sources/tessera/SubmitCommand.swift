import ArgumentParser
import Foundation
import TesseraCompute
import TesseraCore

/// `tessera submit SRC` (or `--spec FILE`): queues a transcode or a composition on the farm's coordinator.
struct SubmitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "submit",
        abstract: "Queue a transcode on the farm's coordinator.",
        discussion: """
            SRC is a path the coordinator can read (made absolute here; it must lie under one of the \
            coordinator's media roots), or with --upload a local file sent to the coordinator first. OUT is \
            relative to the coordinator's output root, not to this directory; leave it out to keep the \
            result on the coordinator for `tessera fetch`. Without --preset and codec options the \
            coordinator's default applies (H.264 CRF 23, AAC 128 kb/s). Prints the job id (or its JSON \
            status with --json); with --wait, follows the job like `tessera watch`.

            \(ExitStatus.farmHelpText)
            """)

    @Argument(help: "The source media file (left out with --spec).") var source: String?
    @Option(
        help: ArgumentHelp(
            "A job spec instead of a source: JSON or OpenTimelineIO (.otio), as for `tessera transcode`.",
            discussion:
                "Its asset paths are made absolute here (relative ones from the spec's folder) and must lie under "
                + "the coordinator's media roots.",
            valueName: "file"))
    var spec: String?
    @Option(
        name: .shortAndLong,
        help: ArgumentHelp(
            "The output path, relative to the coordinator's output root.",
            valueName: "out"))
    var output: String?
    @OptionGroup var job: JobOptions
    @OptionGroup(title: "Adaptive streaming") var streaming: PackageOptions
    @Option(
        help: ArgumentHelp(
            "Segments expected to run at once: the last ones are cut so they finish together.",
            discussion: "Default: the workers connected when the job is submitted."))
    var parallel: Int?
    /// The spelling before `--parallel` was settled on for every command.
    @Option(name: .customLong("parallelism"), help: .hidden) var parallelismAlias: Int?
    @Option(help: "Higher runs first; equal priorities share the workers.") var priority = 0
    @Option(help: VerificationLevel.help) var verification = VerificationLevel.decode
    @Flag(help: "Replace OUT on the coordinator if it exists.") var overwrite = false
    @Flag(help: "Send SRC from this machine to the coordinator first (for a coordinator that cannot read it).")
    var upload = false
    @Flag(help: "Follow the job until it ends, like `tessera watch`.") var wait = false
    @Flag(help: "Print the job's JSON status on stdout instead of its id.") var json = false
    @Flag(name: .shortAndLong, help: "No progress output with --wait.") var quiet = false
    @OptionGroup var coordinator: CoordinatorOptions

    func validate() throws {
        if parallel != nil && parallelismAlias != nil { throw ValidationError("give --parallel once") }
        if let p = parallelism, !(1...4096).contains(p) { throw ValidationError("--parallel must be 1…4096") }
        try job.validate(source: source, spec: spec, refused: [(upload, "--upload")])
        _ = try streaming.request()
    }

    func run() async throws {
        var request = try jobRequest()
        if let spec {
            do throws(SpecFile.LoadError) {
                var (composition, paths) = try SpecFile.load(spec)
                for i in composition.assets.indices { composition.assets[i].path = paths[i] }
                request.spec = composition
            } catch {
                FileHandle.standardError.write(Data("tessera: \(error)\n".utf8))
                throw ExitCode(error.status.rawValue)
            }
        }
        let file = URL(fileURLWithPath: source ?? "").standardizedFileURL
        let upload = self.upload
        let prepared = request
        let job = try await coordinator.perform { client in
            var request = prepared
            if upload { request.uploadID = try await client.upload(file: file) }
            return try await client.submit(request)
        }
        guard wait else {
            print(json ? try ReportJSON.encode(job) : job.id)
            return
        }
        if !json { print(job.id) }
        let printer = ProgressPrinter(enabled: !quiet)
        let final = try await coordinator.perform { client in
            try await JobWatcher.watch(job.id, client: client, printer: printer)
        }
        let status = try JobWatcher.conclude(final, json: json)
        if status != .success { throw ExitCode(status.rawValue) }
    }

    var parallelism: Int? { parallel ?? parallelismAlias }

    /// The request without the upload id; custom settings are sent only when codec options change
    /// the preset's (or the default) settings.
    func jobRequest() throws -> JobRequest {
        let base = job.exportPreset
        let settings = job.settings
        return JobRequest(
            source: upload ? nil : source.map { URL(fileURLWithPath: $0).standardizedFileURL.path },
            output: output, preset: base?.rawValue,
            settings: settings == (base?.settings ?? OutputSettings.standard) ? nil : settings,
            timeRange: job.range, segmentDuration: job.segmentDuration,
            backend: job.backend, parallelism: parallelism, priority: priority, overwrite: overwrite,
            verification: verification, retiming: job.retime.request, targetQuality: job.codec.target,
            deinterlace: job.codec.deinterlace == .auto ? nil : job.codec.deinterlace,
            hdr: job.codec.hdr == .auto ? nil : job.codec.hdr, package: try streaming.request())
    }
}
