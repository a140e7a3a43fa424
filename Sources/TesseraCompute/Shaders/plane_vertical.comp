// Fast path, pass 1 of 2: resamples one planar source plane along y into 16-bit fixed-point rows, ROWS
// (2 to 6) output rows at a time from the union of their source rows, 16 bytes of source (sixteen 8-bit or
// eight 16-bit samples) per invocation step. Neighbouring rows share most of their taps, so each
// fetched and unpacked texel serves several: fewer fetches, the costliest part on lavapipe. Used when every output
// plane comes from the same source plane with no mixing (see PlaneResampling).
//
// Written for lavapipe's costs as much as a GPU's: a texel fetch is a vector gather, so each one reads
// 16 bytes (RGBA32UI) instead of 4; per-row weights are fetched once per invocation and kept in
// registers while it walks the row; every per-plane value is a push constant (a scalar load there)
// and the tap windows specialisation constants, so the tap loop unrolls and no lane reads a parameter.
// Fixed point rather than half floats: lavapipe converts to half in a long software sequence. Stores are
// 64-bit: lavapipe stores each lane's words one at a time behind a branch, and that loop, run for every
// intermediate word, cost more than the arithmetic (64-bit words: 4K 10-bit frames 12 % faster).
#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
// Lanes per row: few on a CPU device, so each invocation walks more of the row with the weights it fetched.
layout(local_size_x_id = 2, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0) uniform usamplerBuffer source;       // RGBA32UI: 16 bytes per texel
layout(std430, set = 0, binding = 1) writeonly buffer Intermediate { u64vec2 mid[]; };
layout(set = 0, binding = 4) uniform usamplerBuffer tables;       // R32UI

layout(constant_id = 0) const uint TAPS = 4u;    // taps of the first row, at most MAX_TAPS
layout(constant_id = 1) const uint BYTES = 1u;   // per source sample: 1 or 2
layout(constant_id = 5) const uint ROWS = 2u;    // output rows per invocation: 2 to MAX_ROWS
// The group's union of source rows: row 0 reads rows [0, TAPS) of it, row r [LOr, HIr); UNION is the
// largest HIr.
layout(constant_id = 3) const uint UNION = 5u;   // at most MAX_UNION
layout(constant_id = 4) const uint LO1 = 1u;
layout(constant_id = 6) const uint HI1 = 5u;
layout(constant_id = 7) const uint LO2 = 0u;
layout(constant_id = 8) const uint HI2 = 0u;
layout(constant_id = 9) const uint LO3 = 0u;
layout(constant_id = 10) const uint HI3 = 0u;
layout(constant_id = 11) const uint LO4 = 0u;
layout(constant_id = 12) const uint HI4 = 0u;
layout(constant_id = 13) const uint LO5 = 0u;
layout(constant_id = 14) const uint HI5 = 0u;
const uint MAX_TAPS = 16u;
const uint MAX_UNION = 20u;
const uint MAX_ROWS = 6u;

uint lo(uint r) { return r == 0u ? 0u : r == 1u ? LO1 : r == 2u ? LO2 : r == 3u ? LO3 : r == 4u ? LO4 : LO5; }
uint hi(uint r) { return r == 0u ? TAPS : r == 1u ? HI1 : r == 2u ? HI2 : r == 3u ? HI3 : r == 4u ? HI4 : HI5; }
// Whether row r reads union row u (both constant once the loops below unroll).
bool reads(uint r, uint u) { return r < ROWS && u >= lo(r) && u < hi(r); }

