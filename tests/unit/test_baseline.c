/*
 * Baselines: data parallelism by hand on the toy instance; PipeDream and
 * SPP always give plans the model agrees with and never beat the exact
 * optimum; SPP is CDynP without a window where there is no WAN to misjudge;
 * zone keeps a job in the fewest DCs and picks among them by the network
 * as measured.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_baseline.h"
#include "planner/lr_cdynp.h"
#include "planner/lr_exact.h"
#include "planner/lr_instance.h"
#include "tests/lr_test.h"
#include "tests/unit/lr_test_cluster.h"

static void
test_dp_by_hand(void)
{
    /* Toy instance (lr_test_cluster.h): sum F = 10e12, sum W = 10e6,
     * sum A = 5e6, B = 8, b = 2, e = 2; dc0 computes 4 x 50e12 = 200e12
     * FLOP/s, dc1 2 x 20e12 = 40e12.
     * dc0 alone: compute 3 x 8 x 10e12 / 200e12 = 1.2 s; ring of
     *   S = 2 x 10e6 = 20e6 bytes over 4: 2 x 3 x 10e-6
     *   + 2 x 3/4 x 20e6 / 10e9 = 3.06e-3 s; T = 1.20306 s.
     * dc0 + dc1: compute 24 x 10e12 / 240e12 = 1.0 s; intra max(3.06e-3,
     *   dc1: 2 x 20e-6 + 20e6 / 5e9 = 4.04e-3); inter ring over 2:
     *   2 x 1e-3 + 20e6 / 1.25e9 = 0.018 s; T = 1.02204 s: the better.
     * Memory per device 16 x 10e6 + 2 x 2 x 5e6 = 180e6 bytes: fits. */
    struct lr_model *m = lr_test_toy_model();
    struct lr_cluster *c = lr_test_toy_cluster();
    struct lr_train tr = { 8, 2, 2 };
    struct lr_tm *tm;
    CU_ASSERT_EQUAL_FATAL(lr_tm_new(m, c, &tr, &tm), 0);
    struct lr_plan p;
    struct lr_tm_eval ev;
    CU_ASSERT_EQUAL_FATAL(lr_baseline_dp(tm, &p, &ev), LR_TM_OK);
    CU_ASSERT_DOUBLE_EQUAL(ev.T, 1.02204, 1e-12);
    CU_ASSERT_EQUAL(p.n_stages, 2);
    CU_ASSERT_DOUBLE_EQUAL(ev.mem[0], 180e6, 1e-3);
    /* With 150e6 bytes per device nothing fits. */
    tm->dcs[0].mem = tm->dcs[1].mem = 150e6;
    CU_ASSERT_EQUAL(lr_baseline_dp(tm, &p, &ev), LR_TM_MEMORY);
    lr_tm_free(tm);
    lr_cluster_free(c);
    lr_model_free(m);
}

static void
test_baselines_against_exact(void)
{
    int pd_ok = 0, spp_ok = 0;
    for (uint64_t seed = 200; seed < 260; seed++) {
        struct lr_instance in;
        CU_ASSERT_EQUAL_FATAL(lr_instance_random(seed, &in), 0);
        struct lr_tm *tm;
        CU_ASSERT_EQUAL_FATAL(lr_tm_new(in.model, in.cluster, &in.train,
                                        &tm), 0);
        struct lr_plan *p = malloc(sizeof *p), *pe = malloc(sizeof *pe);
        struct lr_tm_eval *ev = malloc(sizeof *ev), *ee = malloc(sizeof *ee),
                          *again = malloc(sizeof *again);
        struct lr_exact_stats st;
        enum lr_tm_why we = lr_exact_plan(tm, 0, pe, ee, &st);
        enum lr_tm_why (*algo[])(const struct lr_tm *, struct lr_plan *,
                                 struct lr_tm_eval *) = {
            lr_baseline_pipedream, lr_baseline_spp,
        };
        for (int a = 0; a < 2; a++) {
            if (algo[a](tm, p, ev) != LR_TM_OK)
                continue;
            CU_ASSERT_EQUAL(we, LR_TM_OK);
            CU_ASSERT(ee->T <= ev->T * (1 + 1e-12));
            CU_ASSERT_EQUAL(lr_tm_evaluate(tm, p, again), LR_TM_OK);
            CU_ASSERT_DOUBLE_EQUAL(again->T, ev->T, 1e-12 * ev->T);
            *(a ? &spp_ok : &pd_ok) += 1;
        }
        free(p);
        free(pe);
        free(ev);
        free(ee);
        free(again);
        lr_tm_free(tm);
        lr_instance_free(&in);
    }
    CU_ASSERT(pd_ok >= 20);
    CU_ASSERT(spp_ok >= 20);
}

