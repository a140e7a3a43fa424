import ArgumentParser
import Foundation
import TesseraAV
import TesseraCompute

/// The `tessera` command: one binary for transcoding, probing and (later) the farm's processes.
///
/// Commands that only probe or check a file are synchronous and do their libav* work on the main
/// thread. Those that run for a while (transcode, run, coordinator, worker) and the HTTP clients are
/// async: their blocking work runs on dedicated threads (`Lifecycle`, `DedicatedThread`), never on
/// Swift's cooperative pool (one thread per core).
@main
struct Tessera: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tessera",
        abstract: "Frame-exact transcoding on FFmpeg's libraries.",
        discussion: ExitStatus.helpText + "\nSet TESSERA_FFMPEG_LOG=warning|info|debug to see FFmpeg's own log.",
        subcommands: [
            TranscodeCommand.self, ProbeCommand.self, PlanCommand.self, VerifyCommand.self, StitchCommand.self,
            PresetsCommand.self, RunCommand.self, CoordinatorCommand.self, WorkerCommand.self,
            KeysCommand.self, SubmitCommand.self, StatusCommand.self, WatchCommand.self,
            CancelCommand.self, WorkersCommand.self, FetchCommand.self, ThumbnailCommand.self, TopCommand.self,
            VulkanDeviceCommand.self,
        ])

    static func main() async {
        FFmpegLog.configure(fromEnvironment: ProcessInfo.processInfo.environment["TESSERA_FFMPEG_LOG"])
        // A worker's Hello names the Vulkan device: asked of a child, so the driver is not kept loaded here.
        VulkanDeviceProbe.use(VulkanDeviceCommand.probe)
        do {
            var command = try parseAsRoot()
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
