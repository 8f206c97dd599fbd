/*
 * The 'pair' baseline (planner/lr_jenv_policy.c) on a case worked by
 * hand.  ROADMs on a line, P -10 km- Q -100 km- R -20 km- S; four DCs of
 * 8 GPUs, numbered against the line so that index order and distance
 * order differ: d0 on R, d1 on P, d2 on S, d3 on Q.  Matched nearest
 * first: {d1, d3} (10 km) ranks first, {d0, d2} (20 km) second.
 *
 * Jobs of 4 and 8 GPUs, held long enough that none leaves; the shares of
 * a pair are 1/4 and 1/2, so that uneven splits are candidates too:
 *   j0 (4)  even on {d1,d3}: 2 + 2           free d0 8, d1 6, d2 8, d3 6
 *   j1 (8)  even on {d1,d3}: 4 + 4           free 8, 2, 8, 2
 *   j2 (8)  {d1,d3} has 2 + 2 only: {d0,d2}  free 4, 2, 4, 2
 *   j3 (4)  the test books d0 alone          free 0, 2, 4, 2
 *   j4 (4)  back to the first pair: 2 + 2    free 0, 0, 4, 0
 *   j5 (4)  no pair splits evenly: greedy's choice, d2 alone.
 *
 * And a random run against a brute force: a ring of five ROADMs (fibre v
 * of 10 + v km), a DC on each, triples on.  By hand, the pairs are
 * {N0, N1} (10 km) and {N2, N3} (12 km), and N4 is left alone.
 */
#include <math.h>

#include "planner/lr_jenv.h"
#include "tests/lr_test.h"
#include "tests/unit/lr_test_jenv.h"

enum { P, Q, R, S };
/* The two pairs as sets of DC indices. */
#define FIRST (1u << 1 | 1u << 3)
#define SECOND (1u << 0 | 1u << 2)

static struct lr_topo *line;
static struct lr_cluster *four;
static struct lr_model *model;

static int
setup(void)
{
    static const char *nodes[] = { "P", "Q", "R", "S" };
    line = lr_topo_new("line");
    if (!line)
        return 1;
    for (int v = 0; v < 4; v++)
        if (lr_topo_add_node(line, nodes[v]))
            return 1;
    if (lr_test_jenv_fibre(line, P, Q, 10, 64)
        || lr_test_jenv_fibre(line, Q, R, 100, 64)
        || lr_test_jenv_fibre(line, R, S, 20, 64))
        return 1;
    four = lr_cluster_new();
    if (!four || lr_cluster_add_type(four, "gpu", 100e12, 0.5, 80e9)
        || lr_cluster_add_dc(four, "d0", "gpu", 8, 100e9, 5e-6, "R")
        || lr_cluster_add_dc(four, "d1", "gpu", 8, 100e9, 5e-6, "P")
        || lr_cluster_add_dc(four, "d2", "gpu", 8, 100e9, 5e-6, "S")
        || lr_cluster_add_dc(four, "d3", "gpu", 8, 100e9, 5e-6, "Q"))
        return 1;
    return lr_test_jenv_toy(&model);
}

static int
teardown(void)
{
    lr_model_free(model);
    lr_cluster_free(four);
    lr_topo_free(line);
    return 0;
}

/* The DCs of candidate a as a set (bit d for DC d). */
static unsigned
dcs_of(const struct lr_jenv *e, int a)
{
    const struct lr_jenv_cand *c = lr_jenv_cand(e, a);
    unsigned set = 0;
    for (int i = 0; i < c->n_dcs; i++)
        set |= 1u << c->dc[i];
    return set;
}

/* Whether candidate a gives each of its DCs 'each' GPUs. */
static bool
gives_each(const struct lr_jenv *e, int a, int each)
{
    for (int i = 0; i < lr_jenv_cand(e, a)->n_dcs; i++)
        if (lr_jenv_cand_gpus(e, a, i) != each)
            return false;
    return true;
}

