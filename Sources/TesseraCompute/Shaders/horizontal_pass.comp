// Pass 2 of 2: resamples the intermediate rows along the source's x axis, maps the channels to output
// code values (matrix, range, depth), composites over the background, dithers and writes one 32-bit
// word of an output plane per invocation.
//
// One dispatch per output grid (luma, or chroma for subsampled outputs; one grid for RGBA).
// With a quarter turn (SWAP) the samples of a word come from different intermediate rows (a column
// of the turned picture); otherwise from one row.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

// The intermediate is read through a texel-buffer view (R32_UINT, two halves per texel): see vertical_pass.
layout(set = 0, binding = 4) uniform usamplerBuffer intermediate;

layout(std430, set = 0, binding = 3) writeonly buffer Destination { uint dst[]; };
#include "common.glsl"

// Specialisation constants: fixed per pipeline, so the compiler drops every branch not taken. This
// matters most on lavapipe, which predicates rather than branches: code behind a false `if` still runs.
layout(constant_id = 0) const uint GRID = 0u;       // which output grid this pipeline writes
layout(constant_id = 1) const bool SWAP = false;    // a quarter turn: output x walks source y
layout(constant_id = 2) const uint CHANNELS = 15u;  // bit c set: the grid reads channel c
layout(constant_id = 3) const bool TONEMAP = false; // HDR to BT.709 SDR (ToneMapCurves.swift)

// Grid g is 96 uints at P(1) + 96 g:
//  0 width   1 height   2 words per row   3 samples per word   4 swap (as SWAP)
//  5 bytes per component   6 left shift of a component (6 for P010)   7 largest code value
//  8 planes written (1 or 2)   9 components per sample in a plane   10..13 plane 0/1 byte offset, stride
// 14 dither   15 alpha channel present   16 opacity (float)   17..19 background per component (float)
// 24 + 10 c, channel c (0..3): 0 enabled (as CHANNELS), 1 intermediate offset (uints), 2 intermediate row stride (uints),
//    3 halves between samples of this channel, 4 its first half, 5 source samples along x,
//    6 its table's offset (texels), 7 taps
// 64 + 4 r: output component r: coefficients of channels 0..2 and a constant (floats); with TONEMAP, of
//    BT.709 R'G'B' 0..1
//
// The tone map's block is at P(2): 0..11 rows of (Y, Cb, Cr, constant) to R'G'B'  12..20 linear source
// primaries to BT.709  21 gain domain  22 black  23 HLG  24, 25 HLG's OOTF scale and exponent
// 26..28 luma weights  29 samples per curve  30, 31, 32 the EOTF, gain and OETF curves' table offsets.
// tessera_tonemap (CTesseraKernels/tonemap.c) does the same on the CPU.

float half_(uint index) {
    vec2 pair = unpackHalf2x16(texelFetch(intermediate, int(index >> 1u)).x);
    return (index & 1u) == 0u ? pair.x : pair.y;
}

// One channel at output index a on intermediate row b. Tables keep every tap inside the row.
float sampleAt(uint c, uint a, uint b) {
    uint rowHalf = 2u * (P(c + 1u) + b * P(c + 2u)) + P(c + 4u);
    uint step = P(c + 3u), taps = P(c + 7u);
    int entry = int(P(c + 6u) + a * (taps + 1u));
    uint first = texelFetch(tables, entry).x;
    float sum = 0.0;
    for (uint t = 0u; t < taps; t++) {
        float weight = weightAt(entry + 1 + int(t));
        sum += weight * half_(rowHalf + (first + t) * step);
    }
    return sum;
}

// Every channel the grid reads, at output index a on intermediate row b.
vec4 channelsAt(uint g, uint a, uint b) {
    vec4 v = vec4(0.0);
    if ((CHANNELS & 1u) != 0u) v.x = sampleAt(g + 24u, a, b);
    if ((CHANNELS & 2u) != 0u) v.y = sampleAt(g + 34u, a, b);
    if ((CHANNELS & 4u) != 0u) v.z = sampleAt(g + 44u, a, b);
    if ((CHANNELS & 8u) != 0u) v.w = sampleAt(g + 54u, a, b);
    return v;
}

// Linear interpolation in a curve of P(tone + 29) + 1 samples over 0..1.
float curve(uint tone, uint table, float x) {
    float n = float(P(tone + 29u));
    float i = clamp(x, 0.0, 1.0) * n;
    float k = min(floor(i), n - 1.0);
    int at = int(table + uint(k));
    return mix(weightAt(at), weightAt(at + 1), i - k);
}

