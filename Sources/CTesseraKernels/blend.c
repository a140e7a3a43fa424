#include "TesseraKernels.h"

// No fused multiply-add: each step rounds as the Swift reference and the Vulkan kernel's float steps do.
#pragma clang fp contract(off)

void tessera_blend_row_u8(const uint8_t *a, const uint8_t *b, uint8_t *out, ptrdiff_t count, float weight) {
    for (ptrdiff_t i = 0; i < count; i++) {
        float x = (float)a[i], y = (float)b[i];
        float s = x + weight * (y - x) + 0.5f;
        // s lies in [0.5, 255.5] (weight is 0…1): truncation is the floor, and it vectorises.
        out[i] = (uint8_t)(int32_t)s;
    }
}
