/*
 * The joint environment's T table (lr_jenv_new tabulates it with CDynP
 * over a pool of DC handles shared across candidates) against plans made
 * one at a time with the public API (lr_tm_new, lr_cdynp_plan) for every
 * job class and candidate, bit for bit.
 *
 * The instance: ROADMs A, B, C in a triangle (A-B 10 km, B-C 300 km,
 * A-C 900 km, each way, 64 slots), so that with K = 2 every pair has a
 * direct route and one through the third ROADM, of other lengths and
 * formats; dc0 on A (8 fast GPUs), dc1 on B (6 slow GPUs with more
 * memory), dc2 on C (4 fast GPUs on an intra-DC network so slow that
 * gradient sync outweighs the pipeline: its plans are not those of dc0
 * on as many GPUs, though their devices are the same); a fixed
 * cluster link dc0-dc1 that the environment must ignore (its links are
 * the lightpaths).  Two 10-layer models (one that needs several stages
 * on the fast GPUs' memory), demands 4 and 8 GPUs, shares 1/4 and 1/2:
 * demand 4 puts 1 + 3 or 2 + 2 GPUs on a pair, demand 8 puts 2 + 6 or
 * 4 + 4, so one DC is planned with several GPU counts, and a table
 * shared by mistake across counts, DCs or models would show.  With
 * triples (lr_jenv_config.triples) too: chains over the three DCs with
 * two lightpath links (1 + 1 + 2 and 3 + 3 + 2 GPUs); a triple whose
 * hops share a fibre (route 1 of a hop goes round through the third
 * ROADM, over the other hop's) is never feasible.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_cdynp.h"
#include "planner/lr_jenv.h"
#include "tests/lr_test.h"

static struct lr_topo *topo;
static struct lr_cluster *cl;
static struct lr_model *small, *big;

static int
setup(void)
{
    static const struct { const char *name; int a, b; double km; } links[] = {
        { "A-B", 0, 1, 10 }, { "B-A", 1, 0, 10 },
        { "B-C", 1, 2, 300 }, { "C-B", 2, 1, 300 },
        { "A-C", 0, 2, 900 }, { "C-A", 2, 0, 900 },
    };
    topo = lr_topo_new("abc");
    if (!topo || lr_topo_add_node(topo, "A") || lr_topo_add_node(topo, "B")
        || lr_topo_add_node(topo, "C"))
        return 1;
    for (size_t i = 0; i < sizeof links / sizeof *links; i++)
        if (lr_topo_add_link(topo, links[i].name, links[i].a, links[i].b,
                             links[i].km, 64, 0))
            return 1;
    cl = lr_cluster_new();
    if (!cl || lr_cluster_add_type(cl, "fast", 100e12, 0.5, 2e9)
        || lr_cluster_add_type(cl, "slow", 40e12, 0.4, 8e9)
        || lr_cluster_add_dc(cl, "dc0", "fast", 8, 100e9, 5e-6, "A")
        || lr_cluster_add_dc(cl, "dc1", "slow", 6, 50e9, 10e-6, "B")
        || lr_cluster_add_dc(cl, "dc2", "fast", 4, 10e6, 1e-3, "C")
        || lr_cluster_add_link(cl, "dc0", "dc1", 1e9, 1e-3))
        return 1;
    struct lr_layer ls[10], lb[10];
    for (int i = 0; i < 10; i++) {
        ls[i] = (struct lr_layer) { (1 + i % 3) * 1e12, (1 + i % 4) * 1e6,
                                    (1 + i % 2) * 1e6 };
        lb[i] = (struct lr_layer) { (2 + i % 5) * 1e12, (10 + 3 * (i % 3))
                                    * 1e6, (2 + i % 3) * 1e6 };
    }
    return lr_model_from_layers("small", ls, 10, &small)
           || lr_model_from_layers("big", lb, 10, &big);
}

static int
teardown(void)
{
    lr_model_free(small);
    lr_model_free(big);
    lr_cluster_free(cl);
    lr_topo_free(topo);
    return 0;
}

/* True when a fibre (directed link) of hop 0 of triple 'a', either way,
 * carries hop 1 too. */
static bool
hops_meet(const struct lr_jenv *e, int a)
{
    bool on0[64] = { false };
    for (int dir = 0; dir < 2; dir++) {
        const struct lr_path *p = lr_jenv_cand_hop_path(e, a, 0, dir);
        for (int j = 0; j < p->n_links; j++)
            on0[p->links[j]] = true;
    }
    for (int dir = 0; dir < 2; dir++) {
        const struct lr_path *p = lr_jenv_cand_hop_path(e, a, 1, dir);
        for (int j = 0; j < p->n_links; j++)
            if (on0[p->links[j]])
                return true;
    }
    return false;
}

/* T of candidate 'a' for the pending job, one plan with lr_cdynp_plan()
 * on a time model of its own: the candidate's DCs with the job's GPUs,
 * and for each hop its lightpath's link (tier capacity, 5 us per km). */
