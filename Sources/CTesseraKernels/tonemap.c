#include "TesseraKernels.h"
#include <math.h>
#include <stdlib.h>

// Linear interpolation in a table of `n` + 1 samples over 0…1 (a NaN reads the first sample, as the AVX2
// loop's max with 0 makes it).
static inline float lookup(const float *table, int n, float x) {
    float i = (x > 0 ? (x < 1 ? x : 1) : 0) * (float)n;
    int k = (int)i;
    if (k >= n) k = n - 1;
    float f = i - (float)k;
    return table[k] + f * (table[k + 1] - table[k]);
}

static inline float clampf(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }

// The 8x8 Bayer threshold in (0, 1) of horizontal_pass.comp.
static inline float bayer(unsigned x, unsigned y) {
    unsigned xy = x ^ y;
    unsigned v = ((xy & 1u) << 5) | ((y & 1u) << 4) | ((xy & 2u) << 2) | ((y & 2u) << 1) | ((xy & 4u) >> 1)
               | ((y & 4u) >> 2);
    return ((float)v + 0.5f) / 64.0f;
}

// Pixels [from, n) of a row: codes → BT.709 R'G'B' → output (Y, Cb, Cr) values, unrounded.
static void map_row_portable(const TesseraToneMap *p, const uint16_t *ry, const uint16_t *ru, const uint16_t *rv,
                             int from, int n, float *oy, float *ocb, float *ocr) {
    const float *m = p->toRGB, *t = p->gamut, *o = p->fromRGB;
    for (int x = from; x < n; x++) {
        float y = ry[x], cb = ru[x], cr = rv[x];
        float lin[3], rgb[3];
        for (int r = 0; r < 3; r++)
            lin[r] = lookup(p->eotf, p->samples, m[4 * r] * y + m[4 * r + 1] * cb + m[4 * r + 2] * cr + m[4 * r + 3]);
        if (p->hlg) {
            float ys = p->lumaWeights[0] * lin[0] + p->lumaWeights[1] * lin[1] + p->lumaWeights[2] * lin[2];
            float f = ys > 0 ? p->hlgScale * powf(ys, p->hlgExponent) : 0;
            for (int c = 0; c < 3; c++) lin[c] *= f;
        }
        float mx = fmaxf(lin[0], fmaxf(lin[1], lin[2]));
        float g = lookup(p->gain, p->samples, sqrtf(sqrtf(fmaxf(mx, 0) / p->gainDomain)));
        for (int r = 0; r < 3; r++) {
            float v = g * (t[3 * r] * lin[0] + t[3 * r + 1] * lin[1] + t[3 * r + 2] * lin[2]);
            rgb[r] = lookup(p->oetf, p->samples, sqrtf(clampf(v, p->black, 1)));
        }
        oy[x] = o[0] * rgb[0] + o[1] * rgb[1] + o[2] * rgb[2] + o[3];
        ocb[x] = o[4] * rgb[0] + o[5] * rgb[1] + o[6] * rgb[2] + o[7];
        ocr[x] = o[8] * rgb[0] + o[9] * rgb[1] + o[10] * rgb[2] + o[11];
    }
}

#if defined(__x86_64__)
#include <immintrin.h>

__attribute__((target("avx2,fma")))
static inline __m256 lookup8(const float *table, int n, __m256 x) {
    __m256 i = _mm256_mul_ps(_mm256_min_ps(_mm256_max_ps(x, _mm256_setzero_ps()), _mm256_set1_ps(1)),
                             _mm256_set1_ps((float)n));
    __m256i k = _mm256_min_epi32(_mm256_cvttps_epi32(i), _mm256_set1_epi32(n - 1));
    __m256 f = _mm256_sub_ps(i, _mm256_cvtepi32_ps(k));
    __m256 a = _mm256_i32gather_ps(table, k, 4), b = _mm256_i32gather_ps(table + 1, k, 4);
    return _mm256_fmadd_ps(f, _mm256_sub_ps(b, a), a);
}

__attribute__((target("avx2,fma")))
static inline __m256 load8(const uint16_t *s) {
    return _mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)s)));
}

__attribute__((target("avx2,fma")))
static inline __m256 row3(const float *m, __m256 a, __m256 b, __m256 c, float constant) {
    return _mm256_fmadd_ps(_mm256_set1_ps(m[0]), a,
                           _mm256_fmadd_ps(_mm256_set1_ps(m[1]), b,
                                           _mm256_fmadd_ps(_mm256_set1_ps(m[2]), c, _mm256_set1_ps(constant))));
}

