/*
 * Allocation and release against a deliberately naive reference: an owner
 * per slot per link, checked slot by slot.
 */
#include <limits.h>
#include <stdlib.h>

#include "planner/lr_spectrum.h"
#include "tests/lr_test.h"
#include "tests/unit/lr_test_topo.h"

#define NLINK_MAX 64
#define NSLOT_MAX 400

/* owner[l][s]: 0 free, else the id of the booking. */
static int owner[NLINK_MAX][NSLOT_MAX];

struct booking {
    int links[8];
    int n_links;
    int first, m;
};

static void
check_equal(const struct lr_spectrum *sp)
{
    int bad = 0;
    for (int l = 0; l < sp->n_links; l++)
        for (int s = 0; s < sp->nw * 64; s++) {
            bool used = lr_bits_any(lr_spectrum_link(sp, l), s, 1);
            bool want = s >= sp->n_slots[l] || owner[l][s] != 0;
            bad += used != want;
        }
    CU_ASSERT_EQUAL(bad, 0);
}

static void
random_run(int slots, uint64_t seed)
{
    struct lr_rng r;
    lr_rng_seed(&r, seed);
    struct lr_topo *t = lr_test_random_topo(&r, 8, 0.3, slots);
    struct lr_spectrum *sp = lr_spectrum_new(t);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
    memset(owner, 0, sizeof owner);
    struct booking *live = calloc(4000, sizeof *live);
    int n_live = 0, refused_busy = 0, accepted = 0;

    for (int step = 0; step < 4000; step++) {
        if (n_live > 0 && lr_rng_uniform(&r) < 0.45) {
            /* Release a random live booking; sometimes first try a wrong
             * release (shifted by one slot), which must change nothing. */
            int i = (int) lr_rng_below(&r, (uint32_t) n_live);
            struct booking b = live[i];
            if (lr_rng_uniform(&r) < 0.2 && b.first + b.m < slots) {
                bool all_booked = true;
                for (int k = 0; k < b.n_links; k++)
                    for (int s = b.first + 1; s <= b.first + b.m; s++)
                        all_booked &= owner[b.links[k]][s] != 0;
                int rc = lr_spectrum_release(sp, b.links, b.n_links,
                                             b.first + 1, b.m);
                CU_ASSERT_EQUAL(rc, all_booked ? 0 : EINVAL);
                /* A shifted release that was legal is undone at once. */
                if (rc == 0)
                    CU_ASSERT_EQUAL(lr_spectrum_alloc(sp, b.links, b.n_links,
                                                      b.first + 1, b.m), 0);
                check_equal(sp);
            }
            CU_ASSERT_EQUAL(lr_spectrum_release(sp, b.links, b.n_links,
                                                b.first, b.m), 0);
            for (int k = 0; k < b.n_links; k++)
                for (int s = b.first; s < b.first + b.m; s++)
                    owner[b.links[k]][s] = 0;
            live[i] = live[--n_live];
        } else {
            struct booking b = { .n_links = 1 + (int) lr_rng_below(&r, 4) };
            for (int k = 0; k < b.n_links; k++) {
                b.links[k] = (int) lr_rng_below(&r, (uint32_t) t->n_links);
                for (int j = 0; j < k; j++)
                    if (b.links[j] == b.links[k])
                        b.links[k] = -1;
                if (b.links[k] < 0) {
                    k--;
                    continue;
                }
            }
            b.m = 1 + (int) lr_rng_below(&r, 9);
            b.first = (int) lr_rng_below(&r, (uint32_t) slots + 2);
            bool in_range = b.first + b.m <= slots, busy = false;
            for (int k = 0; in_range && k < b.n_links; k++)
                for (int s = b.first; s < b.first + b.m; s++)
                    busy |= owner[b.links[k]][s] != 0;
            int rc = lr_spectrum_alloc(sp, b.links, b.n_links, b.first, b.m);
            if (!in_range) {
                CU_ASSERT_EQUAL(rc, EINVAL);
            } else if (busy) {
                CU_ASSERT_EQUAL(rc, EBUSY);
                refused_busy++;
            } else {
                CU_ASSERT_EQUAL(rc, 0);
                accepted++;
                for (int k = 0; k < b.n_links; k++)
                    for (int s = b.first; s < b.first + b.m; s++)
                        owner[b.links[k]][s] = step + 1;
                live[n_live++] = b;
            }
        }
        if (step % 97 == 0)
            check_equal(sp);
    }
    check_equal(sp);
    /* The run must have exercised both outcomes to mean anything. */
    CU_ASSERT(refused_busy > 50);
    CU_ASSERT(accepted > 500);
    while (n_live > 0) {
        struct booking b = live[--n_live];
        CU_ASSERT_EQUAL(lr_spectrum_release(sp, b.links, b.n_links, b.first,
                                            b.m), 0);
    }
    long used, total;
    lr_spectrum_usage(sp, &used, &total);
    CU_ASSERT_EQUAL(used, 0);
    CU_ASSERT_EQUAL(total, (long) slots * t->n_links);
    free(live);
    lr_spectrum_free(sp);
    lr_topo_free(t);
}

static void
test_random_100(void)
{
    random_run(100, 31);
}

static void
test_random_320(void)
{
    random_run(320, 32);
}

static void
test_random_384(void)
{
    random_run(384, 33);
}

static void
test_double_release_refused(void)
{
    struct lr_rng r;
    lr_rng_seed(&r, 5);
    struct lr_topo *t = lr_test_random_topo(&r, 4, 0, 10);
    struct lr_spectrum *sp = lr_spectrum_new(t);
    int links[] = { 0, 2 };
    CU_ASSERT_EQUAL(lr_spectrum_alloc(sp, links, 2, 3, 4), 0);
    CU_ASSERT_EQUAL(lr_spectrum_alloc(sp, links, 2, 6, 2), EBUSY);
    CU_ASSERT_EQUAL(lr_spectrum_alloc(sp, links, 2, 8, 3), EINVAL);
    CU_ASSERT_EQUAL(lr_spectrum_release(sp, links, 2, 3, 4), 0);
    CU_ASSERT_EQUAL(lr_spectrum_release(sp, links, 2, 3, 4), EINVAL);
    /* first + m past INT_MAX is out of range too, not a wrapped sum that
     * passes the check (a signed overflow, then words before the row). */
    CU_ASSERT_EQUAL(lr_spectrum_alloc(sp, links, 2, INT_MAX, 2), EINVAL);
    CU_ASSERT_EQUAL(lr_spectrum_alloc(sp, links, 2, 2, INT_MAX), EINVAL);
    CU_ASSERT_EQUAL(lr_spectrum_release(sp, links, 2, INT_MAX, 2), EINVAL);
    long used, total;
    lr_spectrum_usage(sp, &used, &total);
    CU_ASSERT_EQUAL(used, 0);
    lr_spectrum_free(sp);
    lr_topo_free(t);
}

static CU_TestInfo tests[] = {
    { "random alloc/release = naive model, 100 slots", test_random_100 },
    { "random alloc/release = naive model, 320 slots", test_random_320 },
    { "random alloc/release = naive model, 384 slots", test_random_384 },
    { "double booking and double release refused",
      test_double_release_refused },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN("spectrum", tests)
