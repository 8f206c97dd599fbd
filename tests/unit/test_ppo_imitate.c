/*
 * Imitation of a teacher (planner/lr_ppo_imitate.h): the cross-entropy's
 * gradient against finite differences, masked actions outside the loss
 * exactly, bad rows refused without a change, the returns and the
 * reservoir by hand, the weight of one label (refusals) and of single
 * rows (a rollout's deviations), determinism, and DAgger on a small joint
 * environment learning two different teachers (greedy, and the slowest
 * feasible candidate) to >= 95% agreement on states of seeds it never
 * trained on.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "planner/lr_jenv.h"
#include "planner/lr_ppo_imitate.h"
#include "tests/lr_test.h"

static struct lr_ppo *
agent(int n_obs, int n_act, int hidden, uint64_t seed)
{
    struct lr_ppo_config c;
    lr_ppo_defaults(&c, n_obs, n_act);
    c.hidden[0] = c.hidden[1] = hidden;
    c.seed = seed;
    c.n_steps = 256;
    c.n_minibatches = 2;     /* batch capacity 128 rows */
    struct lr_ppo *p = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_ppo_new(&c, &p), 0);
    return p;
}

/* Random rows: observations in [-1, 1], masks with at least one allowed
 * action, and an allowed action for each. */
static void
random_rows(struct lr_rng *r, int n, int no, int na, float *obs,
            uint8_t *mask, int *act)
{
    for (int i = 0; i < n * no; i++)
        obs[i] = (float) (lr_rng_uniform(r) * 2 - 1);
    for (int t = 0; t < n; t++) {
        uint8_t *m = mask + (size_t) t * na;
        int any = 0;
        for (int a = 0; a < na; a++)
            any += m[a] = lr_rng_below(r, 2);
        if (!any)
            m[lr_rng_below(r, (uint32_t) na)] = 1;
        do
            act[t] = (int) lr_rng_below(r, (uint32_t) na);
        while (!m[act[t]]);
    }
}

/* The mean cross-entropy in double, one row at a time (the reference),
 * rows labelled 'wa' weighing 'w' (w = 0: every row 1). */
static double
ref_loss(struct lr_ppo *p, int n, const float *obs, const uint8_t *mask,
         const int *act, int wa, double w)
{
    int no = p->cfg.n_obs, na = p->cfg.n_act;
    double x[16], z[16], total = 0;
    for (int t = 0; t < n; t++) {
        for (int i = 0; i < no; i++)
            x[i] = obs[t * no + i];
        lr_mlp_forward(p->actor, x, z);
        double mx = -INFINITY, s = 0;
        for (int a = 0; a < na; a++)
            if (mask[t * na + a])
                mx = fmax(mx, z[a]);
        for (int a = 0; a < na; a++)
            if (mask[t * na + a])
                s += exp(z[a] - mx);
        double wt = w > 0 && act[t] == wa ? w : 1.0;
        total += wt * (mx + log(s) - z[act[t]]) / n;
    }
    return total;
}

/* 200 rows (two passes of the 128-row capacity): loss and gradient of
 * the batched (float) path against the double reference and its central
 * finite differences, on float-representable weights, unweighted and
 * with action 2's rows weighing 3.  Tolerances as in test_ppo.c's PPO
 * loss: 2e-6 absolute (float rounding of O(1) terms), else 1e-4
 * relative. */
static void
check_gradient(int wa, double w)
{
    enum { NO = 4, NA = 6, N = 200 };
    struct lr_ppo *p = agent(NO, NA, 8, 3);
    struct lr_rng r;
    lr_rng_seed(&r, 4);
    float obs[N * NO];
    uint8_t mask[N * NA];
    int act[N];
    random_rows(&r, N, NO, NA, obs, mask, act);
    struct lr_mlp *m = p->actor;
    for (int i = 0; i < m->n_params; i++)
        m->params[i] = (float) (m->params[i] * 30);   /* not near uniform */
    lr_mlp_params_changed(m);
    double l = lr_ppo_imitate_loss_grad(p, N, obs, mask, act, wa, w);
    CU_ASSERT(fabs(l - ref_loss(p, N, obs, mask, act, wa, w)) < 1e-5);
    double *g = malloc((size_t) m->n_params * sizeof *g);
    memcpy(g, m->grad, (size_t) m->n_params * sizeof *g);
    double worst = 0, gmax = 0;
    for (int i = 0; i < m->n_params; i++) {
        double keep = m->params[i], h = 1e-6;
        m->params[i] = keep + h;
        double lp = ref_loss(p, N, obs, mask, act, wa, w);
        m->params[i] = keep - h;
        double lm = ref_loss(p, N, obs, mask, act, wa, w);
        m->params[i] = keep;
        double fd = (lp - lm) / (2 * h);
        gmax = fmax(gmax, fabs(fd));
        if (fabs(fd - g[i]) > 2e-6)
            worst = fmax(worst, fabs(fd - g[i]) / fmax(1e-6, fabs(fd)));
    }
    CU_ASSERT(gmax > 1e-3);   /* a gradient to check */
    CU_ASSERT(worst < 1e-4);
    if (w > 0) {
        /* the weight is in the loss: not the unweighted one */
        double l1 = lr_ppo_imitate_loss_grad(p, N, obs, mask, act, -1, 0);
        CU_ASSERT(fabs(l - l1) > 1e-3);
        CU_ASSERT(isnan(lr_ppo_imitate_loss_grad(p, N, obs, mask, act, wa,
                                                 -1)));
    }
    free(g);
    lr_ppo_free(p);
}

