/*
 * The lazy K-shortest-paths table (lr_ksp_lazy_ends) against the eager
 * one (lr_ksp_compute_ends), every ordered pair: the same number of
 * paths, in the same order, link for link, with the same lengths.  On
 * NSFNET, the metro network and a 16-ROADM ring of equal spans, where
 * every pair of opposite ROADMs has two paths of equal length (the ties
 * whose order a different algorithm might swap), in both orders, every
 * node an end or only some; the lazy table is read backwards, so that a
 * pair's paths cannot depend on which pairs were computed before it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "planner/lr_ksp.h"
#include "tests/unit/lr_test_yang.h"
#include "tests/lr_test.h"
#include "tests/unit/lr_test_topo.h"

/* Compares the two tables over every pair; returns the pairs with paths. */
static int
same_tables(const struct lr_ksp *eager, const struct lr_ksp *lazy, int n)
{
    int pairs = 0;
    for (int s = n - 1; s >= 0; s--)
        for (int d = n - 1; d >= 0; d--) {
            int ne, nl;
            const struct lr_path *pl = lr_ksp_paths(lazy, s, d, &nl);
            const struct lr_path *pe = lr_ksp_paths(eager, s, d, &ne);
            CU_ASSERT_EQUAL_FATAL(nl, ne);
            pairs += nl > 0;
            for (int i = 0; i < nl; i++) {
                CU_ASSERT_EQUAL_FATAL(pl[i].n_links, pe[i].n_links);
                CU_ASSERT_EQUAL(pl[i].length_km, pe[i].length_km);
                for (int j = 0; j < pl[i].n_links; j++)
                    CU_ASSERT_EQUAL_FATAL(pl[i].links[j], pe[i].links[j]);
            }
            /* A second read is the memo, the same slots. */
            int again;
            CU_ASSERT_PTR_EQUAL(lr_ksp_paths(lazy, s, d, &again), pl);
            CU_ASSERT_EQUAL(again, nl);
        }
    return pairs;
}

static void
check_topo(const struct lr_topo *t, int k, const unsigned char *ends)
{
    for (int o = 0; o < 2; o++) {
        enum lr_ksp_order order = o ? LR_KSP_HOPS : LR_KSP_KM;
        struct lr_ksp *eager = NULL, *lazy = NULL;
        CU_ASSERT_EQUAL_FATAL(lr_ksp_compute_ends(t, k, order, ends, &eager),
                              0);
        CU_ASSERT_EQUAL_FATAL(lr_ksp_lazy_ends(t, k, order, ends, &lazy), 0);
        int pairs = same_tables(eager, lazy, t->n_nodes);
        CU_ASSERT(pairs > 0);
        lr_ksp_free(eager);
        lr_ksp_free(lazy);
    }
}

static void
check_file(const char *rel)
{
    struct lr_topo *t = NULL;
    char err[512];
    CU_ASSERT_EQUAL_FATAL(lr_yang_load_topo(ctx, src(rel), &t, err,
                                            sizeof err), 0);
    check_topo(t, 5, NULL);
    unsigned char ends[256] = { 0 };
    CU_ASSERT_FATAL(t->n_nodes <= 256);
    for (int v = 0; v < t->n_nodes; v += 3)
        ends[v] = 1;
    check_topo(t, 3, ends);
    lr_topo_free(t);
}

static void
test_nsfnet(void)
{
    check_file("examples/topologies/nsfnet.json");
}

static void
test_metro(void)
{
    check_file("examples/topologies/metro.json");
}

static void
test_ring_ties(void)
{
    struct lr_topo *t = lr_topo_new("ring16");
    char name[LR_NAME_MAX];
    for (int i = 0; i < 16; i++) {
        snprintf(name, sizeof name, "r%d", i);
        lr_topo_add_node(t, name);
    }
    for (int i = 0; i < 16; i++)
        lr_test_fibre(t, i, (i + 1) % 16, 100, 16);
    /* The ties are there: two paths of 800 km between opposite ROADMs. */
    struct lr_ksp *eager = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_ksp_compute(t, 5, LR_KSP_KM, &eager), 0);
    int n;
    const struct lr_path *p = lr_ksp_paths(eager, 0, 8, &n);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_EQUAL(p[0].length_km, 800);
    CU_ASSERT_EQUAL(p[1].length_km, 800);
    lr_ksp_free(eager);
    check_topo(t, 5, NULL);
    unsigned char ends[16] = { 0 };
    for (int v = 0; v < 16; v += 2)
        ends[v] = 1;
    check_topo(t, 5, ends);
    lr_topo_free(t);
}

