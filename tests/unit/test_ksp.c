/*
 * K shortest paths: checked against an exhaustive enumeration of every
 * simple path on small random graphs, in both orders.
 */
#include <stdlib.h>

#include "planner/lr_ksp.h"
#include "tests/lr_test.h"
#include "tests/unit/lr_test_topo.h"

struct ref_path {
    int hops;
    double km;
};

struct enum_state {
    const struct lr_topo *t;
    int dst;
    char *on_path;
    struct ref_path *out;
    int n_out, cap_out;
};

static void
enumerate(struct enum_state *s, int node, int hops, double km)
{
    if (node == s->dst) {
        if (s->n_out == s->cap_out) {
            s->cap_out = s->cap_out ? 2 * s->cap_out : 64;
            s->out = realloc(s->out, (size_t) s->cap_out * sizeof *s->out);
        }
        s->out[s->n_out++] = (struct ref_path) { hops, km };
        return;
    }
    s->on_path[node] = 1;
    for (int e = 0; e < s->t->n_links; e++) {
        const struct lr_link *l = &s->t->links[e];
        if (l->src == node && !s->on_path[l->dst])
            enumerate(s, l->dst, hops + 1, km + l->length_km);
    }
    s->on_path[node] = 0;
}

static int
by_km(const void *a, const void *b)
{
    const struct ref_path *x = a, *y = b;
    return (x->km > y->km) - (x->km < y->km);
}

static int
by_hops_km(const void *a, const void *b)
{
    const struct ref_path *x = a, *y = b;
    if (x->hops != y->hops)
        return x->hops - y->hops;
    return by_km(a, b);
}

/* Checks that a path is a simple chain of links from src to dst. */
static void
check_path_shape(const struct lr_topo *t, const struct lr_path *p, int src,
                 int dst)
{
    char seen[64] = { 0 };
    int at = src;
    double km = 0;
    seen[src] = 1;
    for (int i = 0; i < p->n_links; i++) {
        const struct lr_link *l = &t->links[p->links[i]];
        CU_ASSERT_EQUAL_FATAL(l->src, at);
        CU_ASSERT_FALSE(seen[l->dst]);
        seen[l->dst] = 1;
        at = l->dst;
        km += l->length_km;
    }
    CU_ASSERT_EQUAL(at, dst);
    CU_ASSERT_DOUBLE_EQUAL(p->length_km, km, 1e-6);
}

static void
check_order(enum lr_ksp_order order)
{
    struct lr_rng r;
    lr_rng_seed(&r, order == LR_KSP_KM ? 21 : 22);
    for (int trial = 0; trial < 12; trial++) {
        int n = 5 + trial % 4, k = 1 + trial % 6;
        struct lr_topo *t = lr_test_random_topo(&r, n, 0.4, 16);
        struct lr_ksp *ksp = NULL;
        CU_ASSERT_EQUAL_FATAL(lr_ksp_compute(t, k, order, &ksp), 0);
        char on_path[64] = { 0 };
        for (int s = 0; s < n; s++)
            for (int d = 0; d < n; d++) {
                int np;
                const struct lr_path *p = lr_ksp_paths(ksp, s, d, &np);
                if (s == d) {
                    CU_ASSERT_EQUAL(np, 0);
                    continue;
                }
                struct enum_state st = { .t = t, .dst = d,
                                         .on_path = on_path };
                enumerate(&st, s, 0, 0);
                qsort(st.out, (size_t) st.n_out, sizeof *st.out,
                      order == LR_KSP_KM ? by_km : by_hops_km);
                int want = st.n_out < k ? st.n_out : k;
                CU_ASSERT_EQUAL(np, want);
                for (int i = 0; i < np && i < want; i++) {
                    check_path_shape(t, &p[i], s, d);
                    /* Ties may pick different paths of equal cost: compare
                     * the costs, which are unique per rank. */
                    CU_ASSERT_DOUBLE_EQUAL(p[i].length_km, st.out[i].km,
                                           1e-6);
                    if (order == LR_KSP_HOPS)
                        CU_ASSERT_EQUAL(p[i].n_links, st.out[i].hops);
                }
                free(st.out);
            }
        lr_ksp_free(ksp);
        lr_topo_free(t);
    }
}

