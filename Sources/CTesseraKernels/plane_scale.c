#include "TesseraKernels.h"
#include <stdatomic.h>

// Fixed point: weights Q14; the vertical pass keeps rows as Q6 (value × 64, room for filter
// overshoot either way in 16 bits); the horizontal pass sums Q6 × Q14 = Q20 and rounds to 8 bits.
enum { ROW_SHIFT = 8, OUT_SHIFT = 20 };

static inline uint8_t clip_u8(int32_t v) { return v < 0 ? 0 : v > 255 ? 255 : (uint8_t)v; }

static void vertical_portable(const uint8_t *src, ptrdiff_t stride, int width, const int16_t *w, int taps,
                              int16_t *row, int from) {
    for (int x = from; x < width; x++) {
        int32_t acc = 1 << (ROW_SHIFT - 1);
        for (int t = 0; t < taps; t++) acc += w[t] * src[t * stride + x];
        row[x] = (int16_t)(acc >> ROW_SHIFT);
    }
}

static void horizontal_portable(const int16_t *row, const int32_t *first, const int16_t *w, int taps, int width,
                                uint8_t *dst, int from) {
    for (int k = from; k < width; k++) {
        int32_t acc = 1 << (OUT_SHIFT - 1);
        const int16_t *m = row + first[k], *c = w + (ptrdiff_t)k * taps;
        for (int t = 0; t < taps; t++) acc += c[t] * m[t];
        dst[k] = clip_u8(acc >> OUT_SHIFT);
    }
}

#if defined(__x86_64__)
#include <immintrin.h>

int tessera_kernels_have_avx2(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
}

// 16 output samples a step: rows t and t+1 interleaved so one madd applies both taps' weights.
__attribute__((target("avx2")))
static int vertical_avx2(const uint8_t *src, ptrdiff_t stride, int width, const int16_t *w, int taps, int16_t *row) {
    const __m256i round = _mm256_set1_epi32(1 << (ROW_SHIFT - 1));
    const __m128i zero = _mm_setzero_si128();
    int x = 0;
    for (; x + 16 <= width; x += 16) {
        __m256i lo = round, hi = round;
        int t = 0;
        for (; t + 1 < taps; t += 2) {
            __m128i a = _mm_loadu_si128((const __m128i *)(src + t * stride + x));
            __m128i b = _mm_loadu_si128((const __m128i *)(src + (t + 1) * stride + x));
            __m256i pair = _mm256_set1_epi32((int32_t)(uint16_t)w[t] | (int32_t)((uint32_t)(uint16_t)w[t + 1] << 16));
            lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_cvtepu8_epi16(_mm_unpacklo_epi8(a, b)), pair));
            hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_cvtepu8_epi16(_mm_unpackhi_epi8(a, b)), pair));
        }
        if (t < taps) {
            __m128i a = _mm_loadu_si128((const __m128i *)(src + t * stride + x));
            __m256i single = _mm256_set1_epi32((int32_t)(uint16_t)w[t]);
            lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_cvtepu8_epi16(_mm_unpacklo_epi8(a, zero)), single));
            hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_cvtepu8_epi16(_mm_unpackhi_epi8(a, zero)), single));
        }
        // packs works per 128-bit lane: (lo 0-3, hi 0-3 | lo 4-7, hi 4-7); the permute restores x order.
        __m256i packed = _mm256_packs_epi32(_mm256_srai_epi32(lo, ROW_SHIFT), _mm256_srai_epi32(hi, ROW_SHIFT));
        _mm256_storeu_si256((__m256i *)(row + x), _mm256_permute4x64_epi64(packed, 0xD8));
    }
    return x;
}

// Two outputs' sums of `taps` products (eight at a time), output a in the low lane and b in the high one.
__attribute__((target("avx2"), always_inline))
static inline __m256i pair_avx2(const int16_t *row, const int32_t *first, const int16_t *w, int taps, int k) {
    const int16_t *a = row + first[k], *b = row + first[k + 1];
    const int16_t *c = w + (ptrdiff_t)k * taps;
    __m256i sum = _mm256_setzero_si256();
    for (int t = 0; t < taps; t += 8) {
        __m256i samples = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(a + t))),
                                                  _mm_loadu_si128((const __m128i *)(b + t)), 1);
        __m256i weights = taps == 8 ? _mm256_loadu_si256((const __m256i *)c)
            : _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(c + t))),
                                      _mm_loadu_si128((const __m128i *)(c + taps + t)), 1);
        sum = _mm256_add_epi32(sum, _mm256_madd_epi16(samples, weights));
    }
    return sum;
}