static void
test_gradient(void)
{
    check_gradient(-1, 0);
    check_gradient(2, 3.0);
}

/* An action masked in every row: its output bias has gradient exactly
 * 0, raising its logit by 50 changes the loss not at all, and after
 * training the policy still never picks a masked action while the
 * allowed ones are learnt. */
static void
test_masked_excluded(void)
{
    enum { NO = 3, NA = 5, N = 128 };
    struct lr_ppo *p = agent(NO, NA, 8, 5);
    struct lr_rng r;
    lr_rng_seed(&r, 6);
    float obs[N * NO];
    uint8_t mask[N * NA];
    int act[N];
    random_rows(&r, N, NO, NA, obs, mask, act);
    for (int t = 0; t < N; t++) {
        mask[t * NA + 2] = 0;                 /* action 2: never allowed */
        mask[t * NA + 4] = 1;
        if (act[t] == 2)
            act[t] = 4;
    }
    struct lr_mlp *m = p->actor;
    int ob = m->n_params - NA;                /* the output biases */
    double l0 = lr_ppo_imitate_loss_grad(p, N, obs, mask, act, -1, 0);
    CU_ASSERT_EQUAL(m->grad[ob + 2], 0.0);
    CU_ASSERT(m->grad[ob + 4] != 0.0);
    m->params[ob + 2] += 50;
    lr_mlp_params_changed(m);
    CU_ASSERT_EQUAL(lr_ppo_imitate_loss_grad(p, N, obs, mask, act, -1, 0), l0);
    m->params[ob + 2] -= 50;
    lr_mlp_params_changed(m);
    /* The teacher: the allowed action of the largest obs-weighted score,
     * a function of the state the actor can learn. */
    struct lr_ppo_imitate_stats st;
    for (int it = 0; it < 300; it++) {
        for (int t = 0; t < N; t++) {
            double best = -INFINITY;
            for (int a = 0; a < NA; a++) {
                double s = obs[t * NO + a % NO] * (a < NO ? 1 : -1);
                if (mask[t * NA + a] && s > best) {
                    best = s;
                    act[t] = a;
                }
            }
        }
        CU_ASSERT_EQUAL_FATAL(lr_ppo_imitate_step(p, N, obs, mask, act, NULL,
                                                  3e-3, &st), 0);
        random_rows(&r, N, NO, NA, obs, mask, act);
        for (int t = 0; t < N; t++)
            mask[t * NA + 2] = 0, mask[t * NA + 4] = 1;
    }
    CU_ASSERT(st.agreement > 0.9);
    int picked_masked = 0;
    for (int t = 0; t < N; t++) {
        double logp;
        int a = lr_ppo_act(p, obs + t * NO, mask + t * NA, true, &logp, NULL);
        picked_masked += !mask[t * NA + a];
        a = lr_ppo_act(p, obs + t * NO, mask + t * NA, false, NULL, NULL);
        picked_masked += !mask[t * NA + a];
    }
    CU_ASSERT_EQUAL(picked_masked, 0);
    lr_ppo_free(p);
}

/* The L2 norm of a network's gradient, computed here. */
static double
grad_l2(const struct lr_mlp *m)
{
    double s = 0;
    for (int i = 0; i < m->n_params; i++)
        s += m->grad[i] * m->grad[i];
    return sqrt(s);
}

/* A step's gradient norms are each network's, before clipping (the
 * clip, 1e-3, is far below them), as PPO's update reports them; the
 * critic's 0 when no returns are fitted.  Before, one grad_norm, the
 * actor's alone, while the update's was the two added. */
static void
test_grad_norm_stat(void)
{
    enum { NO = 3, NA = 4, N = 12 };
    struct lr_ppo *p = agent(NO, NA, 8, 31);
    p->cfg.max_grad_norm = 1e-3;
    struct lr_rng r;
    lr_rng_seed(&r, 32);
    float obs[N * NO];
    uint8_t mask[N * NA];
    int act[N];
    double ret[N];
    random_rows(&r, N, NO, NA, obs, mask, act);
    for (int t = 0; t < N; t++)
        ret[t] = lr_rng_uniform(&r) * 4 - 2;
    struct lr_ppo_imitate_stats st;
    CU_ASSERT_EQUAL_FATAL(lr_ppo_imitate_step(p, N, obs, mask, act, ret,
                                              1e-3, &st), 0);
    double na = grad_l2(p->actor), nc = grad_l2(p->critic);
    CU_ASSERT(na > 1e-2 && nc > 1e-2);
    CU_ASSERT_DOUBLE_EQUAL(st.actor_grad_norm, na, 1e-9 * na);
    CU_ASSERT_DOUBLE_EQUAL(st.critic_grad_norm, nc, 1e-9 * nc);
    CU_ASSERT_EQUAL_FATAL(lr_ppo_imitate_step(p, N, obs, mask, act, NULL,
                                              1e-3, &st), 0);
    na = grad_l2(p->actor);
    CU_ASSERT_DOUBLE_EQUAL(st.actor_grad_norm, na, 1e-9 * na);
    CU_ASSERT_EQUAL(st.critic_grad_norm, 0);
    lr_ppo_free(p);
}

/* A masked or out-of-range teacher action, no rows or a bad learning
 * rate: EINVAL, and the weights and Adam's state as they were. */
