// Fast path, pass 1 of 2: resamples one planar source plane along y into 16-bit fixed-point rows, two
// output rows at a time from the union of their source rows, 16 bytes of source (sixteen 8-bit or
// eight 16-bit samples) per invocation step. Two neighbouring rows share most of their taps, so each
// fetched and unpacked texel serves both: fewer fetches, the costliest part on lavapipe. Used when every output plane
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

layout(constant_id = 0) const uint TAPS = 4u;    // taps of each row, at most MAX_TAPS
layout(constant_id = 1) const uint BYTES = 1u;   // per source sample: 1 or 2
// The pair's union of source rows: the first row reads rows [0, TAPS) of it, the second [SKIP, UNION).
layout(constant_id = 3) const uint UNION = 5u;   // at most MAX_UNION
layout(constant_id = 4) const uint SKIP = 1u;
const uint MAX_TAPS = 16u;
const uint MAX_UNION = 20u;

layout(push_constant) uniform Plane {
    uint sourceOffset;   // texels (16 bytes)
    uint sourceStride;   // texels per source row
    uint rowTexels;      // texels to read per row
    uint lastRow;        // the plane's last source row (the union may reach past it, with weight 0)
    uint midOffset;      // uvec4s
    uint midStride;      // uvec4s per intermediate row
    uint table;          // R32 texels: per row pair, the union's first source row, TAPS weights of the
                         // first row, UNION - SKIP of the second
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
uvec4 fixed8(vec4 a, vec4 b) {
    return uvec4(fixed2(a.x, a.y), fixed2(a.z, a.w), fixed2(b.x, b.y), fixed2(b.z, b.w));
}

// Through int: samples fit, and x86 converts signed integers in one instruction but unsigned ones in several.
vec4 bytesOf(uint w) { return vec4(ivec4(w & 0xFFu, (w >> 8u) & 0xFFu, (w >> 16u) & 0xFFu, w >> 24u)); }
vec4 shortsOf(uint a, uint b) { return vec4(ivec4(a & 0xFFFFu, a >> 16u, b & 0xFFFFu, b >> 16u)); }

void main() {
    uint pair = gl_WorkGroupID.y;
    int entry = int(pc.table + pair * (1u + TAPS + UNION - SKIP));
    uint first = texelFetch(tables, entry).x;
    float w0[MAX_UNION], w1[MAX_UNION];
    uint rows[MAX_UNION];
    [[unroll]] for (uint u = 0u; u < MAX_UNION; u++) {
        w0[u] = u < TAPS ? uintBitsToFloat(texelFetch(tables, entry + 1 + int(u)).x) : 0.0;
        w1[u] = u >= SKIP && u < UNION
            ? uintBitsToFloat(texelFetch(tables, entry + 1 + int(TAPS + u - SKIP)).x) : 0.0;
        rows[u] = pc.sourceOffset + min(first + u, pc.lastRow) * pc.sourceStride;
    }
    uint out0 = pc.midOffset + 2u * pair * pc.midStride, out1 = out0 + pc.midStride;
    // A workgroup walks its whole row: lavapipe pays for every workgroup it schedules.
    for (uint x = gl_LocalInvocationID.x; x < pc.rowTexels; x += gl_WorkGroupSize.x) {
        if (BYTES == 1u) {
            vec4 a0 = vec4(0.0), a1 = vec4(0.0), a2 = vec4(0.0), a3 = vec4(0.0);
            vec4 b0 = vec4(0.0), b1 = vec4(0.0), b2 = vec4(0.0), b3 = vec4(0.0);
            [[unroll]] for (uint u = 0u; u < MAX_UNION; u++) {
                if (u < UNION) {
                    uvec4 q = texelFetch(source, int(rows[u] + x));
                    vec4 s0 = bytesOf(q.x), s1 = bytesOf(q.y), s2 = bytesOf(q.z), s3 = bytesOf(q.w);
                    if (u < TAPS) { a0 += w0[u] * s0; a1 += w0[u] * s1; a2 += w0[u] * s2; a3 += w0[u] * s3; }
                    if (u >= SKIP) { b0 += w1[u] * s0; b1 += w1[u] * s1; b2 += w1[u] * s2; b3 += w1[u] * s3; }
                }
            }
            mid[out0 + 2u * x] = fixed8(a0, a1);
            mid[out0 + 2u * x + 1u] = fixed8(a2, a3);
            mid[out1 + 2u * x] = fixed8(b0, b1);
            mid[out1 + 2u * x + 1u] = fixed8(b2, b3);
        } else {
            vec4 a0 = vec4(0.0), a1 = vec4(0.0), b0 = vec4(0.0), b1 = vec4(0.0);
            [[unroll]] for (uint u = 0u; u < MAX_UNION; u++) {
                if (u < UNION) {
                    uvec4 q = texelFetch(source, int(rows[u] + x));
                    vec4 s0 = shortsOf(q.x, q.y), s1 = shortsOf(q.z, q.w);
                    if (u < TAPS) { a0 += w0[u] * s0; a1 += w0[u] * s1; }
                    if (u >= SKIP) { b0 += w1[u] * s0; b1 += w1[u] * s1; }
                }
            }
            mid[out0 + x] = fixed8(a0, a1);
            mid[out1 + x] = fixed8(b0, b1);
        }
    }
}
