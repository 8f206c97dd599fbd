/*
 * The joint environment: its metrics on traces small enough to compute
 * by hand, a loss system with a closed form (Erlang B), the mask against
 * the resources, determinism, the errors, and uneven GPU shares of a
 * pair candidate.
 *
 * The instance: ROADMs A and B, one 10 km fibre each way with 8 slots;
 * dc0 on A and dc1 on B, 8 GPUs each (one device type); a 4-layer model
 * that fits one GPU.  At 10 km the format is 16QAM (50 Gb/s per slot):
 * 100 G takes 2 + 1 guard = 3 slots, 200 G 5 slots, 400 G 9 slots (more
 * than the 8 there are: never feasible).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_jenv.h"
#include "planner/lr_ksp.h"
#include "planner/lr_rate.h"
#include "planner/lr_spectrum.h"
#include "tests/lr_test.h"
#include "tests/unit/lr_test_jenv.h"
#include "tests/unit/lr_test_topo.h"

static struct lr_topo *topo;
static struct lr_cluster *two, *one;
static struct lr_model *model;

static int
setup(void)
{
    topo = lr_topo_new("ab");
    if (!topo || lr_topo_add_node(topo, "A") || lr_topo_add_node(topo, "B")
        || lr_topo_add_link(topo, "A-B", 0, 1, 10, 8, 0)
        || lr_topo_add_link(topo, "B-A", 1, 0, 10, 8, 0))
        return 1;
    two = lr_cluster_new();
    one = lr_cluster_new();
    if (!two || !one || lr_cluster_add_type(two, "gpu", 100e12, 0.5, 80e9)
        || lr_cluster_add_dc(two, "dc0", "gpu", 8, 100e9, 5e-6, "A")
        || lr_cluster_add_dc(two, "dc1", "gpu", 8, 100e9, 5e-6, "B")
        || lr_cluster_add_type(one, "gpu", 100e12, 0.5, 80e9)
        || lr_cluster_add_dc(one, "dc0", "gpu", 8, 100e9, 5e-6, "A"))
        return 1;
    struct lr_layer layers[4] = {
        { 1e12, 1e6, 1e6 }, { 2e12, 2e6, 1e6 },
        { 3e12, 3e6, 2e6 }, { 4e12, 4e6, 1e6 },
    };
    return lr_model_from_layers("toy", layers, 4, &model);
}

static int
teardown(void)
{
    lr_model_free(model);
    lr_cluster_free(two);
    lr_cluster_free(one);
    lr_topo_free(topo);
    return 0;
}

static struct lr_jenv_config
config(int demand)
{
    struct lr_jenv_config c = {
        .load = 1, .holding = 1, .k = 1, .guard = 1, .block_penalty = 2,
        .train = { .batch = 8, .micro = 1, .elem_bytes = 2 },
        .n_models = 1, .models = { model }, .n_demands = 1,
        .demands = { demand },
    };
    return c;
}

static struct lr_jenv *
make(const struct lr_cluster *cl, const struct lr_jenv_config *c)
{
    struct lr_jenv *e = NULL;
    char err[256];
    int rc = lr_jenv_new(topo, cl, c, &e, err, sizeof err);
    if (rc)
        fprintf(stderr, "lr_jenv_new: %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    return e;
}

/* Four jobs of 8 GPUs under 'static' (DC 0 first):
 *   t=0   j0 (holds 2)  -> dc0          used (8, 0)
 *   t=1   j1 (holds 2)  -> dc1          used (8, 8)
 *   t=1.5 j2 (holds 1)  -> blocked: no GPUs anywhere
 *   t=2   j0 leaves                     used (0, 8)
 *   t=3   j1 leaves                     used (0, 0)
 *   t=4   j3 (holds 1)  -> dc0; the trace ends at t=4.
 * GPU utilisation = (0.5 + 1 + 0.5 + 0) / 4 = 0.5; the DCs' used shares
 * have variance 0.25, 0, 0.25, 0 on the four unit intervals: 0.125;
 * blocking 1/4; no spectrum. */
