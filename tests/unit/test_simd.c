/*
 * lr_simd: the approximations of exp and tanh against glibc in double
 * over dense grids (the bounds lr_simd.h states), their special values,
 * and the exact loops (conversions, sums, tanh's derivative, Adam)
 * against the same arithmetic written here one element at a time.
 * Lengths are odd so that the vector loops' scalar remainders run too.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_simd.h"
#include "tests/lr_test.h"

/* Every point of [lo, hi] in steps of 'step', and then +-10^e for e in
 * [-30, 30]: n points into x, returns n (at most cap). */
static size_t
grid(float *x, size_t cap, double lo, double hi, double step)
{
    size_t n = 0;
    for (double v = lo; v <= hi && n < cap; v += step)
        x[n++] = (float) v;
    for (int e = -30; e <= 30 && n + 2 <= cap; e++) {
        x[n++] = (float) pow(10, e);
        x[n++] = (float) -pow(10, e);
    }
    return n;
}

/* The bound of lr_simd.h: absolute error under 1e-7 (9.0e-8 measured
 * over every float), |tanh| <= 1, odd. */
static void
test_tanhf(void)
{
    enum { CAP = 420000 };
    float *x = malloc(CAP * sizeof *x), *y = malloc(CAP * sizeof *y);
    CU_ASSERT_FATAL(x && y);
    size_t n = grid(x, CAP, -20, 20, 1e-4);
    CU_ASSERT(n > 400000);
    memcpy(y, x, n * sizeof *y);
    lr_simd_tanhf(y, n);
    double worst = 0;
    int bounded = 1, odd = 1;
    for (size_t i = 0; i < n; i++) {
        worst = fmax(worst, fabs(y[i] - tanh((double) x[i])));
        bounded &= fabsf(y[i]) <= 1.0f;
        if (i > 0 && x[i] == -x[i - 1])
            odd &= y[i] == -y[i - 1];
    }
    CU_ASSERT(worst < 1e-7);
    CU_ASSERT(bounded);
    CU_ASSERT(odd);
    float s[6] = { 0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e30f };
    lr_simd_tanhf(s, 6);
    CU_ASSERT(s[0] == 0 && !signbit(s[0]));
    CU_ASSERT(s[1] == 0 && signbit(s[1]));
    CU_ASSERT_EQUAL(s[2], 1.0f);
    CU_ASSERT_EQUAL(s[3], -1.0f);
    CU_ASSERT(isnan(s[4]));
    CU_ASSERT_EQUAL(s[5], 1.0f);
    free(x);
    free(y);
}

/* Relative error under 1e-7 on [-87, 88] (8.2e-8 measured over every
 * float there); clamped, finite and positive, outside. */
static void
test_expf(void)
{
    enum { CAP = 200000 };
    float *x = malloc(CAP * sizeof *x), *y = malloc(CAP * sizeof *y);
    CU_ASSERT_FATAL(x && y);
    size_t n = grid(x, CAP, -87, 88, 1e-3);
    memcpy(y, x, n * sizeof *y);
    lr_simd_expf(y, n);
    double worst = 0;
    size_t checked = 0;
    for (size_t i = 0; i < n; i++) {
        if (x[i] < -87 || x[i] > 88)
            continue;
        double e = exp((double) x[i]);
        worst = fmax(worst, fabs(y[i] - e) / e);
        checked++;
    }
    CU_ASSERT(checked > 170000);
    CU_ASSERT(worst < 1e-7);
    float s[5] = { -1000.0f, -87.0f, 1000.0f, 88.0f, 0.0f };
    lr_simd_expf(s, 5);
    CU_ASSERT(s[0] > 0 && s[0] == s[1]);
    CU_ASSERT(isfinite(s[2]) && s[2] == s[3]);
    CU_ASSERT_EQUAL(s[4], 1.0f);
    free(x);
    free(y);
}

/* Double: relative error under 4e-16 on [-708, 709]; clamped outside. */
static void
test_exp(void)
{
    enum { N = 141701 };
    double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    CU_ASSERT_FATAL(x && y);
    for (int i = 0; i < N; i++)
        x[i] = y[i] = -708 + 1417.0 * i / (N - 1) + 1e-3 * sin(i);
    lr_simd_exp(y, N);
    double worst = 0;
    for (int i = 0; i < N; i++) {
        if (x[i] < -708 || x[i] > 709)
            continue;
        double e = exp(x[i]);
        worst = fmax(worst, fabs(y[i] - e) / e);
    }
    CU_ASSERT(worst < 4e-16);
    double s[4] = { -1e6, -708, 0, 1e6 };
    lr_simd_exp(s, 4);
    CU_ASSERT(s[0] > 0 && s[0] == s[1]);
    CU_ASSERT_EQUAL(s[2], 1.0);
    CU_ASSERT(isfinite(s[3]));
    free(x);
    free(y);
}

