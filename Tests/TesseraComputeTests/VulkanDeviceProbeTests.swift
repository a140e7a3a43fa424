import Foundation
import TesseraAV
import TesseraTestSupport
import Testing

@testable import TesseraCompute

/// The Vulkan device asked of a child process (`VulkanDeviceProbe`), as a worker's Hello asks it.
@Suite("Vulkan device probe")
struct VulkanDeviceProbeTests {
    static func shell(_ script: String) -> VulkanDeviceProbe.Command {
        .init(executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", script])
    }

    static func why(_ result: Result<String, MediaError>?) -> String? {
        if case .failure(let error) = result { return error.description }
        return nil
    }

    @Test("the child's one line is the device; its standard error says why there is none")
    func answers() {
        #expect((try? VulkanDeviceProbe.ask(Self.shell("echo 'GPU X (discrete)'"))?.get()) == "GPU X (discrete)")
        #expect(
            Self.why(VulkanDeviceProbe.ask(Self.shell("echo 'no ICD found' >&2; exit 1")))?.contains("no ICD found")
                == true)
        // A device printed by a child that then failed is not believed; nor an empty answer.
        #expect(Self.why(VulkanDeviceProbe.ask(Self.shell("echo 'GPU X'; exit 3"))) != nil)
        #expect(Self.why(VulkanDeviceProbe.ask(Self.shell("exit 0"))) == "no Vulkan device")
        // Killed by a signal.
        #expect(Self.why(VulkanDeviceProbe.ask(Self.shell("echo 'GPU X'; kill -9 $$"))) != nil)
        // One that cannot be started at all: no answer (the caller then asks in its own process).
        let missing = VulkanDeviceProbe.Command(executable: URL(fileURLWithPath: "/nonexistent/tessera"), arguments: [])
        #expect(VulkanDeviceProbe.ask(missing) == nil)
    }

    @Test("a child that hangs is given up on and stopped")
    func hangs() throws {
        let pidFile = FileManager.default.temporaryDirectory.appendingPathComponent("probe-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: pidFile) }
        let result = VulkanDeviceProbe.ask(Self.shell("echo $$ > \(pidFile.path); exec sleep 60"), timeout: 1)
        #expect(Self.why(result)?.contains("did not end") == true)
        let pid = try #require(
            Int32(String(contentsOf: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        // Terminated: gone (or a zombie about to be reaped) within a few seconds.
        var alive = true
        for _ in 0..<50 where alive {
            let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.split(separator: " ")
                .dropFirst(2).first
            alive = state != nil && state != "Z"
            if alive { usleep(100_000) }
        }
        #expect(!alive)
    }

    @Test("tessera vulkan-device names the device this process would open")
    func theRealChild() {
        let child = VulkanDeviceProbe.ask(.init(executable: TestMedia.tesseraBinary, arguments: ["vulkan-device"]))
        switch (child ?? .failure(MediaError(.device, "the child did not start")), VulkanProcessor.availableDevice()) {
        case (.success(let there), .success(let here)):
            #expect(there == here)
        case (.failure, .failure):
            break
        case (let there, let here):
            Issue.record("the child says \(there), this process \(here)")
        }
    }
}
