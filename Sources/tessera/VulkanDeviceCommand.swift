import ArgumentParser
import Foundation
import TesseraCompute

/// `tessera vulkan-device` (hidden): prints the Vulkan device this machine would run the kernels on, or
/// why there is none (exit status 1). A worker asks it in a child process (`VulkanDeviceProbe`), so the
/// driver is loaded there and not kept resident in the worker.
struct VulkanDeviceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vulkan-device", abstract: "Print the Vulkan device the kernels would run on.",
        shouldDisplay: false)

    /// This executable, asked with this command.
    static var probe: VulkanDeviceProbe.Command {
        .init(
            executable: URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath(),
            arguments: [configuration.commandName ?? "vulkan-device"])
    }

    func run() throws {
        switch VulkanProcessor.availableDevice() {
        case .success(let name):
            print(name)
        case .failure(let error):
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