/* The least T among the feasible candidates on exactly the DCs 'set'
 * that give each 'each' GPUs. */
static double
least_time_on(const struct lr_jenv *e, const uint8_t *mask, unsigned set,
              int each)
{
    double t = INFINITY;
    for (int a = 0; a < lr_jenv_n_cands(e); a++)
        if (mask[a] && dcs_of(e, a) == set && gives_each(e, a, each))
            t = fmin(t, lr_jenv_cand_time(e, a));
    return t;
}

static void
test_pair_by_hand(void)
{
    static const struct lr_jenv_arrival trace[] = {
        { 0.0, 100, 0, 0, P }, { 0.1, 100, 0, 1, P }, { 0.2, 100, 0, 1, P },
        { 0.3, 100, 0, 0, P }, { 0.4, 100, 0, 0, P }, { 0.5, 100, 0, 0, P },
    };
    struct lr_jenv_config c = {
        .load = 1, .holding = 1, .k = 1, .guard = 1, .block_penalty = 2,
        .train = { .batch = 8, .micro = 1, .elem_bytes = 2 },
        .n_models = 1, .models = { model }, .n_demands = 2,
        .demands = { 4, 8 }, .trace = trace, .n_trace = 6,
        .n_splits = 2, .splits = { { 1, 4 }, { 1, 2 } },
    };
    struct lr_jenv *e = NULL;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(lr_jenv_new(line, four, &c, &e, err, sizeof err),
                          0);
    lr_jenv_reset(e, 1, 0);
    struct lr_rng rng;
    lr_rng_seed(&rng, 1);
    const uint8_t *mask = lr_jenv_mask(e);
    static const struct { unsigned set; int each; } want[] = {
        { FIRST, 2 }, { FIRST, 4 }, { SECOND, 4 },
    };

    /* j0..j2: the pair the hand worked out, split evenly, on its
     * fastest candidate. */
    for (int j = 0; j < 3; j++) {
        int a = lr_jenv_pair.choose(NULL, e, mask, &rng);
        CU_ASSERT_FATAL(a >= 0 && mask[a]);
        CU_ASSERT_EQUAL(dcs_of(e, a), want[j].set);
        CU_ASSERT(gives_each(e, a, want[j].each));
        CU_ASSERT_DOUBLE_EQUAL(lr_jenv_cand_time(e, a),
                               least_time_on(e, mask, want[j].set,
                                             want[j].each), 1e-12);
        lr_jenv_step(e, a);
    }
    CU_ASSERT_EQUAL(lr_jenv_dc_free(e, 1), 2);
    CU_ASSERT_EQUAL(lr_jenv_dc_free(e, 3), 2);
    CU_ASSERT_EQUAL(lr_jenv_dc_free(e, 0), 4);

    /* j3: d0 alone, booked by the test. */
    int alone = -1;
    for (int a = 0; a < lr_jenv_n_cands(e) && alone < 0; a++)
        if (mask[a] && dcs_of(e, a) == 1u << 0)
            alone = a;
    CU_ASSERT_FATAL(alone >= 0);
    lr_jenv_step(e, alone);

    /* j4: the first pair has room again, and first fit goes there. */
    int a = lr_jenv_pair.choose(NULL, e, mask, &rng);
    CU_ASSERT_FATAL(a >= 0);
    CU_ASSERT_EQUAL(dcs_of(e, a), FIRST);
    CU_ASSERT(gives_each(e, a, 2));
    lr_jenv_step(e, a);

    /* j5: no pair splits evenly (d0 is full); greedy's choice, d2. */
    a = lr_jenv_pair.choose(NULL, e, mask, &rng);
    CU_ASSERT_EQUAL(a, lr_jenv_greedy.choose(NULL, e, mask, &rng));
    CU_ASSERT_FATAL(a >= 0);
    CU_ASSERT_EQUAL(dcs_of(e, a), 1u << 2);
    CU_ASSERT_PTR_EQUAL(lr_jenv_policy_find("PAIR"), &lr_jenv_pair);
    lr_jenv_free(e);
}

