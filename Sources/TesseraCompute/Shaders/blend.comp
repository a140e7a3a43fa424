// Blends two pictures of the same layout sample by sample: out = a + weight * (b - a), rounded.
// Used for frame-rate conversion between two neighbouring source frames. Works on whole 32-bit
// words: four 8-bit samples or two 16-bit ones. P010 keeps its 10 bits high in each 16-bit word;
// `shift` moves them down and back so the unused low bits stay zero.
#version 450
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(std430, set = 0, binding = 0) readonly buffer First { uint first[]; };
layout(std430, set = 0, binding = 1) readonly buffer Second { uint second[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Result { uint result[]; };

layout(push_constant) uniform Blend {
    uint words;           // words to blend
    uint bytesPerSample;  // 1 or 2
    float weight;         // 0 = first, 1 = second
    uint rowWords;        // words per row of the dispatch grid
    uint shift;           // 6 for P010, else 0
} pc;

void main() {
    uint i = gl_GlobalInvocationID.y * pc.rowWords + gl_GlobalInvocationID.x;
    if (gl_GlobalInvocationID.x >= pc.rowWords || i >= pc.words) return;
    uint a = first[i], b = second[i], out_ = 0u;
    uint bits = pc.bytesPerSample * 8u;
    uint mask = bits == 8u ? 0xFFu : 0xFFFFu;
    for (uint bit = 0u; bit < 32u; bit += bits) {
        float x = float(((a >> bit) & mask) >> pc.shift), y = float(((b >> bit) & mask) >> pc.shift);
        out_ |= (uint(floor(x + pc.weight * (y - x) + 0.5)) << pc.shift) << bit;
    }
    result[i] = out_;
}
