import Foundation
import TesseraAV
import TesseraCore

/// What `selectFrameProcessor` chose and why, for logs and a worker's capability report.
public struct BackendChoice: Sendable, Hashable, Codable, CustomStringConvertible {
    public var requested: ProcessingBackend
    /// `.vulkan` or `.cpu`: what actually runs.
    public var chosen: ProcessingBackend
    /// E.g. "vulkan 412.0 frames/s vs cpu 180.3 frames/s on the calibration frame".
    public var reason: String
    /// The Vulkan device when one exists ("llvmpipe (LLVM 15.0.6, 256 bits) (CPU)").
    public var vulkanDevice: String?
    /// Measured frames per second per backend (auto with a calibration frame only).
    public var framesPerSecond: [String: Double]

    public init(
        requested: ProcessingBackend, chosen: ProcessingBackend, reason: String, vulkanDevice: String?,
        framesPerSecond: [String: Double]
    ) {
        self.requested = requested
        self.chosen = chosen
        self.reason = reason
        self.vulkanDevice = vulkanDevice
        self.framesPerSecond = framesPerSecond
    }

    public var description: String { "\(chosen.rawValue) (requested \(requested.rawValue)): \(reason)" }
}

/// A processor together with the choice that made it.
public struct ProcessorSelection {
    public var processor: any FrameProcessor
    public var choice: BackendChoice
}

/// Builds the processor for a job.
///
/// - Parameters:
///   - calibrationFrame: a decoded frame of the job (its real size, format and colour); `auto` times both
///     backends on it. Without one, `auto` takes Vulkan only on a real GPU.
///   - memory: where `auto` looks up a choice already measured for this conversion on this machine, and
///     stores the one it measures (nil: always calibrate).
/// - Throws: `MediaError.unsupported` when `vulkan` is asked for and there is no device or the job is
///   one its kernels cannot do, or when no backend can do the job; what the chosen backend's initialiser
///   throws otherwise.
public func makeFrameProcessor(
    backend: ProcessingBackend, spec: ProcessingSpec, calibrationFrame: Frame?,
    memory: CalibrationMemory? = nil
) throws(MediaError) -> any FrameProcessor {
    try selectFrameProcessor(backend: backend, spec: spec, calibrationFrame: calibrationFrame, memory: memory).processor
}

/// `makeFrameProcessor`, also returning the choice and its reason.
public func selectFrameProcessor(
    backend: ProcessingBackend, spec: ProcessingSpec, calibrationFrame: Frame?,
    memory: CalibrationMemory? = nil
) throws(MediaError) -> ProcessorSelection {
    if backend == .cpu {
        // Not even a device query: it loads the Vulkan driver (lavapipe brings LLVM, ~60 MB) for nothing.
        return ProcessorSelection(
            processor: try CPUProcessor(spec: spec),
            choice: BackendChoice(
                requested: .cpu, chosen: .cpu, reason: "requested", vulkanDevice: nil, framesPerSecond: [:]))
    }
    if backend == .auto, let frame = calibrationFrame, var remembered = memory?.recall(spec: spec, frame: frame) {
        remembered.requested = .auto
        // A remembered CPU choice never loads the Vulkan driver; a remembered Vulkan one that no longer
        // builds falls through to a fresh calibration.
        if remembered.chosen == .cpu {
            return ProcessorSelection(processor: try CPUProcessor(spec: spec), choice: remembered)
        }
        if let gpu = try? VulkanProcessor(spec: spec) { return ProcessorSelection(processor: gpu, choice: remembered) }
    }
    let device = VulkanProcessor.availableDevice()
    let deviceName = try? device.get()
    func choice(_ chosen: ProcessingBackend, _ reason: String, _ fps: [String: Double] = [:]) -> BackendChoice {
        BackendChoice(
            requested: backend, chosen: chosen, reason: reason, vulkanDevice: deviceName, framesPerSecond: fps)
    }
    switch backend {
    case .cpu:
        return ProcessorSelection(processor: try CPUProcessor(spec: spec), choice: choice(.cpu, "requested"))
    case .vulkan:
        if case .failure(let error) = device { throw error }
        return ProcessorSelection(processor: try VulkanProcessor(spec: spec), choice: choice(.vulkan, "requested"))
    case .auto:
        break
    }

    guard case .success(let name) = device else {
        let why: String
        if case .failure(let error) = device { why = error.description } else { why = "" }
        return ProcessorSelection(
            processor: try CPUProcessor(spec: spec),
            choice: choice(.cpu, "no Vulkan device: \(why)"))
    }
    let gpu: VulkanProcessor
    do throws(MediaError) { gpu = try VulkanProcessor(spec: spec) } catch {
        return ProcessorSelection(
            processor: try CPUProcessor(spec: spec),
            choice: choice(.cpu, "the Vulkan kernels cannot do this job: \(error)"))
    }
    let cpu: CPUProcessor
    do throws(MediaError) { cpu = try CPUProcessor(spec: spec) } catch {
        return ProcessorSelection(processor: gpu, choice: choice(.vulkan, "the CPU path cannot do this job: \(error)"))
    }
    guard let frame = calibrationFrame else {
        let real = !gpu.deviceIsCPU
        return ProcessorSelection(
            processor: real ? gpu : cpu,
            choice: choice(
                real ? .vulkan : .cpu,
                real
                    ? "no calibration frame; \(name) is a GPU"
                    : "no calibration frame; \(name) runs on the CPU, so the CPU path is kept"))
    }
    let gpuRate: Double
    do throws(MediaError) { gpuRate = try framesPerSecond(gpu, frame) } catch {
        return ProcessorSelection(
            processor: cpu, choice: choice(.cpu, "Vulkan failed on the calibration frame: \(error)"))
    }
    let cpuRate = try framesPerSecond(cpu, frame)
    let rates = ["vulkan": gpuRate, "cpu": cpuRate]
    let text = String(
        format: "vulkan %.1f frames/s vs cpu %.1f frames/s on the calibration frame (%@)",
        gpuRate, cpuRate, name)
    let selection =
        gpuRate >= cpuRate
        ? ProcessorSelection(processor: gpu, choice: choice(.vulkan, text, rates))
        : ProcessorSelection(processor: cpu, choice: choice(.cpu, text, rates))
    memory?.remember(selection.choice, spec: spec, frame: frame)
    return selection
}

/// One warm-up (builds contexts and buffers), then the best of three timed frames.
private func framesPerSecond(_ processor: any FrameProcessor, _ frame: Frame) throws(MediaError) -> Double {
    _ = try processor.process(frame)
    var best = Double.infinity
    for _ in 0..<3 {
        let start = DispatchTime.now().uptimeNanoseconds
        _ = try processor.process(frame)
        best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    return 1 / max(best, 1e-9)
}
