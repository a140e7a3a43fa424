import Foundation
import Synchronization
import TesseraAV
import TesseraCore

/// Which Vulkan device this machine has, asked without loading the driver into this process when it can.
///
/// A worker names its device in Hello, long before (and often without) running a kernel on it; loading
/// the driver for that keeps it resident for the process's life (lavapipe brings LLVM: about 58 MB on a
/// `tessera run` whose calibration memory chose the CPU path). With a command set (`use`; the `tessera`
/// CLI sets itself), the question is asked of a child process (`tessera vulkan-device`), whose memory
/// goes when it exits; without one, or when the child cannot be started, it is asked here. The answer is
/// kept for the process's life.
public enum VulkanDeviceProbe {
    /// The program to ask, with the arguments that make it print the device's name (or fail).
    public struct Command: Sendable {
        public var executable: URL
        public var arguments: [String]

        public init(executable: URL, arguments: [String]) {
            self.executable = executable
            self.arguments = arguments
        }
    }

    private static let state = Mutex<(command: Command?, answer: Result<String, MediaError>?)>((nil, nil))

    /// Sets the child process to ask (nil: ask in this process). Before the first `device()`.
    public static func use(_ command: Command?) { state.withLock { $0.command = command } }

    /// Seconds the child may take before it counts as no device (a driver that hangs).
    static let timeout = 30.0

    /// The device's name and type, as `VulkanProcessor.availableDevice()` gives it, or why there is none.
    public static func device() -> Result<String, MediaError> {
        // Held while the child runs: workers starting together wait for one answer instead of each asking.
        state.withLock { s in
            if let known = s.answer { return known }
            let answer = s.command.flatMap { ask($0) } ?? VulkanProcessor.availableDevice()
            s.answer = answer
            return answer
        }
    }

    /// Runs `command` and reads its one line: the device, on exit status 0; why there is none, otherwise
    /// (its standard error), or when it has not ended within `timeout` seconds (it is then killed); nil when
    /// it cannot be started at all.
    static func ask(_ command: Command, timeout: Double = timeout) -> Result<String, MediaError>? {
        let process = Process()
        process.executableURL = command.executable
        process.arguments = command.arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        do { try process.run() } catch { return nil }
        // It prints one line (and the driver's warnings, far under a pipe's 64 KB): read once it has ended,
        // so a child that hangs is given up on instead of read forever.
        guard ended.wait(timeout: .now() + timeout) == .success else {
            // SIGKILL: a driver stuck in its initialisation may not heed SIGTERM. Reaped by Process.
            kill(process.processIdentifier, SIGKILL)
            _ = ended.wait(timeout: .now() + 5)
            return .failure(MediaError(.device, "the Vulkan device probe did not end within \(timeout) s"))
        }
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        let text: (Data) -> String = { data in
            String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard process.terminationReason == .exit, process.terminationStatus == 0, !text(output).isEmpty else {
            let why = text(errors)
            return .failure(MediaError(.device, why.isEmpty ? "no Vulkan device" : why))
        }
        return .success(text(output))
    }
}