// Source codes (Y, Cb, Cr) to BT.709 R'G'B': linear light, BT.2390 on the largest component, primaries,
// clip, BT.1886's inverse.
vec3 toneMapped(vec3 c) {
    uint t = P(2u), eotf = P(t + 30u), gain = P(t + 31u), oetf = P(t + 32u);
    vec3 lin = vec3(
        curve(t, eotf, F(t + 0u) * c.x + F(t + 1u) * c.y + F(t + 2u) * c.z + F(t + 3u)),
        curve(t, eotf, F(t + 4u) * c.x + F(t + 5u) * c.y + F(t + 6u) * c.z + F(t + 7u)),
        curve(t, eotf, F(t + 8u) * c.x + F(t + 9u) * c.y + F(t + 10u) * c.z + F(t + 11u)));
    if (P(t + 23u) != 0u) {
        float ys = dot(lin, vec3(F(t + 26u), F(t + 27u), F(t + 28u)));
        lin *= ys > 0.0 ? F(t + 24u) * pow(ys, F(t + 25u)) : 0.0;
    }
    float m = max(lin.x, max(lin.y, lin.z));
    float g = curve(t, gain, sqrt(sqrt(m / F(t + 21u))));
    float black = F(t + 22u);
    return vec3(
        curve(t, oetf, sqrt(clamp(g * (F(t + 12u) * lin.x + F(t + 13u) * lin.y + F(t + 14u) * lin.z), black, 1.0))),
        curve(t, oetf, sqrt(clamp(g * (F(t + 15u) * lin.x + F(t + 16u) * lin.y + F(t + 17u) * lin.z), black, 1.0))),
        curve(t, oetf, sqrt(clamp(g * (F(t + 18u) * lin.x + F(t + 19u) * lin.y + F(t + 20u) * lin.z), black, 1.0))));
}

// Ordered dither threshold in (0, 1) from an 8x8 Bayer matrix, built from the coordinate bits.
float bayer(uint x, uint y) {
    uint xy = x ^ y;
    uint v = ((xy & 1u) << 5u) | ((y & 1u) << 4u) | ((xy & 2u) << 2u) | ((y & 2u) << 1u) | ((xy & 4u) >> 1u)
           | ((y & 4u) >> 2u);
    return (float(v) + 0.5) / 64.0;
}

void main() {
    uint g = P(1u) + 96u * GRID;
    uint width = P(g), height = P(g + 1u);
    uint word = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
    if (word >= P(g + 2u) || y >= height) return;

    uint perWord = P(g + 3u);
    uint bytes = P(g + 5u), shift = P(g + 6u);
    float maxCode = float(P(g + 7u));
    uint planes = P(g + 8u), perSample = P(g + 9u);
    bool dither = P(g + 14u) != 0u, hasAlpha = P(g + 15u) != 0u;
    float opacity = F(g + 16u);
    uint components = planes * perSample;
    uint x0 = word * perWord;
    uint count = min(perWord, width - x0);

    // One sample at a time, channels in named components: no arrays indexed by loop counters, which
    // some compilers (lavapipe's) turn into memory traffic.
    uint packed0 = 0u, packed1 = 0u;
    for (uint s = 0u; s < 4u; s++) {
        if (s >= count) break;
        uint x = x0 + s;
        vec4 ch = SWAP ? channelsAt(g, y, x) : channelsAt(g, x, y);
        if (TONEMAP) ch.xyz = toneMapped(ch.xyz);
        float alpha = opacity;
        if (hasAlpha) alpha *= clamp(ch.w / 255.0, 0.0, 1.0);
        float threshold = dither ? bayer(x, y) : 0.5;
        for (uint r = 0u; r < components; r++) {
            uint m = g + 64u + 4u * r;
            float v;
            if (r == 3u) {
                v = maxCode;  // RGBA output: opaque after compositing over the background
            } else {
                v = F(m) * ch.x + F(m + 1u) * ch.y + F(m + 2u) * ch.z + F(m + 3u);
                if (alpha < 1.0) v = mix(F(g + 17u + r), v, alpha);
            }
            uint code = uint(clamp(floor(v + threshold), 0.0, maxCode)) << shift;
            uint bit = (s * perSample + r % perSample) * bytes * 8u;
            if (r / perSample == 0u) packed0 |= code << bit; else packed1 |= code << bit;
        }
    }
    dst[(P(g + 10u) + y * P(g + 11u)) / 4u + word] = packed0;
    if (planes == 2u) dst[(P(g + 12u) + y * P(g + 13u)) / 4u + word] = packed1;
}
