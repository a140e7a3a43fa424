/// Which implementation runs the "process" stage (`--backend auto|vulkan|cpu`).
public enum ProcessingBackend: String, CaseIterable, Sendable, Hashable, Codable {
    /// Time both on the job's own conversion and keep the faster; CPU when there is no Vulkan device.
    case auto
    /// The Vulkan compute kernels (`VulkanProcessor`).
    case vulkan
    /// `CPUProcessor`: Tessera's SIMD `PlaneScaler` for 8-bit planar YUV that is only resized, else
    /// libswscale with slice threads plus Tessera's SIMD turning and compositing.
    case cpu
}

/// Which frame processor made a segment's or a file's pictures: reports, the segment store, metrics and
/// the wire's `processor` carry its raw value.
public enum ProcessorKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// The Vulkan compute kernels (`VulkanProcessor`).
    case vulkan
    /// Tessera's SIMD `PlaneScaler` (8-bit planar YUV only resized).
    case simd
    /// libswscale, with Tessera's SIMD turning and compositing.
    case swscale
    /// No conversion or scaling was needed.
    case none
    /// A name this build does not know (a newer worker's).
    case other

    /// The name as it arrived from elsewhere (the wire, the store); `.other` for one this build does not know.
    public init(named name: String) { self = ProcessorKind(rawValue: name) ?? .other }

    /// The backend people choose that runs it; nil for none and unknown names (an older worker's `libavfilter`, its compositions' layers, reads `.other`).
    public var backend: ProcessingBackend? {
        switch self {
        case .vulkan: .vulkan
        case .simd, .swscale: .cpu
        case .none, .other: nil
        }
    }
}
