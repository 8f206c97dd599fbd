/* lr_simd: see lr_simd.h for what each loop computes and why it is here. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "planner/lr_clones.h"
#include "planner/lr_simd.h"

/* exp(a) for a float; the loops below inline it.  k = round(a / ln 2)
 * by the 1.5 x 2^23 shifter (t keeps k in its low mantissa bits), r = a
 * - k ln 2 with ln 2 = L1 + L2 (L1 has 15 significant bits, so k L1 is
 * exact for |k| <= 256), exp(r) by Cephes' polynomial, 2^k as the
 * exponent field (k + 127) << 23: k lies in [-126, 127] after the
 * clamp, a normal float. */
static inline float
exp_clamped(float a)
{
    a = a < -87.0f ? -87.0f : a;
    a = a > 88.0f ? 88.0f : a;
    float t = a * 1.44269504088896341f + 0x1.8p23f;
    float k = t - 0x1.8p23f;
    float r = a - k * 0.693145751953125f;
    r = r - k * 1.428606765330187e-06f;
    float z = r * r;
    float p = (((((1.9875691500e-4f * r + 1.3981999507e-3f) * r
                  + 8.3334519073e-3f) * r + 4.1665795894e-2f) * r
                + 1.6666665459e-1f) * r + 5.0000001201e-1f) * z + r + 1.0f;
    uint32_t tb, sb;
    float s;
    memcpy(&tb, &t, sizeof tb);
    sb = (tb << 23) + 0x3f800000u;
    memcpy(&s, &sb, sizeof s);
    return p * s;
}

LR_CLONES void
lr_simd_expf(float *restrict x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = exp_clamped(x[i]);
}

LR_CLONES void
lr_simd_tanhf(float *restrict x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float e = exp_clamped(-2.0f * fabsf(x[i]));
        x[i] = copysignf((1.0f - e) / (1.0f + e), x[i]);
    }
}

LR_CLONES void
lr_simd_tanh_grad(float *restrict g, const float *restrict h, size_t n)
{
    for (size_t i = 0; i < n; i++)
        g[i] *= 1.0f - h[i] * h[i];
}

LR_CLONES void
lr_simd_to_float(float *restrict to, const double *restrict from, size_t n)
{
    for (size_t i = 0; i < n; i++)
        to[i] = (float) from[i];
}

LR_CLONES void
lr_simd_to_double(double *restrict to, const float *restrict from, size_t n)
{
    for (size_t i = 0; i < n; i++)
        to[i] = from[i];
}

LR_CLONES void
lr_simd_add_float(double *restrict acc, const float *restrict x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        acc[i] += x[i];
}

LR_CLONES void
lr_simd_add_rows(double *restrict acc, const float *restrict x,
                 size_t rows, size_t n)
{
    for (size_t r = 0; r < rows; r++)
        for (size_t i = 0; i < n; i++)
            acc[i] += x[r * n + i];
}

LR_CLONES void
lr_simd_adam(const struct lr_simd_adam *k, size_t n, double *restrict w,
             float *restrict wf, double *restrict m, double *restrict v,
             const double *restrict g)
{
    double b1 = k->b1, k1 = k->k1, b2 = k->b2, k2 = k->k2;
    double step = k->step, rs = k->rs, eps = k->eps, gs = k->gscale;
    if (wf) {
        for (size_t i = 0; i < n; i++) {
            double gi = g[i] * gs;
            m[i] = b1 * m[i] + k1 * gi;
            v[i] = b2 * v[i] + k2 * gi * gi;
            w[i] -= step * m[i] / (sqrt(v[i]) * rs + eps);
            wf[i] = (float) w[i];
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            double gi = g[i] * gs;
            m[i] = b1 * m[i] + k1 * gi;
            v[i] = b2 * v[i] + k2 * gi * gi;
            w[i] -= step * m[i] / (sqrt(v[i]) * rs + eps);
        }
    }
}

LR_CLONES double
lr_simd_sum_squares(const double *restrict x, size_t n)
{
    double s[8] = { 0 };
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; j++)
            s[j] += x[i + j] * x[i + j];
    for (int j = 0; i < n; i++, j++)
        s[j] += x[i] * x[i];
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

/* exp(a) for a double: as exp_clamped() with the 1.5 x 2^52 shifter,
 * ln 2 split as fdlibm's ln2_hi + ln2_lo (ln2_hi has 32 significant
 * bits: k ln2_hi exact for |k| < 2^20), and exp(r), |r| <= ln 2 / 2, by
 * its Taylor series to r^13 (the first term left out is under 4e-18 of
 * the sum).  a is clamped to [-708, 709]: k in [-1022, 1023]. */
static inline double
exp_clamped_d(double a)
{
    a = a < -708.0 ? -708.0 : a;
    a = a > 709.0 ? 709.0 : a;
    double t = a * 1.4426950408889634074 + 0x1.8p52;
    double k = t - 0x1.8p52;
    double r = a - k * 6.93147180369123816490e-01;
    r = r - k * 1.90821492927058770002e-10;
    double p = 1.0 / 6227020800.0;                   /* 1 / 13! */
    p = p * r + 1.0 / 479001600.0;
    p = p * r + 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    uint64_t tb, sb;
    double s;
    memcpy(&tb, &t, sizeof tb);
    sb = (tb << 52) + UINT64_C(0x3ff0000000000000);
    memcpy(&s, &sb, sizeof s);
    return p * s;
}