static void
test_km_order(void)
{
    check_order(LR_KSP_KM);
}

static void
test_hops_order(void)
{
    check_order(LR_KSP_HOPS);
}

/* A square a-b-c-d with a long chord a-c: by km the two-hop paths win,
 * by hops the chord does. */
static void
test_orders_differ(void)
{
    struct lr_topo *t = lr_topo_new("square");
    const char *names[] = { "a", "b", "c", "d" };
    for (int i = 0; i < 4; i++)
        lr_topo_add_node(t, names[i]);
    lr_test_fibre(t, 0, 1, 100, 8);
    lr_test_fibre(t, 1, 2, 100, 8);
    lr_test_fibre(t, 2, 3, 150, 8);
    lr_test_fibre(t, 3, 0, 150, 8);
    lr_test_fibre(t, 0, 2, 1000, 8);
    struct lr_ksp *km, *hops;
    CU_ASSERT_EQUAL_FATAL(lr_ksp_compute(t, 3, LR_KSP_KM, &km), 0);
    CU_ASSERT_EQUAL_FATAL(lr_ksp_compute(t, 3, LR_KSP_HOPS, &hops), 0);
    int n;
    const struct lr_path *p = lr_ksp_paths(km, 0, 2, &n);
    CU_ASSERT_EQUAL(n, 3);
    CU_ASSERT_DOUBLE_EQUAL(p[0].length_km, 200, 0);
    CU_ASSERT_DOUBLE_EQUAL(p[1].length_km, 300, 0);
    CU_ASSERT_DOUBLE_EQUAL(p[2].length_km, 1000, 0);
    p = lr_ksp_paths(hops, 0, 2, &n);
    CU_ASSERT_EQUAL(n, 3);
    CU_ASSERT_EQUAL(p[0].n_links, 1);
    CU_ASSERT_DOUBLE_EQUAL(p[1].length_km, 200, 0);
    CU_ASSERT_DOUBLE_EQUAL(p[2].length_km, 300, 0);
    lr_ksp_free(km);
    lr_ksp_free(hops);
    lr_topo_free(t);
}

static void
test_disconnected_and_bad_args(void)
{
    struct lr_topo *t = lr_topo_new("two");
    lr_topo_add_node(t, "a");
    lr_topo_add_node(t, "b");
    lr_topo_add_node(t, "c");
    lr_test_fibre(t, 0, 1, 10, 8);
    struct lr_ksp *ksp = NULL;
    CU_ASSERT_EQUAL(lr_ksp_compute(t, 0, LR_KSP_KM, &ksp), EINVAL);
    CU_ASSERT_PTR_NULL(ksp);
    CU_ASSERT_EQUAL_FATAL(lr_ksp_compute(t, 5, LR_KSP_KM, &ksp), 0);
    int n;
    lr_ksp_paths(ksp, 0, 2, &n);
    CU_ASSERT_EQUAL(n, 0);
    lr_ksp_paths(ksp, 0, 1, &n);
    CU_ASSERT_EQUAL(n, 1);
    enum lr_ksp_order o;
    CU_ASSERT_EQUAL(lr_ksp_order_parse("hops", &o), 0);
    CU_ASSERT_EQUAL(o, LR_KSP_HOPS);
    CU_ASSERT_EQUAL(lr_ksp_order_parse("miles", &o), EINVAL);
    lr_ksp_free(ksp);
    lr_topo_free(t);
}

/* lr_ksp_compute_ends() computes only the pairs between the ends it is
 * given (what lets lightraild start on big rings) and gives each of them
 * exactly the paths of the full table: same links, same lengths, same
 * order; every other pair has none. */
