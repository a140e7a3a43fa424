// Pass 1 of 2: resamples one source plane along its y axis, a 32-bit word (four 8-bit or two 16-bit
// samples, whatever channels they hold) per invocation, into half-float intermediate rows.
//
// One job per (output grid, source plane); gl_WorkGroupID.z picks the job. All invocations of a
// workgroup share one output row, so the taps and weights are the same on every lane and each tap
// costs one read that yields four samples.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

// The source is read through a texel-buffer view (R32_UINT): a plain indexed read on GPUs, and a
// vectorised gather on lavapipe, where storage-buffer loads run lane by lane.
layout(set = 0, binding = 0) uniform usamplerBuffer source;
layout(std430, set = 0, binding = 1) writeonly buffer Intermediate { uint mid[]; };
#include "common.glsl"

// Job j is 16 uints at 16 + 16 j:
//  0 plane byte offset (multiple of 4)   1 row stride in bytes (multiple of 4)   2 words per row
//  3 bytes per sample (1 or 2)   4 right shift of a sample (6 for P010)   5 source rows
//  6 output rows   7 intermediate offset (uints)   8 intermediate row stride (uints)
//  9 table offset (texels)   10 taps per output row

void main() {
    uint job = 16u + 16u * gl_WorkGroupID.z;
    uint w = gl_GlobalInvocationID.x, b = gl_GlobalInvocationID.y;
    uint rowWords = P(job + 2u);
    if (w >= rowWords || b >= P(job + 6u)) return;

    uint base = P(job + 0u) / 4u + w, stride = P(job + 1u) / 4u;
    uint bytes = P(job + 3u), shift = P(job + 4u);
    uint taps = P(job + 10u);
    int entry = int(P(job + 9u) + b * (taps + 1u));
    uint first = texelFetch(tables, entry).x;
    vec4 sum = vec4(0.0);
    for (uint t = 0u; t < taps; t++) {
        float weight = weightAt(entry + 1 + int(t));
        uint word = texelFetch(source, int(base + (first + t) * stride)).x;
        vec4 samples = bytes == 1u
            ? vec4(word & 0xFFu, (word >> 8u) & 0xFFu, (word >> 16u) & 0xFFu, word >> 24u)
            : vec4((word & 0xFFFFu) >> shift, (word >> 16u) >> shift, 0.0, 0.0);
        sum += weight * samples;
    }
    uint out_ = P(job + 7u) + b * P(job + 8u);
    if (bytes == 1u) {
        mid[out_ + 2u * w] = packHalf2x16(sum.xy);
        mid[out_ + 2u * w + 1u] = packHalf2x16(sum.zw);
    } else {
        mid[out_ + w] = packHalf2x16(sum.xy);
    }
}
