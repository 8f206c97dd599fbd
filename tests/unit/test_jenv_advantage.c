/*
 * Q-values of the first action by rollouts (planner/lr_jenv_advantage.h)
 * and the rollout policy made of them (planner/lr_jenv_rollout.h): a case
 * computed by hand, a case where the base policy's choice is provably the
 * worse one, reproducibility, and bad calls.
 *
 * The instance: ROADMs A and B (a fibre each way, unused), two DCs on A
 * (so no pair candidates: a job runs in one DC), dc0 with 8 fast GPUs,
 * dc1 with 4 GPUs of half the speed; a 4-layer model that fits one GPU;
 * jobs of 4 or 8 GPUs.  Candidates: 0 = dc0, 1 = dc1.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "planner/lr_jenv_advantage.h"
#include "planner/lr_jenv_rollout.h"
#include "tests/lr_test.h"

/* The futures know what a policy observes (holding times drawn afresh). */
#define OBS LR_JENV_FORK_OBSERVABLE

static struct lr_topo *topo;
static struct lr_cluster *cl;
static struct lr_model *model;

static int
setup(void)
{
    topo = lr_topo_new("a");
    cl = lr_cluster_new();
    struct lr_layer layers[4] = {
        { 1e12, 1e6, 1e6 }, { 2e12, 2e6, 1e6 },
        { 3e12, 3e6, 2e6 }, { 4e12, 4e6, 1e6 },
    };
    return !topo || !cl || lr_topo_add_node(topo, "A")
           || lr_topo_add_node(topo, "B")
           || lr_topo_add_link(topo, "A-B", 0, 1, 10, 8, 0)
           || lr_topo_add_link(topo, "B-A", 1, 0, 10, 8, 0)
           || lr_cluster_add_type(cl, "fast", 200e12, 0.5, 80e9)
           || lr_cluster_add_type(cl, "slow", 100e12, 0.5, 80e9)
           || lr_cluster_add_dc(cl, "dc0", "fast", 8, 100e9, 5e-6, "A")
           || lr_cluster_add_dc(cl, "dc1", "slow", 4, 100e9, 5e-6, "A")
           || lr_model_from_layers("toy", layers, 4, &model);
}

static int
teardown(void)
{
    lr_model_free(model);
    lr_cluster_free(cl);
    lr_topo_free(topo);
    return 0;
}

/* An environment whose first job is one of 4 GPUs at t = 0 (a script of
 * one arrival, holding 'hold'); forks draw Poisson arrivals at 'load'
 * from the mix {4, 8}. */
static struct lr_jenv *
make_known(double load, double hold, bool known, struct lr_jenv **work);

static struct lr_jenv *
make(double load, double hold, struct lr_jenv **work)
{
    return make_known(load, hold, false, work);
}