static void
test_bad_rows(void)
{
    enum { NO = 3, NA = 4, N = 10 };
    struct lr_ppo *p = agent(NO, NA, 8, 7);
    struct lr_rng r;
    lr_rng_seed(&r, 8);
    float obs[N * NO];
    uint8_t mask[N * NA];
    int act[N];
    random_rows(&r, N, NO, NA, obs, mask, act);
    size_t bytes = (size_t) p->actor->n_params * sizeof *p->actor->params;
    double *keep = malloc(bytes);
    memcpy(keep, p->actor->params, bytes);
    mask[5 * NA + act[5]] = 0;
    CU_ASSERT_EQUAL(lr_ppo_imitate_step(p, N, obs, mask, act, NULL, 1e-3,
                                        NULL), EINVAL);
    CU_ASSERT(isnan(lr_ppo_imitate_loss_grad(p, N, obs, mask, act, -1, 0)));
    mask[5 * NA + act[5]] = 1;
    int a = act[7];
    act[7] = NA;
    CU_ASSERT_EQUAL(lr_ppo_imitate_step(p, N, obs, mask, act, NULL, 1e-3,
                                        NULL), EINVAL);
    act[7] = -1;
    CU_ASSERT_EQUAL(lr_ppo_imitate_step(p, N, obs, mask, act, NULL, 1e-3,
                                        NULL), EINVAL);
    act[7] = a;
    CU_ASSERT_EQUAL(lr_ppo_imitate_step(p, 0, obs, mask, act, NULL, 1e-3,
                                        NULL), EINVAL);
    CU_ASSERT_EQUAL(lr_ppo_imitate_step(p, N, obs, mask, act, NULL, 0,
                                        NULL), EINVAL);
    CU_ASSERT_EQUAL(memcmp(keep, p->actor->params, bytes), 0);
    CU_ASSERT_EQUAL(p->adam_actor.t, 0);
    /* The good rows do step, and finish() clears Adam's state only. */
    CU_ASSERT_EQUAL(lr_ppo_imitate_step(p, N, obs, mask, act, NULL, 1e-3,
                                        NULL), 0);
    CU_ASSERT(memcmp(keep, p->actor->params, bytes) != 0);
    CU_ASSERT_EQUAL(p->adam_actor.t, 1);
    memcpy(keep, p->actor->params, bytes);
    lr_ppo_imitate_finish(p);
    CU_ASSERT_EQUAL(p->adam_actor.t, 0);
    CU_ASSERT_EQUAL(p->adam_actor.m[0], 0.0);
    CU_ASSERT_EQUAL(memcmp(keep, p->actor->params, bytes), 0);
    free(keep);
    lr_ppo_free(p);
}

/* Returns along two environments in lockstep, by hand (gamma 0.5):
 *   env 0: rewards -1, -2, -3, last value 4:  R = -1 + 0.5 (-2 + 0.5 (-3
 *          + 0.5 * 4)) = -2.25, then -2.5, -1;
 *   env 1: rewards -1, -1 (end), -2, last value 8: R = -1.5, -1, 2.
 * Then the reservoir: capacity 8, 5 more segments of 6: 36 offered, 8
 * kept, each a state that was offered. */
static void
test_returns_and_reservoir(void)
{
    struct lr_ppo_imitate_config c = {
        .capacity = 8, .segment = 6, .n_envs = 2, .minibatch = 4,
        .gamma = 0.5, .seed = 1,
    };
    struct lr_ppo_imitate *im = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_ppo_imitate_new(1, 2, &c, &im), 0);
    static const double rw[6] = { -1, -1, -2, -1, -3, -2 };
    static const bool dn[6] = { false, false, false, true, false, false };
    uint8_t mask[2] = { 1, 1 };
    for (int t = 0; t < 6; t++) {
        float o = (float) t;
        CU_ASSERT_EQUAL(lr_ppo_imitate_store(im, &o, mask, t % 2, rw[t],
                                             dn[t]), t == 5);
    }
    double last[2] = { 4, 8 };
    lr_ppo_imitate_close(im, last);
    static const double want[6] = { -2.25, -1.5, -2.5, -1, -1, 2 };
    CU_ASSERT_EQUAL(im->size, 6);
    for (int t = 0; t < 6; t++) {
        CU_ASSERT_DOUBLE_EQUAL(im->ret[t], want[t], 1e-12);
        CU_ASSERT_EQUAL(im->obs[t], (float) t);
        CU_ASSERT_EQUAL(im->act[t], t % 2);
    }
    for (int s = 0; s < 5; s++) {
        for (int t = 0; t < 6; t++) {
            float o = (float) (6 + s * 6 + t);
            lr_ppo_imitate_store(im, &o, mask, 0, 0, false);
        }
        lr_ppo_imitate_close(im, last);
    }
    CU_ASSERT_EQUAL(im->size, 8);
    CU_ASSERT_EQUAL(im->offered, 36);
    int late = 0;
    for (int i = 0; i < 8; i++) {
        CU_ASSERT(im->obs[i] >= 0 && im->obs[i] < 36);
        late += im->obs[i] >= 8;
    }
    CU_ASSERT(late > 0);   /* later states replaced early ones */
    /* A bad segment (an odd count for 2 environments) is dropped. */
    float o = 0;
    lr_ppo_imitate_store(im, &o, mask, 0, 0, false);
    lr_ppo_imitate_close(im, last);
    CU_ASSERT_EQUAL(im->offered, 36);
    struct lr_ppo_imitate_config bad = c;
    bad.segment = 5;
    struct lr_ppo_imitate *x = NULL;
    CU_ASSERT_EQUAL(lr_ppo_imitate_new(1, 2, &bad, &x), EINVAL);
    bad = c;
    bad.capacity = 3;
    CU_ASSERT_EQUAL(lr_ppo_imitate_new(1, 2, &bad, &x), EINVAL);
    CU_ASSERT_PTR_NULL(x);
    lr_ppo_imitate_free(im);
}

