/*
 * lr_simd: the elementwise loops of training (lr_mlp's batched passes,
 * Adam, the conversions between the double master weights and the float
 * copy), written as plain loops that gcc vectorises.
 *
 * Why a file of its own: gcc -O2 vectorises only loops that need no
 * scalar epilogue (its "very cheap" cost model) and will not if-convert a
 * clamp or call sqrt without keeping errno; lr_simd.c is therefore built
 * with -ftree-vectorize -fvect-cost-model=dynamic -fno-math-errno
 * -fno-trapping-math (planner/local.am), flags that change how fast, not
 * what is computed: each element goes through the same IEEE operations in
 * the same order as the scalar loop (no reassociation, no contraction
 * into fused multiply-adds: -ffp-contract=off, -std=c11's default, also
 * set in planner/local.am), so the results are bit-identical whatever
 * the vector width.
 *
 * On x86-64 each function has three clones (gcc's target_clones), the
 * best the CPU has chosen at load time: x86-64-v4 (AVX-512, 16 floats or
 * 8 doubles a vector), x86-64-v3 (AVX2, 8 or 4) and the baseline (SSE2,
 * 4 or 2; valgrind, which has no AVX-512, runs v3).  By the argument
 * above they give the same bits, so a seed's training does not depend
 * on which clone runs (nor, since lr_gemm.h, on OpenBLAS's kernel).
 * Checked: builds with the v4 clone, with v3 only and with no clones
 * wrote byte-identical policy files for the same 4096-step metro run
 * (docs/benchmarks.md).
 *
 * Approximations (tests/unit/test_simd.c asserts both bounds on dense
 * grids against glibc in double; the maxima quoted were measured over
 * every one of the 2^32 floats):
 *   lr_simd_expf: relative error under 1e-7 (8.2e-8, about 1.4 float
 *     ulps) on [-87, 88]; below -87 the result is exp(-87), above 88
 *     exp(88).  Range reduction x = k ln 2 + r, |r| <= ln 2 / 2, with
 *     ln 2 split in two (Cody and Waite), exp(r) by the degree-7
 *     polynomial of Cephes' expf (S. L. Moshier, Cephes Math Library,
 *     expf.c), 2^k put in the exponent bits.
 *   lr_simd_exp: the same in double, relative error under 4e-16 (about
 *     2 ulps) on [-708, 709], clamped outside: the range reduction with
 *     fdlibm's split of ln 2 and the Taylor series of exp(r) to r^13.
 *   lr_simd_tanhf: tanh(x) = sign(x) (1 - e) / (1 + e), e = exp(-2|x|)
 *     by the exp above: absolute error under 1e-7 (9.0e-8) over all
 *     floats (what the next layer sees; the relative error grows where
 *     |tanh x| is small, as with the libm form it replaced),
 *     tanh(+-0) = +-0, tanh(+-inf) = +-1, NaN stays NaN.
 * All pointers of one call point to distinct arrays (restrict).
 */
#ifndef LR_SIMD_H
#define LR_SIMD_H 1

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Bit i set when mask[i] is not 0, for the len <= 64 bytes at mask: an
 * action mask's next 64 bytes as a word, so that a loop over the allowed
 * actions in index order walks its set bits (ctz) instead of testing
 * every byte (a branch that mispredicts where about half the actions
 * are allowed).  On little-endian machines eight bytes at a time: each
 * byte's bits ORed down into its bit 0 by shifts of 4, 2 and 1 (they
 * total at most 7, so no bit of the next byte reaches bit 0), then
 * gathered by one multiply: bit 0 of byte i times 0x0102040810204080 =
 * sum_j 2^(7 j + 7) lands at bit 8 i + 7 j + 7, 56 + i for j = 7 - i,
 * and no two (i, j) share a bit (8 i + 7 j determines both), so nothing
 * carries. */
static inline uint64_t
lr_simd_allowed64(const unsigned char *mask, size_t len)
{
    uint64_t w = 0;
    size_t i = 0;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (; i + 8 <= len; i += 8) {
        uint64_t x;
        memcpy(&x, mask + i, sizeof x);
        x |= x >> 4;
        x |= x >> 2;
        x |= x >> 1;
        x &= UINT64_C(0x0101010101010101);
        w |= ((x * UINT64_C(0x0102040810204080)) >> 56) << i;
    }
#endif
    for (; i < len; i++)
        w |= (uint64_t) (mask[i] != 0) << i;
    return w;
}

