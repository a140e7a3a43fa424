// Fast path, pass 2 of 2: resamples pass 1's fixed-point rows along x into one 8-bit output plane, maps each
// value with one scale and offset (range and depth: no channel mixing on this path), dithers and
// writes one 64-bit word (eight samples) per invocation and row: lavapipe stores lane by lane, a branch and a
// store per word, so the fewer, wider words the better. The last word of a row may reach into the row's
// padding (the plan's output strides leave room).
//
// An invocation keeps its eight outputs' weights in registers and walks several rows, so the weights
// are fetched once. The eight outputs read one span of SPAN source samples starting at a multiple of 8
// (a table gives each a weight per span sample, zero outside its own taps): 16-byte fetches, no
// per-tap first index and no array indexed by a lane-dependent value, which lavapipe would turn into
// memory traffic.
#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(std430, set = 0, binding = 3) writeonly buffer Destination { uint64_t dst[]; };
layout(set = 0, binding = 2) uniform usamplerBuffer intermediate;  // RGBA32UI: eight samples per texel
layout(set = 0, binding = 5) uniform usamplerBuffer spans;         // RGBA32UI

layout(constant_id = 0) const uint SPAN = 8u;       // a multiple of 8, at most MAX_SPAN
layout(constant_id = 1) const bool DITHER = false;
// Output i of an invocation reads only span samples [LOi, HIi) in any invocation of the plane (its taps,
// wherever its window falls in the span): the rest of its weights are zero, so those products are left out.
layout(constant_id = 2) const uint LO0 = 0u;
layout(constant_id = 3) const uint HI0 = 40u;
layout(constant_id = 4) const uint LO1 = 0u;
layout(constant_id = 5) const uint HI1 = 40u;
layout(constant_id = 6) const uint LO2 = 0u;
layout(constant_id = 7) const uint HI2 = 40u;
layout(constant_id = 8) const uint LO3 = 0u;
layout(constant_id = 9) const uint HI3 = 40u;
layout(constant_id = 10) const uint LO4 = 0u;
layout(constant_id = 11) const uint HI4 = 40u;
layout(constant_id = 12) const uint LO5 = 0u;
layout(constant_id = 13) const uint HI5 = 40u;
layout(constant_id = 14) const uint LO6 = 0u;
layout(constant_id = 15) const uint HI6 = 40u;
layout(constant_id = 16) const uint LO7 = 0u;
layout(constant_id = 17) const uint HI7 = 40u;
const uint MAX_SPAN = 40u;

// Whether output i reads span sample n (both constant once the loops below unroll).
bool reads(uint i, uint n) {
    switch (i) {
    case 0u: return n >= LO0 && n < HI0;
    case 1u: return n >= LO1 && n < HI1;
    case 2u: return n >= LO2 && n < HI2;
    case 3u: return n >= LO3 && n < HI3;
    case 4u: return n >= LO4 && n < HI4;
    case 5u: return n >= LO5 && n < HI5;
    case 6u: return n >= LO6 && n < HI6;
    default: return n >= LO7 && n < HI7;
    }
}

layout(push_constant) uniform Plane {
    uint midOffset;      // texels
    uint midStride;      // texels per intermediate row
    uint dstOffset;      // uints
    uint dstStride;      // uints per output row
    uint words;          // output words per row (two per invocation)
    uint rows;           // output rows
    uint table;          // RGBA32 texels: per invocation, (first span index / 8, 0, 0, 0) then per span
                         // sample the weights of outputs 0-3 and of outputs 4-7
    uint rowsPerGroup;   // rows a workgroup walks
    float scale;         // code = scale * (weighted sum of fixed-point samples) + bias
    float bias;
    float maxCode;
} pc;

// Ordered dither threshold in (0, 1) from an 8x8 Bayer matrix, built from the coordinate bits.
float bayer(uint x, uint y) {
    uint xy = x ^ y;
    uint v = ((xy & 1u) << 5u) | ((y & 1u) << 4u) | ((xy & 2u) << 2u) | ((y & 2u) << 1u) | ((xy & 4u) >> 1u)
           | ((y & 4u) >> 2u);
    return (float(int(v)) + 0.5) / 64.0;
}

// Adding 2^23 to the clamped whole number leaves it in the low mantissa bits: no float-to-int conversion,
// which lavapipe does lane by lane inside its store loop.
uint code(float v, float threshold) {
    float whole = clamp(floor(pc.scale * v + pc.bias + threshold), 0.0, pc.maxCode);
    return floatBitsToUint(whole + 8388608.0) & 0xFFu;
}

void main() {
    uint pair = gl_GlobalInvocationID.x;
    if (2u * pair >= pc.words) return;
    int entry = int(pc.table + pair * (2u * SPAN + 1u));
    uint start = texelFetch(spans, entry).x;
    vec4 weight[2u * MAX_SPAN];  // weight[2n + h]: span sample n's weights for outputs 4h … 4h+3
    [[unroll]] for (uint n = 0u; n < 2u * MAX_SPAN; n++) {
        weight[n] = n < 2u * SPAN ? uintBitsToFloat(texelFetch(spans, entry + 1 + int(n))) : vec4(0.0);
    }
    uint y0 = gl_WorkGroupID.y * pc.rowsPerGroup;
    uint y1 = min(y0 + pc.rowsPerGroup, pc.rows);
    for (uint y = y0; y < y1; y++) {
        uint row = pc.midOffset + y * pc.midStride + start;
        vec4 sum[2] = vec4[2](vec4(0.0), vec4(0.0));
        [[unroll]] for (uint j = 0u; j < MAX_SPAN / 8u; j++) {
            if (8u * j < SPAN) {
                uvec4 q = texelFetch(intermediate, int(row + j));
                vec4 lo = vec4(ivec4(q & 0xFFFFu)), hi = vec4(ivec4(q >> 16u));
                float v[8] = float[8](lo.x, hi.x, lo.y, hi.y, lo.z, hi.z, lo.w, hi.w);
                [[unroll]] for (uint e = 0u; e < 8u; e++) {
                    uint n = 8u * j + e;
                    [[unroll]] for (uint i = 0u; i < 8u; i++) {
                        if (reads(i, n)) sum[i / 4u][i % 4u] += weight[2u * n + i / 4u][i % 4u] * v[e];
                    }
                }
            }
        }
        uint word[2];
        [[unroll]] for (uint h = 0u; h < 2u; h++) {
            // The first output's x is a multiple of 8 and the matrix reads x's low 3 bits: constants here.
            uint x = 4u * h;
            vec4 threshold = DITHER
                ? vec4(bayer(x, y), bayer(x + 1u, y), bayer(x + 2u, y), bayer(x + 3u, y))
                : vec4(0.5);
            vec4 s = sum[h];
            word[h] = code(s.x, threshold.x) | (code(s.y, threshold.y) << 8u) | (code(s.z, threshold.z) << 16u)
                | (code(s.w, threshold.w) << 24u);
        }
        dst[(pc.dstOffset + y * pc.dstStride) / 2u + pair] = packUint2x32(uvec2(word[0], word[1]));
    }
}