static double
plan_one(const struct lr_jenv *e, const struct lr_model *m,
         const struct lr_train *train, int a)
{
    const struct lr_jenv_cand *cd = lr_jenv_cand(e, a);
    int g[3];
    for (int i = 0; i < 3; i++)
        g[i] = lr_jenv_cand_gpus(e, a, i);
    for (int i = 0; i < cd->n_dcs; i++)
        if (g[i] < 1 || g[i] > lr_jenv_dc_gpus(e, cd->dc[i]))
            return INFINITY;   /* the share gives no GPUs, or too many */
    for (int h = 0; h + 1 < cd->n_dcs; h++)
        if (lr_jenv_cand_hop_slots(e, a, h) < 1
            || !lr_jenv_cand_hop_path(e, a, h, 0))
            return INFINITY;   /* out of every format's reach, no route */
    if (cd->n_dcs == 3 && hops_meet(e, a))
        return INFINITY;
    struct lr_tm *base = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_tm_new(m, cl, train, &base), 0);
    struct lr_tm *tm = malloc(sizeof *tm);
    struct lr_plan *plan = malloc(sizeof *plan);
    struct lr_tm_eval *ev = malloc(sizeof *ev);
    CU_ASSERT_FATAL(tm && plan && ev);
    memcpy(tm, base, sizeof *tm);
    memset(tm->link, 0, sizeof tm->link);
    tm->n_dcs = cd->n_dcs;
    for (int i = 0; i < cd->n_dcs; i++) {
        tm->dcs[i] = base->dcs[cd->dc[i]];
        tm->dcs[i].n_devices = g[i];
    }
    for (int h = 0; h + 1 < cd->n_dcs; h++)
        lr_tm_set_link(tm, h, h + 1, lr_jenv_tier_gbps[cd->tier] * 1e9 / 8,
                       5e-6 * lr_jenv_cand_hop_path(e, a, h, 0)->length_km);
    int order[3] = { 0, 1, 2 };
    struct lr_cdynp_options opt = {
        .window = LR_CDYNP_DEFAULT_WINDOW, .order = order,
        .n_order = cd->n_dcs,
    };
    double T = lr_cdynp_plan(tm, &opt, plan, ev) == LR_TM_OK ? ev->T
                                                             : INFINITY;
    free(tm);
    free(plan);
    free(ev);
    lr_tm_free(base);
    return T;
}

static void
check_table(int n_splits, const struct lr_jenv_split *splits, bool triples)
{
    struct lr_jenv_config c = {
        .load = 1, .holding = 1, .k = 2, .guard = 1, .block_penalty = 2,
        .train = { .batch = 8, .micro = 1, .elem_bytes = 2 },
        .n_models = 2, .models = { small, big }, .n_demands = 2,
        .demands = { 4, 8 }, .n_splits = n_splits, .triples = triples,
    };
    for (int i = 0; i < n_splits; i++)
        c.splits[i] = splits[i];
    struct lr_jenv *e = NULL;
    char err[256];
    int rc = lr_jenv_new(topo, cl, &c, &e, err, sizeof err);
    if (rc)
        fprintf(stderr, "lr_jenv_new: %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    /* 3 singles + 6 ordered pairs x shares x 2 routes x 3 tiers (+ 6
     * ordered triples x 2 routes x 3 tiers). */
    CU_ASSERT_EQUAL(lr_jenv_n_cands(e),
                    3 + 6 * (n_splits ? n_splits : 1) * 2 * 3
                    + (triples ? 6 * 2 * 3 : 0));
    int compared = 0, finite = 0, differ = 0, uneven = 0, chains3 = 0;
    for (int mi = 0; mi < c.n_models; mi++)
        for (int di = 0; di < c.n_demands; di++) {
            CU_ASSERT_FATAL(lr_jenv_present(e, mi, di) >= 0);
            for (int a = 0; a < lr_jenv_n_cands(e); a++) {
                double t = lr_jenv_cand_time(e, a);
                double want = plan_one(e, c.models[mi], &c.train, a);
                if (memcmp(&t, &want, sizeof t)) {
                    differ++;
                    fprintf(stderr, "model %d demand %d candidate %d: T %a, "
                            "one plan %a\n", mi, c.demands[di], a, t, want);
                }
                compared++;
                finite += isfinite(want);
                chains3 += isfinite(want) && lr_jenv_cand(e, a)->n_dcs == 3;
                uneven += isfinite(want) && lr_jenv_cand(e, a)->n_dcs == 2
                          && lr_jenv_cand_gpus(e, a, 0)
                             != lr_jenv_cand_gpus(e, a, 1);
            }
        }
    CU_ASSERT_EQUAL(differ, 0);
    CU_ASSERT_EQUAL(compared, 4 * lr_jenv_n_cands(e));
    /* The comparison means something: plans of both kinds. */
    CU_ASSERT(finite >= compared / 3);
    CU_ASSERT(finite < compared);
    if (n_splits > 1)
        CU_ASSERT(uneven >= 20);
    /* Finite three-DC plans were compared (or none exist without). */
    CU_ASSERT(triples ? chains3 >= 12 : chains3 == 0);
    lr_jenv_free(e);
}

static void
test_table_default_share(void)
{
    check_table(0, NULL, false);
}

static void
test_table_uneven_shares(void)
{
    const struct lr_jenv_split s[2] = { { 1, 4 }, { 1, 2 } };
    check_table(2, s, false);
}

static void
test_table_triples(void)
{
    check_table(0, NULL, true);
}

static CU_TestInfo tests[] = {
    { "T table = one CDynP plan per class and candidate (share 1/2)",
      test_table_default_share },
    { "T table = one CDynP plan per class and candidate (shares 1/4, 1/2)",
      test_table_uneven_shares },
    { "T table = one CDynP plan per class and candidate (triples)",
      test_table_triples },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN_WITH("jenv-table", tests, setup, teardown)
