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

LR_CLONES double
lr_simd_masked_softmax(const double *restrict z,
                       const unsigned char *restrict mask, size_t n,
                       double *restrict probs)
{
    double mx = -INFINITY;
    for (size_t a = 0; a < n; a++)
        if (mask[a] && z[a] > mx)
            mx = z[a];
    if (mx == -INFINITY)
        return -INFINITY;
    for (size_t a = 0; a < n; a++)
        probs[a] = exp_clamped_d(z[a] - mx);
    /* In index order, as the scalar code summed: the same bits at any
     * vector width. */
    double s = 0;
    for (size_t a = 0; a < n; a++) {
        probs[a] = mask[a] ? probs[a] : 0;
        s += probs[a];
    }
    for (size_t a = 0; a < n; a++)
        probs[a] /= s;
    return mx + log(s);
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
