/*
 * lr_telemetry: counters to throughput and loss, the per-pair sums, the
 * time model's links as measured, and the telemetry-aware score, on the
 * toy instance of lr_test_cluster.h (dc0 -> dc1: 1.25e9 bytes/s, 1 ms).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "planner/lr_telemetry.h"
#include "tests/lr_test.h"
#include "tests/unit/lr_test_cluster.h"

static struct lr_model *model;
static struct lr_cluster *cluster;
static struct lr_tm *tm;
static struct lr_telemetry *tel;

static int
setup(void)
{
    model = lr_test_toy_model();
    cluster = lr_test_toy_cluster();
    tel = malloc(sizeof *tel);
    struct lr_train tr = { 8, 2, 2 };
    return !model || !cluster || !tel || lr_tm_new(model, cluster, &tr, &tm);
}

static int
teardown(void)
{
    lr_tm_free(tm);
    lr_cluster_free(cluster);
    lr_model_free(model);
    free(tel);
    return 0;
}

static void
test_measure(void)
{
    struct lr_counter_sample b = { 1000, 10, 0, 1000 };
    struct lr_counter_sample a = { 1000 + 1000000, 110, 10, 2000 };
    double th = -1, p = -1;
    /* 1e6 bytes in 1 s on a data plane scaled by 2: 2e6 bytes/s; 10 of
     * 110 packets offered were dropped. */
    CU_ASSERT_EQUAL(lr_telemetry_measure(&b, &a, 2, &th, &p), 0);
    CU_ASSERT_DOUBLE_EQUAL(th, 2e6, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(p, 10.0 / 110, 1e-12);
    /* Idle: no packets, no loss. */
    CU_ASSERT_EQUAL(lr_telemetry_measure(&b, &(struct lr_counter_sample)
                                         { 1000, 10, 0, 3000 }, 1, &th, &p),
                    0);
    CU_ASSERT_DOUBLE_EQUAL(th, 0, 0);
    CU_ASSERT_DOUBLE_EQUAL(p, 0, 0);
    /* No time, or counters that went back (a link made again). */
    CU_ASSERT_EQUAL(lr_telemetry_measure(&b, &b, 1, &th, &p), EINVAL);
    CU_ASSERT_EQUAL(lr_telemetry_measure(&a, &(struct lr_counter_sample)
                                         { 5, 1, 0, 9000 }, 1, &th, &p),
                    EINVAL);
}

static void
test_add(void)
{
    lr_telemetry_reset(tel, 2);
    CU_ASSERT_DOUBLE_EQUAL(lr_telemetry_available(tel, 0, 1), 0, 0);
    lr_telemetry_add(tel, 0, 1, 50e9, 10e9, 0.0, 1e-3);
    lr_telemetry_add(tel, 0, 1, 50e9, 30e9, 0.1, 2e-3);
    lr_telemetry_add(tel, 0, 7, 50e9, 30e9, 0.1, 2e-3);   /* ignored */
    const struct lr_link_telemetry *l = &tel->link[0][1];
    CU_ASSERT_TRUE(l->valid);
    CU_ASSERT_DOUBLE_EQUAL(l->capacity, 100e9, 1);
    CU_ASSERT_DOUBLE_EQUAL(l->throughput, 40e9, 1);
    /* Throughput-weighted: (0 x 10 + 0.1 x 30) / 40. */
    CU_ASSERT_DOUBLE_EQUAL(l->loss, 0.075, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(l->delay, 2e-3, 0);
    /* (100 - 40) x (1 - 0.075) Gbytes/s left. */
    CU_ASSERT_DOUBLE_EQUAL(lr_telemetry_available(tel, 0, 1), 55.5e9, 1);
    CU_ASSERT_FALSE(tel->link[1][0].valid);
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
test_apply_and_score(void)
{
    struct lr_plan plan = the_plan();
    struct lr_tm *view = malloc(sizeof *view);
    struct lr_tm_eval *ev = malloc(sizeof *ev);
    CU_ASSERT_PTR_NOT_NULL_FATAL(view);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ev);

    /* Nothing measured: the view is the model, the score is T. */
    lr_telemetry_reset(tel, 2);
    lr_tm_evaluate(tm, &plan, ev);
    double T0 = ev->T;
    CU_ASSERT_DOUBLE_EQUAL(lr_telemetry_score(tm, tel, &plan), T0, 1e-12);

    /* dc0 -> dc1: 1e9 bytes/s of lightpaths, half of it in use, 2 ms:
     * 0.5e9 left, below the cluster's 1.25e9; the latency grows. */
    lr_telemetry_add(tel, 0, 1, 1e9, 0.5e9, 0, 2e-3);
    *view = *tm;
    lr_telemetry_apply(tel, view);
    CU_ASSERT_DOUBLE_EQUAL(view->link[0][1].bw, 0.5e9, 1);
    CU_ASSERT_DOUBLE_EQUAL(view->link[1][0].bw, 0.5e9, 1);
    CU_ASSERT_DOUBLE_EQUAL(view->link[0][1].lat, 2e-3, 0);
    double c, x;
    /* X = 8e6 bytes after layer 2: x = 8e6 / 0.5e9. */
    CU_ASSERT(lr_tm_boundary(view, 2, 0, 1, &c, &x));
    CU_ASSERT_DOUBLE_EQUAL(x, 0.016, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(c, 0.018, 1e-12);
    /* The model itself is untouched by the score. */
    double T1 = lr_telemetry_score(tm, tel, &plan);
    CU_ASSERT(T1 > T0);
    CU_ASSERT_DOUBLE_EQUAL(tm->link[0][1].bw, 1.25e9, 1);
    /* A measurement above the cluster's figure does not raise it. */
    lr_telemetry_reset(tel, 2);
    lr_telemetry_add(tel, 0, 1, 10e9, 0, 0, 0);
    CU_ASSERT_DOUBLE_EQUAL(lr_telemetry_score(tm, tel, &plan), T0, 1e-12);
    /* Everything lost: the plan cannot run over that pair. */
    lr_telemetry_reset(tel, 2);
    lr_telemetry_add(tel, 1, 0, 1e9, 0, 1.0, 0);
    CU_ASSERT(isinf(lr_telemetry_score(tm, tel, &plan)));
    free(view);
    free(ev);
}

static CU_TestInfo tests[] = {
    { "counters to throughput and loss", test_measure },
    { "lightpaths of a pair add up", test_add },
    { "the model as measured, and the score", test_apply_and_score },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN_WITH("telemetry", tests, setup, teardown)