static void
test_pipedream_too_many_stages(void)
{
    /* Eight equal layers of 3 x 1e12 FLOPs per sample (b = 1) on 8
     * devices of 50e12 FLOP/s: a stage of one layer on one device takes
     * 0.06 s.  Replicating costs a ring of 2 x 1e10 bytes, at least
     * 2 x 1/2 x 2e10 / 10e9 / m = 0.25 s per microbatch (m = 8), and the
     * activations (1 element) cost nothing: the best cut is 8 stages of
     * one layer and one device. */
    struct lr_layer layers[8];
    for (int l = 0; l < 8; l++)
        layers[l] = (struct lr_layer) { 1e12, 1e10, 1 };
    struct lr_model *m = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_model_from_layers("flat", layers, 8, &m), 0);
    struct lr_cluster *c = lr_cluster_new();
    CU_ASSERT_EQUAL_FATAL(lr_cluster_add_type(c, "big", 100e12, 0.5, 1e12),
                          0);
    CU_ASSERT_EQUAL_FATAL(lr_cluster_add_dc(c, "dc0", "big", 8, 10e9, 10e-6,
                                            NULL), 0);
    struct lr_train tr = { 8, 1, 2 };
    struct lr_tm *tm;
    CU_ASSERT_EQUAL_FATAL(lr_tm_new(m, c, &tr, &tm), 0);
    struct lr_plan *p = malloc(sizeof *p);
    struct lr_tm_eval *ev = malloc(sizeof *ev);
    CU_ASSERT_EQUAL(lr_baseline_pipedream(tm, p, ev), LR_TM_OK);
    CU_ASSERT_EQUAL(p->n_stages, 8);
    CU_ASSERT_EQUAL(lr_baseline_pipedream_max(tm, 8, p, ev), LR_TM_OK);
    /* With room for 4 stages the cut is refused for what it is, not
     * cut short and then refused as out of shape. */
    CU_ASSERT_EQUAL(lr_baseline_pipedream_max(tm, 4, p, ev), LR_TM_STAGES);
    CU_ASSERT_EQUAL(ev->why, LR_TM_STAGES);
    CU_ASSERT(isinf(ev->T));
    char why[256];
    lr_tm_explain(tm, LR_TM_STAGES, why, sizeof why);
    CU_ASSERT_STRING_EQUAL(why, "stages: the best cut of the 8 layers over "
                           "8 devices has more than 512 stages, the most a "
                           "plan holds; plan on at most 512 devices, with "
                           "CDynP at a device step of 2 or more, or with "
                           "another algorithm");
    free(p);
    free(ev);
    lr_tm_free(tm);
    lr_cluster_free(c);
    lr_model_free(m);
}

static void
test_spp_is_cdynp_in_one_dc(void)
{
    int compared = 0;
    for (uint64_t seed = 300; seed < 340; seed++) {
        struct lr_instance in;
        CU_ASSERT_EQUAL_FATAL(lr_instance_random(seed, &in), 0);
        if (in.cluster->n_dcs != 1) {
            lr_instance_free(&in);
            continue;
        }
        struct lr_tm *tm;
        CU_ASSERT_EQUAL_FATAL(lr_tm_new(in.model, in.cluster, &in.train,
                                        &tm), 0);
        struct lr_plan *p = malloc(sizeof *p);
        struct lr_tm_eval *a = malloc(sizeof *a), *b = malloc(sizeof *b);
        struct lr_cdynp_options whole = { .window = -1 };
        enum lr_tm_why wa = lr_baseline_spp(tm, p, a);
        enum lr_tm_why wb = lr_cdynp_plan(tm, &whole, p, b);
        CU_ASSERT_EQUAL(wa, wb);
        if (wa == LR_TM_OK) {
            CU_ASSERT_DOUBLE_EQUAL(a->T, b->T, 1e-12 * b->T);
            compared++;
        }
        free(p);
        free(a);
        free(b);
        lr_tm_free(tm);
        lr_instance_free(&in);
    }
    CU_ASSERT(compared >= 5);
}

