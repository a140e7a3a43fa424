// Shared by the two resampling passes: the parameter block and the resampling kernel.
//
// Parameters live in a small uniform buffer read at workgroup-uniform offsets, which every driver
// (lavapipe included) turns into plain scalar loads. Filter weights are computed in the shader rather
// than read from tables: arithmetic runs on all lanes at once, while a table lookup is a memory access
// per lane.

layout(std140, set = 0, binding = 2) uniform Params { uvec4 params[128]; };

// Specialisation constants: fixed per pipeline, so the compiler drops every branch not taken. This
// matters most on lavapipe, which predicates rather than branches: code behind a false `if` still runs.
layout(constant_id = 0) const uint FILTER = 1u;  // 0 bilinear, 1 cubic (B, C in the header), 2 Lanczos-3

uint P(uint i) { return params[i >> 2u][i & 3u]; }
float F(uint i) { return uintBitsToFloat(P(i)); }

// Header: 0 job count, 1 grid base, 2 filter (as FILTER), 3 radius, 4 B, 5 C,
// 8..15 cubic polynomial coefficients (x<1: 8 + 9 x² + 10 x³; 1≤x<2: 11 + 12 x + 13 x² + 14 x³).
//
// The kernel is 0 outside its radius, so a sample may run a fixed number of taps (the same on every
// lane, no divergent loops): taps past the support just weigh nothing.
float kernelWeight(float x) {
    x = abs(x);
    if (FILTER == 1u) {
        float x2 = x * x, x3 = x2 * x;
        float near = F(8u) + F(9u) * x2 + F(10u) * x3;
        float far = F(11u) + F(12u) * x + F(13u) * x2 + F(14u) * x3;
        return x < 1.0 ? near : (x < 2.0 ? far : 0.0);
    }
    if (FILTER == 0u) return max(0.0, 1.0 - x);
    if (x < 1e-6) return 1.0;
    if (x >= 3.0) return 0.0;
    float px = 3.14159265358979 * x;
    return 3.0 * sin(px) * sin(px / 3.0) / (px * px);
}

// The first source tap of an output sample at `centre` (before clamping to the plane).
int firstTap(float centre, float scale) { return int(floor(centre - F(3u) * scale)) + 1; }
