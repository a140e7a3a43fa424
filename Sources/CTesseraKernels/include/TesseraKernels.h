// Tessera's own SIMD kernels for the CPU path, called from TesseraCompute (CPU/PlaneScaler.swift).
// Plain C with AVX2 intrinsics behind a run-time CPU check: Swift's SIMD types compile integer
// widening (UInt8 → Int16/Int32 lanes) to unspecialised generic calls, several times slower than
// libswscale, so the inner loops live here.
#ifndef TESSERA_KERNELS_H
#define TESSERA_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/// Resamples one 8-bit plane with separable filters: the vertical pass first (one source-width row of
/// 16-bit fixed point per output row, in `row`), then the horizontal pass into `dst`.
///
/// - Weights are Q14 (each output's taps sum to 16384). `vFirst[y]` is the first source row of output
///   row y and `vWeights[y * vTaps + t]` its weights; every row read lies inside the plane.
/// - `hTaps` is a multiple of 8; `hFirst[k] + hTaps` may reach past the source width by up to
///   `hTaps - 1` samples, whose weights are 0.
/// - `row` holds `srcWidth + hTaps` 16-bit samples.
/// - `simd` 0 forces the portable loops (tests compare both).
void tessera_scale_plane_u8(const uint8_t *src, ptrdiff_t srcStride, int srcWidth,
                            uint8_t *dst, ptrdiff_t dstStride, int dstWidth, int dstHeight,
                            const int32_t *vFirst, const int16_t *vWeights, int vTaps,
                            const int32_t *hFirst, const int16_t *hWeights, int hTaps,
                            int16_t *row, int simd);

/// One row of the blend `out = a + weight × (b − a)`, rounded half up, for 8-bit samples and a weight
/// in 0…1 (FrameBlend's CPU path; Swift's SIMD float → UInt8 conversion is an unspecialised generic
/// call per lane, about 45 ms for a 720p frame).
void tessera_blend_row_u8(const uint8_t *a, const uint8_t *b, uint8_t *out, ptrdiff_t count, float weight);

/// HDR to BT.709 SDR (ToneMapCurves.swift builds the parameters; horizontal_pass.comp does the same on a
/// device). Reads three 16-bit planes at full resolution (4:4:4, the source's matrix and range) and writes
/// planar Y'CbCr with `log2ChromaX/Y` subsampling, `bytesPerSample` 1 or 2: each pixel tone-mapped, its
/// block's chroma the average of its pixels', ordered dither when `dither` (the shader's Bayer matrix).
/// The mapping runs eight pixels at a time with AVX2 (PQ; HLG's OOTF, one `powf` a pixel, runs portably).
typedef struct {
    float toRGB[12];     // rows of (Y, Cb, Cr, constant): input codes → R'G'B' 0…1
    float gamut[9];      // linear source primaries → BT.709
    float fromRGB[12];   // rows of (R', G', B', constant): → output codes
    const float *eotf;   // signal → linear, `samples` + 1 entries
    const float *gain;   // by ⁴√(max / gainDomain)
    const float *oetf;   // by √linear
    int samples;
    float gainDomain;
    float black;
    int hlg;             // 1: apply HLG's OOTF (scale × Ys^exponent)
    float hlgScale, hlgExponent;
    float lumaWeights[3];
    int maxCode;
    int dither;
    int simd;            // 0 forces the portable loop (tests compare both); else AVX2 where the CPU has it
} TesseraToneMap;

/// Returns 0, or -1 when its row buffer cannot be allocated (nothing is written then).
int tessera_tonemap(const TesseraToneMap *p, const uint16_t *const in[3], const ptrdiff_t inStride[3],
                     int width, int height, uint8_t *const out[3], const ptrdiff_t outStride[3],
                     int bytesPerSample, int log2ChromaX, int log2ChromaY);

/// 1 when `tessera_scale_plane_u8` runs its AVX2 loops on this CPU.
int tessera_kernels_have_avx2(void);

#endif