/* Three identical DCs, fully linked, devices of 'mem' bytes. */
static struct lr_cluster *
three_dcs(double mem)
{
    struct lr_cluster *c = lr_cluster_new();
    lr_cluster_add_type(c, "g", 100e12, 0.5, mem);
    lr_cluster_add_dc(c, "dc0", "g", 2, 10e9, 10e-6, NULL);
    lr_cluster_add_dc(c, "dc1", "g", 2, 10e9, 10e-6, NULL);
    lr_cluster_add_dc(c, "dc2", "g", 2, 10e9, 10e-6, NULL);
    lr_cluster_add_link(c, "dc0", "dc1", 1.25e9, 1e-3);
    lr_cluster_add_link(c, "dc0", "dc2", 1.25e9, 1e-3);
    lr_cluster_add_link(c, "dc1", "dc2", 1.25e9, 1e-3);
    return c;
}

/* The DCs a plan uses, as a bit set. */
static unsigned
dcs_of(const struct lr_plan *p)
{
    unsigned set = 0;
    for (int s = 0; s < p->n_stages; s++)
        set |= 1u << p->stages[s].dc;
    return set;
}

/* Fewest zones first: where one DC can hold the job, zone keeps it in
 * the one DC of least T, even if two would be faster. */
static void
test_zone_fewest_dcs(void)
{
    struct lr_model *m = lr_test_toy_model();
    struct lr_cluster *c = three_dcs(8e9);
    struct lr_train tr = { 8, 2, 2 };
    struct lr_tm *tm = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_tm_new(m, c, &tr, &tm), 0);
    tm->dcs[1].eff = 0.6;     /* dc1 the fastest alone */
    struct lr_plan *p = malloc(sizeof *p), *q = malloc(sizeof *q);
    struct lr_tm_eval *ev = malloc(sizeof *ev), *e1 = malloc(sizeof *e1);
    CU_ASSERT_EQUAL_FATAL(lr_baseline_zone(tm, NULL, p, ev), LR_TM_OK);
    CU_ASSERT_EQUAL(dcs_of(p), 1u << 1);
    int one = 1;
    struct lr_cdynp_options o = { .window = LR_CDYNP_DEFAULT_WINDOW,
                                  .order = &one, .n_order = 1 };
    CU_ASSERT_EQUAL(lr_cdynp_plan(tm, &o, q, e1), LR_TM_OK);
    CU_ASSERT_DOUBLE_EQUAL(ev->T, e1->T, 1e-12 * e1->T);
    free(p);
    free(q);
    free(ev);
    free(e1);
    lr_tm_free(tm);
    lr_cluster_free(c);
    lr_model_free(m);
}

/* Where no DC alone can hold the job, the pair comes from telemetry: the
 * same pair as T alone picks, until the lightpaths between that pair are
 * measured full; then a pair that avoids that link. */
static void
test_zone_follows_telemetry(void)
{
    struct lr_model *m = lr_test_toy_model();
    struct lr_train tr = { 8, 2, 2 };
    struct lr_plan *p = malloc(sizeof *p);
    struct lr_tm_eval *ev = malloc(sizeof *ev);
    struct lr_tm *tm = NULL;
    /* The largest memory at which one DC no longer holds the toy. */
    bool found = false;
    for (double mem = 8e9; mem > 1e6 && !found; mem *= 0.8) {
        struct lr_cluster *c = three_dcs(mem);
        lr_tm_free(tm);
        tm = NULL;
        CU_ASSERT_EQUAL_FATAL(lr_tm_new(m, c, &tr, &tm), 0);
        lr_cluster_free(c);
        if (lr_baseline_zone(tm, NULL, p, ev) == LR_TM_OK
            && __builtin_popcount(dcs_of(p)) == 2)
            found = true;
    }
    CU_ASSERT_FATAL(found);
    unsigned untouched = dcs_of(p);
    CU_ASSERT_EQUAL(untouched, (1u << 0) | (1u << 1));
    /* dc0 <-> dc1 measured full, both ways. */
    struct lr_telemetry tel;
    lr_telemetry_reset(&tel, 3);
    lr_telemetry_add(&tel, 0, 1, 1.25e9, 1.25e9, 0, 1e-3);
    lr_telemetry_add(&tel, 1, 0, 1.25e9, 1.25e9, 0, 1e-3);
    CU_ASSERT_EQUAL(lr_baseline_zone(tm, &tel, p, ev), LR_TM_OK);
    unsigned now = dcs_of(p);
    CU_ASSERT_EQUAL(__builtin_popcount(now), 2);
    CU_ASSERT_NOT_EQUAL(now, (1u << 0) | (1u << 1));
    /* Loss makes a link worse too: the same pair with 60% loss. */
    lr_telemetry_reset(&tel, 3);
    lr_telemetry_add(&tel, 0, 1, 1.25e9, 0, 0.6, 1e-3);
    CU_ASSERT_EQUAL(lr_baseline_zone(tm, &tel, p, ev), LR_TM_OK);
    CU_ASSERT_NOT_EQUAL(dcs_of(p), (1u << 0) | (1u << 1));
    free(p);
    free(ev);
    lr_tm_free(tm);
    lr_model_free(m);
}