static void
test_trace_by_hand(void)
{
    static const struct lr_jenv_arrival trace[] = {
        { 0, 2, 0, 0, 0 }, { 1, 2, 0, 0, 0 }, { 1.5, 1, 0, 0, 1 },
        { 4, 1, 0, 0, 1 },
    };
    struct lr_jenv_config c = config(8);
    c.trace = trace;
    c.n_trace = 4;
    struct lr_jenv *e = make(two, &c);
    /* 2 singles + 2 ordered pairs x 1 route x 3 tiers. */
    CU_ASSERT_EQUAL(lr_jenv_n_actions(e), 8);
    struct lr_jenv_metrics m;
    lr_jenv_run(e, &lr_jenv_static, NULL, 1, 100, 0, &m);
    CU_ASSERT_EQUAL(m.arrivals, 4);
    CU_ASSERT_EQUAL(m.blocked, 1);
    CU_ASSERT_EQUAL(m.admitted, 3);
    CU_ASSERT_DOUBLE_EQUAL(m.blocking, 0.25, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(m.elapsed, 4, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(m.gpu_utilisation, 0.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(m.dc_load_variance, 0.125, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(m.spectrum_utilisation, 0, 1e-12);
    CU_ASSERT(m.mean_iteration_s > 0);
    /* Both DCs are alike: every job got the best T there is. */
    CU_ASSERT_DOUBLE_EQUAL(m.mean_slowdown, 1, 1e-12);
    lr_jenv_free(e);
}

/* Jobs of 16 GPUs need both DCs and a lightpath each way.
 *   t=0 j0 (holds 1): greedy takes the fastest feasible tier, 200 G
 *       (400 G needs 9 slots of 8): 5 slots on A-B and 5 on B-A;
 *   t=0.5 j1: blocked (no GPUs);  t=1 j0 leaves;
 *   t=2 j2 (holds 1): admitted again; the trace ends at t=2.
 * Spectrum: 10 of 16 slots for 1 of 2 time units: 0.3125.  The
 * iteration time at 200 G is below the one at 100 G. */
static void
test_lightpath_by_hand(void)
{
    static const struct lr_jenv_arrival trace[] = {
        { 0, 1, 0, 0, 0 }, { 0.5, 1, 0, 0, 0 }, { 2, 1, 0, 0, 0 },
    };
    struct lr_jenv_config c = config(16);
    c.trace = trace;
    c.n_trace = 3;
    struct lr_jenv *e = make(two, &c);
    const uint8_t *mask = lr_jenv_mask(e);
    /* Singles: 16 GPUs do not fit 8; pairs: 100 G and 200 G only. */
    int feasible = 0;
    for (int a = 0; a < lr_jenv_n_actions(e); a++) {
        const struct lr_jenv_cand *cd = lr_jenv_cand(e, a);
        feasible += mask[a];
        if (cd->n_dcs == 1 || cd->tier == 2)
            CU_ASSERT_EQUAL(mask[a], 0);
        if (cd->n_dcs == 2 && cd->tier < 2)
            CU_ASSERT_EQUAL(mask[a], 1);
        if (cd->n_dcs == 2 && cd->tier == 0)
            CU_ASSERT_EQUAL(lr_jenv_cand_slots(e, a), 3);
        if (cd->n_dcs == 2 && cd->tier == 1) {
            CU_ASSERT_EQUAL(lr_jenv_cand_slots(e, a), 5);
            CU_ASSERT(lr_jenv_cand_time(e, a) < lr_jenv_cand_time(e, a - 1));
        }
    }
    CU_ASSERT_EQUAL(feasible, 4);
    struct lr_jenv_metrics m;
    lr_jenv_run(e, &lr_jenv_greedy, NULL, 1, 100, 0, &m);
    CU_ASSERT_EQUAL(m.arrivals, 3);
    CU_ASSERT_EQUAL(m.blocked, 1);
    CU_ASSERT_DOUBLE_EQUAL(m.elapsed, 2, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(m.spectrum_utilisation, 10.0 / 16 / 2, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(m.gpu_utilisation, 0.5, 1e-12);
    lr_jenv_free(e);
}

/* The holding modes.  A 16-GPU job under 'static' takes the first pair
 * candidate, 100 G, whose iteration time is s = T(100 G) / T_ref > 1
 * times the least of its class on an empty network (400 G).  j0 arrives at 0 holding 1; j1 arrives
 * at (1 + s) / 2.  exp: j0 left at 1, j1 is admitted.  work: j0 holds
 * s, j1 finds no GPUs and is blocked. */
static void
test_holding_work(void)
{
    struct lr_jenv_arrival trace[] = {
        { 0, 1, 0, 0, 0 }, { 0, 1, 0, 0, 0 },
    };
    struct lr_jenv_config c = config(16);
    c.trace = trace;
    c.n_trace = 2;
    struct lr_jenv *e = make(two, &c);
    int a100 = -1;
    for (int a = 0; a < lr_jenv_n_actions(e) && a100 < 0; a++)
        if (lr_jenv_cand(e, a)->n_dcs == 2)
            a100 = a;
    CU_ASSERT_EQUAL_FATAL(lr_jenv_cand(e, a100)->tier, 0);
    double tref = INFINITY;
    for (int a = 0; a < lr_jenv_n_actions(e); a++)
        tref = fmin(tref, lr_jenv_cand_time(e, a));
    double s = lr_jenv_cand_time(e, a100) / tref;
    CU_ASSERT_FATAL(s > 1 + 1e-6);
    lr_jenv_free(e);
    trace[1].t = (1 + s) / 2;
    for (int mode = LR_JENV_HOLD_EXP; mode <= LR_JENV_HOLD_WORK; mode++) {
        c.holding_mode = (enum lr_jenv_holding) mode;
        e = make(two, &c);
        struct lr_jenv_metrics m;
        lr_jenv_run(e, &lr_jenv_static, NULL, 1, 100, 0, &m);
        CU_ASSERT_EQUAL(m.arrivals, 2);
        CU_ASSERT_EQUAL(m.blocked, mode == LR_JENV_HOLD_WORK ? 1 : 0);
        CU_ASSERT_DOUBLE_EQUAL(m.mean_slowdown, s, 1e-9);
        lr_jenv_free(e);
    }
    /* Names round-trip; anything else is refused. */
    enum lr_jenv_holding h;
    CU_ASSERT_EQUAL(lr_jenv_holding_parse("work", &h), 0);
    CU_ASSERT_EQUAL(h, LR_JENV_HOLD_WORK);
    CU_ASSERT_STRING_EQUAL(lr_jenv_holding_name(h), "work");
    CU_ASSERT_EQUAL(lr_jenv_holding_parse("exp", &h), 0);
    CU_ASSERT_STRING_EQUAL(lr_jenv_holding_name(h), "exp");
    CU_ASSERT_EQUAL(lr_jenv_holding_parse("Work", &h), EINVAL);
    c.holding_mode = (enum lr_jenv_holding) 7;
    char err[256];
    CU_ASSERT_EQUAL(lr_jenv_new(topo, two, &c, &e, err, sizeof err), EINVAL);
}

/* A link wider than the spectrum bitmaps is refused by its width, not
 * as "out of memory" (it once was); 1024 slots still build. */
static void
test_link_too_wide(void)
{
    struct lr_jenv_config c = config(8);
    struct lr_jenv *e = NULL;
    char err[256] = "";
    topo->links[1].n_slots = 1025;
    CU_ASSERT_EQUAL(lr_jenv_new(topo, two, &c, &e, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NULL(e);
    CU_ASSERT_STRING_EQUAL(err, "topology 'ab' has a link of 1025 slots: "
                           "at most 1024");
    topo->links[1].n_slots = 1024;
    e = make(two, &c);
    lr_jenv_free(e);
    topo->links[1].n_slots = 8;
}

/* One DC, every job takes all of it: an M/M/1/1 loss system, blocking
 * rho / (1 + rho) = 1/2 at 1 Erlang, GPU utilisation (1 - B) rho = 1/2. */
static void
test_erlang_b(void)
{
    struct lr_jenv_config c = config(8);
    struct lr_jenv *e = make(one, &c);
    CU_ASSERT_EQUAL(lr_jenv_n_actions(e), 1);
    struct lr_jenv_metrics m;
    lr_jenv_run(e, &lr_jenv_static, NULL, 7, 40000, 1000, &m);
    CU_ASSERT_EQUAL(m.arrivals, 39000);
    CU_ASSERT_DOUBLE_EQUAL(m.blocking, 0.5, 0.02);
    CU_ASSERT_DOUBLE_EQUAL(m.gpu_utilisation, 0.5, 0.02);
    CU_ASSERT_DOUBLE_EQUAL(m.dc_load_variance, 0, 1e-12);
    lr_jenv_free(e);
}

/* Random decisions under random masks: a chosen action is always one the
 * mask allows, and the resources it leaves are never negative. */
static void
test_mask_matches_resources(void)
{
    struct lr_jenv_config c = config(4);
    c.n_demands = 3;
    c.demands[1] = 8;
    c.demands[2] = 16;
    c.load = 3;
    struct lr_jenv *e = make(two, &c);
    struct lr_rng rng;
    lr_rng_seed(&rng, 5);
    lr_jenv_reset(e, 11, 0);
    for (int s = 0; s < 5000; s++) {
        const uint8_t *mask = lr_jenv_mask(e);
        int g = lr_jenv_job_gpus(e);
        for (int a = 0; a < lr_jenv_n_actions(e); a++) {
            const struct lr_jenv_cand *cd = lr_jenv_cand(e, a);
            bool gpus_ok = true;
            for (int i = 0; i < cd->n_dcs; i++)
                gpus_ok = gpus_ok && lr_jenv_cand_gpus(e, a, i)
                                     <= lr_jenv_dc_free(e, cd->dc[i]);
            if (mask[a])
                CU_ASSERT(gpus_ok && isfinite(lr_jenv_cand_time(e, a)));
        }
        (void) g;
        /* greedy (an ordered scan) = the least (T, slots, index) among
         * the feasible, found by brute force. */
        int best = -1;
        for (int a = 0; a < lr_jenv_n_cands(e); a++) {
            if (!mask[a])
                continue;
            double t = lr_jenv_cand_time(e, a), tb;
            if (best < 0 || t < (tb = lr_jenv_cand_time(e, best))
                || (t == tb && lr_jenv_cand_slots(e, a)
                               < lr_jenv_cand_slots(e, best)))
                best = a;
        }
        CU_ASSERT_EQUAL(lr_jenv_greedy.choose(NULL, e, mask, &rng), best);
        int a = lr_jenv_random.choose(NULL, e, mask, &rng);
        CU_ASSERT(a >= 0 && mask[a]);
        lr_jenv_step(e, a);
        for (int d = 0; d < 2; d++)
            CU_ASSERT(lr_jenv_dc_free(e, d) >= 0
                      && lr_jenv_dc_free(e, d) <= 8);
    }
    lr_jenv_free(e);
}

static void
test_deterministic(void)
{
    struct lr_jenv_config c = config(4);
    c.load = 5;
    struct lr_jenv *e = make(two, &c);
    for (int p = 0; lr_jenv_policies[p]; p++) {
        struct lr_jenv_metrics a, b;
        lr_jenv_run(e, lr_jenv_policies[p], NULL, 3, 3000, 300, &a);
        lr_jenv_run(e, lr_jenv_policies[p], NULL, 3, 3000, 300, &b);
        CU_ASSERT_EQUAL(a.blocked, b.blocked);
        CU_ASSERT_EQUAL(a.gpu_utilisation, b.gpu_utilisation);
        CU_ASSERT(a.blocking > 0 && a.blocking < 1);
    }
    lr_jenv_free(e);
}

static void
test_errors(void)
{
    struct lr_jenv *e = NULL;
    char err[256] = "";
    struct lr_jenv_config c = config(32);
    CU_ASSERT_EQUAL(lr_jenv_new(topo, two, &c, &e, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NULL(e);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "fits no DC"));
    struct lr_cluster *loose = lr_cluster_new();
    lr_cluster_add_type(loose, "gpu", 100e12, 0.5, 80e9);
    lr_cluster_add_dc(loose, "far", "gpu", 8, 100e9, 5e-6, "Z");
    c = config(8);
    CU_ASSERT_EQUAL(lr_jenv_new(topo, loose, &c, &e, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "'far'"));
    lr_cluster_free(loose);
    c.load = 0;
    CU_ASSERT_EQUAL(lr_jenv_new(topo, two, &c, &e, err, sizeof err), EINVAL);
    /* Infinite numbers, as lr_jenv_set_load refuses them: an infinite
     * mean holding time put every arrival at t = inf and made the time
     * averages inf - inf, NaN. */
    c.load = INFINITY;
    CU_ASSERT_EQUAL(lr_jenv_new(topo, two, &c, &e, err, sizeof err), EINVAL);
    c.load = 1;
    c.holding = INFINITY;
    CU_ASSERT_EQUAL(lr_jenv_new(topo, two, &c, &e, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "finite"));
    c.holding = 1;
    c.block_penalty = INFINITY;
    CU_ASSERT_EQUAL(lr_jenv_new(topo, two, &c, &e, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NULL(e);
}

/* Where a DC attaches, the topology's dc-attachment says it as well as
 * the inventory's attachment-node (lightraild reads either): dc0 and dc1
 * attached only by the topology to A and B build the same environment,
 * each pair's forward hop leaving its first DC's ROADM.  A DC that
 * neither file attaches is refused by name. */
static void
test_topology_attachment(void)
{
    struct lr_topo *t = lr_topo_new("ab");
    struct lr_cluster *bare = lr_cluster_new();
    CU_ASSERT_FATAL(t && bare);
    CU_ASSERT_FATAL(!lr_topo_add_node(t, "A") && !lr_topo_add_node(t, "B")
                    && !lr_topo_add_link(t, "A-B", 0, 1, 10, 8, 0)
                    && !lr_topo_add_link(t, "B-A", 1, 0, 10, 8, 0)
                    && !lr_topo_add_attach(t, "dc0", 0)
                    && !lr_topo_add_attach(t, "dc1", 1));
    CU_ASSERT_FATAL(!lr_cluster_add_type(bare, "gpu", 100e12, 0.5, 80e9)
                    && !lr_cluster_add_dc(bare, "dc0", "gpu", 8, 100e9, 5e-6,
                                          NULL)
                    && !lr_cluster_add_dc(bare, "dc1", "gpu", 8, 100e9, 5e-6,
                                          NULL));
    CU_ASSERT_EQUAL(lr_topo_attach_node(t, "dc1", NULL), 1);
    CU_ASSERT_EQUAL(lr_topo_attach_node(t, "dc2", "A"), 0);
    CU_ASSERT_EQUAL(lr_topo_attach_node(t, "dc2", ""), -1);
    struct lr_jenv_config c = config(8);
    struct lr_jenv *e = NULL;
    char err[256] = "";
    CU_ASSERT_EQUAL_FATAL(lr_jenv_new(t, bare, &c, &e, err, sizeof err), 0);
    int pairs = 0;
    for (int a = 0; a < lr_jenv_n_cands(e); a++) {
        const struct lr_jenv_cand *k = lr_jenv_cand(e, a);
        if (k->n_dcs != 2)
            continue;
        const struct lr_path *p = lr_jenv_cand_hop_path(e, a, 0, 0);
        CU_ASSERT_FATAL(p && p->n_links == 1);
        CU_ASSERT_EQUAL(t->links[p->links[0]].src, k->dc[0]);
        pairs++;
    }
    CU_ASSERT(pairs > 0);
    lr_jenv_free(e);
    e = NULL;
    CU_ASSERT_FATAL(!lr_cluster_add_dc(bare, "dc2", "gpu", 8, 100e9, 5e-6,
                                       NULL));
    CU_ASSERT_EQUAL(lr_jenv_new(t, bare, &c, &e, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NULL(e);
    CU_ASSERT_STRING_EQUAL(err, "DC 'dc2' attaches to no ROADM: give it a "
                           "dc-attachment in topology 'ab' or an "
                           "attachment-node in the inventory");
    lr_cluster_free(bare);
    lr_topo_free(t);
}

/* The environment computes paths only where it uses them (the DC pairs'
 * K routes, every node's distance to each DC) and gets what the whole
 * K-shortest-path table would give: each pair candidate's route r is the
 * table's path r between its DCs' ROADMs, link for link, and a node's
 * distance to a DC is its first path's length (0 at the DC's ROADM).  On
 * random meshes of 24-30 ROADMs with DCs on three of them. */
static void
test_paths_as_full_table(void)
{
    struct lr_rng r;
    lr_rng_seed(&r, 5);
    for (int trial = 0; trial < 3; trial++) {
        int n = 24 + 3 * trial, at[3] = { 1, 9 + trial, n - 2 };
        struct lr_topo *t = lr_test_random_topo(&r, n, 0.15, 320);
        struct lr_cluster *cl = lr_cluster_new();
        CU_ASSERT_FATAL(t && cl
                        && !lr_cluster_add_type(cl, "gpu", 100e12, 0.5,
                                                80e9));
        for (int d = 0; d < 3; d++) {
            char name[8];
            snprintf(name, sizeof name, "dc%d", d);
            CU_ASSERT_FATAL(!lr_cluster_add_dc(cl, name, "gpu", 8, 100e9,
                                               5e-6, t->nodes[at[d]].name));
        }
        struct lr_jenv_config c = config(8);
        c.k = 3;
        struct lr_jenv *e = NULL;
        struct lr_ksp *full = NULL;
        char err[256] = "";
        CU_ASSERT_EQUAL_FATAL(lr_jenv_new(t, cl, &c, &e, err, sizeof err),
                              0);
        CU_ASSERT_EQUAL_FATAL(lr_ksp_compute(t, c.k, LR_KSP_KM, &full), 0);
        for (int v = 0; v < n; v++)
            for (int d = 0; d < 3; d++) {
                int np;
                const struct lr_path *p = lr_ksp_paths(full, v, at[d], &np);
                CU_ASSERT_FATAL(v == at[d] || np > 0);
                CU_ASSERT_EQUAL(lr_jenv_dc_distance(e, v, d),
                                v == at[d] ? 0 : p[0].length_km);
            }
        int hops = 0;
        for (int a = 0; a < lr_jenv_n_cands(e); a++) {
            const struct lr_jenv_cand *k = lr_jenv_cand(e, a);
            for (int dir = 0; k->n_dcs == 2 && dir < 2; dir++) {
                int s = at[k->dc[dir]], d = at[k->dc[1 - dir]], np;
                const struct lr_path *p = lr_ksp_paths(full, s, d, &np);
                const struct lr_path *q = lr_jenv_cand_hop_path(e, a, 0,
                                                                 dir);
                CU_ASSERT_FATAL(q && k->route < np);
                CU_ASSERT_EQUAL_FATAL(q->n_links, p[k->route].n_links);
                for (int j = 0; j < q->n_links; j++)
                    CU_ASSERT_EQUAL(q->links[j], p[k->route].links[j]);
                hops++;
            }
        }
        CU_ASSERT(hops > 0);
        lr_ksp_free(full);
        lr_jenv_free(e);
        lr_cluster_free(cl);
        lr_topo_free(t);
    }
}

/* The mirror (lr_jenv_set_state + lr_jenv_present) of a stepped
 * environment's state gives the same mask and observation.  Jobs never
 * leave (holding 1000) so that the test's own copy of the spectrum only
 * books, as the stepped environment does; random feasible choices over
 * demands 4, 8, 16 exercise GPUs and lightpaths. */
static void
test_mirror_matches_stepping(void)
{
    static struct lr_jenv_arrival trace[12];
    for (int i = 0; i < 12; i++)
        trace[i] = (struct lr_jenv_arrival) { i, 1000, 0, i % 2, 0 };
    struct lr_jenv_config c = config(4);
    c.n_demands = 3;
    c.demands[1] = 8;
    c.demands[2] = 16;
    c.trace = trace;
    c.n_trace = 12;
    struct lr_jenv *e = make(two, &c);
    c.trace = NULL;
    c.n_trace = 0;
    struct lr_jenv *m = make(two, &c);
    struct lr_spectrum *sp = lr_spectrum_new(topo);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
    int n = lr_jenv_obs_size(e), na = lr_jenv_n_actions(e), checked = 0;
    int pairs = 0;
    float *o1 = calloc((size_t) n, sizeof *o1), *o2 = calloc((size_t) n,
                                                              sizeof *o2);
    struct lr_rng rng;
    lr_rng_seed(&rng, 3);
    char err[256];
    while (!lr_jenv_done(e)) {
        int used[2] = { 8 - lr_jenv_dc_free(e, 0), 8 - lr_jenv_dc_free(e, 1) };
        CU_ASSERT_EQUAL_FATAL(lr_jenv_set_state(m, used, sp->occ, sp->nw, err,
                                                sizeof err), 0);
        int demand = -1;
        for (int d = 0; d < 3; d++)
            if (c.demands[d] == lr_jenv_job_gpus(e))
                demand = d;
        int nf = lr_jenv_present(m, lr_jenv_job_model(e), demand);
        int ne = 0;
        for (int a = 0; a < na; a++)
            ne += lr_jenv_mask(e)[a];
        CU_ASSERT_EQUAL(nf, ne);
        CU_ASSERT(!memcmp(lr_jenv_mask(e), lr_jenv_mask(m), (size_t) na));
        lr_jenv_observe(e, o1);
        lr_jenv_observe(m, o2);
        CU_ASSERT(!memcmp(o1, o2, (size_t) n * sizeof *o1));
        int a = lr_jenv_random.choose(NULL, e, lr_jenv_mask(e), &rng);
        CU_ASSERT_FATAL(a >= 0);
        for (int dir = 0; dir < 2 && lr_jenv_cand(e, a)->n_dcs == 2; dir++) {
            const struct lr_path *p = lr_jenv_cand_path(e, a, dir);
            CU_ASSERT_EQUAL(lr_jenv_cand_first(m, a, dir),
                            lr_jenv_cand_first(e, a, dir));
            CU_ASSERT_EQUAL(lr_spectrum_alloc(sp, p->links, p->n_links,
                                              lr_jenv_cand_first(e, a, dir),
                                              lr_jenv_cand_slots(e, a)), 0);
        }
        checked++;
        pairs += lr_jenv_cand(e, a)->n_dcs == 2;
        lr_jenv_step(e, a);
    }
    CU_ASSERT(checked >= 2 && pairs >= 1);
    /* Bad state is refused and changes nothing. */
    int bad[2] = { 9, 0 };
    CU_ASSERT_EQUAL(lr_jenv_set_state(m, bad, sp->occ, sp->nw, err,
                                      sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "dc0"));
    CU_ASSERT_EQUAL(lr_jenv_set_state(m, bad + 1, sp->occ, sp->nw + 1, err,
                                      sizeof err), EINVAL);
    CU_ASSERT_EQUAL(lr_jenv_present(m, 1, 0), -1);
    CU_ASSERT_EQUAL(lr_jenv_present(m, 0, 3), -1);
    free(o1);
    free(o2);
    lr_spectrum_free(sp);
    lr_jenv_free(m);
    lr_jenv_free(e);
}

/* Whether slots first..first+m-1 of link l are all booked (1), all free
 * (0), or mixed (-1) in occupancy 'occ' of nw words per link. */
static int
booked(const uint64_t *occ, int nw, int l, int first, int m)
{
    int n = 0;
    for (int s = first; s < first + m; s++)
        n += (occ[(size_t) l * nw + s / 64] >> (s % 64)) & 1;
    return n == m ? 1 : n == 0 ? 0 : -1;
}

/* Both links of the test's topology (8 slots each) free. */
static bool
all_free(const uint64_t *occ, int nw)
{
    return booked(occ, nw, 0, 0, 8) == 0 && booked(occ, nw, 1, 0, 8) == 0;
}

/* The running jobs of a mirror (lr_jenv_set_running) leave in the order
 * of their remaining times and free exactly what they hold, in the
 * mirror and in a fork of it (a clone reads the prototype's copy); bad
 * sets are refused with a reason and change nothing.  A: 4 GPUs in dc0
 * and 3 in dc1, slots 0-3 of both links, 1 unit left; B: 2 GPUs in dc0,
 * slots 5-6 of link 0, 100 units left.  Every other arrival is refused
 * (action -1), so nothing else books. */
static void
test_running_jobs(void)
{
    struct lr_jenv_config c = config(4);
    struct lr_jenv *m = make(two, &c), *f = NULL;
    struct lr_spectrum *sp = lr_spectrum_new(topo);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
    char err[256] = "";
    struct lr_jenv_block ba[2] = { { 0, 0, 4 }, { 1, 0, 4 } };
    struct lr_jenv_block bb[1] = { { 0, 5, 2 } };
    for (int i = 0; i < 2; i++)
        CU_ASSERT_EQUAL_FATAL(lr_spectrum_alloc(sp, &ba[i].link, 1,
                                                ba[i].first, ba[i].m), 0);
    CU_ASSERT_EQUAL_FATAL(lr_spectrum_alloc(sp, &bb[0].link, 1, bb[0].first,
                                            bb[0].m), 0);
    int used[2] = { 6, 3 };
    CU_ASSERT_EQUAL_FATAL(lr_jenv_set_state(m, used, sp->occ, sp->nw, err,
                                            sizeof err), 0);
    struct lr_jenv_running run[2] = {
        { .gpus = { 4, 3 }, .blocks = ba, .n_blocks = 2, .remaining = 1.0 },
        { .gpus = { 2, 0 }, .blocks = bb, .n_blocks = 1, .remaining = 100 },
    };
    CU_ASSERT_EQUAL_FATAL(lr_jenv_set_running(m, run, 2, err, sizeof err), 0);
    CU_ASSERT_EQUAL(lr_jenv_n_running(m), 2);

    /* Refused, each with its reason; the two jobs stay. */
    struct lr_jenv_running bad[2];
    struct lr_jenv_block b4 = { 0, 4, 1 }, off = { 0, 6, 4 }, far = { 2, 0, 1 };
    memcpy(bad, run, sizeof bad);
    bad[1].gpus[0] = 3;                   /* 4 + 3 > 6 used in dc0 */
    CU_ASSERT_EQUAL(lr_jenv_set_running(m, bad, 2, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "running job 1: the running jobs "
                                  "hold 7 GPUs in DC 'dc0'"));
    memcpy(bad, run, sizeof bad);
    bad[1].blocks = &b4;                  /* slot 4 is free */
    CU_ASSERT_EQUAL(lr_jenv_set_running(m, bad, 2, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "slot 4 of link 0 is not booked"));
    memcpy(bad, run, sizeof bad);
    bad[1].blocks = ba;                   /* A's slots, claimed twice */
    CU_ASSERT_EQUAL(lr_jenv_set_running(m, bad, 2, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "running job 1: slot 0 of link 0"));
    memcpy(bad, run, sizeof bad);
    bad[0].blocks = &off;                 /* slots 6-9 of 8 */
    bad[0].n_blocks = 1;
    CU_ASSERT_EQUAL(lr_jenv_set_running(m, bad, 2, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "not on the topology"));
    bad[0].blocks = &far;                 /* no link 2 */
    CU_ASSERT_EQUAL(lr_jenv_set_running(m, bad, 2, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "not on the topology"));
    memcpy(bad, run, sizeof bad);
    bad[0].remaining = 0;
    CU_ASSERT_EQUAL(lr_jenv_set_running(m, bad, 2, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "running job 0: remaining time"));
    CU_ASSERT_EQUAL(lr_jenv_set_running(m, run, -1, err, sizeof err), EINVAL);
    CU_ASSERT_EQUAL(lr_jenv_clone(m, &f), 0);
    CU_ASSERT_EQUAL(lr_jenv_set_running(f, run, 2, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "clone"));
    CU_ASSERT_EQUAL(lr_jenv_n_running(m), 2);

    /* A fork that keeps the ends: both leave there, freeing everything;
     * the mirror keeps them. */
    int nw;
    CU_ASSERT_EQUAL_FATAL(lr_jenv_fork(f, m, 7, 1000000,
                                       LR_JENV_FORK_KNOWN_WORK), 0);
    CU_ASSERT_EQUAL(lr_jenv_n_running(f), 2);
    for (int i = 0; i < 100000 && lr_jenv_n_running(f) > 0; i++)
        lr_jenv_step(f, -1);
    CU_ASSERT_EQUAL(lr_jenv_n_running(f), 0);
    CU_ASSERT_EQUAL(lr_jenv_dc_free(f, 0), 8);
    CU_ASSERT_EQUAL(lr_jenv_dc_free(f, 1), 8);
    const uint64_t *occ = lr_jenv_occupancy(f, &nw);
    CU_ASSERT(all_free(occ, nw));
    CU_ASSERT_EQUAL(lr_jenv_n_running(m), 2);
    occ = lr_jenv_occupancy(m, &nw);
    CU_ASSERT_EQUAL(booked(occ, nw, 0, 0, 4), 1);

    /* The mirror itself: A leaves first, then B; what A frees shows in
     * the mask (the routes over its links are recomputed). */
    int before = lr_jenv_present(m, 0, 0);
    for (int i = 0; i < 100000 && lr_jenv_n_running(m) == 2; i++)
        lr_jenv_step(m, -1);
    CU_ASSERT_EQUAL_FATAL(lr_jenv_n_running(m), 1);
    CU_ASSERT(lr_jenv_present(m, 0, 0) > before);
    occ = lr_jenv_occupancy(m, &nw);
    CU_ASSERT_EQUAL(lr_jenv_dc_free(m, 0), 6);
    CU_ASSERT_EQUAL(lr_jenv_dc_free(m, 1), 8);
    CU_ASSERT_EQUAL(booked(occ, nw, 0, 0, 5), 0);
    CU_ASSERT_EQUAL(booked(occ, nw, 0, 5, 2), 1);
    CU_ASSERT_EQUAL(booked(occ, nw, 0, 7, 1), 0);
    CU_ASSERT_EQUAL(booked(occ, nw, 1, 0, 8), 0);
    for (int i = 0; i < 100000 && lr_jenv_n_running(m) == 1; i++)
        lr_jenv_step(m, -1);
    CU_ASSERT_EQUAL(lr_jenv_n_running(m), 0);
    CU_ASSERT_EQUAL(lr_jenv_dc_free(m, 0), 8);
    occ = lr_jenv_occupancy(m, &nw);
    CU_ASSERT(all_free(occ, nw));
    lr_jenv_free(f);
    lr_jenv_free(m);
    lr_spectrum_free(sp);
}

/* A route's two paths may share a directed link: on the square A-U-B-V
 * with the diagonal U-V (every fibre 1 km, 16 slots), K = 3 gives A to B
 * A-V-U-B as route 2 and B to A B-V-U-A, both on V->U.  Their first
 * fits are computed each on its own, so both would be given slot 0 of
 * V->U: such a route is never feasible (as two hops of a chain that
 * share a link).  Every pair candidate the empty network's mask allows
 * books its slots on both paths: slots x (links forward + links back). */
static void
test_route_paths_share_link(void)
{
    struct lr_topo *sq = lr_topo_new("square");
    struct lr_cluster *cl = lr_cluster_new();
    CU_ASSERT_FATAL(sq && cl);
    const char *nodes[4] = { "A", "B", "U", "V" };
    for (int v = 0; v < 4; v++)
        CU_ASSERT_EQUAL_FATAL(lr_topo_add_node(sq, nodes[v]), 0);
    int fibres[5][2] = { { 0, 2 }, { 2, 1 }, { 0, 3 }, { 3, 1 }, { 2, 3 } };
    for (int f = 0; f < 5; f++) {
        char id[16];
        snprintf(id, sizeof id, "%d-%d", fibres[f][0], fibres[f][1]);
        CU_ASSERT_EQUAL_FATAL(lr_topo_add_link(sq, id, fibres[f][0],
                                               fibres[f][1], 1, 16, 0), 0);
        snprintf(id, sizeof id, "%d-%d", fibres[f][1], fibres[f][0]);
        CU_ASSERT_EQUAL_FATAL(lr_topo_add_link(sq, id, fibres[f][1],
                                               fibres[f][0], 1, 16, 0), 0);
    }
    CU_ASSERT_FATAL(!lr_cluster_add_type(cl, "gpu", 100e12, 0.5, 80e9)
                    && !lr_cluster_add_dc(cl, "dc0", "gpu", 8, 100e9, 5e-6,
                                          "A")
                    && !lr_cluster_add_dc(cl, "dc1", "gpu", 8, 100e9, 5e-6,
                                          "B"));
    struct lr_jenv_config c = config(4);
    c.k = 3;
    struct lr_jenv *e = lr_test_jenv_make(sq, cl, &c);
    int shared = 0, allowed = 0;
    for (int a = 0; a < lr_jenv_n_cands(e); a++) {
        if (lr_jenv_cand(e, a)->n_dcs != 2)
            continue;
        const struct lr_path *p = lr_jenv_cand_path(e, a, 0);
        const struct lr_path *q = lr_jenv_cand_path(e, a, 1);
        int want = lr_jenv_cand_slots(e, a) * (p->n_links + q->n_links);
        bool share = false;
        for (int x = 0; x < p->n_links; x++)
            for (int y = 0; y < q->n_links; y++)
                share = share || p->links[x] == q->links[y];
        shared += share;
        if (share) {
            CU_ASSERT_EQUAL(lr_jenv_mask(e)[a], 0);
            CU_ASSERT(isinf(lr_jenv_cand_time(e, a)));
        }
        if (!lr_jenv_mask(e)[a])
            continue;
        allowed++;
        struct lr_jenv *f = NULL;
        CU_ASSERT_EQUAL_FATAL(lr_jenv_clone(e, &f), 0);
        lr_jenv_step(f, a);
        /* Counted against the empty network's (the padding of each
         * link's last word counts as booked). */
        CU_ASSERT_EQUAL(lr_test_jenv_booked(f, sq),
                        lr_test_jenv_booked(e, sq) + want);
        lr_jenv_free(f);
    }
    CU_ASSERT(shared > 0);
    CU_ASSERT(allowed > 0);
    lr_jenv_free(e);
    lr_cluster_free(cl);
    lr_topo_free(sq);
}

/* Running jobs of a mirror that hold spectrum and no GPUs: sixteen, each
 * one slot of the two 8-slot links, that stay.  Jobs admitted beside
 * them (each with at least one GPU) all stay in the departure heap with
 * them: it must hold 16 + the 16 GPUs' worth, in the mirror and in a
 * fork made of a clone taken before the running jobs were set.  A step
 * returns at the next job that has a feasible candidate, so after one
 * at most three of 4 GPUs run. */
static void
test_running_without_gpus(void)
{
    struct lr_jenv_config c = config(4);
    c.load = 50;
    struct lr_jenv *m = make(two, &c), *f = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_jenv_clone(m, &f), 0);
    struct lr_spectrum *sp = lr_spectrum_new(topo);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
    struct lr_jenv_block blocks[16];
    struct lr_jenv_running run[16];
    memset(run, 0, sizeof run);
    for (int i = 0; i < 16; i++) {
        blocks[i] = (struct lr_jenv_block) { i / 8, i % 8, 1 };
        CU_ASSERT_EQUAL_FATAL(lr_spectrum_alloc(sp, &blocks[i].link, 1,
                                                blocks[i].first, 1), 0);
        run[i] = (struct lr_jenv_running) {
            .blocks = &blocks[i], .n_blocks = 1, .remaining = 1e9,
        };
    }
    char err[256] = "";
    int used[2] = { 0, 0 };
    CU_ASSERT_EQUAL_FATAL(lr_jenv_set_state(m, used, sp->occ, sp->nw, err,
                                            sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(lr_jenv_set_running(m, run, 16, err, sizeof err),
                          0);
    CU_ASSERT_EQUAL_FATAL(lr_jenv_present(m, 0, 0), 2);
    CU_ASSERT_EQUAL_FATAL(lr_jenv_fork(f, m, 3, 1000000,
                                       LR_JENV_FORK_KNOWN_WORK), 0);
    struct lr_jenv *env[2] = { m, f };
    for (int k = 0; k < 2; k++) {
        int most = 0;
        for (int i = 0; i < 200; i++) {
            lr_jenv_step(env[k], lr_jenv_first_feasible(env[k]));
            int n = lr_jenv_n_running(env[k]);
            CU_ASSERT_EQUAL(4 * (n - 16), 16 - lr_jenv_dc_free(env[k], 0)
                                          - lr_jenv_dc_free(env[k], 1));
            most = n > most ? n : most;
        }
        /* At 50 E three jobs of 4 GPUs run whenever a fourth is pending
         * (and is admitted, the heap then holding 16 + 4). */
        CU_ASSERT_EQUAL(most, 16 + 3);
    }
    lr_jenv_free(f);
    lr_jenv_free(m);
    lr_spectrum_free(sp);
}

/* The ring tests' DCs (on lr_test_jenv_ring's ring of five): 16 GPUs
 * each at N0, N2 and N3; NULL when it cannot be built. */
static struct lr_cluster *
ring_cluster(void)
{
    struct lr_cluster *cl = lr_cluster_new();
    const char *at[3] = { "N0", "N2", "N3" };
    if (!cl || lr_cluster_add_type(cl, "gpu", 100e12, 0.5, 80e9))
        goto fail;
    for (int d = 0; d < 3; d++) {
        char name[16];
        snprintf(name, sizeof name, "d%d", d);
        if (lr_cluster_add_dc(cl, name, "gpu", 16, 100e9, 5e-6, at[d]))
            goto fail;
    }
    return cl;
fail:
    lr_cluster_free(cl);
    return NULL;
}

/* The ring tests' jobs: 4 and 8 GPUs, K = 2, 6 Erlang. */
static struct lr_jenv_config
ring_config(void)
{
    struct lr_jenv_config c = config(4);
    c.n_demands = 2;
    c.demands[1] = 8;
    c.k = 2;
    c.load = 6;
    return c;
}

/* The route caches are refreshed incrementally while stepping (only the
 * routes that share a link with a booked or released lightpath): on a
 * ring of five ROADMs with three DCs, K = 2 and departures, after every
 * step a mirror given the same GPUs and occupancy, which recomputes
 * every route, shows the same mask, observation and first fit of every
 * pair candidate in both directions. */
static void
test_incremental_routes(void)
{
    struct lr_topo *ring = lr_test_jenv_ring("ring5", 5);
    struct lr_cluster *cl = ring_cluster();
    CU_ASSERT_PTR_NOT_NULL_FATAL(ring);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cl);
    struct lr_jenv_config c = ring_config();
    struct lr_jenv *e = NULL, *m = NULL;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(lr_jenv_new(ring, cl, &c, &e, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(lr_jenv_new(ring, cl, &c, &m, err, sizeof err), 0);
    int n = lr_jenv_obs_size(e), na = lr_jenv_n_actions(e);
    float *o1 = calloc((size_t) n, sizeof *o1);
    float *o2 = calloc((size_t) n, sizeof *o2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o2);
    struct lr_rng rng;
    lr_rng_seed(&rng, 9);
    lr_jenv_reset(e, 21, 0);
    int bad = 0, pairs_booked = 0, steps = 3000;
    for (int s = 0; s < steps; s++) {
        int used[3], nw;
        for (int d = 0; d < 3; d++)
            used[d] = 16 - lr_jenv_dc_free(e, d);
        const uint64_t *occ = lr_jenv_occupancy(e, &nw);
        if (lr_jenv_set_state(m, used, occ, nw, err, sizeof err)) {
            bad++;
            break;
        }
        int demand = lr_jenv_job_gpus(e) == 4 ? 0 : 1;
        lr_jenv_present(m, lr_jenv_job_model(e), demand);
        lr_jenv_observe(e, o1);
        lr_jenv_observe(m, o2);
        bool same = !memcmp(lr_jenv_mask(e), lr_jenv_mask(m), (size_t) na)
                    && !memcmp(o1, o2, (size_t) n * sizeof *o1);
        for (int a = 0; a < lr_jenv_n_cands(e); a++)
            for (int dir = 0; dir < 2; dir++)
                same = same && lr_jenv_cand_first(e, a, dir)
                                   == lr_jenv_cand_first(m, a, dir);
        bad += !same;
        int a = lr_jenv_random.choose(NULL, e, lr_jenv_mask(e), &rng);
        pairs_booked += a >= 0 && lr_jenv_cand(e, a)->n_dcs == 2;
        lr_jenv_step(e, a);
    }
    CU_ASSERT_EQUAL(bad, 0);
    /* The run exercised lightpaths, not only one-DC placements. */
    CU_ASSERT(pairs_booked > steps / 10);
    free(o1);
    free(o2);
    lr_jenv_free(m);
    lr_jenv_free(e);
    lr_cluster_free(cl);
    lr_topo_free(ring);
}

/* Longest run of free slots, and their count, on path p over occupancy
 * 'occ' (nw words a link) of n_slots slots, by brute force. */
static void
path_runs(const struct lr_path *p, const uint64_t *occ, int nw, int n_slots,
          int *longest, int *count)
{
    int run = 0;
    *longest = *count = 0;
    for (int s = 0; s < n_slots; s++) {
        bool free = true;
        for (int j = 0; j < p->n_links && free; j++)
            free = !lr_bits_any(occ + (size_t) p->links[j] * nw, s, 1);
        run = free ? run + 1 : 0;
        *count += free;
        *longest = run > *longest ? run : *longest;
    }
}

/* Checks every pair candidate's first fits each way and every route's
 * free share and largest block in the observation against the brute
 * force on the occupancy: the back direction's first fit is -1 when the
 * forward one has none (lr_jenv_cand_hop_first).  Returns the number of
 * mismatches; adds to *apart the candidates whose two directions have
 * first fits that differ. */
static int
caches_vs_brute_force(struct lr_jenv *e, float *obs, int *apart)
{
    int nw, bad = 0, n = lr_jenv_n_dcs(e);
    const uint64_t *occ = lr_jenv_occupancy(e, &nw);
    lr_jenv_observe(e, obs);
    /* The routes' fields start after the DCs and the one-hot model and
     * demand (one model, two demands here). */
    const float *routes = obs + n + 1 + 2;
    for (int a = 0; a < lr_jenv_n_cands(e); a++) {
        const struct lr_jenv_cand *cd = lr_jenv_cand(e, a);
        if (cd->n_dcs != 2)
            continue;
        int m = lr_jenv_cand_hop_slots(e, a, 0);
        const struct lr_path *fwd = lr_jenv_cand_hop_path(e, a, 0, 0);
        const struct lr_path *rev = lr_jenv_cand_hop_path(e, a, 0, 1);
        int ff = lr_test_jenv_first_fit(fwd, occ, nw, 64, m);
        int fr = ff < 0 ? -1 : lr_test_jenv_first_fit(rev, occ, nw, 64, m);
        bad += lr_jenv_cand_hop_first(e, a, 0, 0) != ff;
        bad += lr_jenv_cand_hop_first(e, a, 0, 1) != fr;
        *apart += fr >= 0 && fr != ff;
        int longest, count;
        path_runs(fwd, occ, nw, 64, &longest, &count);
        const float *r = routes + 2 * ((cd->dc[0] * n + cd->dc[1]) * 2
                                       + cd->route);
        bad += r[0] != (float) count / 64 || r[1] != (float) longest / 64;
    }
    return bad;
}

/* The route caches on a spectrum that differs between the two directions
 * of a fibre (random play books both directions alike, so that the two
 * routes of a DC pair, which share their paths each the other way,
 * always see the same first fits; lr_jenv_set_state takes any
 * occupancy): after each of 200 random occupancies and a few steps from
 * each, every pair candidate's first fits and every route's observation
 * fields are the brute force's; and after each step a lazy mask's first
 * feasible candidate (refresh_one's first fits, route by route) is
 * greedy's on the full mask. */
static void
test_routes_uneven_spectrum(void)
{
    struct lr_topo *ring = lr_test_jenv_ring("ring5", 5);
    struct lr_cluster *cl = ring_cluster();
    CU_ASSERT_PTR_NOT_NULL_FATAL(ring);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cl);
    struct lr_jenv_config c = ring_config();
    struct lr_jenv *e = NULL, *z = NULL;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(lr_jenv_new(ring, cl, &c, &e, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(lr_jenv_new(ring, cl, &c, &z, err, sizeof err), 0);
    lr_jenv_set_lazy_mask(z, true);
    float *obs = calloc((size_t) lr_jenv_obs_size(e), sizeof *obs);
    uint64_t *occ = calloc((size_t) ring->n_links, sizeof *occ);
    CU_ASSERT_FATAL(obs && occ);
    struct lr_rng rng;
    lr_rng_seed(&rng, 31);
    lr_jenv_reset(e, 7, 0);
    lr_jenv_reset(z, 7, 0);
    int bad = 0, uneven = 0, apart = 0, lazy_bad = 0, lazy_pairs = 0;
    int used[3];
    for (int round = 0; round < 200; round++) {
        /* Each slot of each link booked with a probability of 1/8 to 7/8
         * (three draws ANDed or ORed), the links independently. */
        for (int l = 0; l < ring->n_links; l++) {
            uint64_t x = lr_rng_next(&rng), y = lr_rng_next(&rng),
                     w = lr_rng_next(&rng);
            switch (lr_rng_below(&rng, 4)) {
            case 0: occ[l] = x & y & w; break;
            case 1: occ[l] = x & y; break;
            case 2: occ[l] = x | y; break;
            default: occ[l] = x | y | w; break;
            }
        }
        uneven += occ[0] != occ[1];
        /* 4 GPUs free in d0 and 2 to 6 in the others: an 8-GPU job fits
         * only split, and a 4-GPU one always fits d0 once the jobs of
         * the steps below have left it (GPUs set this way never leave:
         * with no job that could ever fit, lr_jenv_step would wait for
         * one for ever). */
        used[0] = 12;
        for (int d = 1; d < 3; d++)
            used[d] = 10 + (int) lr_rng_below(&rng, 5);
        CU_ASSERT_EQUAL_FATAL(lr_jenv_set_state(e, used, occ, 1, err,
                                                sizeof err), 0);
        CU_ASSERT_EQUAL_FATAL(lr_jenv_set_state(z, used, occ, 1, err,
                                                sizeof err), 0);
        int demand = (int) lr_rng_below(&rng, 2);
        lr_jenv_present(e, 0, demand);
        lr_jenv_present(z, 0, demand);
        bad += caches_vs_brute_force(e, obs, &apart);
        /* The incremental refresh from there: a few random decisions,
         * z (lazy) stepped alike: at each arrival its first feasible
         * candidate comes of the routes refresh_one refreshed. */
        for (int s = 0; s < 4; s++) {
            int a = lr_jenv_random.choose(NULL, e, lr_jenv_mask(e), &rng);
            lr_jenv_step(e, a);
            lr_jenv_step(z, a);
            int g = lr_jenv_greedy.choose(NULL, e, lr_jenv_mask(e), &rng);
            lazy_bad += lr_jenv_first_feasible(z) != g;
            lazy_pairs += g >= 0 && lr_jenv_cand(e, g)->n_dcs == 2;
            bad += caches_vs_brute_force(e, obs, &apart);
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    /* The occupancies were uneven between the directions of a fibre, and
     * often enough a candidate's two directions fit at different slots. */
    CU_ASSERT(uneven > 150);
    CU_ASSERT(apart > 1000);
    CU_ASSERT_EQUAL(lazy_bad, 0);
    CU_ASSERT(lazy_pairs > 20);
    free(occ);
    free(obs);
    lr_jenv_free(z);
    lr_jenv_free(e);
    lr_cluster_free(cl);
    lr_topo_free(ring);
}

/* Steps 'e' and 'f' with the random baseline from the same generator
 * seed; returns how many of 'steps' steps differed (mask, observation,
 * reward or metrics). */
static int
lockstep_diff(struct lr_jenv *e, struct lr_jenv *f, int steps)
{
    int n_obs = lr_jenv_obs_size(e), n_act = lr_jenv_n_actions(e), bad = 0;
    float *oe = malloc((size_t) n_obs * sizeof *oe);
    float *of = malloc((size_t) n_obs * sizeof *of);
    struct lr_rng re, rf;
    lr_rng_seed(&re, 17);
    lr_rng_seed(&rf, 17);
    for (int s = 0; s < steps; s++) {
        lr_jenv_observe(e, oe);
        lr_jenv_observe(f, of);
        int diff = memcmp(lr_jenv_mask(e), lr_jenv_mask(f), (size_t) n_act)
                   || memcmp(oe, of, (size_t) n_obs * sizeof *oe);
        int ae = lr_jenv_random.choose(NULL, e, lr_jenv_mask(e), &re);
        int af = lr_jenv_random.choose(NULL, f, lr_jenv_mask(f), &rf);
        diff |= lr_jenv_step(e, ae) != lr_jenv_step(f, af);
        bad += diff;
    }
    struct lr_jenv_metrics me, mf;
    lr_jenv_metrics(e, &me);
    lr_jenv_metrics(f, &mf);
    bad += me.arrivals != mf.arrivals || me.blocked != mf.blocked
           || me.gpu_utilisation != mf.gpu_utilisation
           || me.spectrum_utilisation != mf.spectrum_utilisation;
    free(oe);
    free(of);
    return bad;
}

/* A clone continues exactly as its prototype would, and stepping it
 * leaves the prototype alone (a clone of a clone too). */
static void
test_clone(void)
{
    struct lr_jenv_config c = config(4);
    c.load = 5;
    struct lr_jenv *e = make(two, &c), *f = NULL, *g = NULL;
    lr_jenv_reset(e, 9, 10);
    CU_ASSERT_EQUAL(lockstep_diff(e, e, 0), 0);
    struct lr_rng r;
    lr_rng_seed(&r, 1);
    for (int s = 0; s < 300; s++)   /* a network with lightpaths up */
        lr_jenv_step(e, lr_jenv_random.choose(NULL, e, lr_jenv_mask(e), &r));
    CU_ASSERT_EQUAL_FATAL(lr_jenv_clone(e, &f), 0);
    CU_ASSERT_EQUAL_FATAL(lr_jenv_clone(f, &g), 0);
    CU_ASSERT_EQUAL(lockstep_diff(e, f, 2000), 0);
    /* Steps of g alone leave e as it was: e and a new clone h of it,
     * taken before, still agree. */
    struct lr_jenv *h = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_jenv_clone(e, &h), 0);
    for (int s = 0; s < 500; s++)
        lr_jenv_step(g, lr_jenv_random.choose(NULL, g, lr_jenv_mask(g), &r));
    CU_ASSERT_EQUAL(lockstep_diff(e, h, 1000), 0);
    /* A clone resets like any environment. */
    lr_jenv_reset(e, 4, 0);
    lr_jenv_reset(g, 4, 0);
    CU_ASSERT_EQUAL(lockstep_diff(e, g, 1000), 0);
    lr_jenv_free(h);
    lr_jenv_free(g);
    lr_jenv_free(f);
    lr_jenv_free(e);
}

/* Forks that keep the drawn holding times: the same seed, the same
 * future. */
#define KNOWN LR_JENV_FORK_KNOWN_WORK

/* Steps 'e' with the random baseline (generator seed 'seed') until it
 * is done; returns the steps taken, at most 'cap'. */
static int
run_out(struct lr_jenv *e, uint64_t seed, int cap)
{
    struct lr_rng r;
    lr_rng_seed(&r, seed);
    int n = 0;
    while (!lr_jenv_done(e) && n < cap) {
        lr_jenv_step(e, lr_jenv_random.choose(NULL, e, lr_jenv_mask(e), &r));
        n++;
    }
    return n;
}

/* A fork starts in its source's state (network, pending job, running
 * jobs), draws its own arrivals, stops after the horizon, and leaves the
 * source alone. */
static void
test_fork(void)
{
    struct lr_jenv_config c = config(4);
    c.load = 5;
    struct lr_jenv *e = make(two, &c), *f = NULL, *g = NULL, *h = NULL;
    lr_jenv_reset(e, 9, 10);
    struct lr_rng r;
    lr_rng_seed(&r, 1);
    /* 300 steps, then on to a state with jobs running. */
    for (int s = 0; s < 300 || lr_jenv_dc_free(e, 0) == 8; s++)
        lr_jenv_step(e, lr_jenv_random.choose(NULL, e, lr_jenv_mask(e), &r));
    CU_ASSERT_EQUAL_FATAL(lr_jenv_clone(e, &f), 0);
    CU_ASSERT_EQUAL_FATAL(lr_jenv_clone(f, &g), 0);
    CU_ASSERT_EQUAL_FATAL(lr_jenv_clone(e, &h), 0);
    for (int s = 0; s < 37; s++)   /* f elsewhere before the fork */
        lr_jenv_step(f, lr_jenv_random.choose(NULL, f, lr_jenv_mask(f), &r));

    CU_ASSERT_EQUAL_FATAL(lr_jenv_fork(f, e, 77, 50, KNOWN), 0);
    int n_obs = lr_jenv_obs_size(e), nw, nw2;
    float *oe = malloc((size_t) n_obs * sizeof *oe);
    float *of = malloc((size_t) n_obs * sizeof *of);
    lr_jenv_observe(e, oe);
    lr_jenv_observe(f, of);
    CU_ASSERT_EQUAL(memcmp(oe, of, (size_t) n_obs * sizeof *oe), 0);
    CU_ASSERT_EQUAL(memcmp(lr_jenv_mask(e), lr_jenv_mask(f),
                           (size_t) lr_jenv_n_actions(e)), 0);
    const uint64_t *oce = lr_jenv_occupancy(e, &nw);
    const uint64_t *ocf = lr_jenv_occupancy(f, &nw2);
    CU_ASSERT_EQUAL_FATAL(nw, nw2);
    CU_ASSERT_EQUAL(memcmp(oce, ocf, 2 * (size_t) nw * sizeof *oce), 0);
    CU_ASSERT_EQUAL(lr_jenv_job_gpus(e), lr_jenv_job_gpus(f));
    struct lr_jenv_metrics m;
    lr_jenv_metrics(f, &m);
    CU_ASSERT_EQUAL(m.arrivals, 0);
    CU_ASSERT_EQUAL(m.blocked, 0);

    /* The pending job and 50 more, then done; the same seed gives the
     * same future, fork after fork. */
    CU_ASSERT(run_out(f, 5, 1000) <= 51);
    CU_ASSERT(lr_jenv_done(f));
    lr_jenv_metrics(f, &m);
    CU_ASSERT_EQUAL(m.arrivals, 51);
    CU_ASSERT_EQUAL_FATAL(lr_jenv_fork(g, e, 77, 50, KNOWN), 0);
    run_out(g, 5, 1000);
    struct lr_jenv_metrics mg;
    lr_jenv_metrics(g, &mg);
    CU_ASSERT(mg.arrivals == m.arrivals && mg.blocked == m.blocked
              && mg.gpu_utilisation == m.gpu_utilisation);
    CU_ASSERT_EQUAL_FATAL(lr_jenv_fork(g, e, 77, 50, KNOWN), 0);
    CU_ASSERT_EQUAL_FATAL(lr_jenv_fork(f, e, 77, 50, KNOWN), 0);
    CU_ASSERT_EQUAL(lockstep_diff(f, g, 60), 0);
    /* Another seed, another future (at load 5 the 50 arrivals differ). */
    CU_ASSERT_EQUAL_FATAL(lr_jenv_fork(f, e, 77, 50, KNOWN), 0);
    CU_ASSERT_EQUAL_FATAL(lr_jenv_fork(g, e, 78, 50, KNOWN), 0);
    CU_ASSERT(lockstep_diff(f, g, 60) > 0);

    /* The running jobs come along with their departures: refusing every
     * arrival for long enough empties the network. */
    CU_ASSERT_EQUAL_FATAL(lr_jenv_fork(f, e, 3, 2000, KNOWN), 0);
    while (!lr_jenv_done(f))
        lr_jenv_step(f, -1);
    CU_ASSERT_EQUAL(lr_jenv_dc_free(f, 0) + lr_jenv_dc_free(f, 1), 16);
    struct lr_jenv *empty = make(two, &c);
    lr_jenv_reset(empty, 1, 0);
    ocf = lr_jenv_occupancy(f, &nw);
    oce = lr_jenv_occupancy(empty, &nw2);
    CU_ASSERT_EQUAL(memcmp(oce, ocf, 2 * (size_t) nw * sizeof *oce), 0);
    lr_jenv_free(empty);

    /* None of it touched e: it still agrees with h, cloned before. */
    CU_ASSERT_EQUAL(lockstep_diff(e, h, 1000), 0);

    /* Bad calls change nothing. */
    struct lr_jenv *other = make(two, &c);
    CU_ASSERT_EQUAL(lr_jenv_fork(e, e, 1, 10, KNOWN), EINVAL);
    CU_ASSERT_EQUAL(lr_jenv_fork(other, e, 1, 10, KNOWN), EINVAL);
    CU_ASSERT_EQUAL(lr_jenv_fork(g, e, 1, 0, KNOWN), EINVAL);
    CU_ASSERT_EQUAL(lr_jenv_fork(g, e, 1, 10, (enum lr_jenv_fork_mode) 7),
                    EINVAL);
    lr_jenv_free(other);
    free(oe);
    free(of);
    lr_jenv_free(h);
    lr_jenv_free(g);
    lr_jenv_free(f);
    lr_jenv_free(e);
}

/* A source that follows a script still forks into Poisson arrivals. */
static void
test_fork_of_trace(void)
{
    static const struct lr_jenv_arrival trace[] = {
        { 0, 2, 0, 0, 0 }, { 1, 2, 0, 0, 0 },
    };
    struct lr_jenv_config c = config(8);
    c.trace = trace;
    c.n_trace = 2;
    struct lr_jenv *e = make(two, &c), *f = NULL;
    lr_jenv_reset(e, 1, 0);
    CU_ASSERT_EQUAL_FATAL(lr_jenv_clone(e, &f), 0);
    CU_ASSERT_EQUAL_FATAL(lr_jenv_fork(f, e, 4, 20, KNOWN), 0);
    run_out(f, 2, 1000);
    struct lr_jenv_metrics m;
    lr_jenv_metrics(f, &m);
    CU_ASSERT(lr_jenv_done(f));
    CU_ASSERT_EQUAL(m.arrivals, 21);
    /* e keeps its script: two jobs, then done. */
    CU_ASSERT_EQUAL(run_out(e, 2, 1000), 2);
    lr_jenv_free(f);
    lr_jenv_free(e);
}

/* What a fork keeps of the drawn holding times.  Job A (4 GPUs on dc0)
 * holds 1000 time units; job B is pending.  Refusing every arrival for 30
 * arrivals (about 30 time units at load 1): with the known work A is
 * still there at the end; drawn afresh (mean 1) it has left. */
static void
test_fork_modes(void)
{
    static const struct lr_jenv_arrival trace[] = {
        { 0, 1000, 0, 0, 0 }, { 0.5, 1, 0, 0, 0 },
    };
    struct lr_jenv_config c = config(4);
    c.trace = trace;
    c.n_trace = 2;
    struct lr_jenv *e = make(two, &c), *f = NULL;
    lr_jenv_reset(e, 1, 0);
    CU_ASSERT_FATAL(lr_jenv_mask(e)[0]);
    lr_jenv_step(e, 0);
    CU_ASSERT_EQUAL_FATAL(lr_jenv_dc_free(e, 0), 4);
    CU_ASSERT_EQUAL_FATAL(lr_jenv_clone(e, &f), 0);
    int left[2];
    for (int mode = 0; mode < 2; mode++) {
        CU_ASSERT_EQUAL_FATAL(lr_jenv_fork(f, e, 3, 30,
                                           (enum lr_jenv_fork_mode) mode), 0);
        while (!lr_jenv_done(f))
            lr_jenv_step(f, -1);
        left[mode] = lr_jenv_dc_free(f, 0);
    }
    CU_ASSERT_EQUAL(left[LR_JENV_FORK_KNOWN_WORK], 4);
    CU_ASSERT_EQUAL(left[LR_JENV_FORK_OBSERVABLE], 8);
    /* e is as it was: B pending, A running. */
    CU_ASSERT_EQUAL(lr_jenv_dc_free(e, 0), 4);
    CU_ASSERT(!lr_jenv_done(e));
    lr_jenv_free(f);
    lr_jenv_free(e);
}

/* The refusal action (config.refuse): one more action after the
 * candidates, offered whenever a job is pending.  Four jobs of 8 GPUs:
 *   t=0   j0 (holds 2)  -> refused: nothing booked, both DCs stay free
 *   t=0.5 j1 (holds 2)  -> dc0
 *   t=0.7 j2 (holds 2)  -> dc1
 *   t=1   j3            -> no feasible candidate: blocked without a
 *                          decision (not a refusal), the trace ends.
 * Blocking 2/4 (the refusal included), refused 1/4. */
static void
test_refuse_action(void)
{
    static const struct lr_jenv_arrival trace[] = {
        { 0, 2, 0, 0, 0 }, { 0.5, 2, 0, 0, 0 }, { 0.7, 2, 0, 0, 0 },
        { 1, 1, 0, 0, 0 },
    };
    struct lr_jenv_config c = config(8);
    c.trace = trace;
    c.n_trace = 4;
    struct lr_jenv *plain = make(two, &c);
    c.refuse = true;
    struct lr_jenv *e = make(two, &c);
    int r = lr_jenv_refuse_action(e);
    CU_ASSERT_EQUAL(lr_jenv_refuse_action(plain), -1);
    CU_ASSERT_EQUAL(lr_jenv_n_actions(plain), 8);
    CU_ASSERT_EQUAL(lr_jenv_n_cands(e), 8);
    CU_ASSERT_EQUAL(lr_jenv_n_actions(e), 9);
    CU_ASSERT_EQUAL_FATAL(r, 8);
    CU_ASSERT_EQUAL(lr_jenv_obs_size(e), lr_jenv_obs_size(plain) + 1);
    lr_jenv_reset(e, 1, 0);
    const uint8_t *mask = lr_jenv_mask(e);
    CU_ASSERT_EQUAL(mask[r], 1);
    CU_ASSERT_EQUAL(mask[0], 1);
    CU_ASSERT_DOUBLE_EQUAL(lr_jenv_step(e, r), -2, 1e-12);
    /* j1 is pending: the refusal booked nothing. */
    CU_ASSERT_EQUAL(lr_jenv_dc_free(e, 0), 8);
    CU_ASSERT_EQUAL(lr_jenv_dc_free(e, 1), 8);
    CU_ASSERT_EQUAL(mask[r], 1);
    double T = lr_jenv_cand_time(e, 0);
    CU_ASSERT_DOUBLE_EQUAL(lr_jenv_step(e, 0), -1, 1e-9);
    CU_ASSERT_EQUAL(lr_jenv_dc_free(e, 0), 0);
    CU_ASSERT_EQUAL(mask[0], 0);
    CU_ASSERT_EQUAL(mask[1], 1);
    CU_ASSERT_EQUAL(mask[r], 1);
    /* j2 on dc1; j3 then finds nothing and its penalty comes back with
     * this step's reward; the trace is over and nothing is offered. */
    CU_ASSERT_DOUBLE_EQUAL(lr_jenv_step(e, 1), -1 - 2, 1e-9);
    CU_ASSERT(lr_jenv_done(e));
    for (int a = 0; a < lr_jenv_n_actions(e); a++)
        CU_ASSERT_EQUAL(mask[a], 0);
    struct lr_jenv_metrics m;
    lr_jenv_metrics(e, &m);
    CU_ASSERT_EQUAL(m.arrivals, 4);
    CU_ASSERT_EQUAL(m.blocked, 2);
    CU_ASSERT_EQUAL(m.refused, 1);
    CU_ASSERT_EQUAL(m.admitted, 2);
    CU_ASSERT_DOUBLE_EQUAL(m.blocking, 0.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(m.refusing, 0.25, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(m.mean_iteration_s, T, 1e-12);
    /* Without the refusal action, -1 still refuses and counts so. */
    lr_jenv_reset(plain, 1, 0);
    CU_ASSERT_DOUBLE_EQUAL(lr_jenv_step(plain, -1), -2, 1e-12);
    CU_ASSERT_EQUAL(lr_jenv_dc_free(plain, 0), 8);
    lr_jenv_metrics(plain, &m);
    CU_ASSERT_EQUAL(m.refused, 1);
    CU_ASSERT_EQUAL(m.blocked, 1);
    lr_jenv_free(plain);
    lr_jenv_free(e);
}

/* Poisson arrivals with the refusal action and random choices among
 * everything allowed (refusals included): at every pending job the
 * refusal is allowed with at least one candidate, the observation's
 * last feature is the largest T_ref / T of the feasible candidates, and
 * the blocked count includes every refusal. */
static void
test_refuse_mask_never_empty(void)
{
    struct lr_jenv_config c = config(8);
    c.n_demands = 2;
    c.demands[0] = 4;
    c.demands[1] = 8;
    c.load = 3;
    c.refuse = true;
    struct lr_jenv *e = make(two, &c);
    int na = lr_jenv_n_actions(e), r = lr_jenv_refuse_action(e);
    int no = lr_jenv_obs_size(e), bad = 0, refusals = 0;
    float *obs = malloc((size_t) no * sizeof *obs);
    CU_ASSERT_FATAL(obs != NULL);
    CU_ASSERT_FATAL(na <= 16);            /* allowed[] below */
    struct lr_rng rng;
    lr_rng_seed(&rng, 5);
    lr_jenv_reset(e, 9, 0);
    for (int s = 0; s < 3000 && !lr_jenv_done(e); s++) {
        const uint8_t *mask = lr_jenv_mask(e);
        int nc = 0, allowed[16], n = 0;
        float best = 0;
        for (int a = 0; a < na; a++) {
            if (mask[a])
                allowed[n++] = a;
            if (a != r && mask[a]) {
                nc++;
                best = fmaxf(best, (float) (lr_jenv_job_tref(e)
                                            / lr_jenv_cand_time(e, a)));
            }
        }
        lr_jenv_observe(e, obs);
        bad += !mask[r] || nc < 1 || obs[no - 1] != best;
        int a = allowed[lr_rng_below(&rng, (uint32_t) n)];
        refusals += a == r;
        lr_jenv_step(e, a);
    }
    CU_ASSERT_EQUAL(bad, 0);
    struct lr_jenv_metrics m;
    lr_jenv_metrics(e, &m);
    CU_ASSERT_EQUAL(m.refused, refusals);
    CU_ASSERT(refusals > 100);
    CU_ASSERT(m.blocked > m.refused);   /* some found no GPUs at 3 E */
    CU_ASSERT_EQUAL(m.arrivals, m.admitted + m.blocked);
    free(obs);
    lr_jenv_free(e);
}

/* greedy-cap on a hand-made state: dc0 and dc1 each hold a 4-GPU job,
 * so a job of 8 GPUs fits only split over both, behind a lightpath:
 * slowdown s > 1.  theta just below s refuses it, just above admits it
 * where greedy would; a job of 4 (slowdown 1 in a DC alone) is admitted
 * even at theta 1. */
static void
test_greedy_cap(void)
{
    static const struct lr_jenv_arrival trace[] = {
        { 0, 10, 0, 0, 0 }, { 0.1, 10, 0, 0, 0 }, { 0.2, 10, 0, 1, 0 },
    };
    struct lr_jenv_config c = config(4);
    c.n_demands = 2;
    c.demands[1] = 8;
    c.trace = trace;
    c.n_trace = 3;
    struct lr_jenv *e = make(two, &c);
    lr_jenv_reset(e, 1, 0);
    struct lr_rng rng;
    lr_rng_seed(&rng, 1);
    const uint8_t *mask = lr_jenv_mask(e);
    double theta1 = 1;
    CU_ASSERT_EQUAL(lr_jenv_greedy_cap.choose(&theta1, e, mask, &rng),
                    lr_jenv_greedy.choose(NULL, e, mask, &rng));
    CU_ASSERT_FATAL(mask[0] && mask[1]);
    lr_jenv_step(e, 0);
    lr_jenv_step(e, 1);
    CU_ASSERT_EQUAL_FATAL(lr_jenv_job_gpus(e), 8);
    CU_ASSERT_FATAL(!mask[0] && !mask[1]);
    int g = lr_jenv_greedy.choose(NULL, e, mask, &rng);
    CU_ASSERT_FATAL(g >= 2);
    double s = lr_jenv_cand_time(e, g) / lr_jenv_job_tref(e);
    CU_ASSERT_FATAL(s > 1 + 1e-6);
    double below = s * 0.999, above = s * 1.001;
    CU_ASSERT_EQUAL(lr_jenv_greedy_cap.choose(&below, e, mask, &rng), -1);
    CU_ASSERT_EQUAL(lr_jenv_greedy_cap.choose(&above, e, mask, &rng), g);
    CU_ASSERT_PTR_EQUAL(lr_jenv_policy_find("Greedy-Cap"),
                        &lr_jenv_greedy_cap);
    lr_jenv_step(e, -1);
    struct lr_jenv_metrics m;
    lr_jenv_metrics(e, &m);
    CU_ASSERT_EQUAL(m.refused, 1);
    CU_ASSERT_EQUAL(m.blocked, 1);
    CU_ASSERT_EQUAL(m.admitted, 2);
    lr_jenv_free(e);
}

/* The work mode with two jobs of 4 GPUs: work 3 at t = 0, work 0.5 at
 * t = 0.1 (the known-work and held-work tests). */
static struct lr_jenv_config
config_work_trace(void)
{
    static const struct lr_jenv_arrival trace[] = {
        { 0, 3, 0, 0, 0 }, { 0.1, 0.5, 0, 0, 0 },
    };
    struct lr_jenv_config c = config(4);
    c.holding_mode = LR_JENV_HOLD_WORK;
    c.trace = trace;
    c.n_trace = 2;
    return c;
}

/* Held work (lr_jenv_config.held_work): per DC one more observation
 * feature, log(1 + H_d), H_d the GPU-time the running jobs still hold in
 * d over its GPUs times h; only with known work.  By hand: a job of 4
 * GPUs with work 3 on its fastest candidate (T = T_ref, so it holds 3)
 * seen 0.1 later holds 4 x 2.9 in its DC and nothing elsewhere; a
 * mirror's running job (lr_jenv_set_running) of 4 + 2 GPUs with 2.5
 * left holds 4 x 2.5 and 2 x 2.5. */
static void
test_held_work(void)
{
    struct lr_jenv_config c = config_work_trace();
    c.held_work = true;
    struct lr_jenv *bad = NULL;
    char err[256] = "";
    CU_ASSERT_EQUAL(lr_jenv_new(topo, two, &c, &bad, err, sizeof err),
                    EINVAL);
    CU_ASSERT_PTR_NULL(bad);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "only with known work"));
    c.known_work = true;
    c.held_work = false;
    struct lr_jenv *kw = make(two, &c);
    c.held_work = true;
    struct lr_jenv *e = make(two, &c);
    int no = lr_jenv_obs_size(e);
    CU_ASSERT_EQUAL_FATAL(no, lr_jenv_obs_size(kw) + 2);
    float *obs = malloc((size_t) no * sizeof *obs);
    float *obs0 = malloc((size_t) no * sizeof *obs0);
    CU_ASSERT_FATAL(obs && obs0);
    lr_jenv_reset(kw, 1, 0);
    lr_jenv_reset(e, 1, 0);
    lr_jenv_observe(kw, obs0);
    lr_jenv_observe(e, obs);
    CU_ASSERT_EQUAL(memcmp(obs, obs0, (size_t) (no - 2) * sizeof *obs), 0);
    CU_ASSERT_DOUBLE_EQUAL(obs[no - 2], 0, 0);
    CU_ASSERT_DOUBLE_EQUAL(obs[no - 1], 0, 0);
    int g = lr_jenv_greedy.choose(NULL, e, lr_jenv_mask(e), NULL);
    CU_ASSERT_FATAL(g >= 0);
    CU_ASSERT_DOUBLE_EQUAL(lr_jenv_cand_time(e, g), lr_jenv_job_tref(e),
                           1e-12);
    const struct lr_jenv_cand *cd = lr_jenv_cand(e, g);
    double want[2] = { 0, 0 };
    for (int i = 0; i < cd->n_dcs; i++)
        want[cd->dc[i]] += lr_jenv_cand_gpus(e, g, i) * 2.9 / 8;
    CU_ASSERT(want[0] + want[1] > 1.4);       /* its 4 GPUs, 2.9 left */
    lr_jenv_step(e, g);
    lr_jenv_observe(e, obs);
    CU_ASSERT_DOUBLE_EQUAL(obs[no - 2], log1p(want[0]), 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(obs[no - 1], log1p(want[1]), 1e-6);

    /* A mirror's running job. */
    struct lr_jenv *m = make(two, &c);
    struct lr_spectrum *sp = lr_spectrum_new(topo);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
    int used[2] = { 4, 2 };
    CU_ASSERT_EQUAL_FATAL(lr_jenv_set_state(m, used, sp->occ, sp->nw, err,
                                            sizeof err), 0);
    struct lr_jenv_running run = { .gpus = { 4, 2 }, .remaining = 2.5 };
    CU_ASSERT_EQUAL_FATAL(lr_jenv_set_running(m, &run, 1, err, sizeof err),
                          0);
    CU_ASSERT_FATAL(lr_jenv_present(m, 0, 0) > 0);
    lr_jenv_observe(m, obs);
    CU_ASSERT_DOUBLE_EQUAL(obs[no - 2], log1p(4 * 2.5 / 8), 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(obs[no - 1], log1p(2 * 2.5 / 8), 1e-6);
    lr_spectrum_free(sp);
    lr_jenv_free(m);
    free(obs);
    free(obs0);
    lr_jenv_free(e);
    lr_jenv_free(kw);
}

/* Known work (lr_jenv_config.known_work): one more observation feature,
 * log(1 + X), X the pending job's holding at T_ref over h; greedy-work
 * refuses exactly when g X T / T_ref exceeds theta times the cluster's
 * GPUs (here 4 x 3 x 1 = 12 of 16: between theta 0.7 and 0.8); without
 * known work nobody can read X and greedy-work is greedy. */
static void
test_known_work(void)
{
    struct lr_jenv_config c = config_work_trace();
    struct lr_jenv *plain = make(two, &c);
    c.known_work = true;
    struct lr_jenv *e = make(two, &c);
    int no = lr_jenv_obs_size(e);
    CU_ASSERT_EQUAL(no, lr_jenv_obs_size(plain) + 1);
    float *obs = malloc((size_t) no * sizeof *obs);
    float *obs0 = malloc((size_t) no * sizeof *obs0);
    CU_ASSERT_FATAL(obs && obs0);
    lr_jenv_reset(plain, 1, 0);
    lr_jenv_reset(e, 1, 0);
    CU_ASSERT_DOUBLE_EQUAL(lr_jenv_job_work(plain), -1, 0);
    CU_ASSERT_DOUBLE_EQUAL(lr_jenv_job_work(e), 3, 1e-12);
    lr_jenv_observe(plain, obs0);
    lr_jenv_observe(e, obs);
    /* The features before the new one are the plain environment's. */
    CU_ASSERT_EQUAL(memcmp(obs, obs0, (size_t) (no - 1) * sizeof *obs), 0);
    CU_ASSERT_DOUBLE_EQUAL(obs[no - 1], log1p(3.0), 1e-6);
    struct lr_rng rng;
    lr_rng_seed(&rng, 1);
    const uint8_t *mask = lr_jenv_mask(e);
    int g = lr_jenv_greedy.choose(NULL, e, mask, &rng);
    CU_ASSERT_FATAL(g >= 0);
    CU_ASSERT_DOUBLE_EQUAL(lr_jenv_cand_time(e, g), lr_jenv_job_tref(e),
                           1e-12);
    double lo = 0.7, hi = 0.8, tiny = 1e-6;
    CU_ASSERT_EQUAL(lr_jenv_greedy_work.choose(&lo, e, mask, &rng), -1);
    CU_ASSERT_EQUAL(lr_jenv_greedy_work.choose(&hi, e, mask, &rng), g);
    CU_ASSERT_EQUAL(lr_jenv_greedy_work.choose(&tiny, plain,
                                               lr_jenv_mask(plain), &rng),
                    lr_jenv_greedy.choose(NULL, plain, lr_jenv_mask(plain),
                                          &rng));
    CU_ASSERT_PTR_EQUAL(lr_jenv_policy_find("greedy-work"),
                        &lr_jenv_greedy_work);
    /* The next job's X is its own: 0.5 (and it fits: 12 free GPUs). */
    lr_jenv_step(e, g);
    CU_ASSERT_DOUBLE_EQUAL(lr_jenv_job_work(e), 0.5, 1e-12);
    lr_jenv_observe(e, obs);
    CU_ASSERT_DOUBLE_EQUAL(obs[no - 1], log1p(0.5), 1e-6);
    /* The controller's way in: a job presented, then given its work,
     * which the observation shows. */
    CU_ASSERT(lr_jenv_present(e, 0, 0) > 0);
    CU_ASSERT_EQUAL(lr_jenv_set_job_work(e, 2.5), 0);
    CU_ASSERT_DOUBLE_EQUAL(lr_jenv_job_work(e), 2.5, 1e-12);
    lr_jenv_observe(e, obs);
    CU_ASSERT_DOUBLE_EQUAL(obs[no - 1], log1p(2.5), 1e-6);
    CU_ASSERT_EQUAL(lr_jenv_set_job_work(e, 0), -1);
    CU_ASSERT_EQUAL(lr_jenv_set_job_work(e, NAN), -1);
    CU_ASSERT_EQUAL(lr_jenv_set_job_work(e, INFINITY), -1);
    CU_ASSERT_EQUAL(lr_jenv_present(e, 0, 1), -1);
    CU_ASSERT_DOUBLE_EQUAL(lr_jenv_job_work(e), 2.5, 1e-12);
    CU_ASSERT(lr_jenv_present(plain, 0, 0) > 0);
    CU_ASSERT_EQUAL(lr_jenv_set_job_work(plain, 1), -1);
    free(obs);
    free(obs0);
    lr_jenv_free(e);
    lr_jenv_free(plain);
}

/* reward_blocking_only: an admission earns 0 instead of -T / T_ref; a
 * refusal still costs the block penalty; the metrics do not change. */
static void
test_reward_blocking_only(void)
{
    static const struct lr_jenv_arrival trace[] = {
        { 0, 1, 0, 0, 0 }, { 0.1, 1, 0, 0, 0 }, { 0.2, 1, 0, 0, 0 },
    };
    struct lr_jenv_config c = config(8);
    c.trace = trace;
    c.n_trace = 3;
    struct lr_jenv *plain = make(two, &c);
    c.reward_blocking_only = true;
    struct lr_jenv *e = make(two, &c);
    lr_jenv_reset(plain, 1, 0);
    lr_jenv_reset(e, 1, 0);
    CU_ASSERT_DOUBLE_EQUAL(lr_jenv_step(plain, 0), -1, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(lr_jenv_step(e, 0), 0, 0);
    CU_ASSERT_DOUBLE_EQUAL(lr_jenv_step(plain, -1), -2, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(lr_jenv_step(e, -1), -2, 1e-12);
    struct lr_jenv_metrics m0, m1;
    lr_jenv_metrics(plain, &m0);
    lr_jenv_metrics(e, &m1);
    CU_ASSERT_EQUAL(m0.blocked, m1.blocked);
    CU_ASSERT_EQUAL(m0.admitted, m1.admitted);
    CU_ASSERT_DOUBLE_EQUAL(m0.mean_slowdown, m1.mean_slowdown, 0);
    lr_jenv_free(e);
    lr_jenv_free(plain);
}

/* ---- uneven GPU shares (lr_jenv_config.splits) ----
 * With shares {1/4, 1/2} on the two-DC instance (K = 1): 2 singles, then
 * per ordered pair (dc0, dc1), (dc1, dc0): share 1/4 x 3 tiers, share 1/2
 * x 3 tiers = 2 + 2 x 2 x 3 = 14 candidates. */
static struct lr_jenv_config
config_splits(void)
{
    struct lr_jenv_config c = config(8);
    c.n_splits = 2;
    c.splits[0] = (struct lr_jenv_split) { 1, 4 };
    c.splits[1] = (struct lr_jenv_split) { 1, 2 };
    return c;
}

static void
test_splits_candidates(void)
{
    struct lr_jenv_config c = config_splits();
    c.n_demands = 3;
    c.demands[1] = 2;
    c.demands[2] = 4;
    struct lr_jenv *e = make(two, &c);
    CU_ASSERT_EQUAL_FATAL(lr_jenv_n_actions(e), 14);
    static const struct { int dc0, dc1, split, tier; } want[12] = {
        { 0, 1, 0, 0 }, { 0, 1, 0, 1 }, { 0, 1, 0, 2 },
        { 0, 1, 1, 0 }, { 0, 1, 1, 1 }, { 0, 1, 1, 2 },
        { 1, 0, 0, 0 }, { 1, 0, 0, 1 }, { 1, 0, 0, 2 },
        { 1, 0, 1, 0 }, { 1, 0, 1, 1 }, { 1, 0, 1, 2 },
    };
    for (int a = 0; a < 2; a++) {
        CU_ASSERT_EQUAL(lr_jenv_cand(e, a)->n_dcs, 1);
        CU_ASSERT_EQUAL(lr_jenv_cand(e, a)->split, -1);
    }
    for (int i = 0; i < 12; i++) {
        const struct lr_jenv_cand *cd = lr_jenv_cand(e, 2 + i);
        CU_ASSERT_EQUAL(cd->n_dcs, 2);
        CU_ASSERT_EQUAL(cd->dc[0], want[i].dc0);
        CU_ASSERT_EQUAL(cd->dc[1], want[i].dc1);
        CU_ASSERT_EQUAL(cd->split, want[i].split);
        CU_ASSERT_EQUAL(cd->tier, want[i].tier);
        CU_ASSERT_EQUAL(cd->route, 0);
    }
    /* Demand 8: 1/4 gives 2 then 6, 1/2 gives 4 and 4; the mirror pair
     * (dc1, dc0) puts the 2 in dc1. */
    CU_ASSERT(lr_jenv_present(e, 0, 0) > 0);
    CU_ASSERT_EQUAL(lr_jenv_cand_gpus(e, 0, 0), 8);
    CU_ASSERT_EQUAL(lr_jenv_cand_gpus(e, 2, 0), 2);
    CU_ASSERT_EQUAL(lr_jenv_cand_gpus(e, 2, 1), 6);
    CU_ASSERT_EQUAL(lr_jenv_cand_gpus(e, 5, 0), 4);
    CU_ASSERT_EQUAL(lr_jenv_cand_gpus(e, 5, 1), 4);
    CU_ASSERT_EQUAL(lr_jenv_cand_gpus(e, 8, 0), 2);
    CU_ASSERT_EQUAL(lr_jenv_cand_gpus(e, 8, 1), 6);
    CU_ASSERT(isfinite(lr_jenv_cand_time(e, 2)));
    /* Demand 2: the share 1/4 gives 0 GPUs in the first DC: never
     * feasible (no GPUs, T infinite), 1/2 gives 1 and 1. */
    CU_ASSERT(lr_jenv_present(e, 0, 1) > 0);
    CU_ASSERT_EQUAL(lr_jenv_cand_gpus(e, 2, 0), 0);
    CU_ASSERT(isinf(lr_jenv_cand_time(e, 2)));
    CU_ASSERT_EQUAL(lr_jenv_mask(e)[2], 0);
    CU_ASSERT_EQUAL(lr_jenv_cand_gpus(e, 5, 0), 1);
    CU_ASSERT_EQUAL(lr_jenv_mask(e)[5], 1);
    /* Demand 4: 1/4 gives 1 and 3. */
    CU_ASSERT(lr_jenv_present(e, 0, 2) > 0);
    CU_ASSERT_EQUAL(lr_jenv_cand_gpus(e, 2, 0), 1);
    CU_ASSERT_EQUAL(lr_jenv_cand_gpus(e, 2, 1), 3);
    lr_jenv_free(e);
    /* Shares 1/4 and 1/3 both give 1 GPU of 4: the second is skipped. */
    c = config(4);
    c.n_splits = 2;
    c.splits[0] = (struct lr_jenv_split) { 1, 4 };
    c.splits[1] = (struct lr_jenv_split) { 1, 3 };
    e = make(two, &c);
    CU_ASSERT(lr_jenv_present(e, 0, 0) > 0);
    CU_ASSERT(isfinite(lr_jenv_cand_time(e, 2)));
    CU_ASSERT(isinf(lr_jenv_cand_time(e, 5)));
    CU_ASSERT_EQUAL(lr_jenv_mask(e)[5], 0);
    lr_jenv_free(e);
}

/* dc0 has 2 GPUs free, dc1 6: a job of 8 fits only as 2 + 6 on the pair
 * (dc0, dc1) with share 1/4, at 100 G or 200 G (400 G needs 9 slots). */
static void
test_splits_mask_by_hand(void)
{
    struct lr_jenv_config c = config_splits();
    struct lr_jenv *e = make(two, &c);
    int nw;
    const uint64_t *occ0 = lr_jenv_occupancy(e, &nw);
    uint64_t *occ = calloc((size_t) topo->n_links * nw, sizeof *occ);
    CU_ASSERT_PTR_NOT_NULL_FATAL(occ);
    memcpy(occ, occ0, (size_t) topo->n_links * nw * sizeof *occ);
    int used[2] = { 6, 2 };
    char err[256];
    CU_ASSERT_EQUAL_FATAL(lr_jenv_set_state(e, used, occ, nw, err,
                                            sizeof err), 0);
    CU_ASSERT_EQUAL(lr_jenv_present(e, 0, 0), 2);
    const uint8_t *mask = lr_jenv_mask(e);
    for (int a = 0; a < lr_jenv_n_actions(e); a++)
        CU_ASSERT_EQUAL(mask[a], a == 2 || a == 3);
    /* No spectrum on A-B: nothing is feasible. */
    for (int l = 0; l < topo->n_links; l++)
        if (!strcmp(topo->links[l].name, "A-B"))
            occ[(size_t) l * nw] |= 0xff;
    CU_ASSERT_EQUAL_FATAL(lr_jenv_set_state(e, used, occ, nw, err,
                                            sizeof err), 0);
    CU_ASSERT_EQUAL(lr_jenv_present(e, 0, 0), 0);
    /* The default shares: the same state blocks the job. */
    struct lr_jenv_config d = config(8);
    struct lr_jenv *f = make(two, &d);
    memcpy(occ, occ0, (size_t) topo->n_links * nw * sizeof *occ);
    CU_ASSERT_EQUAL_FATAL(lr_jenv_set_state(f, used, occ, nw, err,
                                            sizeof err), 0);
    CU_ASSERT_EQUAL(lr_jenv_present(f, 0, 0), 0);
    free(occ);
    lr_jenv_free(f);
    lr_jenv_free(e);
}

/* A trace: j0 (6 GPUs) -> dc0, j1 (2) -> dc1, then j2 (8 GPUs) finds
 * 2 + 6 free: admitted on (dc0, dc1) at share 1/4 with the shares,
 * blocked on arrival without. */
static void
run_uneven_trace(const struct lr_jenv_config *base, long *blocked,
                 long *admitted, int *free0, int *free1)
{
    static const struct lr_jenv_arrival trace[] = {
        { 0, 10, 0, 0, 0 }, { 0.1, 10, 0, 1, 0 }, { 0.2, 10, 0, 2, 0 },
    };
    struct lr_jenv_config c = *base;
    c.n_demands = 3;
    c.demands[0] = 6;
    c.demands[1] = 2;
    c.demands[2] = 8;
    c.trace = trace;
    c.n_trace = 3;
    struct lr_jenv *e = make(two, &c);
    lr_jenv_reset(e, 1, 0);
    lr_jenv_step(e, 0);                 /* j0 -> dc0 alone */
    lr_jenv_step(e, 1);                 /* j1 -> dc1 alone */
    if (!lr_jenv_done(e)) {
        const uint8_t *mask = lr_jenv_mask(e);
        int a = -1;
        for (int i = 0; i < lr_jenv_n_actions(e) && a < 0; i++)
            if (mask[i])
                a = i;
        CU_ASSERT_EQUAL(a, 2);
        CU_ASSERT_EQUAL(lr_jenv_cand_gpus(e, a, 0), 2);
        CU_ASSERT_EQUAL(lr_jenv_cand_gpus(e, a, 1), 6);
        lr_jenv_step(e, a);
    }
    *free0 = lr_jenv_dc_free(e, 0);
    *free1 = lr_jenv_dc_free(e, 1);
    struct lr_jenv_metrics m;
    lr_jenv_metrics(e, &m);
    *blocked = m.blocked;
    *admitted = m.admitted;
    lr_jenv_free(e);
}

static void
test_splits_admit_uneven(void)
{
    long blocked, admitted;
    int f0, f1;
    struct lr_jenv_config c = config_splits();
    run_uneven_trace(&c, &blocked, &admitted, &f0, &f1);
    CU_ASSERT_EQUAL(blocked, 0);
    CU_ASSERT_EQUAL(admitted, 3);
    CU_ASSERT_EQUAL(f0, 0);
    CU_ASSERT_EQUAL(f1, 0);
    c = config(8);
    run_uneven_trace(&c, &blocked, &admitted, &f0, &f1);
    CU_ASSERT_EQUAL(blocked, 1);
    CU_ASSERT_EQUAL(admitted, 2);
    CU_ASSERT_EQUAL(f0, 2);
    CU_ASSERT_EQUAL(f1, 6);
}

/* The default (no shares) and an explicit {1/2} are the same
 * environment, run for run; {1/4,1/2} is another one. */
static void
test_splits_default_unchanged(void)
{
    struct lr_jenv_config c = config(4);
    c.n_demands = 3;
    c.demands[1] = 8;
    c.demands[2] = 16;
    c.load = 1.5;
    struct lr_jenv_config h = c;
    h.n_splits = 1;
    h.splits[0] = (struct lr_jenv_split) { 1, 2 };
    struct lr_jenv_config q = c;
    q.n_splits = 2;
    q.splits[0] = (struct lr_jenv_split) { 1, 4 };
    q.splits[1] = (struct lr_jenv_split) { 1, 2 };
    struct lr_jenv *e = make(two, &c), *f = make(two, &h), *g = make(two, &q);
    CU_ASSERT_EQUAL(lr_jenv_n_actions(e), 8);
    CU_ASSERT_EQUAL(lr_jenv_n_actions(f), 8);
    CU_ASSERT_EQUAL(lr_jenv_obs_size(e), lr_jenv_obs_size(f));
    CU_ASSERT_EQUAL(lr_jenv_n_actions(g), 14);
    struct lr_jenv_metrics me, mf, mg;
    lr_jenv_run(e, &lr_jenv_random, NULL, 7, 3000, 100, &me);
    lr_jenv_run(f, &lr_jenv_random, NULL, 7, 3000, 100, &mf);
    lr_jenv_run(g, &lr_jenv_greedy, NULL, 7, 3000, 100, &mg);
    CU_ASSERT_EQUAL(memcmp(&me, &mf, sizeof me), 0);
    CU_ASSERT(me.blocked > 0);
    lr_jenv_run(e, &lr_jenv_greedy, NULL, 7, 3000, 100, &me);
    /* Uneven shares only add choices: greedy blocks no more here. */
    CU_ASSERT(mg.blocked <= me.blocked);
    lr_jenv_free(e);
    lr_jenv_free(f);
    lr_jenv_free(g);
}

static void
test_splits_parse(void)
{
    struct lr_jenv_split sp[LR_JENV_MAX_SPLITS];
    char err[256], buf[64];
    CU_ASSERT_EQUAL(lr_jenv_splits_parse("1/4,1/2", sp, err, sizeof err), 2);
    CU_ASSERT(sp[0].num == 1 && sp[0].den == 4 && sp[1].num == 1
              && sp[1].den == 2);
    lr_jenv_splits_format(sp, 2, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "1/4,1/2");
    CU_ASSERT_FALSE(lr_jenv_splits_default(sp, 2));
    CU_ASSERT_EQUAL(lr_jenv_splits_parse("2/4", sp, err, sizeof err), 1);
    CU_ASSERT(sp[0].num == 1 && sp[0].den == 2);
    CU_ASSERT(lr_jenv_splits_default(sp, 1));
    CU_ASSERT(lr_jenv_splits_default(sp, 0));
    lr_jenv_splits_format(sp, 0, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "1/2");
    static const char *bad[] = {
        "0/4", "3/2", "1/1", "junk", "", "1/4,", "1/4,1/2,1/3,1/5,1/6",
        "1/2,2/4", "-1/4", "1/ 4", "1/4x", "1/65",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = '\0';
        CU_ASSERT_EQUAL(lr_jenv_splits_parse(bad[i], sp, err, sizeof err),
                        -1);
        CU_ASSERT(err[0] != '\0');
    }
    /* lr_jenv_new refuses what the parser would. */
    struct lr_jenv *e = NULL;
    struct lr_jenv_config c = config(8);
    c.n_splits = 1;
    c.splits[0] = (struct lr_jenv_split) { 3, 2 };
    CU_ASSERT_EQUAL(lr_jenv_new(topo, two, &c, &e, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "3/2"));
    c.n_splits = 2;
    c.splits[0] = c.splits[1] = (struct lr_jenv_split) { 1, 4 };
    CU_ASSERT_EQUAL(lr_jenv_new(topo, two, &c, &e, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "equals"));
    c.n_splits = LR_JENV_MAX_SPLITS + 1;
    CU_ASSERT_EQUAL(lr_jenv_new(topo, two, &c, &e, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NULL(e);
}

/* The load estimate: on a trace, the weighted count computed here term
 * by term; on Poisson arrivals at 3 E, near 3 after 20,000 of them; the
 * observation's last feature is log(1 + it); a clone and a fork keep it,
 * and lr_jenv_set_load_estimate makes it read what it is given. */
static void
test_load_estimate(void)
{
    static const struct lr_jenv_arrival trace[] = {
        { 1, 0.1, 0, 0, 0 }, { 2, 0.1, 0, 0, 0 }, { 2.5, 0.1, 0, 0, 0 },
        { 40, 0.1, 0, 0, 0 }, { 300, 0.1, 0, 0, 0 },
    };
    struct lr_jenv_config c = config(4);
    c.trace = trace;
    c.n_trace = 5;
    c.holding = 2;                      /* tau = 200 time units */
    c.observe_load = true;
    struct lr_jenv *e = make(two, &c);
    struct lr_jenv_config c0 = c;
    c0.observe_load = false;
    struct lr_jenv *e0 = make(two, &c0);
    CU_ASSERT_EQUAL(lr_jenv_obs_size(e), lr_jenv_obs_size(e0) + 1);
    int n_obs = lr_jenv_obs_size(e);
    float *o = malloc((size_t) n_obs * sizeof *o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    double tau = LR_JENV_LOAD_TAU * 2;
    for (int i = 0; i < 5; i++) {
        /* The pending job is arrival i: S over arrivals 0..i. */
        double t = trace[i].t, sum = 0;
        for (int j = 0; j <= i; j++)
            sum += exp(-(t - trace[j].t) / tau);
        double win = fmax(t, LR_JENV_LOAD_WARM * 2);
        double want = sum / (tau * (1 - exp(-win / tau))) * 2;
        CU_ASSERT_DOUBLE_EQUAL(lr_jenv_load_estimate(e), want, 1e-9 * want);
        lr_jenv_observe(e, o);
        CU_ASSERT_EQUAL(o[n_obs - 1], (float) log1p(want));
        lr_jenv_step(e, -1);
    }
    lr_jenv_free(e);
    lr_jenv_free(e0);
    free(o);

    c = config(4);
    c.load = 3;
    c.observe_load = true;
    e = make(two, &c);
    lr_jenv_reset(e, 5, 0);
    for (int s = 0; s < 20000; s++)
        lr_jenv_step(e, -1);            /* refuse all: only arrivals */
    double est = lr_jenv_load_estimate(e);
    CU_ASSERT(est > 2.7 && est < 3.3);
    struct lr_jenv *f = NULL, *g = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_jenv_clone(e, &f), 0);
    CU_ASSERT_EQUAL_FATAL(lr_jenv_clone(e, &g), 0);
    CU_ASSERT_EQUAL(lr_jenv_load_estimate(f), est);
    CU_ASSERT_EQUAL_FATAL(lr_jenv_fork(g, e, 3, 10, KNOWN), 0);
    CU_ASSERT_EQUAL(lr_jenv_load_estimate(g), est);
    CU_ASSERT_EQUAL(lr_jenv_set_load_estimate(f, 1.25), 0);
    CU_ASSERT_DOUBLE_EQUAL(lr_jenv_load_estimate(f), 1.25, 1e-12);
    CU_ASSERT_EQUAL(lr_jenv_set_load_estimate(f, -1), EINVAL);
    CU_ASSERT_EQUAL(lr_jenv_set_load_estimate(f, NAN), EINVAL);
    CU_ASSERT_DOUBLE_EQUAL(lr_jenv_load_estimate(f), 1.25, 1e-12);
    /* A fork of a mirror starts from the estimate set. */
    CU_ASSERT_EQUAL_FATAL(lr_jenv_fork(g, f, 4, 10, KNOWN), 0);
    CU_ASSERT_DOUBLE_EQUAL(lr_jenv_load_estimate(g), 1.25, 1e-12);
    lr_jenv_free(g);
    lr_jenv_free(f);
    lr_jenv_free(e);

    /* A clock that steps back (lightraild's wall clock): an event before
     * the last counts as at it, and so does a reading. */
    struct lr_rate r1, r2;
    lr_rate_reset(&r1, 0, 10, 0);
    lr_rate_reset(&r2, 0, 10, 0);
    lr_rate_add(&r1, 5);
    lr_rate_add(&r1, 3);
    lr_rate_add(&r2, 5);
    lr_rate_add(&r2, 5);
    CU_ASSERT_EQUAL(r1.sum, r2.sum);
    CU_ASSERT_EQUAL(r1.last, 5);
    CU_ASSERT_EQUAL(lr_rate_get(&r1, 4), lr_rate_get(&r2, 5));
    CU_ASSERT_DOUBLE_EQUAL(lr_rate_get(&r2, 5), 2 / (10 * -expm1(-0.5)),
                           1e-12);
}

static CU_TestInfo tests[] = {
    { "a blocking-only reward: admissions earn 0", test_reward_blocking_only },
    { "a link wider than 1024 slots: EINVAL, said so", test_link_too_wide },
    { "running jobs without GPUs fit in the departure heap",
      test_running_without_gpus },
    { "a route whose two paths share a link is never feasible",
      test_route_paths_share_link },
    { "known work: the feature, greedy-work's threshold, by hand",
      test_known_work },
    { "held work: the GPU-time running jobs hold, per DC, by hand",
      test_held_work },
    { "incremental route caches = recomputed from scratch",
      test_incremental_routes },
    { "route caches on a spectrum uneven between directions = brute force",
      test_routes_uneven_spectrum },
    { "a clone steps as its prototype", test_clone },
    { "a fork starts from its source and draws its own future", test_fork },
    { "a fork of a scripted source draws Poisson arrivals",
      test_fork_of_trace },
    { "a fork keeps the drawn holdings or draws them afresh",
      test_fork_modes },
    { "metrics of a trace, by hand", test_trace_by_hand },
    { "holding time stretched by the slowdown", test_holding_work },
    { "lightpaths and spectrum, by hand", test_lightpath_by_hand },
    { "one DC is Erlang B", test_erlang_b },
    { "the mask matches the resources; greedy's choice by brute force",
      test_mask_matches_resources },
    { "same seed, same run", test_deterministic },
    { "the mirror of a state gives its mask and observation",
      test_mirror_matches_stepping },
    { "bad input is refused with a reason", test_errors },
    { "a DC attached by the topology alone", test_topology_attachment },
    { "the DC pairs' routes and distances are the full table's",
      test_paths_as_full_table },
    { "a mirror's running jobs leave and free what they hold",
      test_running_jobs },
    { "the refusal action books nothing and counts as blocked",
      test_refuse_action },
    { "with refusals the mask of a pending job is never empty",
      test_refuse_mask_never_empty },
    { "greedy-cap refuses above theta, admits below", test_greedy_cap },
    { "GPU shares: the candidates and their GPU counts",
      test_splits_candidates },
    { "GPU shares: the mask of a hand case", test_splits_mask_by_hand },
    { "GPU shares: a job that fits only unevenly", test_splits_admit_uneven },
    { "GPU shares: the default is the environment of before",
      test_splits_default_unchanged },
    { "GPU shares: parsing and bad values", test_splits_parse },
    { "the load estimate, by hand and on Poisson arrivals",
      test_load_estimate },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN_WITH("jenv", tests, setup, teardown)