/* The fit's label weight: one segment of 64 random rows, one epoch of
 * one minibatch of all of them, from the same agent each time.  Weight
 * 1 counts the label's rows and leaves the weights as without a weight,
 * bit for bit; weight 4 changes them; weight 4 on a label no row has
 * leaves them as without.  A negative weight or a label out of range is
 * EINVAL. */
/* With 'by_row', the weight w of label wa's rows is given per state
 * (lr_ppo_imitate_store_w) instead of by the config; *rows and
 * *agreement are then the heavy rows'. */
static void
fit_weighted(int wa, double w, bool by_row, int all_but, float *params,
             long *rows, double *agreement)
{
    enum { NO = 3, NA = 4, N = 64 };
    struct lr_ppo *p = agent(NO, NA, 8, 5);
    struct lr_ppo_imitate_config c = {
        .capacity = N, .segment = N, .n_envs = 1, .minibatch = N,
        .gamma = 0.5, .seed = 6, .label_action = by_row ? -1 : wa,
        .label_weight = by_row ? 0 : w,
    };
    struct lr_ppo_imitate *im = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_ppo_imitate_new(NO, NA, &c, &im), 0);
    struct lr_rng r;
    lr_rng_seed(&r, 7);
    float obs[N * NO];
    uint8_t mask[N * NA];
    int act[N];
    random_rows(&r, N, NO, NA, obs, mask, act);
    for (int t = 0; t < N; t++)
        if (act[t] == all_but) {          /* relabel to another allowed */
            mask[t * NA + (all_but + 1) % NA] = 1;
            act[t] = (all_but + 1) % NA;
        }
    for (int t = 0; t < N; t++) {
        if (by_row)
            lr_ppo_imitate_store_w(im, obs + t * NO, mask + t * NA, act[t],
                                   act[t] == wa ? w : 1.0, -1, false);
        else
            lr_ppo_imitate_store(im, obs + t * NO, mask + t * NA, act[t],
                                 -1, false);
    }
    double last = 0;
    lr_ppo_imitate_close(im, &last);
    struct lr_ppo_imitate_stats st;
    CU_ASSERT_EQUAL_FATAL(lr_ppo_imitate_fit(im, p, 1, 1e-2, true, &st), 0);
    CU_ASSERT_EQUAL(st.rows, N);
    memcpy(params, p->actor->params,
           (size_t) p->actor->n_params * sizeof *params);
    *rows = by_row ? st.heavy_rows : st.label_rows;
    *agreement = by_row ? st.heavy_agreement : st.label_agreement;
    lr_ppo_imitate_free(im);
    lr_ppo_free(p);
}

static void
fit_labelled(int wa, double w, int all_but, float *params, long *rows,
             double *agreement)
{
    fit_weighted(wa, w, false, all_but, params, rows, agreement);
}

static void
test_label_weight(void)
{
    enum { MAXP = 1024 };
    float off[MAXP], one[MAXP], four[MAXP], absent[MAXP];
    long r_off, r_one, r_four, r_absent;
    double a_off, a_one, a_four, a_absent;
    fit_labelled(-1, 0, -1, off, &r_off, &a_off);
    fit_labelled(2, 1, -1, one, &r_one, &a_one);
    fit_labelled(2, 4, -1, four, &r_four, &a_four);
    struct lr_ppo *p = agent(3, 4, 8, 5);
    size_t bytes = (size_t) p->actor->n_params * sizeof(float);
    CU_ASSERT_FATAL(p->actor->n_params <= MAXP);
    lr_ppo_free(p);
    CU_ASSERT_EQUAL(r_off, 0);
    CU_ASSERT(r_one > 0 && r_one < 64);   /* some rows of label 2 */
    CU_ASSERT_EQUAL(r_four, r_one);
    CU_ASSERT(a_one >= 0 && a_one <= 1);
    CU_ASSERT(memcmp(off, one, bytes) == 0);
    CU_ASSERT(memcmp(off, four, bytes) != 0);
    /* no row labelled 2: the weight has nothing to weigh */
    fit_labelled(-1, 0, 2, off, &r_off, &a_off);
    fit_labelled(2, 4, 2, absent, &r_absent, &a_absent);
    CU_ASSERT_EQUAL(r_absent, 0);
    CU_ASSERT(memcmp(off, absent, bytes) == 0);
    struct lr_ppo_imitate_config bad = {
        .capacity = 8, .segment = 8, .n_envs = 1, .minibatch = 8,
        .gamma = 0.5, .seed = 1, .label_action = 2, .label_weight = -1,
    };
    struct lr_ppo_imitate *x = NULL;
    CU_ASSERT_EQUAL(lr_ppo_imitate_new(3, 4, &bad, &x), EINVAL);
    bad.label_weight = 2;
    bad.label_action = 4;
    CU_ASSERT_EQUAL(lr_ppo_imitate_new(3, 4, &bad, &x), EINVAL);
    bad.label_action = -1;
    CU_ASSERT_EQUAL(lr_ppo_imitate_new(3, 4, &bad, &x), EINVAL);
    CU_ASSERT_PTR_NULL(x);
}

