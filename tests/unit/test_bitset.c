/* Word-wise spectrum searches against a slot-by-slot reference. */
#include <stdbool.h>
#include <stdint.h>

#include "planner/lr_bitset.h"
#include "planner/lr_rng.h"
#include "tests/lr_test.h"

static bool
naive_get(const uint64_t *w, int i)
{
    return (w[i / 64] >> (i % 64)) & 1;
}

/* A random occupancy of n slots with about 'density' of them set. */
static void
random_occ(struct lr_rng *r, uint64_t *w, int nw, int n, double density)
{
    lr_bits_init(w, nw, n);
    for (int i = 0; i < n; i++)
        if (lr_rng_uniform(r) < density)
            lr_bits_set(w, i, 1);
}

static void
test_init_padding(void)
{
    uint64_t w[LR_BITS_MAX_WORDS];
    int widths[] = { 1, 63, 64, 65, 100, 128, 320, 384 };
    for (size_t k = 0; k < sizeof widths / sizeof *widths; k++) {
        int n = widths[k], nw = lr_bits_words(n);
        lr_bits_init(w, nw, n);
        for (int i = 0; i < nw * 64; i++)
            CU_ASSERT_EQUAL(naive_get(w, i), i >= n);
        CU_ASSERT_EQUAL(lr_bits_count(w, nw), nw * 64 - n);
    }
}

static void
test_set_clear_any_all(void)
{
    uint64_t w[LR_BITS_MAX_WORDS];
    struct lr_rng r;
    lr_rng_seed(&r, 7);
    for (int trial = 0; trial < 2000; trial++) {
        int n = 1 + (int) lr_rng_below(&r, 384), nw = lr_bits_words(n);
        random_occ(&r, w, nw, n, 0.3);
        int first = (int) lr_rng_below(&r, (uint32_t) n);
        int m = 1 + (int) lr_rng_below(&r, (uint32_t) (n - first));
        bool any = false, all = true;
        for (int i = first; i < first + m; i++) {
            any |= naive_get(w, i);
            all &= naive_get(w, i);
        }
        CU_ASSERT_EQUAL(lr_bits_any(w, first, m), any);
        CU_ASSERT_EQUAL(lr_bits_all(w, first, m), all);
        uint64_t before[LR_BITS_MAX_WORDS];
        memcpy(before, w, sizeof before);
        lr_bits_set(w, first, m);
        for (int i = 0; i < nw * 64; i++)
            CU_ASSERT_EQUAL(naive_get(w, i),
                            (i >= first && i < first + m)
                            || naive_get(before, i));
        lr_bits_clear(w, first, m);
        for (int i = 0; i < nw * 64; i++)
            CU_ASSERT_EQUAL(naive_get(w, i),
                            !(i >= first && i < first + m)
                            && naive_get(before, i));
    }
}

/* fit_starts(p) must be 1 exactly when p..p+m-1 are all free. */
static void
test_fit_starts_random(void)
{
    uint64_t occ[LR_BITS_MAX_WORDS], f[LR_BITS_MAX_WORDS];
    struct lr_rng r;
    lr_rng_seed(&r, 11);
    int mismatches = 0;
    for (int trial = 0; trial < 5000; trial++) {
        int n = 1 + (int) lr_rng_below(&r, 1024), nw = lr_bits_words(n);
        random_occ(&r, occ, nw, n, lr_rng_uniform(&r) * 0.5);
        int m = 1 + (int) lr_rng_below(&r, trial % 3 ? 12 : 300);
        for (int i = 0; i < nw; i++)
            f[i] = ~occ[i];
        lr_bits_fit_starts(f, nw, m);
        int first = -1, last = -1;
        for (int p = 0; p < nw * 64; p++) {
            bool ok = p + m <= n;
            for (int j = 0; ok && j < m; j++)
                ok = !naive_get(occ, p + j);
            if (ok && first < 0)
                first = p;
            if (ok)
                last = p;
            mismatches += naive_get(f, p) != ok;
        }
        CU_ASSERT_EQUAL(lr_bits_next_set(f, nw, 0), first);
        CU_ASSERT_EQUAL(lr_bits_last_set(f, nw), last);
    }
    CU_ASSERT_EQUAL(mismatches, 0);
}

static void
test_scans_random(void)
{
    uint64_t w[LR_BITS_MAX_WORDS];
    struct lr_rng r;
    lr_rng_seed(&r, 13);
    for (int trial = 0; trial < 3000; trial++) {
        int n = 1 + (int) lr_rng_below(&r, 700), nw = lr_bits_words(n);
        random_occ(&r, w, nw, n, lr_rng_uniform(&r));
        int from = (int) lr_rng_below(&r, (uint32_t) (nw * 64 + 1));
        int ns = -1, nc = nw * 64, ps = -1, pc = -1;
        for (int i = from; i < nw * 64; i++)
            if (naive_get(w, i)) {
                ns = i;
                break;
            }
        for (int i = from; i < nw * 64; i++)
            if (!naive_get(w, i)) {
                nc = i;
                break;
            }
        for (int i = from - 1; i >= 0; i--)
            if (naive_get(w, i)) {
                ps = i;
                break;
            }
        CU_ASSERT_EQUAL(lr_bits_next_set(w, nw, from), ns);
        CU_ASSERT_EQUAL(lr_bits_next_clear(w, nw, from), nc);
        for (int i = from - 1; i >= 0; i--)
            if (!naive_get(w, i)) {
                pc = i;
                break;
            }
        CU_ASSERT_EQUAL(lr_bits_prev_set(w, from), ps);
        CU_ASSERT_EQUAL(lr_bits_prev_clear(w, from), pc);
    }
}

static CU_TestInfo tests[] = {
    { "init keeps padding occupied", test_init_padding },
    { "set/clear/any/all ranges", test_set_clear_any_all },
    { "fit starts equal the slot-by-slot answer", test_fit_starts_random },
    { "next/prev set and clear scans", test_scans_random },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN("bitset", tests)
