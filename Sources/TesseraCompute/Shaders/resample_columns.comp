// Pass 2 of 2: resamples the intermediates along the source's y axis, converts colour, composites
// over the background and writes one 32-bit word of an output plane per invocation.
//
// gl_WorkGroupID.z picks the output grid (luma, or chroma for 4:2:0 outputs; a single grid for RGBA).
// Each grid reads up to four channels (source Y/Cb/Cr or R/G/B, and alpha) and maps them with a 3x4
// affine matrix straight from source code values to output code values. With rotations the output
// axes are swapped relative to the source (`swap`), which only changes which index walks which table.
#version 450
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(std430, set = 0, binding = 1) readonly buffer Intermediate { float mid[]; };
layout(std430, set = 0, binding = 2) readonly buffer Params { uint params[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Destination { uint dst[]; };

// A grid is 64 uints at params[gridBase + 64 * z], gridBase = params[15]:
//  0 width   1 height   2 words per row   3 samples per word   4 swap (1 when a rotation swaps axes)
//  5 bytes per component (1 or 2)   6 left shift of a written component (6 for P010)
//  7 largest code value   8 planes written (1 or 2)   9 components per sample in a plane
// 10 plane 0 byte offset 11 plane 0 stride  12 plane 1 byte offset 13 plane 1 stride
// 14 dither (1 = ordered dither before rounding)   15 alpha channel present
// 16 opacity (float)   17..20 background per output component (float)
// 24 + 4c: channel c (0..3): intermediate offset, intermediate width, table offset, taps (0 = unused)
// 40 + 4r: output component r (0..3): coefficients for channels 0..2 and a constant (floats)

float channel(uint g, uint c, uint a, uint b) {
    uint o = g + 24u + 4u * c;
    uint taps = params[o + 3u];
    if (taps == 0u) return 0.0;
    uint width = params[o + 1u];
    uint entry = params[o + 2u] + b * (taps + 1u);
    uint index = params[o] + params[entry] * width + a;
    float sum = 0.0;
    for (uint t = 0u; t < taps; t++) {
        sum += uintBitsToFloat(params[entry + 1u + t]) * mid[index];
        index += width;
    }
    return sum;
}

// Ordered dither threshold in (0, 1) from an 8x8 Bayer matrix, built from the coordinate bits.
float bayer(uint x, uint y) {
    uint v = 0u;
    uint xy = x ^ y;
    v |= ((xy >> 0u) & 1u) << 5u; v |= ((y >> 0u) & 1u) << 4u;
    v |= ((xy >> 1u) & 1u) << 3u; v |= ((y >> 1u) & 1u) << 2u;
    v |= ((xy >> 2u) & 1u) << 1u; v |= ((y >> 2u) & 1u);
    return (float(v) + 0.5) / 64.0;
}

void main() {
    uint g = params[15u] + 64u * gl_WorkGroupID.z;
    uint width = params[g], height = params[g + 1u];
    uint word = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
    if (word >= params[g + 2u] || y >= height) return;

    uint perWord = params[g + 3u];
    bool swap = params[g + 4u] != 0u;
    uint bytes = params[g + 5u], shift = params[g + 6u];
    float maxCode = float(params[g + 7u]);
    uint planes = params[g + 8u], perSample = params[g + 9u];
    bool dither = params[g + 14u] != 0u, hasAlpha = params[g + 15u] != 0u;
    float opacity = uintBitsToFloat(params[g + 16u]);
    uint components = planes * perSample;

    uint packed0 = 0u, packed1 = 0u;
    for (uint s = 0u; s < perWord; s++) {
        uint x = word * perWord + s;
        if (x >= width) break;
        uint a = swap ? y : x, b = swap ? x : y;
        vec4 ch = vec4(channel(g, 0u, a, b), channel(g, 1u, a, b), channel(g, 2u, a, b), 0.0);
        float alpha = opacity;
        if (hasAlpha) alpha *= clamp(channel(g, 3u, a, b) / 255.0, 0.0, 1.0);
        float threshold = dither ? bayer(x, y) : 0.5;
        for (uint r = 0u; r < components; r++) {
            uint m = g + 40u + 4u * r;
            float v;
            if (r == 3u) {
                v = maxCode;  // RGBA output: opaque after compositing over the background
            } else {
                v = uintBitsToFloat(params[m]) * ch.x + uintBitsToFloat(params[m + 1u]) * ch.y
                  + uintBitsToFloat(params[m + 2u]) * ch.z + uintBitsToFloat(params[m + 3u]);
                if (alpha < 1.0) v = mix(uintBitsToFloat(params[g + 17u + r]), v, alpha);
            }
            uint code = uint(clamp(floor(v + threshold), 0.0, maxCode)) << shift;
            uint plane = r / perSample;
            uint bit = ((s * perSample + r % perSample) * bytes * 8u);
            if (plane == 0u) packed0 |= code << bit; else packed1 |= code << bit;
        }
    }
    dst[(params[g + 10u] + y * params[g + 11u]) / 4u + word] = packed0;
    if (planes == 2u) dst[(params[g + 12u] + y * params[g + 13u]) / 4u + word] = packed1;
}
