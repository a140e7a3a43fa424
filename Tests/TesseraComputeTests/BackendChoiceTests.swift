import TesseraAV
import TesseraCompute
import TesseraCore
import Testing

struct BackendChoiceTests {
    let spec = ProcessingSpec(outputWidth: 320, outputHeight: 180, outputFormat: .yuv420p)

    @Test("cpu is always available")
    func cpu() throws {
        let selection = try selectFrameProcessor(backend: .cpu, spec: spec, calibrationFrame: nil)
        #expect(selection.processor.kind == .swscale)
        #expect(selection.choice.chosen == .cpu)
    }

    @Test(
        "vulkan when asked, on the device found",
        .enabled(if: VulkanAvailability.isAvailable, VulkanAvailability.reason))
    func vulkan() throws {
        let selection = try selectFrameProcessor(backend: .vulkan, spec: spec, calibrationFrame: nil)
        #expect(selection.processor.kind == .vulkan)
        #expect(selection.choice.vulkanDevice != nil)
    }

    @Test("auto times both on the calibration frame and keeps the faster, saying why")
    func auto() throws {
        let frame = try TestPicture.pattern(.yuv420p, width: 640, height: 360).makeFrame()
        let selection = try selectFrameProcessor(backend: .auto, spec: spec, calibrationFrame: frame)
        let choice = selection.choice
        #expect(!choice.reason.isEmpty)
        #expect(selection.processor.kind == (choice.chosen == .vulkan ? .vulkan : .swscale))
        if VulkanAvailability.isAvailable {
            let rates = choice.framesPerSecond
            #expect(rates.count == 2, "\(choice)")
            if let v = rates["vulkan"], let c = rates["cpu"] { #expect((v >= c) == (choice.chosen == .vulkan)) }
        } else {
            #expect(choice.chosen == .cpu && choice.reason.contains("no Vulkan device"))
        }
        // The chosen processor still does the job.
        let out = try selection.processor.process(frame)
        #expect(out.width == 320 && out.height == 180)
    }

    @Test("every backend name round-trips for the CLI", arguments: ProcessingBackend.allCases)
    func names(_ backend: ProcessingBackend) {
        #expect(ProcessingBackend(rawValue: backend.rawValue) == backend)
    }
}
