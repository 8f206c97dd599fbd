/*
 * lr_gemm against the order lr_gemm.h promises, written here one element
 * at a time (acc = 0, fmaf over p in order, then stored or added to C):
 * bit for bit, for every block shape and remainder (m, n below and above
 * the 8/4-row and 32/16/8-column blocks), A read as it is and transposed,
 * C overwritten and accumulated, and B's rows padded (the columns past n
 * computed but never stored: C's padding must stay as it was).  Whichever
 * clone this CPU runs is the one checked (valgrind runs the AVX2 one).
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_gemm.h"
#include "planner/lr_rng.h"
#include "tests/lr_test.h"

static float
draw(struct lr_rng *r)
{
    /* Values of mixed magnitudes, so that the order of the additions
     * shows in the last bits. */
    double u = lr_rng_uniform(r) * 2 - 1;
    return (float) (u * pow(2, (int) (lr_rng_uniform(r) * 12) - 6));
}

static void
reference(int m, int n, int k, const float *a, size_t ars, size_t acs,
          const float *b, size_t ldb, float *c, size_t ldc, bool add)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            float acc = 0.0f;
            for (int p = 0; p < k; p++)
                acc = fmaf(a[i * ars + p * acs], b[p * ldb + j], acc);
            c[i * ldc + j] = add ? c[i * ldc + j] + acc : acc;
        }
}

/* One case: A m x k (or its transpose), B k x n with rows of nb (>= n)
 * columns, C m x n in rows of n + 3 (the 3 extra columns are a guard). */
static void
check_case(struct lr_rng *r, int m, int n, int k, bool trans, int nb,
           bool add)
{
    size_t ldb = (size_t) nb, ldc = (size_t) n + 3;
    size_t na = (size_t) m * k + 1, nbv = (size_t) k * ldb + 1,
           nc = (size_t) m * ldc + 1;
    float *a = malloc(na * sizeof *a), *b = malloc(nbv * sizeof *b);
    float *c1 = malloc(nc * sizeof *c1), *c2 = malloc(nc * sizeof *c2);
    CU_ASSERT_FATAL(a && b && c1 && c2);
    for (size_t i = 0; i < na; i++)
        a[i] = draw(r);
    for (size_t i = 0; i < nbv; i++)
        b[i] = draw(r);
    for (size_t i = 0; i < nc; i++)
        c1[i] = c2[i] = draw(r);
    size_t ars = trans ? 1 : (size_t) k, acs = trans ? (size_t) m : 1;
    reference(m, n, k, a, ars, acs, b, ldb, c1, ldc, add);
    lr_gemm(m, n, k, a, ars, acs, b, ldb, nb, c2, ldc, add);
    /* Every element of C, the guard columns included, bit for bit. */
    bool same = memcmp(c1, c2, nc * sizeof *c1) == 0;
    if (!same)
        fprintf(stderr, "lr_gemm differs: m %d n %d k %d trans %d nb %d "
                "add %d\n", m, n, k, trans, nb, add);
    CU_ASSERT(same);
    free(a);
    free(b);
    free(c1);
    free(c2);
}

static void
test_shapes(void)
{
    static const int ms[] = { 1, 3, 4, 5, 8, 13, 64 };
    static const int ns[] = { 1, 7, 8, 9, 16, 31, 32, 33, 57, 64, 120 };
    static const int ks[] = { 0, 1, 5, 70 };
    struct lr_rng r;
    lr_rng_seed(&r, 7);
    for (size_t im = 0; im < sizeof ms / sizeof *ms; im++)
        for (size_t in = 0; in < sizeof ns / sizeof *ns; in++)
            for (size_t ik = 0; ik < sizeof ks / sizeof *ks; ik++)
                for (int v = 0; v < 4; v++) {
                    int n = ns[in];
                    bool trans = v & 1, add = v & 2;
                    check_case(&r, ms[im], n, ks[ik], trans, n, add);
                    /* B padded to a multiple of 8 or 32: the last block
                     * reads the padding, stores only n columns. */
                    check_case(&r, ms[im], n, ks[ik], trans,
                               (n + 7) / 8 * 8, add);
                    check_case(&r, ms[im], n, ks[ik], trans,
                               (n + 31) / 32 * 32, add);
                }
}

/* The shapes of training (lr_mlp's batched passes, a minibatch of 128
 * and a rollout of 16 rows through 120-64-64-57 and 120-64-64-1). */
static void
test_training_shapes(void)
{
    struct lr_rng r;
    lr_rng_seed(&r, 11);
    static const int rows[] = { 16, 128 };
    static const int layers[][2] = { { 120, 64 }, { 64, 64 }, { 64, 57 },
                                     { 64, 1 } };
    for (int i = 0; i < 2; i++)
        for (int l = 0; l < 4; l++) {
            int in = layers[l][0], out = layers[l][1];
            check_case(&r, rows[i], out, in, false, (out + 31) / 32 * 32,
                       true);
            check_case(&r, out, in, rows[i], true, in, false);
            check_case(&r, rows[i], in, out, false, in, false);
        }
}

static CU_TestInfo tests[] = {
    { "every block shape and remainder, bit for bit", test_shapes },
    { "the shapes of training, bit for bit", test_training_shapes },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN("lr_gemm", tests)
