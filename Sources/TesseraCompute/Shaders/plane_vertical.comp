// Fast path, pass 1 of 2: resamples one planar source plane along y into 16-bit fixed-point rows, 16
// bytes of source (sixteen 8-bit or eight 16-bit samples) per invocation step. Used when every output plane
// comes from the same source plane with no mixing (see PlaneResampling).
//
// Written for lavapipe's costs as much as a GPU's: a texel fetch is a vector gather, so each one reads
// 16 bytes (RGBA32UI) instead of 4; per-row weights are fetched once per invocation and kept in
// registers while it walks the row; every per-plane value is a push constant (a scalar load there)
// and the tap count a specialisation constant, so the tap loop unrolls and no lane reads a parameter.
// Fixed point rather than half floats: lavapipe converts to half in a long software sequence.
#version 450
#extension GL_EXT_control_flow_attributes : require
// Lanes per row: few on a CPU device, so each invocation walks more of the row with the weights it fetched.
layout(local_size_x_id = 2, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0) uniform usamplerBuffer source;       // RGBA32UI: 16 bytes per texel
layout(std430, set = 0, binding = 1) writeonly buffer Intermediate { uvec4 mid[]; };
layout(set = 0, binding = 4) uniform usamplerBuffer tables;       // R32UI

layout(constant_id = 0) const uint TAPS = 4u;   // at most MAX_TAPS
layout(constant_id = 1) const uint BYTES = 1u;  // per source sample: 1 or 2
const uint MAX_TAPS = 16u;

layout(push_constant) uniform Plane {
    uint sourceOffset;   // texels (16 bytes)
    uint sourceStride;   // texels per source row
    uint rowTexels;      // texels to read per row
    uint rows;           // output rows
    uint midOffset;      // uvec4s
    uint midStride;      // uvec4s per intermediate row
    uint table;          // R32 texels: per output row, the first source row then TAPS weights
} pc;

// An intermediate sample is ZERO + the resampled value in 1/2^k of a code (the table's weights carry
// the 2^k): room for overshoot of half the range either way, finite whatever the source holds.
// Adding 2^23 leaves the rounded integer in the low mantissa bits: no float-to-int conversion, which
// lavapipe does lane by lane inside its store loop.
const float ZERO = 16384.0;
uint fixed2(float a, float b) {
    uvec2 bits = floatBitsToUint(clamp(vec2(a, b) + ZERO, 0.0, 65535.0) + 8388608.0);
    return (bits.x & 0xFFFFu) | (bits.y << 16u);
}

// Through int: samples fit, and x86 converts signed integers in one instruction but unsigned ones in several.
vec4 bytesOf(uint w) { return vec4(ivec4(w & 0xFFu, (w >> 8u) & 0xFFu, (w >> 16u) & 0xFFu, w >> 24u)); }
vec2 shortsOf(uint w) { return vec2(ivec2(w & 0xFFFFu, w >> 16u)); }

void main() {
    uint b = gl_WorkGroupID.y;
    int entry = int(pc.table + b * (TAPS + 1u));
    uint first = texelFetch(tables, entry).x;
    float weight[MAX_TAPS];
    [[unroll]] for (uint t = 0u; t < MAX_TAPS; t++) {
        weight[t] = t < TAPS ? uintBitsToFloat(texelFetch(tables, entry + 1 + int(t)).x) : 0.0;
    }
    uint row = pc.sourceOffset + first * pc.sourceStride;
    uint out_ = pc.midOffset + b * pc.midStride;
    // A workgroup walks its whole row: lavapipe pays for every workgroup it schedules.
    for (uint x = gl_LocalInvocationID.x; x < pc.rowTexels; x += gl_WorkGroupSize.x) {
        if (BYTES == 1u) {
            vec4 s0 = vec4(0.0), s1 = vec4(0.0), s2 = vec4(0.0), s3 = vec4(0.0);
            [[unroll]] for (uint t = 0u; t < MAX_TAPS; t++) {
                if (t < TAPS) {
                    uvec4 q = texelFetch(source, int(row + t * pc.sourceStride + x));
                    s0 += weight[t] * bytesOf(q.x);
                    s1 += weight[t] * bytesOf(q.y);
                    s2 += weight[t] * bytesOf(q.z);
                    s3 += weight[t] * bytesOf(q.w);
                }
            }
            mid[out_ + 2u * x] = uvec4(fixed2(s0.x, s0.y), fixed2(s0.z, s0.w), fixed2(s1.x, s1.y),
                                       fixed2(s1.z, s1.w));
            mid[out_ + 2u * x + 1u] = uvec4(fixed2(s2.x, s2.y), fixed2(s2.z, s2.w), fixed2(s3.x, s3.y),
                                            fixed2(s3.z, s3.w));
        } else {
            vec4 s0 = vec4(0.0), s1 = vec4(0.0);
            [[unroll]] for (uint t = 0u; t < MAX_TAPS; t++) {
                if (t < TAPS) {
                    uvec4 q = texelFetch(source, int(row + t * pc.sourceStride + x));
                    s0 += weight[t] * vec4(shortsOf(q.x), shortsOf(q.y));
                    s1 += weight[t] * vec4(shortsOf(q.z), shortsOf(q.w));
                }
            }
            mid[out_ + x] = uvec4(fixed2(s0.x, s0.y), fixed2(s0.z, s0.w), fixed2(s1.x, s1.y), fixed2(s1.z, s1.w));
        }
    }
}