/* The masked softmax against the same computed with glibc's exp:
 * probabilities to 1e-15, exactly 0 where masked (even for a masked
 * logit far above the allowed ones), the log-normaliser; -inf when
 * nothing is allowed. */
static void
test_masked_softmax(void)
{
    enum { N = 57 };
    double z[N], p[N], q[N];
    unsigned char mask[N];
    for (int i = 0; i < N; i++) {
        z[i] = 3 * sin(i * 1.7);
        mask[i] = i % 3 != 0;
    }
    z[3] = 500;    /* masked */
    double lz = lr_simd_masked_softmax(z, mask, N, p);
    double mx = -INFINITY, s = 0, worst = 0;
    for (int i = 0; i < N; i++)
        if (mask[i] && z[i] > mx)
            mx = z[i];
    for (int i = 0; i < N; i++)
        s += q[i] = mask[i] ? exp(z[i] - mx) : 0;
    int zero = 1;
    for (int i = 0; i < N; i++) {
        q[i] /= s;
        worst = fmax(worst, fabs(p[i] - q[i]));
        if (!mask[i])
            zero &= p[i] == 0;
    }
    CU_ASSERT(worst < 1e-15);
    CU_ASSERT(zero);
    CU_ASSERT(fabs(lz - (mx + log(s))) < 1e-14);
    memset(mask, 0, sizeof mask);
    CU_ASSERT(lr_simd_masked_softmax(z, mask, N, p) == -INFINITY);
}

/* The exact loops give the bits of the scalar arithmetic. */
static void
test_exact_loops(void)
{
    enum { N = 1003 };
    static double d[N], acc[N], acc2[N];
    static float f[N], g[N], g2[N], h[N], back[N];
    for (int i = 0; i < N; i++) {
        d[i] = sin(i * 0.37) * (1 + i);
        acc[i] = acc2[i] = cos(i * 0.11);
        h[i] = (float) tanh(sin(i * 0.7) * 3);
        g[i] = g2[i] = (float) cos(i * 0.3);
    }
    lr_simd_to_float(f, d, N);
    lr_simd_to_double(acc2, f, 0);    /* n = 0 touches nothing */
    int same = 1;
    for (int i = 0; i < N; i++)
        same &= f[i] == (float) d[i] && acc2[i] == acc[i];
    CU_ASSERT(same);
    double wide[N];
    lr_simd_to_double(wide, f, N);
    lr_simd_add_float(acc2, f, N);
    lr_simd_tanh_grad(g2, h, N);
    /* Three rows of 334 (N = 1002 + 1) added in row order. */
    double rows[334], rows2[334];
    for (int i = 0; i < 334; i++)
        rows[i] = rows2[i] = acc[i];
    lr_simd_add_rows(rows, f, 3, 334);
    for (int r = 0; r < 3; r++)
        for (int i = 0; i < 334; i++)
            rows2[i] += f[r * 334 + i];
    CU_ASSERT_EQUAL(memcmp(rows, rows2, sizeof rows), 0);
    for (int i = 0; i < N; i++) {
        back[i] = (float) wide[i];
        same &= back[i] == f[i] && acc2[i] == acc[i] + (double) f[i]
                && g2[i] == g[i] * (1.0f - h[i] * h[i]);
    }
    CU_ASSERT(same);
}

/* Adam: the formula of lr_mlp.h element by element, with and without the
 * float copy. */