/* The word of actions b..b+63 of a mask of n (b < n): bit k for action
 * b + k, the tail past n left 0.  Walk the allowed actions in index
 * order with
 *     for (size_t b = 0; b < n; b += 64)
 *         for (uint64_t w = lr_simd_allowed_word(mask, n, b); w;
 *              w &= w - 1)
 *             ... b + __builtin_ctzll(w) ... */
static inline uint64_t
lr_simd_allowed_word(const unsigned char *mask, size_t n, size_t b)
{
    return lr_simd_allowed64(mask + b, n - b < 64 ? n - b : 64);
}

/* x[i] = exp(x[i]), x[i] = tanh(x[i]): the approximations above. */
void lr_simd_expf(float *x, size_t n);
void lr_simd_tanhf(float *x, size_t n);

/* x[i] = exp(x[i]) in double (the approximation above). */
void lr_simd_exp(double *x, size_t n);

/* The masked softmax of z[n] into probs[n] (0 where mask[a] is 0), with
 * lr_simd_exp; returns log of the normaliser (so that log p_a = z_a -
 * the result), or -inf when the mask allows nothing (probs unwritten).
 * For training only: one decision (lr_ppo_act) keeps glibc's exp. */
double lr_simd_masked_softmax(const double *z, const unsigned char *mask,
                              size_t n, double *probs);

/* The entropy of a masked softmax, -sum p_j (z_j - lz) over the j with
 * mask[j] and probs[j] > 0, summed in index order (the scalar loop it
 * replaced in lr_ppo.c, bit for bit). */
double lr_simd_masked_entropy(const double *probs, const double *z,
                              double lz, const unsigned char *mask,
                              size_t n);

/* The gradient of PPO's per-row loss with respect to the logits z[n]
 * (lr_ppo.c, loss_grad_batched has the model), given the masked softmax
 * probs[n] of z, lz its log normaliser, the taken action 'a', dL/dlog p_a
 * 'dlogp', the entropy H of the row and its coefficient 'ent':
 *   dz[j] = (dlogp ((j == a) - p_j) + ent p_j ((p_j > 0 ? z_j - lz : 0)
 *           + H)) / count   where mask[j], else 0,
 * in that order of operations (the scalar loop it replaced, bit for bit). */
void lr_simd_logit_grad(double *dz, const double *z, const double *probs,
                        const unsigned char *mask, size_t n, size_t a,
                        double dlogp, double ent, double lz, double H,
                        double count);

/* g[i] *= 1 - h[i]^2: tanh's derivative from its output h. */
void lr_simd_tanh_grad(float *g, const float *h, size_t n);

/* to[i] = from[i], rounded to float or widened to double. */
void lr_simd_to_float(float *to, const double *from, size_t n);
void lr_simd_to_double(double *to, const float *from, size_t n);

/* t[k ld + o] = w[o in + k] for o < out and k < in: w (out x in, row
 * major) transposed into rows of ld >= out floats (the columns from out
 * to ld untouched).  Eight by eight in registers where it can: moving
 * floats, it gives the same result at any vector width. */
void lr_simd_transpose(float *t, size_t ld, const float *w, size_t out,
                       size_t in);

/* acc[i] += x[i], in double. */
void lr_simd_add_float(double *acc, const float *x, size_t n);

/* acc[i] += x[r][i] for the rows r = 0, 1, ... of x[rows][n] in turn
 * (row order: lr_simd_add_float() once per row, in one call). */
void lr_simd_add_rows(double *acc, const float *x, size_t rows, size_t n);

/* One Adam step over n weights (lr_mlp.h has the model), the constants
 * hoisted by the caller: with g' = g gscale (the gradient's clipping,
 * folded in; 1 leaves g as it is), m = b1 m + k1 g'; v = b2 v + k2 g'^2;
 * w -= step m / (sqrt(v) rs + eps); and, when wf is not NULL, wf = w
 * rounded to float (the float copy kept in step with the master). */
struct lr_simd_adam {
    double b1, k1, b2, k2, step, rs, eps, gscale;
};
void lr_simd_adam(const struct lr_simd_adam *, size_t n, double *w,
                  float *wf, double *m, double *v, const double *g);

/* The sum of x[i]^2 in eight interleaved partial sums (element i into
 * sum i mod 8, then ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))):
 * a fixed order, so the same bits at any vector width, and eight
 * independent additions in flight instead of one chain. */
double lr_simd_sum_squares(const double *x, size_t n);

#endif
