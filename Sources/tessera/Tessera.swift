import ArgumentParser
import Foundation
import TesseraAV

/// The `tessera` command: one binary for transcoding, probing and (later) the farm's processes.
///
/// Synchronous on purpose: commands that run blocking libav* work do it on the main thread, never
/// on Swift's cooperative pool (one thread per core).
@main
struct Tessera: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tessera",
        abstract: "Frame-exact transcoding on FFmpeg's libraries.",
        discussion: ExitStatus.helpText + "\nSet TESSERA_FFMPEG_LOG=warning|info|debug to see FFmpeg's own log.",
        subcommands: [
            TranscodeCommand.self, ProbeCommand.self, PlanCommand.self, VerifyCommand.self, StitchCommand.self,
            PresetsCommand.self, RunCommand.self, CoordinatorCommand.self, WorkerCommand.self,
            KeysCommand.self, SubmitCommand.self, StatusCommand.self, WatchCommand.self,
            CancelCommand.self, WorkersCommand.self, FetchCommand.self,
        ])

    static func main() {
        FFmpegLog.configure(fromEnvironment: ProcessInfo.processInfo.environment["TESSERA_FFMPEG_LOG"])
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            exit(withError: error)
        }
    }
}
