import CVulkan
import TesseraAV

/// Checks a Vulkan return code: anything but `VK_SUCCESS` (and the listed benign codes) becomes a
/// `MediaError` naming the operation, so every raw call reads `try vk(vkCreateX(...), "create X")`.
///
/// - Throws: `MediaError.unsupported` for missing drivers, features or formats
///   (`VK_ERROR_INCOMPATIBLE_DRIVER`, `…_NOT_PRESENT`, `…_FEATURE_NOT_PRESENT`), `.device` for the rest
///   (out of device or host memory, device lost).
func vk(_ result: VkResult, _ operation: @autoclosure () -> String, allowing: [VkResult] = []) throws(MediaError) {
    guard result != VK_SUCCESS, !allowing.contains(result) else { return }
    let kind: MediaError.Kind
    switch result {
    case VK_ERROR_INCOMPATIBLE_DRIVER, VK_ERROR_EXTENSION_NOT_PRESENT, VK_ERROR_FEATURE_NOT_PRESENT,
        VK_ERROR_LAYER_NOT_PRESENT, VK_ERROR_INITIALIZATION_FAILED:
        kind = .unsupported
    default: kind = .device
    }
    throw MediaError(kind, "Vulkan: \(operation()) failed: \(vulkanResultName(result))", code: result.rawValue)
}

func vulkanResultName(_ result: VkResult) -> String {
    switch result {
    case VK_NOT_READY: "VK_NOT_READY"
    case VK_TIMEOUT: "VK_TIMEOUT"
    case VK_ERROR_OUT_OF_HOST_MEMORY: "VK_ERROR_OUT_OF_HOST_MEMORY"
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: "VK_ERROR_OUT_OF_DEVICE_MEMORY"
    case VK_ERROR_INITIALIZATION_FAILED: "VK_ERROR_INITIALIZATION_FAILED"
    case VK_ERROR_DEVICE_LOST: "VK_ERROR_DEVICE_LOST"
    case VK_ERROR_MEMORY_MAP_FAILED: "VK_ERROR_MEMORY_MAP_FAILED"
    case VK_ERROR_LAYER_NOT_PRESENT: "VK_ERROR_LAYER_NOT_PRESENT"
    case VK_ERROR_EXTENSION_NOT_PRESENT: "VK_ERROR_EXTENSION_NOT_PRESENT"
    case VK_ERROR_FEATURE_NOT_PRESENT: "VK_ERROR_FEATURE_NOT_PRESENT"
    case VK_ERROR_INCOMPATIBLE_DRIVER: "VK_ERROR_INCOMPATIBLE_DRIVER (no Vulkan driver installed?)"
    case VK_ERROR_TOO_MANY_OBJECTS: "VK_ERROR_TOO_MANY_OBJECTS"
    default: "VkResult \(result.rawValue)"
    }
}
