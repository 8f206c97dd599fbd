/*
 * The iteration-time model v1, term by term, against values computed by
 * hand on the toy instance of lr_test_cluster.h.
 *
 * The plan used throughout: stage 0 = layers 0..1 on dc0 with g = 2,
 * stage 1 = layer 2 on dc0 with g = 2, stage 2 = layer 3 on dc1, g = 1.
 */
#include <math.h>

#include "planner/lr_timemodel.h"
#include "tests/lr_test.h"
#include "tests/unit/lr_test_cluster.h"

static struct lr_model *model;
static struct lr_cluster *cluster;
static struct lr_tm *tm;

static int
setup(void)
{
    model = lr_test_toy_model();
    cluster = lr_test_toy_cluster();
    struct lr_train tr = { 8, 2, 2 };
    return !model || !cluster || lr_tm_new(model, cluster, &tr, &tm);
}

static int
teardown(void)
{
    lr_tm_free(tm);
    lr_cluster_free(cluster);
    lr_model_free(model);
    return 0;
}

static struct lr_plan
the_plan(void)
{
    struct lr_plan p = { .n_stages = 3 };
    p.stages[0] = (struct lr_stage) { 0, 1, 0, 2 };
    p.stages[1] = (struct lr_stage) { 2, 2, 0, 2 };
    p.stages[2] = (struct lr_stage) { 3, 3, 1, 1 };
    return p;
}