/* Weights per row (lr_ppo_imitate_store_w, lr_ppo_imitate_loss_grad_rows):
 * weight 3 on the rows labelled 2 is the label weight 3 bit for bit,
 * in the loss, its gradient and a fit through the buffer; all 1 is no
 * weight at all; weights not finite and positive are refused. */
static void
test_row_weights(void)
{
    enum { NO = 4, NA = 6, N = 200, MAXP = 1024 };
    struct lr_ppo *p = agent(NO, NA, 8, 3);
    struct lr_rng r;
    lr_rng_seed(&r, 4);
    float obs[N * NO];
    uint8_t mask[N * NA];
    int act[N];
    double w[N], ones[N];
    random_rows(&r, N, NO, NA, obs, mask, act);
    int heavy = 0;
    for (int t = 0; t < N; t++) {
        w[t] = act[t] == 2 ? 3.0 : 1.0;
        heavy += act[t] == 2;
        ones[t] = 1.0;
    }
    CU_ASSERT(heavy > 0 && heavy < N);
    struct lr_mlp *m = p->actor;
    size_t gb = (size_t) m->n_params * sizeof *m->grad;
    double *g = malloc(gb);
    double l3 = lr_ppo_imitate_loss_grad(p, N, obs, mask, act, 2, 3.0);
    memcpy(g, m->grad, gb);
    double lr3 = lr_ppo_imitate_loss_grad_rows(p, N, obs, mask, act, w);
    CU_ASSERT_EQUAL(l3, lr3);
    CU_ASSERT(memcmp(g, m->grad, gb) == 0);
    CU_ASSERT(fabs(lr3 - ref_loss(p, N, obs, mask, act, 2, 3.0)) < 1e-5);
    double l0 = lr_ppo_imitate_loss_grad(p, N, obs, mask, act, -1, 0);
    memcpy(g, m->grad, gb);
    CU_ASSERT_EQUAL(lr_ppo_imitate_loss_grad_rows(p, N, obs, mask, act,
                                                  ones), l0);
    CU_ASSERT(memcmp(g, m->grad, gb) == 0);
    CU_ASSERT(fabs(l0 - lr3) > 1e-3);
    double bad[] = { 0.0, -1.0, INFINITY, NAN };
    for (int i = 0; i < 4; i++) {
        w[7] = bad[i];
        CU_ASSERT(isnan(lr_ppo_imitate_loss_grad_rows(p, N, obs, mask, act,
                                                      w)));
    }
    free(g);
    lr_ppo_free(p);

    /* Through the buffer: the same weights, stored per state. */
    float byc[MAXP], byr[MAXP], off[MAXP], onesr[MAXP];
    long rc, rr, ro, r1;
    double ac, ar, ao, a1;
    fit_weighted(2, 4, false, -1, byc, &rc, &ac);
    fit_weighted(2, 4, true, -1, byr, &rr, &ar);
    fit_weighted(-1, 0, false, -1, off, &ro, &ao);
    fit_weighted(2, 1, true, -1, onesr, &r1, &a1);
    p = agent(3, 4, 8, 5);
    size_t bytes = (size_t) p->actor->n_params * sizeof(float);
    CU_ASSERT_FATAL(p->actor->n_params <= MAXP);
    lr_ppo_free(p);
    CU_ASSERT(memcmp(byc, byr, bytes) == 0);
    CU_ASSERT(memcmp(byr, off, bytes) != 0);
    CU_ASSERT(memcmp(onesr, off, bytes) == 0);
    CU_ASSERT(rr > 0 && rr == rc);        /* the heavy rows: label 2's */
    CU_ASSERT_EQUAL(ar, ac);
    CU_ASSERT_EQUAL(r1, 0);               /* weight 1 is not heavy */
}

/* ---- DAgger on a joint environment ----
 * ROADMs A, B, C in a ring (100 km fibres, 16 slots); dc0: 8 fast GPUs
 * on A, dc1: 8 GPUs of half the speed on B, dc2: 4 fast GPUs on C; a
 * 4-layer model; jobs of 2, 4 or 8 GPUs; K = 2 routes; 3 + 6 x 2 x 3 =
 * 39 candidates.  Load 3 E: the network is often partly full, so the
 * mask and the choices vary. */
static struct lr_topo *topo;
static struct lr_cluster *cl;
static struct lr_model *model;