struct reader {
    const struct lr_ksp *lazy;
    int n, dir;
    long links;               /* what it read, summed */
};

static void *
read_all(void *arg)
{
    struct reader *r = arg;
    for (int i = 0; i < r->n * r->n; i++) {
        int p = r->dir ? i : r->n * r->n - 1 - i, np;
        const struct lr_path *q = lr_ksp_paths(r->lazy, p / r->n, p % r->n,
                                               &np);
        for (int j = 0; j < np; j++)
            r->links += q[j].n_links;
    }
    return NULL;
}

/* Threads that read one lazy table at once (a library caller may share
 * one; lightraild reads its engine on the event loop alone) all see the
 * eager paths.  A pair filled twice shows as a leak under AddressSanitizer
 * or valgrind; a pair read half-filled would need ThreadSanitizer to be
 * seen for sure: here it can only show as a mismatch. */
static void
test_threads(void)
{
    struct lr_topo *t = lr_topo_new("ring24");
    char name[LR_NAME_MAX];
    for (int i = 0; i < 24; i++) {
        snprintf(name, sizeof name, "r%d", i);
        lr_topo_add_node(t, name);
    }
    for (int i = 0; i < 24; i++)
        lr_test_fibre(t, i, (i + 1) % 24, 100 + 10 * (i % 3), 16);
    struct lr_ksp *eager = NULL, *lazy = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_ksp_compute(t, 5, LR_KSP_KM, &eager), 0);
    CU_ASSERT_EQUAL_FATAL(lr_ksp_lazy_ends(t, 5, LR_KSP_KM, NULL, &lazy), 0);
    struct reader r[4];
    pthread_t tid[4];
    for (int i = 0; i < 4; i++) {
        r[i] = (struct reader) { lazy, 24, i % 2, 0 };
        CU_ASSERT_EQUAL_FATAL(pthread_create(&tid[i], NULL, read_all, &r[i]),
                              0);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(tid[i], NULL);
    long want = 0;
    for (int p = 0; p < eager->n_paths; p++)
        want += eager->paths[p].n_links;
    for (int i = 0; i < 4; i++)
        CU_ASSERT_EQUAL(r[i].links, want);
    CU_ASSERT(same_tables(eager, lazy, 24) > 0);
    lr_ksp_free(eager);
    lr_ksp_free(lazy);
    lr_topo_free(t);
}

/* What lr_ksp_compute_ends() refuses, the lazy table refuses too. */
static void
test_bad_args(void)
{
    struct lr_topo *t = lr_topo_new("two");
    lr_topo_add_node(t, "a");
    lr_topo_add_node(t, "b");
    struct lr_ksp *lazy = NULL;
    CU_ASSERT_EQUAL(lr_ksp_lazy_ends(t, 0, LR_KSP_KM, NULL, &lazy), EINVAL);
    CU_ASSERT_PTR_NULL(lazy);
    CU_ASSERT_EQUAL_FATAL(lr_ksp_lazy_ends(t, 2, LR_KSP_KM, NULL, &lazy), 0);
    int n = -1;
    lr_ksp_paths(lazy, 0, 1, &n);
    CU_ASSERT_EQUAL(n, 0);
    lr_ksp_free(lazy);
    lr_topo_free(t);
}

static CU_TestInfo tests[] = {
    { "lazy equals eager on NSFNET, every pair", test_nsfnet },
    { "lazy equals eager on the metro network, every pair", test_metro },
    { "lazy equals eager on a 16-ROADM ring of ties", test_ring_ties },
    { "threads reading one lazy table see the eager paths", test_threads },
    { "lazy table: bad arguments, no path", test_bad_args },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN_WITH("ksp_lazy", tests, suite_setup, suite_teardown)
