/*
 * lr_candmask: the feasible set a word at a time against the model of
 * lr_candmask.h read candidate by candidate, on random instances whose
 * candidate counts straddle the word boundaries; the order of calls and
 * the ranges of indices refused.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_candmask.h"
#include "planner/lr_rng.h"
#include "tests/lr_test.h"

enum { K = 3, D = 2, X = 5, R = 12, T = 3, MAX_C = 200 };

/* A random instance: the facts, as the brute force reads them. */
struct instance {
    int n;
    bool finite[K][MAX_C];
    int ask[D][X][MAX_C];         /* 0: none */
    int hops, route[MAX_C][2], tier[MAX_C], n_hops[MAX_C];
};

static void
draw(struct instance *in, int n, struct lr_rng *r)
{
    memset(in, 0, sizeof *in);
    in->n = n;
    for (int c = 0; c < n; c++) {
        for (int k = 0; k < K; k++)
            in->finite[k][c] = lr_rng_below(r, 5) != 0;
        int len = 1 + (int) lr_rng_below(r, 3), dc[3];
        for (int i = 0; i < len; i++) {
            bool fresh;
            do {
                dc[i] = (int) lr_rng_below(r, X);
                fresh = true;
                for (int j = 0; j < i; j++)
                    fresh = fresh && dc[j] != dc[i];
            } while (!fresh);
            for (int d = 0; d < D; d++)
                in->ask[d][dc[i]][c] = 1 + (int) lr_rng_below(r, 8);
        }
        in->n_hops[c] = len - 1;
        in->tier[c] = (int) lr_rng_below(r, T);
        for (int h = 0; h < len - 1; h++)
            in->route[c][h] = (int) lr_rng_below(r, R);
    }
}

static struct lr_candmask *
build(const struct instance *in)
{
    struct lr_candmask *m = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_candmask_new(in->n, K, D, X, R, T, &m), 0);
    for (int c = 0; c < in->n; c++) {
        for (int k = 0; k < K; k++)
            if (in->finite[k][c])
                CU_ASSERT_EQUAL(lr_candmask_finite(m, k, c), 0);
        for (int d = 0; d < D; d++)
            for (int x = 0; x < X; x++)
                if (in->ask[d][x][c])
                    CU_ASSERT_EQUAL(lr_candmask_ask(m, d, x, c,
                                                    in->ask[d][x][c]), 0);
        for (int h = 0; h < in->n_hops[c]; h++)
            CU_ASSERT_EQUAL(lr_candmask_use(m, in->route[c][h], in->tier[c],
                                            c), 0);
    }
    CU_ASSERT_EQUAL_FATAL(lr_candmask_seal(m), 0);
    return m;
}

static bool
feasible(const struct instance *in, int k, int d, const int *room,
         const uint8_t *fit, int c)
{
    if (!in->finite[k][c])
        return false;
    for (int x = 0; x < X; x++)
        if (in->ask[d][x][c] > room[x])
            return false;
    for (int h = 0; h < in->n_hops[c]; h++)
        if (!(fit[in->route[c][h]] >> in->tier[c] & 1))
            return false;
    return true;
}

/* 63, 64, 65 and 200 candidates, 400 random states each: the same mask
 * and count as the brute force, nothing written past the mask, and both
 * answers seen often (so neither side is trivially all 0 or all 1). */
