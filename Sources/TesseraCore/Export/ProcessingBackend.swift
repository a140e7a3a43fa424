/// Which implementation runs the "process" stage (`--backend auto|vulkan|cpu`).
public enum ProcessingBackend: String, CaseIterable, Sendable, Hashable, Codable {
    /// Time both on the job's own conversion and keep the faster; CPU when there is no Vulkan device.
    case auto
    /// The Vulkan compute kernels (`VulkanProcessor`).
    case vulkan
    /// `SwscaleProcessor`: Tessera's SIMD `PlaneScaler` for 8-bit planar YUV that is only resized, else
    /// libswscale with slice threads plus Tessera's SIMD turning and compositing.
    case cpu
}