static int
setup(void)
{
    openblas_set_num_threads(1);
    topo = lr_topo_new("abc");
    cl = lr_cluster_new();
    struct lr_layer layers[4] = {
        { 1e12, 1e6, 1e6 }, { 2e12, 2e6, 1e6 },
        { 3e12, 3e6, 2e6 }, { 4e12, 4e6, 1e6 },
    };
    const char *nodes[3] = { "A", "B", "C" };
    for (int i = 0; i < 3; i++)
        if (!topo || lr_topo_add_node(topo, nodes[i]))
            return 1;
    for (int i = 0; i < 3; i++) {
        char name[16];
        int j = (i + 1) % 3;
        snprintf(name, sizeof name, "%s-%s", nodes[i], nodes[j]);
        if (lr_topo_add_link(topo, name, i, j, 100, 16, 0))
            return 1;
        snprintf(name, sizeof name, "%s-%s", nodes[j], nodes[i]);
        if (lr_topo_add_link(topo, name, j, i, 100, 16, 0))
            return 1;
    }
    return !cl || lr_cluster_add_type(cl, "fast", 200e12, 0.5, 80e9)
           || lr_cluster_add_type(cl, "slow", 100e12, 0.5, 80e9)
           || lr_cluster_add_dc(cl, "dc0", "fast", 8, 100e9, 5e-6, "A")
           || lr_cluster_add_dc(cl, "dc1", "slow", 8, 100e9, 5e-6, "B")
           || lr_cluster_add_dc(cl, "dc2", "fast", 4, 100e9, 5e-6, "C")
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

static struct lr_jenv *
jenv(void)
{
    struct lr_jenv_config c = {
        .load = 3, .holding = 1, .k = 2, .guard = 1, .block_penalty = 2,
        .train = { .batch = 8, .micro = 1, .elem_bytes = 2 },
        .n_models = 1, .models = { model }, .n_demands = 3,
        .demands = { 2, 4, 8 }, .holding_mode = LR_JENV_HOLD_WORK,
    };
    struct lr_jenv *e = NULL;
    char err[256];
    int rc = lr_jenv_new(topo, cl, &c, &e, err, sizeof err);
    if (rc)
        fprintf(stderr, "lr_jenv_new: %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL_FATAL(lr_jenv_n_actions(e), 39);
    return e;
}

/* A teacher unlike greedy: the slowest feasible candidate (largest T;
 * ties: the lowest index). */
static int
slowest_choose(void *arg, const struct lr_jenv *e, const uint8_t *mask,
               struct lr_rng *rng)
{
    (void) arg;
    (void) rng;
    int best = -1;
    for (int a = 0; a < lr_jenv_n_cands(e); a++)
        if (mask[a] && (best < 0 || lr_jenv_cand_time(e, a)
                                    > lr_jenv_cand_time(e, best)))
            best = a;
    return best;
}

static const struct lr_jenv_policy slowest = {
    "slowest", "the slowest feasible candidate", slowest_choose, NULL,
    false,
};

/* DAgger as lightrail train runs it (one environment): segments of 512
 * decisions, the teacher acting in the first, the student after; 'segs'
 * segments, each followed by 2 x 512 / 64 = 16 minibatch steps (fewer
 * than train's 4 epochs: the batched passes run about 500 times slower
 * under valgrind, and 6 segments of these reach 100% agreement here
 * already); returns the agent. */
static struct lr_ppo *
dagger(struct lr_jenv *e, const struct lr_jenv_policy *teacher, int segs,
       uint64_t seed)
{
    int no = lr_jenv_obs_size(e), na = lr_jenv_n_actions(e);
    struct lr_ppo_config pc;
    lr_ppo_defaults(&pc, no, na);
    pc.hidden[0] = pc.hidden[1] = 32;
    pc.seed = seed;
    struct lr_ppo *p = NULL;
    CU_ASSERT_FATAL(lr_ppo_new(&pc, &p) == 0);
    struct lr_ppo_imitate_config ic = {
        .capacity = 8192, .segment = 512, .n_envs = 1, .minibatch = 64,
        .gamma = 0.5, .seed = seed,
    };
    struct lr_ppo_imitate *im = NULL;
    CU_ASSERT_FATAL(lr_ppo_imitate_new(no, na, &ic, &im) == 0);
    float *obs = malloc((size_t) no * sizeof *obs);
    uint8_t *mask = malloc((size_t) na);
    struct lr_rng trng;
    lr_rng_seed(&trng, seed + 1);
    lr_jenv_reset(e, seed * 1000, 0);
    for (int s = 0; s < segs; s++) {
        bool full = false;
        while (!full) {
            lr_jenv_observe(e, obs);
            memcpy(mask, lr_jenv_mask(e), (size_t) na);
            int ta = teacher->choose(NULL, e, mask, &trng);
            CU_ASSERT_FATAL(ta >= 0 && mask[ta]);
            int sa = lr_ppo_act(p, obs, mask, false, NULL, NULL);
            double r = lr_jenv_step(e, s ? sa : ta);
            full = lr_ppo_imitate_store(im, obs, mask, ta, r, false);
        }
        double v;
        lr_jenv_observe(e, obs);
        lr_ppo_act(p, obs, lr_jenv_mask(e), false, NULL, &v);
        lr_ppo_imitate_close(im, &v);
        CU_ASSERT_EQUAL_FATAL(lr_ppo_imitate_fit(im, p, 2, 3e-3, true, NULL),
                              0);
    }
    lr_ppo_imitate_free(im);
    free(obs);
    free(mask);
    return p;
}

/* Share of the student's own states, on seeds the training never saw,
 * where its most probable action is the teacher's; also its blocking. */
static double
agreement(struct lr_jenv *e, struct lr_ppo *p,
          const struct lr_jenv_policy *teacher, int n, double *blocking)
{
    int no = lr_jenv_obs_size(e), agreed = 0, seen = 0;
    float *obs = malloc((size_t) no * sizeof *obs);
    struct lr_rng trng;
    lr_rng_seed(&trng, 99);
    for (uint64_t seed = 777001; seed < 777003; seed++) {
        lr_jenv_reset(e, seed, 0);
        for (int i = 0; i < n / 2; i++) {
            const uint8_t *mask = lr_jenv_mask(e);
            lr_jenv_observe(e, obs);
            int sa = lr_ppo_act(p, obs, mask, false, NULL, NULL);
            agreed += sa == teacher->choose(NULL, e, mask, &trng);
            seen++;
            lr_jenv_step(e, sa);
        }
    }
    struct lr_jenv_metrics m;
    lr_jenv_metrics(e, &m);
    *blocking = m.blocking;
    free(obs);
    return (double) agreed / seen;
}

static void
learns_teacher(const struct lr_jenv_policy *teacher)
{
    struct lr_jenv *e = jenv();
    struct lr_ppo *p = dagger(e, teacher, 6, 11);
    double bs, bt;
    double a = agreement(e, p, teacher, 4000, &bs);
    /* The teacher's own blocking on the last of those seeds. */
    struct lr_jenv_metrics m;
    lr_jenv_run(e, teacher, NULL, 777002, 2000, 0, &m);
    bt = m.blocking;
    printf("\n  %s: agreement %.4f on unseen states, blocking student "
           "%.4f teacher %.4f ", teacher->name, a, bs, bt);
    CU_ASSERT(a >= 0.95);
    /* An untrained agent does not agree (the assertion can fail). */
    struct lr_ppo *q = dagger(e, teacher, 0, 11);
    double a0 = agreement(e, q, teacher, 4000, &bs);
    printf("untrained %.4f ", a0);
    CU_ASSERT(a0 < 0.8);
    lr_ppo_free(q);
    lr_ppo_free(p);
    lr_jenv_free(e);
}

static void
test_learns_greedy(void)
{
    learns_teacher(&lr_jenv_greedy);
}

static void
test_learns_slowest(void)
{
    learns_teacher(&slowest);
}

/* Same seed, same weights; another seed, others. */
static void
test_deterministic(void)
{
    struct lr_jenv *e = jenv();
    struct lr_ppo *p = dagger(e, &lr_jenv_greedy, 3, 5);
    struct lr_ppo *q = dagger(e, &lr_jenv_greedy, 3, 5);
    struct lr_ppo *o = dagger(e, &lr_jenv_greedy, 3, 6);
    size_t ba = (size_t) p->actor->n_params * sizeof(double);
    size_t bc = (size_t) p->critic->n_params * sizeof(double);
    CU_ASSERT_EQUAL(memcmp(p->actor->params, q->actor->params, ba), 0);
    CU_ASSERT_EQUAL(memcmp(p->critic->params, q->critic->params, bc), 0);
    CU_ASSERT(memcmp(p->actor->params, o->actor->params, ba) != 0);
    lr_ppo_free(p);
    lr_ppo_free(q);
    lr_ppo_free(o);
    lr_jenv_free(e);
}

/* lr_ppo_jenv_policy's batched decisions (single precision) are its
 * one-at-a-time ones (double), wherever the two largest allowed logits
 * are further apart than rounding could move them; the states: clones
 * of a run, more than twice the agent's room.  A batch beyond the room
 * grows it, and chooses as passes within the old room do, exactly. */
static void
test_choose_batch(void)
{
    struct lr_jenv *e = jenv();
    struct lr_ppo *p = dagger(e, &lr_jenv_greedy, 2, 5);
    int n = 2 * p->cap + 3, na = lr_jenv_n_actions(e);
    struct lr_jenv **env = calloc((size_t) n, sizeof *env);
    int *act = malloc((size_t) n * sizeof *act);
    CU_ASSERT_FATAL(env && act);
    struct lr_rng r;
    lr_rng_seed(&r, 3);
    lr_jenv_reset(e, 4242, 0);
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++)
            lr_jenv_step(e, lr_jenv_greedy.choose(NULL, e, lr_jenv_mask(e),
                                                  &r));
        CU_ASSERT_EQUAL_FATAL(lr_jenv_clone(e, &env[i]), 0);
    }
    int cap = p->cap, *small = malloc((size_t) n * sizeof *small);
    CU_ASSERT_FATAL(small != NULL);
    for (int i = 0; i < n; i += cap)
        CU_ASSERT_EQUAL_FATAL(lr_ppo_jenv_policy.choose_batch(
                                  p, n - i < cap ? n - i : cap, env + i,
                                  small + i), 0);
    CU_ASSERT_EQUAL(p->cap, cap);
    CU_ASSERT_EQUAL_FATAL(lr_ppo_jenv_policy.choose_batch(p, n, env, act),
                          0);
    CU_ASSERT_EQUAL(p->cap, n);
    CU_ASSERT_EQUAL(memcmp(small, act, (size_t) n * sizeof *act), 0);
    free(small);
    int same = 0, clear = 0;
    for (int i = 0; i < n; i++) {
        const uint8_t *mask = lr_jenv_mask(env[i]);
        int a = lr_ppo_jenv_policy.choose(p, env[i], mask, &r);
        /* p->logits: the double pass just taken. */
        double top = -INFINITY, second = -INFINITY;
        for (int k = 0; k < na; k++)
            if (mask[k] && p->logits[k] > top) {
                second = top;
                top = p->logits[k];
            } else if (mask[k] && p->logits[k] > second) {
                second = p->logits[k];
            }
        if (top - second > 1e-4) {
            clear++;
            same += a == act[i];
        }
    }
    CU_ASSERT(clear > n / 2);
    CU_ASSERT_EQUAL(same, clear);
    /* An environment of another size is refused. */
    struct lr_jenv_config c = {
        .load = 3, .holding = 1, .k = 1, .guard = 1, .block_penalty = 2,
        .train = { .batch = 8, .micro = 1, .elem_bytes = 2 },
        .n_models = 1, .models = { model }, .n_demands = 1,
        .demands = { 2 },
    };
    struct lr_jenv *other = NULL;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(lr_jenv_new(topo, cl, &c, &other, err, sizeof err),
                          0);
    CU_ASSERT_EQUAL(lr_ppo_jenv_policy.choose_batch(p, 1, &other, act),
                    EINVAL);
    lr_jenv_free(other);
    for (int i = 0; i < n; i++)
        lr_jenv_free(env[i]);
    free(env);
    free(act);
    lr_ppo_free(p);
    lr_jenv_free(e);
}

