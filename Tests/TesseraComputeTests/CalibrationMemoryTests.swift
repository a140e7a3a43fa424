import Foundation
import TesseraAV
import TesseraCompute
import TesseraCore
import Testing

/// `auto` remembers what it measured per machine and conversion, and uses it instead of timing again.
struct CalibrationMemoryTests {
    let spec = ProcessingSpec(outputWidth: 320, outputHeight: 180, outputFormat: .yuv420p)

    func temporaryFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("tessera-calibration-\(UUID().uuidString)")
            .appendingPathComponent("calibration.json")
    }

    func choice(_ chosen: ProcessingBackend, _ reason: String) -> BackendChoice {
        BackendChoice(
            requested: .auto, chosen: chosen, reason: reason, vulkanDevice: "test device",
            framesPerSecond: ["vulkan": 1, "cpu": 2])
    }

    @Test("a remembered choice comes back for the same conversion only, saying it was remembered")
    func rememberAndRecall() throws {
        let file = temporaryFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let memory = CalibrationMemory(file: file)
        let frame = try TestPicture.pattern(.yuv420p, width: 640, height: 360).makeFrame()
        #expect(memory.recall(spec: spec, frame: frame) == nil)
        memory.remember(choice(.cpu, "measured"), spec: spec, frame: frame)

        let again = CalibrationMemory(file: file)  // a later process reading the same file
        let recalled = try #require(again.recall(spec: spec, frame: frame))
        #expect(recalled.chosen == .cpu && recalled.reason.hasPrefix("measured; remembered from"))
        #expect(recalled.framesPerSecond == ["vulkan": 1, "cpu": 2])

        // Another output size, another input size or another input format: not the same conversion.
        var other = spec
        other.outputWidth = 640
        #expect(again.recall(spec: other, frame: frame) == nil)
        let bigger = try TestPicture.pattern(.yuv420p, width: 1280, height: 720).makeFrame()
        #expect(again.recall(spec: spec, frame: bigger) == nil)
        let tenBit = try TestPicture.pattern(.yuv420p10le, width: 640, height: 360).makeFrame()
        #expect(again.recall(spec: spec, frame: tenBit) == nil)
    }

    @Test("entries expire, and a damaged file counts as empty and is rewritten")
    func expiryAndDamage() throws {
        let file = temporaryFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let frame = try TestPicture.pattern(.yuv420p, width: 640, height: 360).makeFrame()
        let memory = CalibrationMemory(file: file, lifetime: 60)
        let then = Date(timeIntervalSince1970: 1_800_000_000)
        memory.remember(choice(.vulkan, "old"), spec: spec, frame: frame, now: then)
        #expect(memory.recall(spec: spec, frame: frame, now: then.addingTimeInterval(30)) != nil)
        #expect(memory.recall(spec: spec, frame: frame, now: then.addingTimeInterval(61)) == nil)
        #expect(memory.recall(spec: spec, frame: frame, now: then.addingTimeInterval(-10)) == nil, "from the future")

        try Data("{ not json".utf8).write(to: file)
        #expect(memory.recall(spec: spec, frame: frame) == nil)
        memory.remember(choice(.cpu, "fresh"), spec: spec, frame: frame)
        #expect(memory.recall(spec: spec, frame: frame)?.chosen == .cpu)
    }

    @Test("where the memory lives: TESSERA_CALIBRATION_CACHE, then XDG_CACHE_HOME, then HOME; off disables it")
    func standardLocation() {
        #expect(CalibrationMemory.standard(environment: ["TESSERA_CALIBRATION_CACHE": "off", "HOME": "/h"]) == nil)
        #expect(
            CalibrationMemory.standard(environment: ["TESSERA_CALIBRATION_CACHE": "/c/x.json"])?.file.path
                == "/c/x.json")
        #expect(
            CalibrationMemory.standard(environment: ["XDG_CACHE_HOME": "/x", "HOME": "/h"])?.file.path
                == "/x/tessera/calibration.json")
        #expect(
            CalibrationMemory.standard(environment: ["HOME": "/h"])?.file.path == "/h/.cache/tessera/calibration.json")
        #expect(CalibrationMemory.standard(environment: [:]) == nil)
    }

    @Test("auto measures once, stores it, and the next selection recalls it without timing")
    func autoUsesTheMemory() throws {
        let file = temporaryFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let memory = CalibrationMemory(file: file)
        let frame = try TestPicture.pattern(.yuv420p, width: 640, height: 360).makeFrame()
        let first = try selectFrameProcessor(backend: .auto, spec: spec, calibrationFrame: frame, memory: memory)
        #expect(!first.choice.reason.contains("remembered"))
        if VulkanAvailability.isAvailable {
            // Both were timed: the result is stored and the next selection takes it.
            #expect(FileManager.default.fileExists(atPath: file.path))
            let second = try selectFrameProcessor(backend: .auto, spec: spec, calibrationFrame: frame, memory: memory)
            #expect(second.choice.chosen == first.choice.chosen)
            #expect(second.choice.reason.contains("remembered"), "\(second.choice)")
            #expect(second.processor.kind == (first.choice.chosen == .vulkan ? .vulkan : .swscale))
        }
        // A stored CPU choice is taken as is: the CPU path, no timing.
        memory.remember(choice(.cpu, "seeded"), spec: spec, frame: frame)
        let seeded = try selectFrameProcessor(backend: .auto, spec: spec, calibrationFrame: frame, memory: memory)
        #expect(seeded.processor.kind == .swscale)
        #expect(seeded.choice.reason.hasPrefix("seeded; remembered"))
        let out = try seeded.processor.process(frame)
        #expect(out.width == 320 && out.height == 180)
        // Explicit backends never consult it.
        let cpu = try selectFrameProcessor(backend: .cpu, spec: spec, calibrationFrame: frame, memory: memory)
        #expect(cpu.choice.reason == "requested")
    }
}