// 8 outputs a step, two per madd; the hadds leave the sums as k0 k2 k4 k6 | k1 k3 k5 k7.
__attribute__((target("avx2"), always_inline))
static inline int horizontal_avx2_taps(const int16_t *row, const int32_t *first, const int16_t *w, int taps,
                                       int width, uint8_t *dst) {
    const __m256i round = _mm256_set1_epi32(1 << (OUT_SHIFT - 1));
    int k = 0;
    for (; k + 8 <= width; k += 8) {
        __m256i m0 = pair_avx2(row, first, w, taps, k), m1 = pair_avx2(row, first, w, taps, k + 2);
        __m256i m2 = pair_avx2(row, first, w, taps, k + 4), m3 = pair_avx2(row, first, w, taps, k + 6);
        __m256i h = _mm256_hadd_epi32(_mm256_hadd_epi32(m0, m1), _mm256_hadd_epi32(m2, m3));
        h = _mm256_srai_epi32(_mm256_add_epi32(h, round), OUT_SHIFT);
        __m128i even = _mm256_castsi256_si128(h), odd = _mm256_extracti128_si256(h, 1);
        __m128i words = _mm_packs_epi32(_mm_unpacklo_epi32(even, odd), _mm_unpackhi_epi32(even, odd));
        _mm_storel_epi64((__m128i *)(dst + k), _mm_packus_epi16(words, words));
    }
    return k;
}

// Eight taps (every downscale up to 2x with a cubic) gets its own copy with the tap loop unrolled.
__attribute__((target("avx2")))
static int horizontal_avx2(const int16_t *row, const int32_t *first, const int16_t *w, int taps, int width,
                           uint8_t *dst) {
    return taps == 8 ? horizontal_avx2_taps(row, first, w, 8, width, dst)
                     : horizontal_avx2_taps(row, first, w, taps, width, dst);
}
#else
int tessera_kernels_have_avx2(void) { return 0; }
#endif

void tessera_scale_plane_u8(const uint8_t *src, ptrdiff_t srcStride, int srcWidth,
                            uint8_t *dst, ptrdiff_t dstStride, int dstWidth, int dstHeight,
                            const int32_t *vFirst, const int16_t *vWeights, int vTaps,
                            const int32_t *hFirst, const int16_t *hWeights, int hTaps,
                            int16_t *row, int simd) {
#if defined(__x86_64__)
    // Segment threads call this at once: an atomic cache (relaxed; every thread computes the same value).
    static _Atomic int avx2 = -1;
    int have = atomic_load_explicit(&avx2, memory_order_relaxed);
    if (have < 0) atomic_store_explicit(&avx2, have = tessera_kernels_have_avx2(), memory_order_relaxed);
    simd = simd && have;
#else
    simd = 0;
#endif
    // The horizontal pass may read up to hTaps - 1 samples past the row (weighted 0): keep them finite.
    for (int x = srcWidth; x < srcWidth + hTaps; x++) row[x] = 0;
    for (int y = 0; y < dstHeight; y++) {
        const uint8_t *rows = src + (ptrdiff_t)vFirst[y] * srcStride;
        const int16_t *vw = vWeights + (ptrdiff_t)y * vTaps;
        uint8_t *out = dst + (ptrdiff_t)y * dstStride;
        int done = 0;
#if defined(__x86_64__)
        if (simd) done = vertical_avx2(rows, srcStride, srcWidth, vw, vTaps, row);
#endif
        vertical_portable(rows, srcStride, srcWidth, vw, vTaps, row, done);
        done = 0;
#if defined(__x86_64__)
        if (simd) done = horizontal_avx2(row, hFirst, hWeights, hTaps, dstWidth, out);
#endif
        horizontal_portable(row, hFirst, hWeights, hTaps, dstWidth, out, done);
    }
}