/* PipeDream over 2 DCs of 1,000,000 devices is refused at once, the
 * bound and what to do in the text: its O(L^2 N^2) search ran for hours
 * on lightraild's planner thread.  At the bound it still plans. */
static void
test_pipedream_work_bound(void)
{
    struct lr_model *m = lr_test_toy_model();
    struct lr_cluster *c = lr_cluster_new();
    CU_ASSERT_FATAL(c != NULL);
    CU_ASSERT_EQUAL(lr_cluster_add_type(c, "gpu", 1e14, 0.5, 80e9), 0);
    CU_ASSERT_EQUAL(lr_cluster_add_dc(c, "dc0", "gpu", 1000000, 10e9, 0,
                                      NULL), 0);
    CU_ASSERT_EQUAL(lr_cluster_add_dc(c, "dc1", "gpu", 1000000, 10e9, 0,
                                      NULL), 0);
    struct lr_train tr = { 8, 1, 2 };
    struct lr_tm *tm;
    CU_ASSERT_EQUAL_FATAL(lr_tm_new(m, c, &tr, &tm), 0);
    lr_tm_set_link(tm, 0, 1, 1e9, 1e-3);
    struct lr_plan *p = malloc(sizeof *p);
    struct lr_tm_eval *ev = malloc(sizeof *ev);
    CU_ASSERT_FATAL(p && ev);
    CU_ASSERT_EQUAL(lr_baseline_pipedream(tm, p, ev), LR_TM_WORK);
    CU_ASSERT_EQUAL(ev->why, LR_TM_WORK);
    CU_ASSERT(isinf(ev->T));
    char why[512];
    lr_tm_explain(tm, LR_TM_WORK, why, sizeof why);
    CU_ASSERT_STRING_EQUAL(why, "work: pipedream's search over the 4 "
                           "layers and 2000000 devices would take about "
                           "1.2e+13 steps (L^2 N^2 / 4), more than its "
                           "bound of 2e+08 (seconds on the planner's "
                           "thread); plan with CDynP, whose device step "
                           "bounds its work, or on fewer devices");
    CU_ASSERT(lr_baseline_pipedream_steps(4, 2000000)
              > LR_BASELINE_PIPEDREAM_MAX_STEPS);
    CU_ASSERT(lr_baseline_pipedream_steps(4, 8165)
              <= LR_BASELINE_PIPEDREAM_MAX_STEPS);
    CU_ASSERT(lr_baseline_pipedream_steps(4, 8166)
              > LR_BASELINE_PIPEDREAM_MAX_STEPS);
    free(p);
    free(ev);
    lr_tm_free(tm);
    lr_cluster_free(c);
    lr_model_free(m);
}

/* DCs without devices (lightraild's trim leaves a DC whose devices other
 * jobs hold with none).  Four layers of F 1e12, W 1e7, A 1e6; B = 1024,
 * b = 1; dc0 8 devices, dc1 none, dc2 7, all of 50 TFLOP/s (100 x 0.5)
 * and 80 GB; dc0-dc1 and dc1-dc2 at 10 GB/s, dc0-dc2 at 1 GB/s.  Data
 * parallel: until 2026-12-06 the greedy chain went dc0, dc1, dc2 and the
 * plan held dc1 as a replica of 0 devices (its link in the ring), a plan
 * lr_tm_evaluate() refuses.  With no devices anywhere, data parallelism
 * answered LR_TM_OK with T = inf, and PipeDream walked back cells it
 * had never written (N = 0); both now say LR_TM_DEVICES. */