/* make(), with each job's length known (lr_jenv_config.known_work). */
static struct lr_jenv *
make_known(double load, double hold, bool known, struct lr_jenv **work)
{
    static struct lr_jenv_arrival first;
    first = (struct lr_jenv_arrival) { 0, hold, 0, 0, 0 };
    struct lr_jenv_config c = {
        .load = load, .holding = 1, .k = 1, .guard = 1, .block_penalty = 2,
        .train = { .batch = 8, .micro = 1, .elem_bytes = 2 },
        .n_models = 1, .models = { model }, .n_demands = 2,
        .demands = { 4, 8 }, .trace = &first, .n_trace = 1,
        .known_work = known,
    };
    struct lr_jenv *e = NULL;
    char err[256];
    int rc = lr_jenv_new(topo, cl, &c, &e, err, sizeof err);
    if (rc)
        fprintf(stderr, "lr_jenv_new: %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    lr_jenv_reset(e, 1, 0);
    CU_ASSERT_EQUAL_FATAL(lr_jenv_n_cands(e), 2);
    CU_ASSERT_EQUAL_FATAL(lr_jenv_job_gpus(e), 4);
    CU_ASSERT_FATAL(lr_jenv_mask(e)[0] && lr_jenv_mask(e)[1]);
    CU_ASSERT_EQUAL_FATAL(lr_jenv_clone(e, work), 0);
    return e;
}

/* Load 1e-9: the next arrival comes after every job has left, so
 * admitting blocks nothing and refusing blocks exactly the pending job,
 * in every future. */
static void
test_by_hand(void)
{
    struct lr_jenv *w, *e = make(1e-9, 1, &w);
    struct lr_jenv_q q[3] = { { .action = 0 }, { .action = 1 },
                              { .action = -1 } };
    CU_ASSERT_EQUAL(lr_jenv_qvalues(e, &w, 1, &lr_jenv_greedy, NULL, q, 3, 0,
                                    50, 5, 7, OBS), 0);
    CU_ASSERT_DOUBLE_EQUAL(q[0].blocked, 0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(q[1].blocked, 0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(q[2].blocked, 1, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(q[0].diff, 0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(q[2].diff, 1, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(q[2].diff_se, 0, 1e-12);
    lr_jenv_free(w);
    lr_jenv_free(e);
}

/* The alternatives: top 0 is every other feasible candidate, not none
 * (lightrail-config's ppo-rollout top said "the fastest other candidates
 * tried" without it); top 1 of the one other is that one. */
static void
test_alternatives_top(void)
{
    struct lr_jenv *w, *e = make(1e-9, 1, &w);
    struct lr_jenv_q q[3];
    CU_ASSERT_EQUAL(lr_jenv_alternatives(e, 0, 0, true, q), 3);
    CU_ASSERT_EQUAL(q[0].action, 0);
    CU_ASSERT_EQUAL(q[1].action, 1);
    CU_ASSERT_EQUAL(q[2].action, -1);
    CU_ASSERT_EQUAL(lr_jenv_alternatives(e, 1, 1, false, q), 2);
    CU_ASSERT_EQUAL(q[0].action, 1);
    CU_ASSERT_EQUAL(q[1].action, 0);
    lr_jenv_free(w);
    lr_jenv_free(e);
}

/* Greedy puts the 4-GPU job on the fast dc0; while it holds there (exp
 * mode, mean 1), every 8-GPU arrival is blocked, since dc1 has only 4.
 * On dc1 the same job leaves dc0 whole.  So dc1 blocks fewer:
 * A(s, dc1) < 0 against greedy's dc0, by many standard errors. */
static void
test_greedy_is_not_best_here(void)
{
    struct lr_jenv *w, *e = make(0.5, 20, &w);
    struct lr_rng r;
    lr_rng_seed(&r, 1);
    CU_ASSERT_EQUAL(lr_jenv_greedy.choose(NULL, e, lr_jenv_mask(e), &r), 0);
    struct lr_jenv_q q[2] = { { .action = 0 }, { .action = 1 } };
    CU_ASSERT_EQUAL(lr_jenv_qvalues(e, &w, 1, &lr_jenv_greedy, NULL, q, 2, 0,
                                    400, 10, 11, OBS), 0);
    CU_ASSERT(q[1].blocked < q[0].blocked);
    CU_ASSERT(q[1].diff < -5 * q[1].diff_se);
    CU_ASSERT(q[1].diff_se > 0);
    CU_ASSERT_DOUBLE_EQUAL(q[1].diff, q[1].blocked - q[0].blocked, 1e-9);
    /* The same seed gives the same numbers; 'e' was not moved. */
    struct lr_jenv_q p[2] = { { .action = 0 }, { .action = 1 } };
    CU_ASSERT_EQUAL(lr_jenv_qvalues(e, &w, 1, &lr_jenv_greedy, NULL, p, 2, 0,
                                    400, 10, 11, OBS), 0);
    CU_ASSERT(memcmp(p, q, sizeof p) == 0);
    /* Against dc1 as the reference, the sign turns. */
    CU_ASSERT_EQUAL(lr_jenv_qvalues(e, &w, 1, &lr_jenv_greedy, NULL, p, 2, 1,
                                    400, 10, 11, OBS), 0);
    CU_ASSERT_DOUBLE_EQUAL(p[0].diff, -q[1].diff, 1e-9);
    /* Told that the pending job holds 20 (not 1 on average), the futures
     * see dc0 taken for longer: the slow DC saves more. */
    CU_ASSERT_EQUAL(lr_jenv_qvalues(e, &w, 1, &lr_jenv_greedy, NULL, p, 2, 0,
                                    400, 10, 11, LR_JENV_FORK_KNOWN_WORK), 0);
    CU_ASSERT(p[1].diff < q[1].diff - 5 * (p[1].diff_se + q[1].diff_se));
    lr_jenv_free(w);
    lr_jenv_free(e);
}

/* Greedy, deciding many environments at once (one by one inside): a
 * base with choose_batch, whose futures run side by side.  Counts its
 * calls and the widest. */
static int side_calls, side_widest;

static int
greedy_one(void *arg, const struct lr_jenv *e, const uint8_t *mask,
           struct lr_rng *rng)
{
    return lr_jenv_greedy.choose(arg, e, mask, rng);
}

static int
greedy_batch(void *arg, int n, struct lr_jenv *const *env, int *act)
{
    struct lr_rng r;
    lr_rng_seed(&r, 0);
    for (int i = 0; i < n; i++)
        act[i] = lr_jenv_greedy.choose(arg, env[i], lr_jenv_mask(env[i]), &r);
    side_calls++;
    if (n > side_widest)
        side_widest = n;
    return 0;
}

static const struct lr_jenv_policy greedy_side = {
    "greedy-side", "greedy, deciding many futures at once", greedy_one,
    greedy_batch, false,
};

/* Futures side by side give the numbers of futures one at a time,
 * exactly: 3 of the 2 actions a step in 7 clones (a remainder: 400 is
 * not a multiple of 3), and a single clone falls back to one at a
 * time. */
static void
test_side_by_side(void)
{
    struct lr_jenv *w, *e = make(0.5, 20, &w);
    struct lr_jenv *work[7];
    for (int i = 0; i < 7; i++)
        CU_ASSERT_EQUAL_FATAL(lr_jenv_clone(e, &work[i]), 0);
    struct lr_jenv_q q[2] = { { .action = 0 }, { .action = 1 } };
    struct lr_jenv_q p[2] = { { .action = 0 }, { .action = 1 } };
    CU_ASSERT_EQUAL(lr_jenv_qvalues(e, &w, 1, &lr_jenv_greedy, NULL, q, 2, 0,
                                    400, 10, 11, OBS), 0);
    side_calls = side_widest = 0;
    CU_ASSERT_EQUAL(lr_jenv_qvalues(e, work, 7, &greedy_side, NULL, p, 2, 0,
                                    400, 10, 11, OBS), 0);
    CU_ASSERT(memcmp(p, q, sizeof p) == 0);
    CU_ASSERT(side_calls > 0);
    CU_ASSERT(side_widest > 2 && side_widest <= 6);
    /* It could differ: other seeds give other numbers. */
    CU_ASSERT_EQUAL(lr_jenv_qvalues(e, work, 7, &greedy_side, NULL, p, 2, 0,
                                    400, 10, 12, OBS), 0);
    CU_ASSERT(memcmp(p, q, sizeof p) != 0);
    side_calls = 0;
    CU_ASSERT_EQUAL(lr_jenv_qvalues(e, work, 1, &greedy_side, NULL, p, 2, 0,
                                    400, 10, 11, OBS), 0);
    CU_ASSERT(memcmp(p, q, sizeof p) == 0);
    CU_ASSERT_EQUAL(side_calls, 0);
    for (int i = 0; i < 7; i++)
        lr_jenv_free(work[i]);
    lr_jenv_free(w);
    lr_jenv_free(e);
}

static void
test_bad_calls(void)
{
    struct lr_jenv *w, *e = make(1, 1, &w), *w2, *e2 = make(1, 1, &w2);
    struct lr_jenv_q q[2] = { { .action = 0 }, { .action = 1 } };
    const struct lr_jenv_policy *g = &lr_jenv_greedy;
#define Q(env, work, n, ref, samples, horizon, mode)                         \
    lr_jenv_qvalues(env, &work, 1, g, NULL, q, n, ref, samples, horizon, 1, \
                    mode)
    CU_ASSERT_EQUAL(Q(e, w, 0, 0, 10, 5, OBS), EINVAL);
    CU_ASSERT_EQUAL(Q(e, w, 2, 2, 10, 5, OBS), EINVAL);
    CU_ASSERT_EQUAL(Q(e, w, 2, 0, 1, 5, OBS), EINVAL);
    CU_ASSERT_EQUAL(Q(e, w, 2, 0, 10, 0, OBS), EINVAL);
    CU_ASSERT_EQUAL(Q(e, w2, 2, 0, 10, 5, OBS), EINVAL);
    CU_ASSERT_EQUAL(Q(e, w, 2, 0, 10, 5, (enum lr_jenv_fork_mode) 9), EINVAL);
    CU_ASSERT_EQUAL(lr_jenv_qvalues(e, &w, 0, g, NULL, q, 2, 0, 10, 5, 1,
                                    OBS), EINVAL);
    q[1].action = 2;
    CU_ASSERT_EQUAL(Q(e, w, 2, 0, 10, 5, OBS), EINVAL);
    q[1].action = 1;
    CU_ASSERT_EQUAL(Q(e, w, 2, 0, 10, 5, OBS), 0);
    /* dc0 taken by the first job and the script over: nothing pending. */
    lr_jenv_step(e2, 0);
    CU_ASSERT(lr_jenv_done(e2));
    CU_ASSERT_EQUAL(Q(e2, w2, 2, 0, 10, 5, OBS), EINVAL);
#undef Q
    lr_jenv_free(w2);
    lr_jenv_free(e2);
    lr_jenv_free(w);
    lr_jenv_free(e);
}

/* The rollout policy of greedy, in the states above. */
static int
rollout_choose(struct lr_jenv *e, const struct lr_jenv_rollout_config *c,
               struct lr_jenv_rollout_stats *st)
{
    struct lr_jenv_rollout *ro;
    CU_ASSERT_EQUAL_FATAL(lr_jenv_rollout_new(e, c, &ro), 0);
    struct lr_rng r;
    lr_rng_seed(&r, 3);
    int a = lr_jenv_rollout_policy.choose(ro, e, lr_jenv_mask(e), &r);
    lr_jenv_rollout_stats(ro, st);
    lr_jenv_rollout_free(ro);
    return a;
}

static void
test_rollout_choice(void)
{
    struct lr_jenv *w, *e = make(0.5, 20, &w);
    struct lr_jenv_rollout_config c = { LR_JENV_ROLLOUT_DEFAULTS };
    c.samples = 400;
    c.horizon = 10;
    struct lr_jenv_rollout_stats st;
    /* Greedy takes dc0; its rollout policy sees dc1 block fewer. */
    CU_ASSERT_EQUAL(rollout_choose(e, &c, &st), 1);
    CU_ASSERT_EQUAL(st.decisions, 1);
    CU_ASSERT_EQUAL(st.deliberated, 1);
    CU_ASSERT_EQUAL(st.deviated, 1);
    /* So does the rollout of a base deciding its futures side by side. */
    c.base = &greedy_side;
    side_calls = 0;
    CU_ASSERT_EQUAL(rollout_choose(e, &c, &st), 1);
    CU_ASSERT_EQUAL(st.deviated, 1);
    CU_ASSERT(side_calls > 0);
    c.base = &lr_jenv_greedy;
    CU_ASSERT_EQUAL(st.refused, 0);
    CU_ASSERT_EQUAL(st.screened, 0);
    /* Screened first, dc1 passes and wins on fresh futures. */
    c.screen = 50;
    CU_ASSERT_EQUAL(rollout_choose(e, &c, &st), 1);
    CU_ASSERT_EQUAL(st.screened, 1);
    CU_ASSERT_EQUAL(st.deviated, 1);
    c.screen = 0;
    /* A margin no estimate clears keeps greedy's choice... */
    c.margin = 1e9;
    CU_ASSERT_EQUAL(rollout_choose(e, &c, &st), 0);
    CU_ASSERT_EQUAL(st.deliberated, 1);
    CU_ASSERT_EQUAL(st.deviated, 0);
    /* ... and so does a job below min_gpus, without simulating. */
    c.margin = 0;
    c.min_gpus = 8;
    CU_ASSERT_EQUAL(rollout_choose(e, &c, &st), 0);
    CU_ASSERT_EQUAL(st.decisions, 1);
    CU_ASSERT_EQUAL(st.deliberated, 0);
    lr_jenv_free(w);
    lr_jenv_free(e);
    /* Nobody else ever comes: dc0 and dc1 tie at 0 blocked, refusing
     * costs 1; with no margin at all a tie still keeps greedy's choice. */
    e = make(1e-9, 1, &w);
    c = (struct lr_jenv_rollout_config) { LR_JENV_ROLLOUT_DEFAULTS };
    c.margin = 0;
    c.refusal = true;
    CU_ASSERT_EQUAL(rollout_choose(e, &c, &st), 0);
    CU_ASSERT_EQUAL(st.deliberated, 1);
    CU_ASSERT_EQUAL(st.deviated, 0);
    /* Nothing reads better on the screen: decided there. */
    c.screen = 10;
    CU_ASSERT_EQUAL(rollout_choose(e, &c, &st), 0);
    CU_ASSERT_EQUAL(st.deliberated, 1);
    CU_ASSERT_EQUAL(st.screened, 0);
    lr_jenv_free(w);
    lr_jenv_free(e);
}

/* A job that would hold its GPUs for 200 mean holdings, at 3 E: with
 * its length known, the futures keep it and refusing it (one blocked
 * job) beats every placement (its DC lost for the whole horizon); when
 * the length is not known, the futures draw its holding afresh (mean 1)
 * and the rollout places it. */
static void
test_rollout_known_work(void)
{
    struct lr_jenv_rollout_config c = { LR_JENV_ROLLOUT_DEFAULTS };
    c.samples = 200;
    c.horizon = 20;
    c.refusal = true;
    struct lr_jenv_rollout_stats st;
    struct lr_jenv *w, *e = make_known(3, 200, true, &w);
    CU_ASSERT_DOUBLE_EQUAL(lr_jenv_job_work(e), 200, 1e-9);
    CU_ASSERT_EQUAL(rollout_choose(e, &c, &st), -1);
    CU_ASSERT_EQUAL(st.refused, 1);
    lr_jenv_free(w);
    lr_jenv_free(e);
    e = make_known(3, 200, false, &w);
    CU_ASSERT(rollout_choose(e, &c, &st) >= 0);
    CU_ASSERT_EQUAL(st.refused, 0);
    lr_jenv_free(w);
    lr_jenv_free(e);
}

/* A whole run, Poisson arrivals of 4 and 8 GPUs in the work mode: greedy
 * fills the fast dc0 with 4-GPU jobs and blocks the 8-GPU ones that
 * follow; the rollout policy sends 4-GPU jobs to the slow dc1 when that
 * keeps dc0 whole, and blocks clearly fewer, on the same arrivals. */
static void
test_rollout_run(void)
{
    struct lr_jenv_config cfg = {
        .load = 0.3, .holding = 1, .holding_mode = LR_JENV_HOLD_WORK,
        .k = 1, .guard = 1, .block_penalty = 2,
        .train = { .batch = 8, .micro = 1, .elem_bytes = 2 },
        .n_models = 1, .models = { model }, .n_demands = 2,
        .demands = { 4, 8 },
    };
    struct lr_jenv *e = NULL;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(lr_jenv_new(topo, cl, &cfg, &e, err, sizeof err),
                          0);
    struct lr_jenv_rollout_config c = { LR_JENV_ROLLOUT_DEFAULTS };
    c.samples = 40;
    c.horizon = 20;
    struct lr_jenv_rollout *ro;
    CU_ASSERT_EQUAL_FATAL(lr_jenv_rollout_new(e, &c, &ro), 0);
    struct lr_jenv_metrics g, m, m2;
    lr_jenv_run(e, &lr_jenv_greedy, NULL, 5, 1500, 100, &g);
    lr_jenv_run(e, &lr_jenv_rollout_policy, ro, 5, 1500, 100, &m);
    struct lr_jenv_rollout_stats st;
    lr_jenv_rollout_stats(ro, &st);
    CU_ASSERT(g.blocked > 50);
    CU_ASSERT(m.blocked < 0.9 * g.blocked);
    CU_ASSERT(st.deviated > 0 && st.deviated <= st.deliberated);
    CU_ASSERT(st.deliberated <= st.decisions);
    CU_ASSERT_EQUAL(st.refused, 0);
    /* Deterministic for a seed. */
    lr_jenv_run(e, &lr_jenv_rollout_policy, ro, 5, 1500, 100, &m2);
    CU_ASSERT_EQUAL(m2.blocked, m.blocked);
    CU_ASSERT_DOUBLE_EQUAL(m2.mean_iteration_s, m.mean_iteration_s, 0);
    lr_jenv_rollout_free(ro);
    /* With a screen: fewer full simulations, still clearly better. */
    c.screen = 10;
    CU_ASSERT_EQUAL_FATAL(lr_jenv_rollout_new(e, &c, &ro), 0);
    lr_jenv_run(e, &lr_jenv_rollout_policy, ro, 5, 1500, 100, &m2);
    lr_jenv_rollout_stats(ro, &st);
    CU_ASSERT(m2.blocked < 0.9 * g.blocked);
    CU_ASSERT(st.screened > 0 && st.screened < st.deliberated);
    CU_ASSERT(st.deviated <= st.screened);
    lr_jenv_rollout_free(ro);
    /* Bad configurations. */
    struct lr_jenv_rollout_config bad[6];
    for (int i = 0; i < 6; i++)
        bad[i] = c;
    bad[0].base = NULL;
    bad[1].samples = 1;
    bad[2].horizon = 0;
    bad[3].top = -1;
    bad[4].margin = -1;
    bad[5].screen = 1;
    for (int i = 0; i < 6; i++) {
        ro = (struct lr_jenv_rollout *) 1;
        CU_ASSERT_EQUAL(lr_jenv_rollout_new(e, &bad[i], &ro), EINVAL);
        CU_ASSERT_PTR_NULL(ro);
    }
    lr_jenv_free(e);
}

static CU_TestInfo tests[] = {
    { "the rollout keeps a known length and refuses a huge job",
      test_rollout_known_work },
    { "admit or refuse with nobody else, by hand", test_by_hand },
    { "top 0 is every other feasible candidate", test_alternatives_top },
    { "a slow placement that keeps a DC whole beats greedy",
      test_greedy_is_not_best_here },
    { "futures side by side give the numbers one at a time gives",
      test_side_by_side },
    { "bad calls are refused", test_bad_calls },
    { "the rollout policy leaves greedy only where it pays",
      test_rollout_choice },
    { "the rollout policy blocks fewer than greedy on a run",
      test_rollout_run },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN_WITH("jenv_advantage", tests, setup, teardown)