static void
test_adam(void)
{
    enum { N = 517 };
    static double w[N], m[N], v[N], gr[N], w2[N], m2[N], v2[N], w3[N];
    static float wf[N];
    struct lr_simd_adam k = { .b1 = 0.9, .k1 = 0.1, .b2 = 0.999,
                              .k2 = 1 - 0.999, .step = 3e-4 / 0.1,
                              .rs = 1 / sqrt(1 - 0.999), .eps = 1e-5,
                              .gscale = 1 };
    for (int i = 0; i < N; i++) {
        w[i] = w2[i] = w3[i] = sin(i * 1.3);
        m[i] = m2[i] = 0.01 * cos(i * 0.2);
        v[i] = v2[i] = 1e-4 * (1 + sin(i * 0.5));
        gr[i] = sin(i * 0.9) * 0.3;
    }
    lr_simd_adam(&k, N, w, wf, m, v, gr);
    int same = 1;
    for (int i = 0; i < N; i++) {
        m2[i] = k.b1 * m2[i] + k.k1 * gr[i];
        v2[i] = k.b2 * v2[i] + k.k2 * gr[i] * gr[i];
        w2[i] -= k.step * m2[i] / (sqrt(v2[i]) * k.rs + k.eps);
        same &= w[i] == w2[i] && m[i] == m2[i] && v[i] == v2[i]
                && wf[i] == (float) w2[i];
    }
    CU_ASSERT(same);
    /* Without the copy: the same weights. */
    for (int i = 0; i < N; i++) {
        m[i] = 0.01 * cos(i * 0.2);
        v[i] = 1e-4 * (1 + sin(i * 0.5));
    }
    lr_simd_adam(&k, N, w3, NULL, m, v, gr);
    for (int i = 0; i < N; i++)
        same &= w3[i] == w2[i];
    CU_ASSERT(same);
    CU_ASSERT(w2[1] != sin(1.3));    /* it moved */
    /* A clipping factor: as if g had been scaled first. */
    static double gs[N];
    for (int i = 0; i < N; i++) {
        w[i] = w2[i] = sin(i * 1.3);
        m[i] = m2[i] = v[i] = v2[i] = 0;
        gs[i] = gr[i] * 0.37;
    }
    k.gscale = 0.37;
    lr_simd_adam(&k, N, w, NULL, m, v, gr);
    k.gscale = 1;
    lr_simd_adam(&k, N, w2, NULL, m2, v2, gs);
    for (int i = 0; i < N; i++)
        same &= w[i] == w2[i] && m[i] == m2[i] && v[i] == v2[i];
    CU_ASSERT(same);
}

/* The sum of squares: the stated order exactly, and the plain sum to
 * rounding. */
static void
test_sum_squares(void)
{
    enum { N = 1003 };
    static double x[N];
    for (int i = 0; i < N; i++)
        x[i] = sin(i * 0.77) * (1 + i % 13);
    double s[8] = { 0 }, plain = 0;
    for (int i = 0; i < N; i++) {
        s[i % 8] += x[i] * x[i];
        plain += x[i] * x[i];
    }
    double want = ((s[0] + s[1]) + (s[2] + s[3]))
                  + ((s[4] + s[5]) + (s[6] + s[7]));
    CU_ASSERT_EQUAL(lr_simd_sum_squares(x, N), want);
    CU_ASSERT(fabs(want - plain) < 1e-12 * plain);
    CU_ASSERT_EQUAL(lr_simd_sum_squares(x, 5),
                    ((x[0] * x[0] + x[1] * x[1])
                     + (x[2] * x[2] + x[3] * x[3])) + x[4] * x[4]);
    CU_ASSERT_EQUAL(lr_simd_sum_squares(x, 0), 0);
}

/* The next state of a 64-bit linear congruential generator (Knuth's
 * MMIX constants): test inputs, the same on every machine. */
static uint64_t
lcg(uint64_t st)
{
    return st * 6364136223846793005ULL + 1442695040888963407ULL;
}

/* lr_simd_logit_grad against the scalar loop it replaced in lr_ppo.c,
 * bit for bit, on odd lengths (vector epilogues), zero probabilities
 * and the taken action at either end. */
static void
test_logit_grad(void)
{
    enum { N = 61 };
    double z[N], pr[N], dz[N];
    unsigned char mask[N];
    uint64_t st = 12345;
    for (size_t n = 1; n <= N; n += 6)
        for (int rep = 0; rep < 4; rep++) {
            for (size_t j = 0; j < n; j++) {
                st = lcg(st);
                z[j] = (double) (st >> 11) / 9007199254740992.0 * 8 - 4;
                mask[j] = (st >> 7) % 3 != 0;
            }
            mask[0] = 1;
            double lz = lr_simd_masked_softmax(z, mask, n, pr);
            if (n > 2)
                pr[1] = 0;     /* an underflowed probability */
            size_t a = rep % 2 ? n - 1 : 0;
            double dlogp = -0.37 * (rep + 1), ent = 0.01, H = 0.8;
            int count = 128;
            lr_simd_logit_grad(dz, z, pr, mask, n, a, dlogp, ent, lz, H,
                               (double) count);
            bool same = true;
            for (size_t j = 0; j < n; j++) {
                double pj = pr[j];
                double want = mask[j]
                    ? (dlogp * ((j == a) - pj) + ent * pj
                       * ((pj > 0 ? z[j] - lz : 0) + H)) / count
                    : 0;
                same = same && memcmp(&want, &dz[j], sizeof want) == 0;
            }
            CU_ASSERT(same);
        }
}