static void
test_against_brute_force(void)
{
    static struct instance in;
    const int sizes[] = { 63, 64, 65, MAX_C };
    struct lr_rng r;
    lr_rng_seed(&r, 7);
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        draw(&in, sizes[s], &r);
        struct lr_candmask *m = build(&in);
        int w = lr_candmask_words(m);
        CU_ASSERT_EQUAL(w, (in.n + 63) / 64);
        uint64_t bits[(MAX_C + 63) / 64];
        uint8_t mask[MAX_C + 1];
        long agree = 0, total = 0, yes = 0;
        for (int t = 0; t < 400; t++) {
            int k = (int) lr_rng_below(&r, K), d = (int) lr_rng_below(&r, D);
            int room[X];
            /* The fits with a stride, as in the routes' records. */
            struct { int pad; uint8_t fit; } rec[R];
            uint8_t fit[R];
            for (int x = 0; x < X; x++)
                room[x] = (int) lr_rng_below(&r, 12);
            for (int i = 0; i < R; i++)
                rec[i].fit = fit[i] = (uint8_t) (lr_rng_below(&r, 4) ? 7
                                                 : lr_rng_below(&r, 8));
            memset(mask, 0xAA, sizeof mask);
            int n = lr_candmask_eval(m, k, d, room, &rec[0].fit,
                                     sizeof rec[0], bits, mask);
            int want = 0;
            for (int c = 0; c < in.n; c++) {
                bool f = feasible(&in, k, d, room, fit, c);
                want += f;
                agree += mask[c] == f;
                total++;
            }
            yes += want;
            CU_ASSERT_EQUAL(n, want);
            CU_ASSERT_EQUAL(mask[in.n], 0xAA);
        }
        CU_ASSERT_EQUAL(agree, total);
        CU_ASSERT(yes > total / 10 && yes < total * 9 / 10);
        lr_candmask_free(m);
    }
}

static void
test_refused(void)
{
    struct lr_candmask *m = NULL;
    CU_ASSERT_EQUAL(lr_candmask_new(0, K, D, X, R, T, &m), EINVAL);
    CU_ASSERT_EQUAL(lr_candmask_new(10, K, D, X, R, 9, &m), EINVAL);
    CU_ASSERT_PTR_NULL(m);
    CU_ASSERT_EQUAL_FATAL(lr_candmask_new(10, K, D, X, R, T, &m), 0);
    CU_ASSERT_EQUAL(lr_candmask_finite(m, K, 0), EINVAL);
    CU_ASSERT_EQUAL(lr_candmask_finite(m, 0, 10), EINVAL);
    CU_ASSERT_EQUAL(lr_candmask_ask(m, D, 0, 0, 1), EINVAL);
    CU_ASSERT_EQUAL(lr_candmask_ask(m, 0, X, 0, 1), EINVAL);
    CU_ASSERT_EQUAL(lr_candmask_ask(m, 0, 0, 0, 0), EINVAL);
    CU_ASSERT_EQUAL(lr_candmask_use(m, R, 0, 0), EINVAL);
    CU_ASSERT_EQUAL(lr_candmask_use(m, 0, T, 0), EINVAL);
    CU_ASSERT_EQUAL(lr_candmask_finite(m, 1, 3), 0);
    int room[X] = { 0 };
    uint8_t fit[R] = { 0 }, mask[10];
    uint64_t bits[1];
    /* Not sealed: no answer. */
    CU_ASSERT_EQUAL(lr_candmask_eval(m, 1, 0, room, fit, 1, bits, mask), -1);
    CU_ASSERT_EQUAL(lr_candmask_seal(m), 0);
    CU_ASSERT_EQUAL(lr_candmask_seal(m), EINVAL);
    CU_ASSERT_EQUAL(lr_candmask_finite(m, 0, 0), EINVAL);
    CU_ASSERT_EQUAL(lr_candmask_eval(m, K, 0, room, fit, 1, bits, mask), -1);
    CU_ASSERT_EQUAL(lr_candmask_eval(m, 0, D, room, fit, 1, bits, mask), -1);
    /* Candidate 3 of class 1 asks nothing and has no hop. */
    CU_ASSERT_EQUAL(lr_candmask_eval(m, 1, 0, room, fit, 1, bits, mask), 1);
    CU_ASSERT(mask[3] == 1 && mask[2] == 0);
    CU_ASSERT_EQUAL(lr_candmask_eval(m, 0, 0, room, fit, 1, bits, mask), 0);
    lr_candmask_free(m);
}

static CU_TestInfo tests[] = {
    { "the sets give the brute force's mask", test_against_brute_force },
    { "bad indices and calls out of order refused", test_refused },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN("candmask", tests)
