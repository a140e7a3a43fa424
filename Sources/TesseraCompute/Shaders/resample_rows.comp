// Pass 1 of 2: reads one channel of the source picture and resamples it along the source's x axis.
//
// One invocation writes one float of an intermediate plane (out index a, source row j). A dispatch
// covers every (output grid, source channel) pair at once: gl_WorkGroupID.z picks the job. Sources
// are read as bytes or 16-bit words out of a uint buffer, so any plane layout works (planar,
// interleaved UV, packed RGBA, P010's high-bit samples) without 8/16-bit storage features.
#version 450
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(std430, set = 0, binding = 0) readonly buffer Source { uint src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Intermediate { float mid[]; };
layout(std430, set = 0, binding = 2) readonly buffer Params { uint params[]; };

// A job is 12 uints at params[16 * z]:
//  0 source byte offset of the sample at (0, 0)   1 source row stride in bytes
//  2 bytes from one sample to the next in a row   3 bytes per sample (1 or 2)
//  4 right shift applied to a sample (6 for P010) 5 intermediate width (output samples along u)
//  6 rows (source plane height)                   7 intermediate offset in floats
//  8 weight table offset in uints                 9 taps per output sample
// A table entry is (first source index, weight0 … weight[taps-1]), weights as float bits.

uint readSample(uint address, uint bytesPerSample, uint shift) {
    uint word = src[address >> 2];
    uint bit = (address & 3u) * 8u;
    uint value = bytesPerSample == 1u ? (word >> bit) & 0xFFu : (word >> bit) & 0xFFFFu;
    return value >> shift;
}

void main() {
    uint base = 16u * gl_WorkGroupID.z;
    uint width = params[base + 5u];
    uint rows = params[base + 6u];
    uint a = gl_GlobalInvocationID.x;
    uint j = gl_GlobalInvocationID.y;
    if (a >= width || j >= rows) return;

    uint rowAddress = params[base + 0u] + j * params[base + 1u];
    uint step = params[base + 2u];
    uint bytesPerSample = params[base + 3u];
    uint shift = params[base + 4u];
    uint taps = params[base + 9u];
    uint entry = params[base + 8u] + a * (taps + 1u);
    uint first = params[entry];

    float sum = 0.0;
    for (uint t = 0u; t < taps; t++) {
        float w = uintBitsToFloat(params[entry + 1u + t]);
        sum += w * float(readSample(rowAddress + (first + t) * step, bytesPerSample, shift));
    }
    mid[params[base + 7u] + j * width + a] = sum;
}
