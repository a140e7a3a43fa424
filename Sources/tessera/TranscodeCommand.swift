import ArgumentParser
import Foundation
import TesseraAV
import TesseraCompute
import TesseraCore
import TesseraMedia

/// `tessera transcode SRC -o OUT`: one file to another on this machine.
struct TranscodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transcode",
        abstract: "Transcode a file with a preset or custom settings.",
        discussion: """
            Without --preset: H.264 CRF 23 at the source size with AAC 128 kb/s. Codec options override \
            the preset's. The output is written under a temporary name and renamed when complete; on any \
            error nothing is left at OUT.

            \(ExitStatus.helpText)
            """)

    @Argument(help: "The source media file (left out with --spec).") var source: String?
    @Option(
        help: ArgumentHelp(
            "A job spec instead of a source: JSON (several assets, edits, video composition, audio mix; "
                + "Protocols/composition.schema.json) or an OpenTimelineIO timeline (.otio).",
            valueName: "FILE"))
    var spec: String?
    @Option(
        name: .shortAndLong,
        help: "The output file, its extension picking the container (with --package: the package's folder).")
    var output: String
    @OptionGroup var job: JobOptions
    @OptionGroup(title: "Adaptive streaming") var streaming: PackageOptions
    @Option(help: "Segments transcoded at once with --segment-duration (the farm's path on this machine).")
    var parallel = 2
    @Flag(
        help: ArgumentHelp(
            "Verify the output (frames, timing, A/V, decodable) before putting it in place; "
                + "segmented transcodes always are.")) var verify = false
    @Flag(help: "Replace OUT if it exists.") var overwrite = false
    @Flag(help: "Print a JSON report on stdout when done.") var json = false
    @Flag(name: .shortAndLong, help: "No progress output.") var quiet = false

    func validate() throws {
        if parallel < 1 { throw ValidationError("--parallel must be at least 1") }
        try job.validate(source: source, spec: spec)
        if try streaming.request() != nil {
            if job.codec.target != nil {
                throw ValidationError("--package sets each rendition's rate: no --target-quality")
            }
        }
    }

    func run() async throws {
        let export = try makeExport()
        export.overwrite = overwrite
        export.backend = job.backend ?? .auto
        // Segmented: the video (each run of a composition's timeline) cut into segments made on --parallel
        // threads.
        export.segmentDuration = job.segmentDuration
        export.parallel = parallel
        export.targetQuality = job.codec.target
        export.deinterlace = job.codec.deinterlace
        export.hdr = job.codec.hdr
        export.package = try streaming.request()
        // Without --segment-duration the audio encode may use every core where ExportSession applies it: an
        // export with no video, and a package, whose audio is encoded beside its segments. With
        // --segment-duration the local segments have the cores.
        if job.segmentDuration == nil, let session = export as? ExportSession {
            session.audioThreads = ProcessInfo.processInfo.activeProcessorCount
        }
        let reporter = ProgressPrinter(enabled: !quiet)
        export.progressHandler = { reporter.show($0) }
        let report: ExportReport
        do {
            // SIGINT/SIGTERM cancel the export: nothing is left where the output goes.
            report = try await Lifecycle.runBlocking("tessera.export", { try export.export() }) { export.cancel() }
        } catch {
            reporter.finish()
            FileHandle.standardError.write(Data("tessera: \(error)\n".utf8))
            throw ExitCode(ExitStatus(error).rawValue)
        }
        reporter.finish()
        ReportWarnings.write(report)
        if json {
            print(try ReportJSON.encode(report))
        } else if !quiet {
            print(Self.summary(report))
        }
    }

    /// The source's export, or with `--spec FILE` a composition of the spec's assets (always verified
    /// before it is put in place).
    private func makeExport() throws -> any MediaExport {
        if let spec {
            do throws(SpecFile.LoadError) {
                let (loaded, paths) = try SpecFile.load(spec)
                var withSettings = loaded
                if loaded.settings == nil && loaded.preset == nil { withSettings.settings = job.settings }
                return CompositionExport(spec: withSettings, assetPaths: paths, outputPath: output)
            } catch {
                FileHandle.standardError.write(Data("tessera: \(error)\n".utf8))
                throw ExitCode(error.status.rawValue)
            }
        }
        guard let source else { throw ValidationError("give a source file or --spec FILE") }
        let session = ExportSession(sourcePath: source, outputPath: output, settings: job.settings)
        session.presetName = job.exportPreset?.rawValue
        session.timeRange = job.range
        session.verifyOutput = verify
        session.retiming = try job.retime.retiming()
        return session
    }

    static func summary(_ r: ExportReport) -> String {
        if let p = r.package {
            let rungs = p.video.map {
                "\($0.name) \($0.codecs) \($0.averageBitRate / 1000) kb/s (peak \($0.peakBitRate / 1000)"
                    + ($0.psnr.map { String(format: ", %.2f dB", $0) } ?? "") + ")"
            }
            return
                "wrote \(r.output)/{\(p.manifests.joined(separator: ","))}, \(p.video.first?.segments ?? 0) segments of "
                + "\(p.segmentDuration)s: " + rungs.joined(separator: ", ")
                + (p.audio.isEmpty
                    ? "" : ", audio " + p.audio.map { "\($0.name) \($0.codecs)" }.joined(separator: ", "))
                + String(format: "; %.2fs", r.wallSeconds)
        }
        var parts = ["wrote \(r.output)", String(format: "%.3fs", r.duration.seconds)]
        if let v = r.video { parts.append("\(v.codec) \(v.width)x\(v.height) \(v.frames) frames") }
        if let a = r.audio {
            let more =
                r.audioTracks.count > 1
                ? " (+\(r.audioTracks.count - 1) more audio track\(r.audioTracks.count > 2 ? "s" : ""))" : ""
            parts.append("\(a.codec) \(a.sampleRate) Hz \(a.channels) ch\(more)")
        }
        if !r.subtitleTracks.isEmpty {
            parts.append("\(r.subtitleTracks.count) subtitle track\(r.subtitleTracks.count > 1 ? "s" : "")")
        }
        if r.chapters > 0 { parts.append("\(r.chapters) chapter\(r.chapters > 1 ? "s" : "")") }
        parts.append(String(format: "%.1f fps, %.2fs", r.framesPerSecond, r.wallSeconds))
        return parts.joined(separator: ", ") + (r.quality.map { "\nquality: " + $0.summary } ?? "")
    }
}

extension ProcessingBackend: ExpressibleByArgument {}

extension VerificationLevel: ExpressibleByArgument {
    static let help = ArgumentHelp(
        "How the stitched video is proven: decode or timing.",
        discussion: "decode (default): every segment is decoded where it was encoded, so the file is known to "
            + "decode end to end. timing: packets and timestamps only, the video is not decoded (about 6 % less "
            + "CPU on the H.264 1080p → 720p benchmark).")
}