/* A cut episode (lr_ppo_imitate_truncate) bootstraps from the value of
 * the state after it, an ended one from 0 (gamma 0.5):
 *   env 0: rewards -1, -2, -3, last value 4: R = -2.25, -2.5, -1;
 *   env 1: rewards -1, -1 (cut, V of the next state 6), -2, last value
 *          8: R_3 = -1 + 0.5 * 6 = 2, R_1 = -1 + 0.5 * 2 = 0, R_5 = 2.
 * Before the call existed, `lightrail train` stored every cut (every
 * --episode steps of a process that never ends) as an end: R_3 = -1,
 * R_1 = -1.5, the critic fitted to returns short of gamma V(s'). */
static void
test_returns_truncated(void)
{
    struct lr_ppo_imitate_config c = {
        .capacity = 8, .segment = 6, .n_envs = 2, .minibatch = 4,
        .gamma = 0.5, .seed = 1,
    };
    struct lr_ppo_imitate *im = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_ppo_imitate_new(1, 2, &c, &im), 0);
    static const double rw[6] = { -1, -1, -2, -1, -3, -2 };
    static const bool dn[6] = { false, false, false, true, false, false };
    uint8_t mask[2] = { 1, 1 };
    CU_ASSERT_EQUAL(lr_ppo_imitate_truncate(im, 0, 6), EINVAL);
    for (int t = 0; t < 6; t++) {
        float o = (float) t;
        lr_ppo_imitate_store(im, &o, mask, t % 2, rw[t], dn[t]);
        if (t % 2 == 0)
            continue;
        /* After both environments' step, as lightrail train marks. */
        CU_ASSERT_EQUAL(lr_ppo_imitate_truncate(im, 0, 6), EINVAL);
        if (t == 3) {
            CU_ASSERT_EQUAL(lr_ppo_imitate_truncate(im, 1, INFINITY),
                            EINVAL);
            CU_ASSERT_EQUAL(lr_ppo_imitate_truncate(im, 1, 6), 0);
        } else {
            CU_ASSERT_EQUAL(lr_ppo_imitate_truncate(im, 1, 6), EINVAL);
        }
    }
    CU_ASSERT_EQUAL(lr_ppo_imitate_truncate(im, 2, 6), EINVAL);
    double last[2] = { 4, 8 };
    lr_ppo_imitate_close(im, last);
    static const double want[6] = { -2.25, 0, -2.5, 2, -1, 2 };
    /* The one cut is counted (what lightrail train prints), the ends
     * are not. */
    CU_ASSERT_EQUAL(im->truncated, 1);
    CU_ASSERT_EQUAL_FATAL(im->size, 6);
    for (int t = 0; t < 6; t++)
        CU_ASSERT_DOUBLE_EQUAL(im->ret[t], want[t], 1e-12);
    /* The next segment starts with no bootstrap left over: an end at
     * state 3 is an end again. */
    for (int t = 0; t < 6; t++) {
        float o = (float) t;
        lr_ppo_imitate_store(im, &o, mask, 0, rw[t], dn[t]);
    }
    lr_ppo_imitate_close(im, last);
    CU_ASSERT_EQUAL(im->offered, 12);
    CU_ASSERT_EQUAL(im->truncated, 1);
    /* (The reservoir may have dropped that state: checked if kept.) */
    for (int i = 0; i < im->size; i++)
        if (im->obs[i] == 3.0f && im->act[i] == 0)
            CU_ASSERT_DOUBLE_EQUAL(im->ret[i], -1, 1e-12);
    lr_ppo_imitate_free(im);
}

static CU_TestInfo tests[] = {
    { "cross-entropy gradient = finite differences", test_gradient },
    { "masked actions are outside the loss, exactly", test_masked_excluded },
    { "bad rows are refused and change nothing", test_bad_rows },
    { "returns by hand; the reservoir stays bounded",
      test_returns_and_reservoir },
    { "a cut episode's return bootstraps, an ended one's does not",
      test_returns_truncated },
    { "a label's weight: 1 changes nothing, 4 does, unless absent",
      test_label_weight },
    { "weights per row: the label weight's, bit for bit; 1 is none",
      test_row_weights },
    { "DAgger learns greedy (>= 95% on unseen states)", test_learns_greedy },
    { "the agent's batched decisions are its single ones",
      test_choose_batch },
    { "DAgger learns the slowest candidate (>= 95% on unseen states)",
      test_learns_slowest },
    { "same seed, same weights", test_deterministic },
    { "a step's gradient norms are the networks'", test_grad_norm_stat },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN_WITH("ppo_imitate", tests, setup, teardown)