LR_CLONES void
lr_simd_exp(double *restrict x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = exp_clamped_d(x[i]);
}

/* The largest z[a] with mask[a], -inf if none (NaNs never win), as the
 * scalar loop "if (mask[a] && z[a] > mx) mx = z[a]" finds it, but eight
 * lanes at a time in gcc's vector types (a vector compare and blend per
 * eight on AVX-512; the scalar loop's compare and branch per element
 * took a third of the softmax).  The maximum does not depend on the
 * order of comparisons but for the sign of a zero maximum (+0 and -0
 * compare equal), and that sign changes no output of the softmax: z - mx
 * then differs at most in the sign of a zero, whose exp is 1 either way,
 * and mx + log(s), s >= 1, is +0 or the same nonzero value. */
typedef double lr_v8d __attribute__((vector_size(64)));
typedef long long lr_v8l __attribute__((vector_size(64)));

static inline __attribute__((always_inline)) double
masked_max(const double *restrict z, const unsigned char *restrict mask,
           size_t n)
{
    enum { W = 8 };
    /* Where byte l of eight mask bytes lies in them read as one word. */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    const lr_v8l byte_shift = { 56, 48, 40, 32, 24, 16, 8, 0 };
#else
    const lr_v8l byte_shift = { 0, 8, 16, 24, 32, 40, 48, 56 };
#endif
    const lr_v8d lane_init = { -INFINITY, -INFINITY, -INFINITY, -INFINITY,
                               -INFINITY, -INFINITY, -INFINITY, -INFINITY };
    lr_v8d lane = lane_init;
    size_t a = 0;
    for (; a + W <= n; a += W) {
        lr_v8d v;
        uint64_t m8;
        memcpy(&v, z + a, sizeof v);
        memcpy(&m8, mask + a, sizeof m8);
        /* Lane l: all ones if mask byte l is not 0, else 0 (integer
         * arithmetic: gcc 12 splits a vector of two compares into
         * scalars); v at -inf where masked. */
        lr_v8l b = ((lr_v8l) { 0 } + (long long) m8) >> byte_shift;
        lr_v8l on = -(((b & 0xff) + 0xff) >> 8);
        v = (lr_v8d) (((lr_v8l) v & on) | ((lr_v8l) lane_init & ~on));
        lr_v8l take = v > lane;
        lane = (lr_v8d) (((lr_v8l) v & take) | ((lr_v8l) lane & ~take));
    }
    double mx = -INFINITY;
    for (int l = 0; l < W; l++)
        mx = lane[l] > mx ? lane[l] : mx;
    for (; a < n; a++)
        if (mask[a] && z[a] > mx)
            mx = z[a];
    return mx;
}

/* Eight rows of eight floats transposed in registers: unpack pairs of
 * rows, then pairs of pairs, then the two halves (24 shuffles for 64
 * floats; gcc lowers each __builtin_shuffle to the vector unit's own). */
typedef float lr_v8f __attribute__((vector_size(32)));
typedef int lr_v8i __attribute__((vector_size(32)));