layout(push_constant) uniform Plane {
    uint sourceOffset;   // texels (16 bytes)
    uint sourceStride;   // texels per source row
    uint rowTexels;      // texels to read per row
    uint lastRow;        // the plane's last source row (the union may reach past it, with weight 0)
    uint midOffset;      // uvec4s
    uint midStride;      // uvec4s per intermediate row
    uint table;          // R32 texels: per group of ROWS rows, the union's first source row, then per row r
                         // its weights for union rows [LOr, HIr)
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
u64vec2 fixed8(vec4 a, vec4 b) {
    return u64vec2(packUint2x32(uvec2(fixed2(a.x, a.y), fixed2(a.z, a.w))),
                   packUint2x32(uvec2(fixed2(b.x, b.y), fixed2(b.z, b.w))));
}

// Through int: samples fit, and x86 converts signed integers in one instruction but unsigned ones in several.
vec4 bytesOf(uint w) { return vec4(ivec4(w & 0xFFu, (w >> 8u) & 0xFFu, (w >> 16u) & 0xFFu, w >> 24u)); }
vec4 shortsOf(uint a, uint b) { return vec4(ivec4(a & 0xFFFFu, a >> 16u, b & 0xFFFFu, b >> 16u)); }

void main() {
    uint group = gl_WorkGroupID.y;
    uint entrySize = 1u + TAPS;
    [[unroll]] for (uint r = 1u; r < MAX_ROWS; r++) { if (r < ROWS) entrySize += hi(r) - lo(r); }
    int entry = int(pc.table + group * entrySize);
    uint first = texelFetch(tables, entry).x;
    float w[MAX_ROWS][MAX_UNION];
    uint rows[MAX_UNION];
    int at = entry + 1;
    [[unroll]] for (uint r = 0u; r < MAX_ROWS; r++) {
        [[unroll]] for (uint u = 0u; u < MAX_UNION; u++) {
            w[r][u] = reads(r, u) ? uintBitsToFloat(texelFetch(tables, at + int(u - lo(r))).x) : 0.0;
        }
        if (r < ROWS) at += int(hi(r) - lo(r));
    }
    [[unroll]] for (uint u = 0u; u < MAX_UNION; u++) {
        rows[u] = pc.sourceOffset + min(first + u, pc.lastRow) * pc.sourceStride;
    }
    uint out0 = pc.midOffset + ROWS * group * pc.midStride;
    // A workgroup walks its whole row: lavapipe pays for every workgroup it schedules.
    for (uint x = gl_LocalInvocationID.x; x < pc.rowTexels; x += gl_WorkGroupSize.x) {
        if (BYTES == 1u) {
            vec4 a[MAX_ROWS][4];
            [[unroll]] for (uint r = 0u; r < MAX_ROWS; r++) {
                [[unroll]] for (uint k = 0u; k < 4u; k++) a[r][k] = vec4(0.0);
            }
            [[unroll]] for (uint u = 0u; u < MAX_UNION; u++) {
                if (u < UNION) {
                    uvec4 q = texelFetch(source, int(rows[u] + x));
                    vec4 s0 = bytesOf(q.x), s1 = bytesOf(q.y), s2 = bytesOf(q.z), s3 = bytesOf(q.w);
                    [[unroll]] for (uint r = 0u; r < MAX_ROWS; r++) {
                        if (reads(r, u)) {
                            a[r][0] += w[r][u] * s0; a[r][1] += w[r][u] * s1;
                            a[r][2] += w[r][u] * s2; a[r][3] += w[r][u] * s3;
                        }
                    }
                }
            }
            [[unroll]] for (uint r = 0u; r < MAX_ROWS; r++) {
                if (r < ROWS) {
                    uint o = out0 + r * pc.midStride + 2u * x;
                    mid[o] = fixed8(a[r][0], a[r][1]);
                    mid[o + 1u] = fixed8(a[r][2], a[r][3]);
                }
            }
        } else {
            vec4 a[MAX_ROWS][2];
            [[unroll]] for (uint r = 0u; r < MAX_ROWS; r++) { a[r][0] = vec4(0.0); a[r][1] = vec4(0.0); }
            [[unroll]] for (uint u = 0u; u < MAX_UNION; u++) {
                if (u < UNION) {
                    uvec4 q = texelFetch(source, int(rows[u] + x));
                    vec4 s0 = shortsOf(q.x, q.y), s1 = shortsOf(q.z, q.w);
                    [[unroll]] for (uint r = 0u; r < MAX_ROWS; r++) {
                        if (reads(r, u)) { a[r][0] += w[r][u] * s0; a[r][1] += w[r][u] * s1; }
                    }
                }
            }
            [[unroll]] for (uint r = 0u; r < MAX_ROWS; r++) {
                if (r < ROWS) mid[out0 + r * pc.midStride + x] = fixed8(a[r][0], a[r][1]);
            }
        }
    }
}
