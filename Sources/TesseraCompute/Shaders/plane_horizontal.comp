// Fast path, pass 2 of 2: resamples pass 1's fixed-point rows along x into one 8-bit output plane, maps each
// value with one scale and offset (range and depth: no channel mixing on this path), dithers and
// writes one 32-bit word (four samples) per invocation and row.
//
// An invocation keeps its four outputs' weights in registers and walks several rows, so the weights
// are fetched once. The four outputs read one span of SPAN source samples starting at a multiple of 8
// (a table gives each a weight per span sample, zero outside its own taps): 16-byte fetches, no
// per-tap first index and no array indexed by a lane-dependent value, which lavapipe would turn into
// memory traffic.
#version 450
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(std430, set = 0, binding = 3) writeonly buffer Destination { uint dst[]; };
layout(set = 0, binding = 2) uniform usamplerBuffer intermediate;  // RGBA32UI: eight samples per texel
layout(set = 0, binding = 5) uniform usamplerBuffer spans;         // RGBA32UI

layout(constant_id = 0) const uint SPAN = 8u;       // a multiple of 8, at most MAX_SPAN
layout(constant_id = 1) const bool DITHER = false;
// Output i of a word reads only span samples [LOi, HIi) in any word of the plane (its taps, wherever its
// window falls in the span): the rest of its weights are zero, so those products are left out.
layout(constant_id = 2) const uint LO0 = 0u;
layout(constant_id = 3) const uint HI0 = 40u;
layout(constant_id = 4) const uint LO1 = 0u;
layout(constant_id = 5) const uint HI1 = 40u;
layout(constant_id = 6) const uint LO2 = 0u;
layout(constant_id = 7) const uint HI2 = 40u;
layout(constant_id = 8) const uint LO3 = 0u;
layout(constant_id = 9) const uint HI3 = 40u;
const uint MAX_SPAN = 40u;

layout(push_constant) uniform Plane {
    uint midOffset;      // texels
    uint midStride;      // texels per intermediate row
    uint dstOffset;      // uints
    uint dstStride;      // uints per output row
    uint words;          // output words per row
    uint rows;           // output rows
    uint table;          // RGBA32 texels: per word, (first span index / 8, 0, 0, 0) then SPAN weight columns
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
    uint word = gl_GlobalInvocationID.x;
    if (word >= pc.words) return;
    int entry = int(pc.table + word * (SPAN + 1u));
    uint start = texelFetch(spans, entry).x;
    vec4 weight[MAX_SPAN];  // weight[j]: the four outputs' weights of span sample j
    [[unroll]] for (uint j = 0u; j < MAX_SPAN; j++) {
        weight[j] = j < SPAN ? uintBitsToFloat(texelFetch(spans, entry + 1 + int(j))) : vec4(0.0);
    }
    uint y0 = gl_WorkGroupID.y * pc.rowsPerGroup;
    uint y1 = min(y0 + pc.rowsPerGroup, pc.rows);
    for (uint y = y0; y < y1; y++) {
        uint row = pc.midOffset + y * pc.midStride + start;
        vec4 sum = vec4(0.0);
        [[unroll]] for (uint j = 0u; j < MAX_SPAN / 8u; j++) {
            if (8u * j < SPAN) {
                uvec4 q = texelFetch(intermediate, int(row + j));
                vec4 lo = vec4(ivec4(q & 0xFFFFu)), hi = vec4(ivec4(q >> 16u));
                float v[8] = float[8](lo.x, hi.x, lo.y, hi.y, lo.z, hi.z, lo.w, hi.w);
                [[unroll]] for (uint e = 0u; e < 8u; e++) {
                    uint n = 8u * j + e;
                    if (n >= LO0 && n < HI0) sum.x += weight[n].x * v[e];
                    if (n >= LO1 && n < HI1) sum.y += weight[n].y * v[e];
                    if (n >= LO2 && n < HI2) sum.z += weight[n].z * v[e];
                    if (n >= LO3 && n < HI3) sum.w += weight[n].w * v[e];
                }
            }
        }
        uint x = 4u * word;
        vec4 threshold = DITHER ? vec4(bayer(x, y), bayer(x + 1u, y), bayer(x + 2u, y), bayer(x + 3u, y)) : vec4(0.5);
        dst[pc.dstOffset + y * pc.dstStride + word] = code(sum.x, threshold.x) | (code(sum.y, threshold.y) << 8u)
            | (code(sum.z, threshold.z) << 16u) | (code(sum.w, threshold.w) << 24u);
    }
}
