// Shared by the two resampling passes: the parameter block and the filter tables.
//
// Parameters live in a small uniform buffer read at workgroup-uniform offsets, which every driver
// (lavapipe included) turns into plain scalar loads.

layout(std140, set = 0, binding = 2) uniform Params { uvec4 params[128]; };

uint P(uint i) { return params[i >> 2u][i & 3u]; }

// Filter tables (both passes): per output row or sample, the first source index, then `taps` weights
// (float bits, summing to 1, edges already folded in). A fetch per tap is cheaper than evaluating the
// kernel per tap, and keeps every filter in one shader.
layout(set = 0, binding = 5) uniform usamplerBuffer tables;

float weightAt(int entry) { return uintBitsToFloat(texelFetch(tables, entry).x); }
float F(uint i) { return uintBitsToFloat(P(i)); }