static void
test_stage_time(void)
{
    /* t = 3 b sum F / (g P eta):
     * layers 0..1 on dc0, g 2: 3 x 2 x 3e12 / (2 x 100e12 x 0.5) = 0.18 s
     * layer 3 on dc1, g 1:     3 x 2 x 4e12 / (50e12 x 0.4)      = 1.2 s */
    CU_ASSERT_DOUBLE_EQUAL(lr_tm_stage_time(tm, 0, 0, 1, 2), 0.18, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(lr_tm_stage_time(tm, 1, 3, 3, 1), 1.2, 1e-12);
}

static void
test_stage_sync(void)
{
    /* S = 2 (g-1)/g e sum W / beta + 2 (g-1) alpha:
     * layers 0..1 on dc0, g 2: 1 x 2 x 3e6 / 10e9 + 2 x 10e-6 = 6.2e-4 s
     * g = 1: no sync;
     * layer 3 on dc1, g 2: 1 x 2 x 4e6 / 5e9 + 2 x 20e-6 = 1.64e-3 s */
    CU_ASSERT_DOUBLE_EQUAL(lr_tm_stage_sync(tm, 0, 0, 1, 2), 6.2e-4, 1e-15);
    CU_ASSERT_EQUAL(lr_tm_stage_sync(tm, 0, 0, 1, 1), 0);
    CU_ASSERT_DOUBLE_EQUAL(lr_tm_stage_sync(tm, 1, 3, 3, 2), 1.64e-3, 1e-15);
}

static void
test_stage_memory(void)
{
    /* mem = 16 sum W + min(m, p) (b/g) e sum A:
     * layer 3, g 1, p 3: 16 x 4e6 + 3 x 2 x 2 x 1e6 = 76e6 bytes
     * layers 0..1, g 2, p 8 (m = 4 caps it): 16 x 3e6 + 4 x 1 x 2 x 2e6
     *                                        = 64e6 bytes */
    CU_ASSERT_DOUBLE_EQUAL(lr_tm_stage_mem(tm, 3, 3, 1, 3), 76e6, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(lr_tm_stage_mem(tm, 0, 1, 2, 8), 64e6, 1e-6);
    CU_ASSERT(lr_tm_stage_fits(tm, 1, 3, 3, 1, 3));
}

static void
test_boundaries(void)
{
    double c, x;
    /* After layer 1 inside dc0: X = b A e = 2 x 1e6 x 2 = 4e6 bytes,
     * x = 4e6 / 10e9 = 4e-4 s, c = 10e-6 + 4e-4 = 4.1e-4 s. */
    CU_ASSERT_DOUBLE_EQUAL(lr_tm_boundary_bytes(tm, 1), 4e6, 1e-9);
    CU_ASSERT(lr_tm_boundary(tm, 1, 0, 0, &c, &x));
    CU_ASSERT_DOUBLE_EQUAL(x, 4e-4, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(c, 4.1e-4, 1e-15);
    /* After layer 2, dc0 -> dc1: X = 2 x 2e6 x 2 = 8e6 bytes,
     * x = 8e6 / 1.25e9 = 6.4e-3 s, c = 1e-3 + 6.4e-3 = 7.4e-3 s. */
    CU_ASSERT(lr_tm_boundary(tm, 2, 0, 1, &c, &x));
    CU_ASSERT_DOUBLE_EQUAL(x, 6.4e-3, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(c, 7.4e-3, 1e-15);
}

static void
test_iteration_time(void)
{
    /* T = sum t + sum 2c + (m-1) max(t, x) + max S
     *   = (0.18 + 0.18 + 1.2) + 2 (4.1e-4 + 7.4e-3) + 3 x 1.2 + 6.2e-4
     *   = 1.56 + 0.01562 + 3.6 + 0.00062 = 5.17624 s
     * (stage 1 = layer 2 on dc0, g 2: t = 3 x 2 x 3e12 / 1e14 = 0.18 s,
     *  S = 2 x 3e6 / 10e9 + 2e-5 = 6.2e-4 s). */
    struct lr_plan p = the_plan();
    struct lr_tm_eval ev;
    CU_ASSERT_EQUAL_FATAL(lr_tm_evaluate(tm, &p, &ev), LR_TM_OK);
    CU_ASSERT_DOUBLE_EQUAL(ev.compute_sum, 1.56, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ev.comm_sum, 0.01562, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ev.bottleneck, 1.2, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ev.sync_max, 6.2e-4, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(ev.T, 5.17624, 1e-10);
    CU_ASSERT_DOUBLE_EQUAL(ev.mem[2], 76e6, 1e-6);
}

static void
test_optical_mode_link(void)
{
    /* Optical mode: a 400 Gb/s lightpath (5e10 B/s) over 100 km, delta =
     * 5 us/km x 100 = 5e-4 s: x = 8e6 / 5e10 = 1.6e-4, c = 6.6e-4.  The
     * bottleneck stays 1.2 s, so T changes only by 2 (c' - c):
     * 5.17624 + 2 (6.6e-4 - 7.4e-3) = 5.16276 s. */
    struct lr_tm saved = *tm;
    lr_tm_set_link(tm, 0, 1, 5e10, 100 * 5e-6);
    struct lr_plan p = the_plan();
    struct lr_tm_eval ev;
    CU_ASSERT_EQUAL(lr_tm_evaluate(tm, &p, &ev), LR_TM_OK);
    CU_ASSERT_DOUBLE_EQUAL(ev.T, 5.16276, 1e-10);
    *tm = saved;
}

static void
test_infeasible_plans(void)
{
    struct lr_tm_eval ev;
    struct lr_plan p = the_plan();
    /* dc1 has 2 devices. */
    p.stages[2].g = 3;
    CU_ASSERT_EQUAL(lr_tm_evaluate(tm, &p, &ev), LR_TM_DEVICES);
    CU_ASSERT_EQUAL(ev.bad_stage, 2);
    /* A gap: layer 2 skipped. */
    p = the_plan();
    p.stages[1].first = 3;
    CU_ASSERT_EQUAL(lr_tm_evaluate(tm, &p, &ev), LR_TM_SHAPE);
    /* dc0, dc1, dc0: a DC visited twice. */
    p = the_plan();
    p.stages[1].dc = 1;
    p.stages[1].g = 1;
    p.stages[2].dc = 0;
    CU_ASSERT_EQUAL(lr_tm_evaluate(tm, &p, &ev), LR_TM_SHAPE);
    /* The last layer not covered. */
    p = the_plan();
    p.n_stages = 2;
    CU_ASSERT_EQUAL(lr_tm_evaluate(tm, &p, &ev), LR_TM_SHAPE);
    CU_ASSERT(isinf(ev.T));
    /* 76e6 bytes do not fit in 70e6. */
    struct lr_tm saved = *tm;
    tm->dcs[1].mem = 70e6;
    p = the_plan();
    CU_ASSERT_EQUAL(lr_tm_evaluate(tm, &p, &ev), LR_TM_MEMORY);
    CU_ASSERT_EQUAL(ev.bad_stage, 2);
    /* No link between the DCs. */
    *tm = saved;
    lr_tm_set_link(tm, 0, 1, 0, 0);
    CU_ASSERT_EQUAL(lr_tm_evaluate(tm, &p, &ev), LR_TM_NO_LINK);
    *tm = saved;
}

static void
test_bad_training_shape(void)
{
    struct lr_tm *t = NULL;
    struct lr_train odd = { 9, 2, 2 }, zero = { 8, 0, 2 };
    CU_ASSERT_EQUAL(lr_tm_new(model, cluster, &odd, &t), EINVAL);
    CU_ASSERT_EQUAL(lr_tm_new(model, cluster, &zero, &t), EINVAL);
    /* Microbatch counts no int holds (a peer's JOB may say anything):
     * 1e12 was cast to an int, 1e300 / 1e-300 passed as a NaN test. */
    struct lr_train huge[] = {
        { 1e12, 1, 2 }, { 1e300, 1e-300, 2 }, { INFINITY, 1, 2 },
        { NAN, 1, 2 }, { LR_TM_MAX_MICROBATCHES + 1.0, 1, 2 },
    };
    for (size_t i = 0; i < sizeof huge / sizeof *huge; i++)
        CU_ASSERT_EQUAL(lr_tm_new(model, cluster, &huge[i], &t), EINVAL);
    struct lr_train most = { LR_TM_MAX_MICROBATCHES, 1, 2 };
    CU_ASSERT_EQUAL(lr_tm_new(model, cluster, &most, &t), 0);
    lr_tm_free(t);
    t = NULL;
    CU_ASSERT_PTR_NULL(t);
    CU_ASSERT_EQUAL(tm->m, 4);
}

static CU_TestInfo tests[] = {
    { "stage time", test_stage_time },
    { "stage gradient sync", test_stage_sync },
    { "stage memory", test_stage_memory },
    { "boundaries inside and between DCs", test_boundaries },
    { "iteration time T", test_iteration_time },
    { "optical-mode link", test_optical_mode_link },
    { "infeasible plans and their reasons", test_infeasible_plans },
    { "batch not divisible by microbatch", test_bad_training_shape },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN_WITH("timemodel", tests, setup, teardown)