static void
test_baselines_without_devices(void)
{
    struct lr_layer layers[4];
    for (int l = 0; l < 4; l++)
        layers[l] = (struct lr_layer) { 1e12, 1e7, 1e6 };
    struct lr_model *m = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_model_from_layers("four", layers, 4, &m), 0);
    struct lr_cluster *c = lr_cluster_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(lr_cluster_add_type(c, "gpu", 100e12, 0.5, 80e9), 0);
    CU_ASSERT_EQUAL(lr_cluster_add_dc(c, "dc0", "gpu", 8, 100e9, 1e-5, NULL),
                    0);
    CU_ASSERT_EQUAL(lr_cluster_add_dc(c, "dc1", "gpu", 8, 100e9, 1e-5, NULL),
                    0);
    CU_ASSERT_EQUAL(lr_cluster_add_dc(c, "dc2", "gpu", 7, 100e9, 1e-5, NULL),
                    0);
    CU_ASSERT_EQUAL(lr_cluster_add_link(c, "dc0", "dc1", 10e9, 1e-3), 0);
    CU_ASSERT_EQUAL(lr_cluster_add_link(c, "dc1", "dc2", 10e9, 1e-3), 0);
    CU_ASSERT_EQUAL(lr_cluster_add_link(c, "dc0", "dc2", 1e9, 1e-3), 0);
    struct lr_train tr = { 1024, 1, 2 };
    struct lr_tm *tm;
    CU_ASSERT_EQUAL_FATAL(lr_tm_new(m, c, &tr, &tm), 0);
    tm->dcs[1].n_devices = 0;
    struct lr_plan *p = malloc(sizeof *p);
    struct lr_tm_eval *ev = malloc(sizeof *ev);
    CU_ASSERT_FATAL(p && ev);
    CU_ASSERT_EQUAL(lr_baseline_dp(tm, p, ev), LR_TM_OK);
    CU_ASSERT(isfinite(ev->T));
    for (int s = 0; s < p->n_stages; s++) {
        CU_ASSERT_NOT_EQUAL(p->stages[s].dc, 1);
        CU_ASSERT(p->stages[s].g >= 1);
    }
    CU_ASSERT_EQUAL(lr_baseline_pipedream(tm, p, ev), LR_TM_OK);
    for (int s = 0; s < p->n_stages; s++)
        CU_ASSERT_NOT_EQUAL(p->stages[s].dc, 1);

    for (int k = 0; k < 3; k++)
        tm->dcs[k].n_devices = 0;
    CU_ASSERT_EQUAL(lr_baseline_dp(tm, p, ev), LR_TM_DEVICES);
    CU_ASSERT_EQUAL(ev->why, LR_TM_DEVICES);
    CU_ASSERT(isinf(ev->T));
    CU_ASSERT_EQUAL(lr_baseline_pipedream(tm, p, ev), LR_TM_DEVICES);
    CU_ASSERT_EQUAL(ev->why, LR_TM_DEVICES);
    CU_ASSERT(isinf(ev->T));
    /* A planner that answers "memory" there (CDynP does) is explained
     * by what is missing, the devices, not "layer 1 alone needs inf GB"
     * (review, 2026-12-06). */
    char why[512];
    lr_tm_explain(tm, LR_TM_MEMORY, why, sizeof why);
    CU_ASSERT_PTR_NULL(strstr(why, "inf"));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "no data center has a device"));
    if (!strstr(why, "no data center has a device"))
        fprintf(stderr, "memory without devices: %s\n", why);
    free(p);
    free(ev);
    lr_tm_free(tm);
    lr_cluster_free(c);
    lr_model_free(m);
}

static CU_TestInfo tests[] = {
    { "pipedream past its work bound is refused at once", test_pipedream_work_bound },
    { "zone: the fewest DCs first", test_zone_fewest_dcs },
    { "zone: the pair follows the measured network",
      test_zone_follows_telemetry },
    { "data parallel by hand", test_dp_by_hand },
    { "data parallel and PipeDream on DCs without devices",
      test_baselines_without_devices },
    { "PipeDream: more stages than a plan holds are refused as such",
      test_pipedream_too_many_stages },
    { "PipeDream and SPP never beat the exact optimum",
      test_baselines_against_exact },
    { "SPP equals whole-range CDynP inside one DC",
      test_spp_is_cdynp_in_one_dc },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN("baseline", tests)