/* The masked softmax against the scalar loops it stands for (the
 * largest allowed logit by "if (mask[a] && z[a] > mx)", lr_simd_exp,
 * the sum in index order), bit for bit: every length from 1 to 140 (the
 * eight-lane maximum and its remainder; the sum's words of 64 and the
 * rest), ties, zeros of both signs as the maximum, -inf and huge masked
 * logits; all allowed, one allowed, none (-inf); allowed bytes of any
 * nonzero value. */
static void
test_masked_softmax_bits(void)
{
    enum { N = 140 };
    double z[N], p[N], q[N];
    unsigned char mask[N];
    uint64_t st = 777;
    bool same = true, found_none = true;
    for (size_t n = 1; n <= N; n++)
        for (int rep = 0; rep < 8; rep++) {
            for (size_t j = 0; j < n; j++) {
                st = lcg(st);
                int r = (int) (st >> 33) % 16;
                z[j] = r < 4 ? (double) (r - 2)             /* ties */
                     : r == 4 ? -0.0 : r == 5 ? 0.0
                     : r == 6 ? -INFINITY : r == 7 ? 1e300
                     : (double) (st >> 11) / 9007199254740992.0 * 10 - 7;
                mask[j] = rep == 0 ? 1 : rep == 6 ? 0
                        : rep == 7 ? j == n / 2
                        : (st >> 5) % 4 == 0 ? 0
                        : rep == 5 ? (unsigned char) (1 + (st >> 40) % 255)
                        : 1;
                if (rep >= 4 && z[j] > 0)
                    z[j] = -z[j] - 1;   /* the maximum often a zero */
            }
            double mx = -INFINITY;
            for (size_t j = 0; j < n; j++)
                if (mask[j] && z[j] > mx)
                    mx = z[j];
            double lz = lr_simd_masked_softmax(z, mask, n, p);
            if (mx == -INFINITY) {
                found_none = found_none && lz == -INFINITY;
                continue;
            }
            for (size_t j = 0; j < n; j++)
                q[j] = z[j] - mx;
            lr_simd_exp(q, n);
            double s = 0;
            for (size_t j = 0; j < n; j++) {
                q[j] = mask[j] ? q[j] : 0;
                s += q[j];
            }
            for (size_t j = 0; j < n; j++)
                q[j] /= s;
            double want = mx + log(s);
            same = same && memcmp(p, q, n * sizeof *p) == 0
                   && memcmp(&lz, &want, sizeof lz) == 0;
        }
    CU_ASSERT(same);
    CU_ASSERT(found_none);
}

/* lr_simd_allowed64 against the byte loop: every length from 0 to 64,
 * masks all 0, all allowed, one byte allowed at each place, and random
 * bytes of any value (a byte of 0x80 or 0x01 next to a 0 must not leak
 * into it). */
static void
test_allowed64(void)
{
    unsigned char m[64];
    uint64_t st = 99;
    bool ok = true;
    for (size_t len = 0; len <= 64; len++)
        for (int rep = 0; rep < 70; rep++) {
            for (size_t i = 0; i < 64; i++) {
                st = lcg(st);
                unsigned v = (unsigned) (st >> 56);
                m[i] = rep == 0 ? 0 : rep == 1 ? 1
                     : rep < 66 ? (i == (size_t) (rep - 2)) * (v | 1)
                     : (st >> 20) % 2 ? 0 : (unsigned char) v;
            }
            uint64_t want = 0;
            for (size_t i = 0; i < len; i++)
                if (m[i])
                    want |= (uint64_t) 1 << i;
            ok = ok && lr_simd_allowed64(m, len) == want;
        }
    CU_ASSERT(ok);
}

/* allowed_word walks a mask of n as the byte loop does, for n from 1 to
 * 200: word b / 64 holds actions b..b+63, nothing past n; the mask sits
 * in a block of exactly n bytes, so a read past it fails under ASan. */