/* Whether candidate a is an even split over exactly the DCs 'set'. */
static bool
even_on(const struct lr_jenv *e, int a, unsigned set)
{
    const struct lr_jenv_cand *c = lr_jenv_cand(e, a);
    return c->n_dcs == 2 && dcs_of(e, a) == set
           && lr_jenv_cand_gpus(e, a, 0) == lr_jenv_cand_gpus(e, a, 1);
}

static void
test_pair_random_run(void)
{
    struct lr_topo *ring = lr_test_jenv_ring("ring5", 5);
    struct lr_cluster *cl = lr_cluster_new();
    CU_ASSERT_FATAL(ring && cl);
    CU_ASSERT_EQUAL_FATAL(lr_cluster_add_type(cl, "gpu", 100e12, 0.5, 80e9),
                          0);
    for (int d = 0; d < 5; d++) {
        char name[16], node[16];
        snprintf(name, sizeof name, "d%d", d);
        snprintf(node, sizeof node, "N%d", d);
        CU_ASSERT_EQUAL_FATAL(lr_cluster_add_dc(cl, name, "gpu", 8, 100e9,
                                                5e-6, node), 0);
    }
    struct lr_jenv_config c = {
        .load = 6, .holding = 1, .k = 2, .guard = 1, .block_penalty = 2,
        .train = { .batch = 8, .micro = 1, .elem_bytes = 2 },
        .n_models = 1, .models = { model }, .n_demands = 3,
        .demands = { 2, 4, 8 }, .triples = true,
        .n_splits = 2, .splits = { { 1, 4 }, { 1, 2 } },
    };
    struct lr_jenv *e = lr_test_jenv_make(ring, cl, &c);
    static const unsigned pairs[2] = { 1u << 0 | 1u << 1, 1u << 2 | 1u << 3 };
    struct lr_rng rng;
    lr_rng_seed(&rng, 3);
    lr_jenv_reset(e, 17, 0);
    int bad = 0, on_pair[2] = { 0, 0 }, fallback = 0, steps = 4000;
    for (int s = 0; s < steps; s++) {
        const uint8_t *mask = lr_jenv_mask(e);
        int a = lr_jenv_pair.choose(NULL, e, mask, &rng);
        /* The brute force: the fastest even split on the first pair
         * that has one, else greedy's choice. */
        int want = -1;
        for (int p = 0; p < 2 && want < 0; p++) {
            double t = INFINITY;
            for (int b = 0; b < lr_jenv_n_cands(e); b++)
                if (mask[b] && even_on(e, b, pairs[p])
                    && lr_jenv_cand_time(e, b) < t) {
                    t = lr_jenv_cand_time(e, b);
                    want = b;
                }
            if (want >= 0) {
                on_pair[p]++;
                /* Ties of T may be broken otherwise: compare T. */
                bad += a < 0 || !mask[a] || !even_on(e, a, pairs[p])
                       || lr_jenv_cand_time(e, a) != t;
            }
        }
        if (want < 0) {
            fallback++;
            bad += a != lr_jenv_greedy.choose(NULL, e, mask, &rng);
        }
        lr_jenv_step(e, a);
    }
    CU_ASSERT_EQUAL(bad, 0);
    /* The run went through each case often. */
    CU_ASSERT(on_pair[0] > steps / 10);
    CU_ASSERT(on_pair[1] > steps / 10);
    CU_ASSERT(fallback > steps / 20);
    lr_jenv_free(e);
    lr_cluster_free(cl);
    lr_topo_free(ring);
}

static CU_TestInfo tests[] = {
    { "pair: nearest pairs first, even splits, greedy after",
      test_pair_by_hand },
    { "pair: a random run against a brute force (odd DCs, triples)",
      test_pair_random_run },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN_WITH("lr_jenv pair", tests, setup, teardown)