static void
test_ends_equal_full_table(void)
{
    struct lr_rng r;
    lr_rng_seed(&r, 23);
    for (int trial = 0; trial < 4; trial++) {
        int n = 24 + 4 * trial, k = 2 + trial;
        enum lr_ksp_order order = trial % 2 ? LR_KSP_HOPS : LR_KSP_KM;
        struct lr_topo *t = lr_test_random_topo(&r, n, 0.15, 16);
        unsigned char ends[64] = { 0 };
        int n_ends = 0;
        for (int v = trial; v < n; v += 5) {
            ends[v] = 1;
            n_ends++;
        }
        struct lr_ksp *full = NULL, *part = NULL;
        CU_ASSERT_EQUAL_FATAL(lr_ksp_compute(t, k, order, &full), 0);
        CU_ASSERT_EQUAL_FATAL(lr_ksp_compute_ends(t, k, order, ends, &part),
                              0);
        int want_paths = 0, pairs_with_paths = 0;
        for (int s = 0; s < n; s++)
            for (int d = 0; d < n; d++) {
                int nf, np;
                const struct lr_path *pf = lr_ksp_paths(full, s, d, &nf);
                const struct lr_path *pp = lr_ksp_paths(part, s, d, &np);
                if (!ends[s] || !ends[d]) {
                    CU_ASSERT_EQUAL(np, 0);
                    continue;
                }
                CU_ASSERT_EQUAL_FATAL(np, nf);
                want_paths += nf;
                pairs_with_paths += nf > 0;
                for (int i = 0; i < np; i++) {
                    CU_ASSERT_EQUAL_FATAL(pp[i].n_links, pf[i].n_links);
                    CU_ASSERT_EQUAL(pp[i].length_km, pf[i].length_km);
                    for (int j = 0; j < pp[i].n_links; j++)
                        CU_ASSERT_EQUAL(pp[i].links[j], pf[i].links[j]);
                }
            }
        /* Only the ends' pairs were computed, and they have paths. */
        CU_ASSERT_EQUAL(part->n_paths, want_paths);
        CU_ASSERT(pairs_with_paths > 0);
        CU_ASSERT(part->n_paths < full->n_paths);
        lr_ksp_free(full);
        lr_ksp_free(part);
        lr_topo_free(t);
    }
}

/* lr_ksp_compute_pairs() with k = 1, from every node to a few (the joint
 * environment's distances to the DCs): each such pair's one path is the
 * first of the full table's k, link for link, whatever k; every pair not
 * ending at one of the few has none. */
static void
test_first_paths_to_ends(void)
{
    struct lr_rng r;
    lr_rng_seed(&r, 41);
    for (int trial = 0; trial < 4; trial++) {
        int n = 20 + 5 * trial, k = 2 + trial;
        struct lr_topo *t = lr_test_random_topo(&r, n, 0.2, 16);
        unsigned char to[64] = { 0 };
        for (int v = 1 + trial; v < n; v += 6)
            to[v] = 1;
        struct lr_ksp *full = NULL, *first = NULL;
        CU_ASSERT_EQUAL_FATAL(lr_ksp_compute(t, k, LR_KSP_KM, &full), 0);
        CU_ASSERT_EQUAL_FATAL(lr_ksp_compute_pairs(t, 1, LR_KSP_KM, NULL, to,
                                                   &first), 0);
        int pairs = 0;
        for (int s = 0; s < n; s++)
            for (int d = 0; d < n; d++) {
                int nf, n1;
                const struct lr_path *pf = lr_ksp_paths(full, s, d, &nf);
                const struct lr_path *p1 = lr_ksp_paths(first, s, d, &n1);
                if (!to[d]) {
                    CU_ASSERT_EQUAL(n1, 0);
                    continue;
                }
                CU_ASSERT_EQUAL_FATAL(n1, nf > 0);
                if (!n1)
                    continue;
                pairs++;
                CU_ASSERT_EQUAL_FATAL(p1->n_links, pf->n_links);
                CU_ASSERT_EQUAL(p1->length_km, pf->length_km);
                for (int j = 0; j < p1->n_links; j++)
                    CU_ASSERT_EQUAL(p1->links[j], pf->links[j]);
            }
        CU_ASSERT(pairs > n);
        CU_ASSERT_EQUAL(first->n_paths, pairs);
        lr_ksp_free(full);
        lr_ksp_free(first);
        lr_topo_free(t);
    }
}

static CU_TestInfo tests[] = {
    { "km order equals exhaustive enumeration", test_km_order },
    { "hops order equals exhaustive enumeration", test_hops_order },
    { "the two orders differ where they should", test_orders_differ },
    { "disconnected pairs and bad arguments", test_disconnected_and_bad_args },
    { "paths between given ends equal the full table's",
      test_ends_equal_full_table },
    { "first paths to given ends equal the full table's",
      test_first_paths_to_ends },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN("ksp", tests)