static void
test_allowed_word(void)
{
    uint64_t st = 7;
    bool ok = true;
    for (size_t n = 1; n <= 200; n++) {
        unsigned char *m = malloc(n);
        CU_ASSERT_FATAL(m != NULL);
        for (size_t i = 0; i < n; i++) {
            st = lcg(st);
            m[i] = (st >> 20) % 3 ? (unsigned char) (st >> 56) : 0;
        }
        size_t seen = 0, last = 0;
        for (size_t b = 0; b < n; b += 64)
            for (uint64_t w = lr_simd_allowed_word(m, n, b); w;
                 w &= w - 1) {
                size_t a = b + (size_t) __builtin_ctzll(w);
                ok = ok && a < n && m[a] != 0 && (seen == 0 || a > last);
                last = a;
                seen++;
            }
        size_t want = 0;
        for (size_t i = 0; i < n; i++)
            want += m[i] != 0;
        ok = ok && seen == want;
        free(m);
    }
    CU_ASSERT(ok);
}

/* The masked entropy against the scalar loop it replaced in lr_ppo.c,
 * bit for bit: lengths 1 to 140, an underflowed allowed probability. */
static void
test_masked_entropy(void)
{
    enum { N = 140 };
    double z[N], pr[N];
    unsigned char mask[N];
    uint64_t st = 4242;
    bool same = true;
    for (size_t n = 1; n <= N; n++)
        for (int rep = 0; rep < 3; rep++) {
            for (size_t j = 0; j < n; j++) {
                st = lcg(st);
                z[j] = (double) (st >> 11) / 9007199254740992.0 * 8 - 4;
                mask[j] = rep == 0 || (st >> 7) % 3 != 0;
            }
            mask[0] = 1;
            double lz = lr_simd_masked_softmax(z, mask, n, pr);
            if (n > 2 && mask[n - 2])
                pr[n - 2] = 0;
            double want = 0;
            for (size_t j = 0; j < n; j++)
                if (mask[j] && pr[j] > 0)
                    want -= pr[j] * (z[j] - lz);
            double H = lr_simd_masked_entropy(pr, z, lz, mask, n);
            same = same && memcmp(&H, &want, sizeof H) == 0;
        }
    CU_ASSERT(same);
}

/* The transpose against its definition, every element, with the
 * padding columns left as they were: shapes around the 8 x 8 blocks
 * and the layers' own (64 x 504, 276 x 64). */
static void
test_transpose(void)
{
    static const size_t outs[] = { 1, 7, 8, 9, 16, 17, 64, 276 };
    static const size_t ins[] = { 1, 5, 8, 15, 24, 64, 504 };
    bool ok = true;
    for (size_t i = 0; i < sizeof outs / sizeof *outs; i++)
        for (size_t j = 0; j < sizeof ins / sizeof *ins; j++) {
            size_t out = outs[i], in = ins[j], ld = (out + 31) / 32 * 32
                                                   + (j % 2);
            float *w = malloc(out * in * sizeof *w);
            float *t = malloc(in * ld * sizeof *t);
            CU_ASSERT_FATAL(w && t);
            for (size_t e = 0; e < out * in; e++)
                w[e] = (float) e + 0.5f;
            for (size_t e = 0; e < in * ld; e++)
                t[e] = -1;
            lr_simd_transpose(t, ld, w, out, in);
            for (size_t k = 0; k < in; k++)
                for (size_t o = 0; o < ld; o++)
                    ok = ok && t[k * ld + o] == (o < out ? w[o * in + k]
                                                         : -1.0f);
            free(w);
            free(t);
        }
    CU_ASSERT(ok);
}

static CU_TestInfo tests[] = {
    { "tanhf: absolute error under 1e-7, special values", test_tanhf },
    { "expf: relative error under 1e-7, clamped", test_expf },
    { "exp: relative error under 4e-16, clamped", test_exp },
    { "masked softmax = glibc's to 1e-15, masked exactly 0",
      test_masked_softmax },
    { "conversions, sums, tanh derivative: exact", test_exact_loops },
    { "Adam: the formula, with and without the float copy", test_adam },
    { "sum of squares in its stated order", test_sum_squares },
    { "logits' gradient = the scalar loop, bit for bit", test_logit_grad },
    { "masked softmax = the scalar loops, bit for bit",
      test_masked_softmax_bits },
    { "transpose: every element, padding untouched", test_transpose },
    { "allowed64 = the byte loop, every length", test_allowed64 },
    { "allowed_word walks the allowed actions in order, n = 1..200",
      test_allowed_word },
    { "masked entropy = the scalar loop, bit for bit",
      test_masked_entropy },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN("simd", tests)
