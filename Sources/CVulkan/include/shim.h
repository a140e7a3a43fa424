// The Vulkan loader for TesseraCompute. Prefixed functions stand in for macros Swift cannot import.
#ifndef TESSERA_CVULKAN_SHIM_H
#define TESSERA_CVULKAN_SHIM_H
#include <vulkan/vulkan.h>

/// VK_MAKE_API_VERSION is a function-like macro.
static inline uint32_t tessera_VK_MAKE_API_VERSION(uint32_t variant, uint32_t major, uint32_t minor, uint32_t patch) {
    return VK_MAKE_API_VERSION(variant, major, minor, patch);
}
/// VK_WHOLE_SIZE is (~0ULL), which Swift imports poorly.
static inline uint64_t tessera_VK_WHOLE_SIZE(void) { return VK_WHOLE_SIZE; }
#endif