static inline __attribute__((always_inline)) void
transpose8(float *restrict t, size_t ld, const float *restrict w,
           size_t in)
{
    const lr_v8i lo1 = { 0, 8, 1, 9, 4, 12, 5, 13 };
    const lr_v8i hi1 = { 2, 10, 3, 11, 6, 14, 7, 15 };
    const lr_v8i lo2 = { 0, 1, 8, 9, 4, 5, 12, 13 };
    const lr_v8i hi2 = { 2, 3, 10, 11, 6, 7, 14, 15 };
    const lr_v8i lo4 = { 0, 1, 2, 3, 8, 9, 10, 11 };
    const lr_v8i hi4 = { 4, 5, 6, 7, 12, 13, 14, 15 };
    lr_v8f r0, r1, r2, r3, r4, r5, r6, r7;
    memcpy(&r0, w, sizeof r0);
    memcpy(&r1, w + in, sizeof r1);
    memcpy(&r2, w + 2 * in, sizeof r2);
    memcpy(&r3, w + 3 * in, sizeof r3);
    memcpy(&r4, w + 4 * in, sizeof r4);
    memcpy(&r5, w + 5 * in, sizeof r5);
    memcpy(&r6, w + 6 * in, sizeof r6);
    memcpy(&r7, w + 7 * in, sizeof r7);
    /* a0 = r0[0] r1[0] r0[1] r1[1] r0[4] r1[4] r0[5] r1[5], ... */
    lr_v8f a0 = __builtin_shuffle(r0, r1, lo1);
    lr_v8f a1 = __builtin_shuffle(r0, r1, hi1);
    lr_v8f a2 = __builtin_shuffle(r2, r3, lo1);
    lr_v8f a3 = __builtin_shuffle(r2, r3, hi1);
    lr_v8f a4 = __builtin_shuffle(r4, r5, lo1);
    lr_v8f a5 = __builtin_shuffle(r4, r5, hi1);
    lr_v8f a6 = __builtin_shuffle(r6, r7, lo1);
    lr_v8f a7 = __builtin_shuffle(r6, r7, hi1);
    /* b0 = columns 0 and 4 of rows 0-3, b1 columns 1 and 5, b2 2 and
     * 6, b3 3 and 7; b4-b7 the same of rows 4-7. */
    lr_v8f b0 = __builtin_shuffle(a0, a2, lo2);
    lr_v8f b1 = __builtin_shuffle(a0, a2, hi2);
    lr_v8f b2 = __builtin_shuffle(a1, a3, lo2);
    lr_v8f b3 = __builtin_shuffle(a1, a3, hi2);
    lr_v8f b4 = __builtin_shuffle(a4, a6, lo2);
    lr_v8f b5 = __builtin_shuffle(a4, a6, hi2);
    lr_v8f b6 = __builtin_shuffle(a5, a7, lo2);
    lr_v8f b7 = __builtin_shuffle(a5, a7, hi2);
    lr_v8f c0 = __builtin_shuffle(b0, b4, lo4);
    lr_v8f c1 = __builtin_shuffle(b1, b5, lo4);
    lr_v8f c2 = __builtin_shuffle(b2, b6, lo4);
    lr_v8f c3 = __builtin_shuffle(b3, b7, lo4);
    lr_v8f c4 = __builtin_shuffle(b0, b4, hi4);
    lr_v8f c5 = __builtin_shuffle(b1, b5, hi4);
    lr_v8f c6 = __builtin_shuffle(b2, b6, hi4);
    lr_v8f c7 = __builtin_shuffle(b3, b7, hi4);
    memcpy(t, &c0, sizeof c0);
    memcpy(t + ld, &c1, sizeof c1);
    memcpy(t + 2 * ld, &c2, sizeof c2);
    memcpy(t + 3 * ld, &c3, sizeof c3);
    memcpy(t + 4 * ld, &c4, sizeof c4);
    memcpy(t + 5 * ld, &c5, sizeof c5);
    memcpy(t + 6 * ld, &c6, sizeof c6);
    memcpy(t + 7 * ld, &c7, sizeof c7);
}

LR_CLONES void
lr_simd_transpose(float *restrict t, size_t ld, const float *restrict w,
                  size_t out, size_t in)
{
    size_t o8 = out / 8 * 8, k8 = in / 8 * 8;
    for (size_t o = 0; o < o8; o += 8)
        for (size_t k = 0; k < k8; k += 8)
            transpose8(t + k * ld + o, ld, w + o * in + k, in);
    for (size_t o = 0; o < out; o++)
        for (size_t k = o < o8 ? k8 : 0; k < in; k++)
            t[k * ld + o] = w[o * in + k];
}

LR_CLONES double
lr_simd_masked_softmax(const double *restrict z,
                       const unsigned char *restrict mask, size_t n,
                       double *restrict probs)
{
    double mx = masked_max(z, mask, n);
    if (mx == -INFINITY)
        return -INFINITY;
    for (size_t a = 0; a < n; a++)
        probs[a] = exp_clamped_d(z[a] - mx);
    for (size_t a = 0; a < n; a++)
        probs[a] = mask[a] ? probs[a] : 0;
    /* In index order, as the scalar code summed: the same bits at any
     * vector width.  The masked terms were +0, which leaves a sum of
     * nonnegative terms as it is: only the allowed ones are added. */
    double s = 0;
    for (size_t b = 0; b < n; b += 64)
        for (uint64_t w = lr_simd_allowed_word(mask, n, b);
             w; w &= w - 1)
            s += probs[b + (size_t) __builtin_ctzll(w)];
    for (size_t a = 0; a < n; a++)
        probs[a] /= s;
    return mx + log(s);
}

LR_CLONES double
lr_simd_masked_entropy(const double *restrict probs,
                       const double *restrict z, double lz,
                       const unsigned char *restrict mask, size_t n)
{
    double H = 0;
    for (size_t b = 0; b < n; b += 64)
        for (uint64_t w = lr_simd_allowed_word(mask, n, b);
             w; w &= w - 1) {
            size_t j = b + (size_t) __builtin_ctzll(w);
            if (probs[j] > 0)
                H -= probs[j] * (z[j] - lz);
        }
    return H;
}

LR_CLONES void
lr_simd_logit_grad(double *restrict dz, const double *restrict z,
                   const double *restrict probs,
                   const unsigned char *restrict mask, size_t n, size_t a,
                   double dlogp, double ent, double lz, double H,
                   double count)
{
    for (size_t j = 0; j < n; j++) {
        double pj = probs[j];
        double v = (dlogp * ((j == a) - pj) + ent * pj
                    * ((pj > 0 ? z[j] - lz : 0) + H)) / count;
        dz[j] = mask[j] ? v : 0;
    }
}