// Eight pixels at a time (PQ only: HLG's OOTF takes the portable loop); returns how many it did.
__attribute__((target("avx2,fma")))
static int map_row_avx2(const TesseraToneMap *p, const uint16_t *ry, const uint16_t *ru, const uint16_t *rv, int n,
                        float *oy, float *ocb, float *ocr) {
    const float *m = p->toRGB, *t = p->gamut, *o = p->fromRGB;
    const __m256 black = _mm256_set1_ps(p->black), one = _mm256_set1_ps(1), zero = _mm256_setzero_ps();
    const __m256 domain = _mm256_set1_ps(1 / p->gainDomain);
    int x = 0;
    for (; x + 8 <= n; x += 8) {
        __m256 y = load8(ry + x), cb = load8(ru + x), cr = load8(rv + x);
        __m256 r = lookup8(p->eotf, p->samples, row3(m, y, cb, cr, m[3]));
        __m256 g = lookup8(p->eotf, p->samples, row3(m + 4, y, cb, cr, m[7]));
        __m256 b = lookup8(p->eotf, p->samples, row3(m + 8, y, cb, cr, m[11]));
        __m256 mx = _mm256_max_ps(_mm256_max_ps(r, g), _mm256_max_ps(b, zero));
        __m256 gain = lookup8(p->gain, p->samples, _mm256_sqrt_ps(_mm256_sqrt_ps(_mm256_mul_ps(mx, domain))));
        __m256 c[3];
        for (int k = 0; k < 3; k++) {
            __m256 v = _mm256_mul_ps(gain, row3(t + 3 * k, r, g, b, 0));
            v = _mm256_min_ps(_mm256_max_ps(v, black), one);
            c[k] = lookup8(p->oetf, p->samples, _mm256_sqrt_ps(v));
        }
        _mm256_storeu_ps(oy + x, row3(o, c[0], c[1], c[2], o[3]));
        _mm256_storeu_ps(ocb + x, row3(o + 4, c[0], c[1], c[2], o[7]));
        _mm256_storeu_ps(ocr + x, row3(o + 8, c[0], c[1], c[2], o[11]));
    }
    return x;
}
#endif

static int have_avx2_fma(void) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return 0;
#endif
}

static void map_row(const TesseraToneMap *p, int simd, const uint16_t *ry, const uint16_t *ru, const uint16_t *rv,
                    int n, float *oy, float *ocb, float *ocr) {
    int done = 0;
#if defined(__x86_64__)
    if (simd) done = map_row_avx2(p, ry, ru, rv, n, oy, ocb, ocr);
#endif
    map_row_portable(p, ry, ru, rv, done, n, oy, ocb, ocr);
}

static inline void store(uint8_t *row, int x, int bytes, float v, float maxCode) {
    float c = v < 0 ? 0 : v > maxCode ? maxCode : v;
    if (bytes == 1) row[x] = (uint8_t)c;
    else ((uint16_t *)row)[x] = (uint16_t)c;
}

int tessera_tonemap(const TesseraToneMap *p, const uint16_t *const in[3], const ptrdiff_t inStride[3],
                     int width, int height, uint8_t *const out[3], const ptrdiff_t outStride[3],
                     int bytesPerSample, int log2ChromaX, int log2ChromaY) {
    int bw = 1 << log2ChromaX, bh = 1 << log2ChromaY;
    float maxCode = (float)p->maxCode;
    int simd = p->simd && !p->hlg && have_avx2_fma();
    // Each row's unrounded Y, Cb, Cr, for the block rows of one chroma row.
    float *buffer = malloc(sizeof(float) * 3 * (size_t)bh * (size_t)width);
    if (!buffer) return -1;
    for (int by = 0; by < height; by += bh) {
        int rows = by + bh <= height ? bh : height - by;
        for (int r = 0; r < rows; r++) {
            int y = by + r;
            float *fy = buffer + (size_t)(3 * r) * width;
            map_row(p, simd, (const uint16_t *)((const uint8_t *)in[0] + y * inStride[0]),
                    (const uint16_t *)((const uint8_t *)in[1] + y * inStride[1]),
                    (const uint16_t *)((const uint8_t *)in[2] + y * inStride[2]), width, fy, fy + width,
                    fy + 2 * width);
            uint8_t *line = out[0] + y * outStride[0];
            for (int x = 0; x < width; x++) {
                float threshold = p->dither ? bayer((unsigned)x, (unsigned)y) : 0.5f;
                store(line, x, bytesPerSample, fy[x] + threshold, maxCode);
            }
        }
        int cy = by >> log2ChromaY;
        uint8_t *lineU = out[1] + cy * outStride[1], *lineV = out[2] + cy * outStride[2];
        for (int bx = 0, cx = 0; bx < width; bx += bw, cx++) {
            float cb = 0, cr = 0;
            int count = 0;
            for (int r = 0; r < rows; r++) {
                const float *fy = buffer + (size_t)(3 * r) * width;
                for (int x = bx; x < bx + bw && x < width; x++, count++) {
                    cb += fy[width + x];
                    cr += fy[2 * width + x];
                }
            }
            float threshold = p->dither ? bayer((unsigned)cx, (unsigned)cy) : 0.5f;
            store(lineU, cx, bytesPerSample, cb / (float)count + threshold, maxCode);
            store(lineV, cx, bytesPerSample, cr / (float)count + threshold, maxCode);
        }
    }
    free(buffer);
    return 0;
}
