/*
 * The MLP and PPO: gradients against central finite differences, the
 * batched paths against the per-sample ones, a tiny masked task learnt
 * with a fixed seed (one environment and four in lockstep), masks never
 * violated under random masks, GAE per environment, determinism, and
 * save/load giving identical outputs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "planner/lr_bytes.h"
#include "planner/lr_ppo.h"
#include "tests/lr_test.h"

static double
max_rel_err(double a, double b)
{
    return fabs(a - b) / fmax(1e-6, fmax(fabs(a), fabs(b)));
}

/* L = sum_i c_i y_i with fixed c: dL/dy = c. */
static void
test_mlp_gradient(void)
{
    struct lr_mlp *m = NULL;
    int hidden[2] = { 7, 6 };
    CU_ASSERT_EQUAL_FATAL(lr_mlp_new(5, hidden, 2, 4, &m), 0);
    struct lr_rng r;
    lr_rng_seed(&r, 42);
    lr_mlp_init(m, &r, 1.0);
    for (int i = 0; i < m->n_params; i++)   /* non-zero biases too */
        m->params[i] += 0.1 * (lr_rng_uniform(&r) - 0.5);
    double x[5], y[4], c[4] = { 0.3, -1.2, 0.7, 2.0 };
    for (int i = 0; i < 5; i++)
        x[i] = lr_rng_uniform(&r) * 2 - 1;
    lr_mlp_zero_grad(m);
    lr_mlp_forward(m, x, y);
    lr_mlp_backward(m, c);
    double worst = 0;
    for (int i = 0; i < m->n_params; i++) {
        double keep = m->params[i], h = 1e-6, lp = 0, lm = 0;
        m->params[i] = keep + h;
        lr_mlp_forward(m, x, y);
        for (int k = 0; k < 4; k++)
            lp += c[k] * y[k];
        m->params[i] = keep - h;
        lr_mlp_forward(m, x, y);
        for (int k = 0; k < 4; k++)
            lm += c[k] * y[k];
        m->params[i] = keep;
        worst = fmax(worst, max_rel_err((lp - lm) / (2 * h), m->grad[i]));
    }
    CU_ASSERT(worst < 1e-5);
    lr_mlp_free(m);
}

/* The batched pass (single precision, lr_mlp.h) over 7 rows against 7
 * single passes (double) on the same float-representable weights and
 * inputs, so that only the arithmetic differs: the outputs agree to float
 * rounding, and the batched gradient of L = sum_r c_r . y_r matches the
 * sum of the per-sample ones and the central finite differences of L
 * evaluated in double by the per-sample pass.  Tolerance: 1e-5 of the
 * largest output or gradient entry.  Float's unit roundoff is 6e-8 and a
 * value here goes through at most 8 products and sums per layer, 3
 * layers and a sum over 7 rows, about 100 roundings (6e-6 at worst,
 * 1e-6 typically); a wrong index or a missing term is off by O(1). */
static void
test_mlp_batch(void)
{
    enum { NI = 5, NO = 4, R = 7 };
    struct lr_mlp *m = NULL;
    int hidden[2] = { 7, 6 };
    CU_ASSERT_EQUAL_FATAL(lr_mlp_new(NI, hidden, 2, NO, &m), 0);
    CU_ASSERT_EQUAL(lr_mlp_reserve(m, 0), EINVAL);
    CU_ASSERT_EQUAL_FATAL(lr_mlp_reserve(m, R), 0);
    struct lr_rng r;
    lr_rng_seed(&r, 43);
    lr_mlp_init(m, &r, 1.0);
    for (int i = 0; i < m->n_params; i++)
        m->params[i] = (float) (m->params[i]
                                + 0.1 * (lr_rng_uniform(&r) - 0.5));
    double x[R * NI], c[R * NO], yb[R * NO], y[NO];
    for (int i = 0; i < R * NI; i++)
        x[i] = (float) (lr_rng_uniform(&r) * 2 - 1);
    for (int i = 0; i < R * NO; i++)
        c[i] = (float) (lr_rng_uniform(&r) * 2 - 1);
    double *gs = calloc((size_t) m->n_params, sizeof *gs);
    lr_mlp_zero_grad(m);
    double fwd_diff = 0, ymax = 0;
    for (int k = 0; k < R; k++) {
        lr_mlp_forward(m, x + k * NI, y);
        lr_mlp_backward(m, c + k * NO);
        for (int o = 0; o < NO; o++)
            yb[k * NO + o] = y[o];
    }
    memcpy(gs, m->grad, (size_t) m->n_params * sizeof *gs);
    lr_mlp_zero_grad(m);
    double yc[R * NO];
    lr_mlp_forward_batch(m, R, x, yc);
    lr_mlp_backward_batch(m, R, c);
    for (int i = 0; i < R * NO; i++) {
        fwd_diff = fmax(fwd_diff, fabs(yc[i] - yb[i]));
        ymax = fmax(ymax, fabs(yb[i]));
    }
    CU_ASSERT(fwd_diff > 0);   /* it is float arithmetic */
    CU_ASSERT(fwd_diff < 1e-5 * ymax);
    double worst_ps = 0, worst_fd = 0, gmax = 0;
    for (int i = 0; i < m->n_params; i++) {
        gmax = fmax(gmax, fabs(gs[i]));
        worst_ps = fmax(worst_ps, fabs(gs[i] - m->grad[i]));
        double keep = m->params[i], h = 1e-6, lp = 0, lm = 0;
        m->params[i] = keep + h;
        for (int k = 0; k < R; k++) {
            lr_mlp_forward(m, x + k * NI, y);
            for (int o = 0; o < NO; o++)
                lp += c[k * NO + o] * y[o];
        }
        m->params[i] = keep - h;
        for (int k = 0; k < R; k++) {
            lr_mlp_forward(m, x + k * NI, y);
            for (int o = 0; o < NO; o++)
                lm += c[k * NO + o] * y[o];
        }
        m->params[i] = keep;
        worst_fd = fmax(worst_fd, fabs((lp - lm) / (2 * h) - m->grad[i]));
    }
    CU_ASSERT(gmax > 0.1);
    CU_ASSERT(worst_ps < 1e-5 * gmax);
    CU_ASSERT(worst_fd < 1e-5 * gmax);
    free(gs);
    lr_mlp_free(m);
}

/* The float copy of the batched path follows the master weights: after
 * lr_mlp_adam_step() it is params rounded to float, so a batched pass
 * gives the same bits as one that rounds them afresh; a write to params
 * announced by lr_mlp_params_changed() reaches the next batched pass. */
static void
test_mlp_float_copy(void)
{
    enum { NI = 5, NO = 3, R = 4 };
    struct lr_mlp *m = NULL;
    int hidden[2] = { 8, 6 };
    CU_ASSERT_EQUAL_FATAL(lr_mlp_new(NI, hidden, 2, NO, &m), 0);
    CU_ASSERT_EQUAL_FATAL(lr_mlp_reserve(m, R), 0);
    struct lr_adam a;
    CU_ASSERT_EQUAL_FATAL(lr_adam_init(&a, m->n_params), 0);
    struct lr_rng r;
    lr_rng_seed(&r, 44);
    lr_mlp_init(m, &r, 1.0);
    double x[R * NI], dy[R * NO], y1[R * NO], y2[R * NO];
    for (int i = 0; i < R * NI; i++)
        x[i] = lr_rng_uniform(&r) * 2 - 1;
    for (int i = 0; i < R * NO; i++)
        dy[i] = lr_rng_uniform(&r) * 2 - 1;
    for (int step = 0; step < 3; step++) {
        lr_mlp_zero_grad(m);
        lr_mlp_forward_batch(m, R, x, y1);
        lr_mlp_backward_batch(m, R, dy);
        lr_mlp_adam_step(m, &a, 1e-2, 1.0);
    }
    int same = 1;
    for (int i = 0; i < m->n_params; i++)
        same &= m->pf[i] == (float) m->params[i];
    CU_ASSERT(same);
    lr_mlp_forward_batch(m, R, x, y1);
    lr_mlp_params_changed(m);
    lr_mlp_forward_batch(m, R, x, y2);
    CU_ASSERT_EQUAL(memcmp(y1, y2, sizeof y1), 0);
    /* A bias of the output layer written directly, then announced. */
    m->params[m->n_params - 1] += 0.5;
    lr_mlp_params_changed(m);
    lr_mlp_forward_batch(m, R, x, y2);
    for (int k = 0; k < R; k++)
        CU_ASSERT(fabs(y2[k * NO + NO - 1] - y1[k * NO + NO - 1] - 0.5)
                  < 1e-6);
    lr_adam_free(&a);
    lr_mlp_free(m);
}

/* A small agent for the tests, with n_envs environments in lockstep
 * (agent(): one, lr_ppo_defaults()'s). */
static struct lr_ppo *
agent_envs(int n_obs, int n_act, uint64_t seed, int n_steps, int n_envs)
{
    struct lr_ppo_config c;
    lr_ppo_defaults(&c, n_obs, n_act);
    c.hidden[0] = c.hidden[1] = 16;
    c.seed = seed;
    c.n_steps = n_steps;
    c.n_envs = n_envs;
    c.lr = 3e-3;
    c.total_steps = 40000;
    struct lr_ppo *p = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_ppo_new(&c, &p), 0);
    return p;
}

static struct lr_ppo *
agent(int n_obs, int n_act, uint64_t seed, int n_steps)
{
    return agent_envs(n_obs, n_act, seed, n_steps, 1);
}

static void
random_mask(struct lr_rng *r, uint8_t *mask, int n)
{
    int any = 0;
    for (int a = 0; a < n; a++)
        any += mask[a] = lr_rng_below(r, 2);
    if (!any)
        mask[lr_rng_below(r, (uint32_t) n)] = 1;
}

/* Fills p's rollout with n transitions: random observations in [-1, 1)
 * and masks, the agent's sampled actions, their log-probabilities and
 * values off by up to +-jitter/2, random rewards, advantages and
 * returns in [-1, 1). */
static void
random_rollout(struct lr_ppo *p, struct lr_rng *r, int n, double jitter)
{
    enum { MAX = 8 };
    int no = p->cfg.n_obs, na = p->cfg.n_act;
    CU_ASSERT_FATAL(no <= MAX && na <= MAX);
    for (int t = 0; t < n; t++) {
        float obs[MAX];
        uint8_t mask[MAX];
        for (int i = 0; i < no; i++)
            obs[i] = (float) (lr_rng_uniform(r) * 2 - 1);
        random_mask(r, mask, na);
        double logp, v;
        int a = lr_ppo_act(p, obs, mask, true, &logp, &v);
        lr_ppo_store(p, obs, mask, a,
                     logp + (lr_rng_uniform(r) - 0.5) * jitter,
                     v + (lr_rng_uniform(r) - 0.5) * jitter,
                     lr_rng_uniform(r), false);
        p->adv[t] = lr_rng_uniform(r) * 2 - 1;
        p->ret[t] = lr_rng_uniform(r) * 2 - 1;
    }
}

/* The agent of the PPO loss tests: 16 transitions (4 batches of the 4
 * rows a minibatch holds) of the per-sample or the batched path, with the
 * anchor term or without; the same seeds, so the same weights and rollout
 * whichever the path. */
enum { LOSS_NO = 3, LOSS_NA = 5, LOSS_N = 16 };

static struct lr_ppo *
loss_agent(bool per_sample, bool anchored)
{
    struct lr_ppo *p = agent(LOSS_NO, LOSS_NA, 9, LOSS_N);
    p->cfg.per_sample = per_sample;
    struct lr_rng r;
    lr_rng_seed(&r, 10);
    /* Old policy and values a little off, inside and outside the clip
     * range. */
    random_rollout(p, &r, LOSS_N, 0.6);
    /* The weights rounded to float, so that the batched (float) pass and
     * the double reference see the same network. */
    struct lr_mlp *nets[2] = { p->actor, p->critic };
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < nets[k]->n_params; i++)
            nets[k]->params[i] = (float) nets[k]->params[i];
    if (anchored) {
        /* The anchor term: anchored here, then the actor moved away from
         * it (at the anchor its gradient is 0), in float values too. */
        CU_ASSERT_EQUAL_FATAL(lr_ppo_anchor(p, 0.7), 0);
        for (int i = 0; i < p->actor->n_params; i++)
            p->actor->params[i] = (float) (p->actor->params[i]
                                           + (lr_rng_uniform(&r) - 0.5) * 0.4);
    }
    lr_mlp_params_changed(p->actor);
    lr_mlp_params_changed(p->critic);
    return p;
}

/* The central finite differences of the whole PPO loss (clipped policy
 * term, entropy of the masked policy, clipped value term) on every weight
 * of p's actor (fd[0]) and critic (fd[1]), in double by the per-sample
 * path; the caller frees both.  p's weights are left as they were, its
 * gradient is not. */
static void
loss_fd(struct lr_ppo *p, double *fd[2])
{
    struct lr_mlp *nets[2] = { p->actor, p->critic };
    bool per_sample = p->cfg.per_sample;
    p->cfg.per_sample = true;
    for (int k = 0; k < 2; k++) {
        struct lr_mlp *m = nets[k];
        fd[k] = malloc((size_t) m->n_params * sizeof *fd[k]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(fd[k]);
        for (int i = 0; i < m->n_params; i++) {
            double keep = m->params[i], h = 1e-6;
            m->params[i] = keep + h;
            double lp = lr_ppo_loss_grad(p, 0, LOSS_N);
            m->params[i] = keep - h;
            double lm = lr_ppo_loss_grad(p, 0, LOSS_N);
            m->params[i] = keep;
            fd[k][i] = (lp - lm) / (2 * h);
        }
    }
    p->cfg.per_sample = per_sample;
}

/* p's gradient by its own path (lr_ppo_loss_grad), which it keeps,
 * against fd. */
static void
loss_gradient_is_fd(struct lr_ppo *p, double *const fd[2])
{
    /* Differences below this are rounding: 1e-7 in double (the finite
     * differences' own error), 2e-6 for the float pass (the loss's terms
     * are O(1) and divided by N = 16; float carries 6e-8 of each through
     * about 100 operations). */
    double abs_floor = p->cfg.per_sample ? 1e-7 : 2e-6;
    lr_ppo_loss_grad(p, 0, LOSS_N);
    struct lr_mlp *nets[2] = { p->actor, p->critic };
    double worst = 0;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < nets[k]->n_params; i++)
            if (fabs(fd[k][i] - nets[k]->grad[i]) > abs_floor)
                worst = fmax(worst, max_rel_err(fd[k][i], nets[k]->grad[i]));
    CU_ASSERT(worst < 1e-4);
}

/* Both paths against finite differences, and against each other: the
 * same loss, the same gradient up to rounding; with the anchor term or
 * without.  Both agents have the same weights and rollout (asserted
 * below), so one set of finite differences, the cost of this test
 * (about 3,000 losses under valgrind), serves both. */
static void
ppo_loss_gradient_paths(bool anchored)
{
    struct lr_ppo *ps = loss_agent(true, anchored);
    struct lr_ppo *bt = loss_agent(false, anchored);
    double *fd[2];
    loss_fd(ps, fd);
    loss_gradient_is_fd(ps, fd);
    loss_gradient_is_fd(bt, fd);
    free(fd[0]);
    free(fd[1]);
    CU_ASSERT_EQUAL(ps->n, bt->n);
    double dl = fabs(lr_ppo_loss_grad(ps, 0, ps->n)
                     - lr_ppo_loss_grad(bt, 0, bt->n));
    /* The batched pass is float (lr_mlp.h): the same loss and gradient
     * as the double reference to float rounding, 1e-5 of the largest
     * entry (test_mlp_batch says why), on the same weights. */
    double gmax = 0, worst = 0;
    struct lr_mlp *a[2] = { ps->actor, ps->critic };
    struct lr_mlp *b[2] = { bt->actor, bt->critic };
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < a[k]->n_params; i++) {
            CU_ASSERT_EQUAL(a[k]->params[i], b[k]->params[i]);
            gmax = fmax(gmax, fabs(a[k]->grad[i]));
            worst = fmax(worst, fabs(a[k]->grad[i] - b[k]->grad[i]));
        }
    CU_ASSERT(dl < 1e-5);
    CU_ASSERT(worst < 1e-5 * gmax);
    lr_ppo_free(ps);
    lr_ppo_free(bt);
}

static void
test_ppo_loss_gradient(void)
{
    ppo_loss_gradient_paths(false);
}

static void
test_anchor_loss_gradient(void)
{
    ppo_loss_gradient_paths(true);
}

/* The anchor's term is c_A KL(pi_0 || pi): 0, with no gradient, where
 * anchored; c_A times a positive KL once the actor has moved; bad
 * coefficients are refused and leave the anchor; 0 removes it. */
static void
test_anchor_term(void)
{
    enum { NO = 3, NA = 5, N = 8 };
    struct lr_ppo *p = agent(NO, NA, 21, N);
    p->cfg.per_sample = true;
    struct lr_rng r;
    lr_rng_seed(&r, 22);
    random_rollout(p, &r, N, 0);
    int np = p->actor->n_params;
    double *g0 = malloc((size_t) np * sizeof *g0);
    double l0 = lr_ppo_loss_grad(p, 0, N);
    memcpy(g0, p->actor->grad, (size_t) np * sizeof *g0);
    CU_ASSERT_EQUAL(lr_ppo_anchor(p, -1), EINVAL);
    CU_ASSERT_EQUAL(lr_ppo_anchor(p, NAN), EINVAL);
    CU_ASSERT_PTR_NULL(p->anchor);
    CU_ASSERT_EQUAL_FATAL(lr_ppo_anchor(p, 2.0), 0);
    CU_ASSERT_EQUAL(lr_ppo_loss_grad(p, 0, N), l0);
    CU_ASSERT_EQUAL(memcmp(g0, p->actor->grad, (size_t) np * sizeof *g0), 0);
    /* Moved: the loss grows by c_A KL, KL > 0. */
    for (int i = 0; i < np; i++)
        p->actor->params[i] += (lr_rng_uniform(&r) - 0.5) * 0.5;
    lr_mlp_params_changed(p->actor);
    struct lr_mlp *anchor = p->anchor;
    double with = lr_ppo_loss_grad(p, 0, N);
    CU_ASSERT_EQUAL(lr_ppo_anchor(p, -3), EINVAL);
    CU_ASSERT_PTR_EQUAL(p->anchor, anchor);
    CU_ASSERT_EQUAL(p->anchor_coef, 2.0);
    CU_ASSERT_EQUAL_FATAL(lr_ppo_anchor(p, 0), 0);
    CU_ASSERT_PTR_NULL(p->anchor);
    double without = lr_ppo_loss_grad(p, 0, N);
    CU_ASSERT(with - without > 1e-6);
    /* Anchored again where it stands: the term is 0 again. */
    CU_ASSERT_EQUAL_FATAL(lr_ppo_anchor(p, 2.0), 0);
    CU_ASSERT_EQUAL(lr_ppo_loss_grad(p, 0, N), without);
    free(g0);
    lr_ppo_free(p);
}

static const double score[4][6] = {
    { 1.0, 0.8, 0.6, 0.4, 0.2, 0.0 },
    { 0.0, 0.2, 0.4, 0.6, 0.8, 1.0 },
    { 0.5, 1.0, 0.0, 0.9, 0.1, 0.3 },
    { 0.2, 0.0, 1.0, 0.1, 0.9, 0.4 },
};

static int
best_allowed(int c, const uint8_t *mask)
{
    int best = -1;
    for (int a = 0; a < 6; a++)
        if (mask[a] && (best < 0 || score[c][a] > score[c][best]))
            best = a;
    return best;
}

/* A context drawn from r into obs (one-hot, zeroed by the caller) and
 * its random mask of the 6 actions; returns the context. */
static int
bandit_draw(struct lr_rng *r, float *obs, uint8_t *mask)
{
    int c = (int) lr_rng_below(r, 4);
    obs[c] = 1;
    random_mask(r, mask, 6);
    return c;
}

/* The share of 1000 greedy decisions, on contexts drawn from r, that
 * take the best allowed action. */
static double
bandit_accuracy(struct lr_ppo *p, struct lr_rng *r)
{
    int right = 0;
    for (int s = 0; s < 1000; s++) {
        float obs[4] = { 0 };
        uint8_t mask[6];
        int c = bandit_draw(r, obs, mask);
        right += lr_ppo_act(p, obs, mask, false, NULL, NULL)
                 == best_allowed(c, mask);
    }
    return right / 1000.0;
}

/* PPO on the bandit for 'steps' decisions; with 'flip', the rewards'
 * signs reversed (the worst allowed action pays most).  Returns the
 * greedy accuracy afterwards. */
static double
train_bandit_flip(struct lr_ppo *p, int steps, uint64_t seed, bool flip)
{
    struct lr_rng r;
    lr_rng_seed(&r, seed);
    for (int s = 0; s < steps; s++) {
        float obs[4] = { 0 };
        uint8_t mask[6];
        int c = bandit_draw(&r, obs, mask);
        double logp, v;
        int a = lr_ppo_act(p, obs, mask, true, &logp, &v);
        CU_ASSERT(a >= 0 && mask[a]);
        double rew = a == best_allowed(c, mask) ? 1 : score[c][a] - 1;
        if (lr_ppo_store(p, obs, mask, a, logp, v, flip ? -rew : rew, true))
            lr_ppo_update(p, 0, NULL);
    }
    return bandit_accuracy(p, &r);
}

static double
train_bandit(struct lr_ppo *p, int steps, uint64_t seed)
{
    return train_bandit_flip(p, steps, seed, false);
}

/* A copy of p as it is: weights, Adam's moments, generator, update
 * count, running returns and the rollout so far, so that the copy and p
 * go on as one agent would (an agent without an anchor).  NULL after a
 * failed assert. */
static struct lr_ppo *
agent_copy(const struct lr_ppo *p)
{
    struct lr_ppo *q = NULL;
    CU_ASSERT_PTR_NULL_FATAL(p->anchor);
    CU_ASSERT_EQUAL_FATAL(lr_ppo_new(&p->cfg, &q), 0);
    const struct lr_mlp *from[2] = { p->actor, p->critic };
    struct lr_mlp *to[2] = { q->actor, q->critic };
    const struct lr_adam *afrom[2] = { &p->adam_actor, &p->adam_critic };
    struct lr_adam *ato[2] = { &q->adam_actor, &q->adam_critic };
    for (int k = 0; k < 2; k++) {
        size_t bytes = (size_t) from[k]->n_params * sizeof(double);
        memcpy(to[k]->params, from[k]->params, bytes);
        lr_mlp_params_changed(to[k]);
        ato[k]->t = afrom[k]->t;
        memcpy(ato[k]->m, afrom[k]->m, bytes);
        memcpy(ato[k]->v, afrom[k]->v, bytes);
    }
    q->rng = p->rng;
    q->updates = p->updates;
    q->freeze_actor = p->freeze_actor;
    memcpy(q->ret_run, p->ret_run, (size_t) p->cfg.n_envs
           * sizeof *q->ret_run);
    q->ret_count = p->ret_count;
    q->ret_mean = p->ret_mean;
    q->ret_m2 = p->ret_m2;
    size_t n = (size_t) p->cfg.n_steps;
    q->n = p->n;
    memcpy(q->obs, p->obs, n * (size_t) p->cfg.n_obs * sizeof *q->obs);
    memcpy(q->mask, p->mask, n * (size_t) p->cfg.n_act);
    memcpy(q->act, p->act, n * sizeof *q->act);
    double *const dfrom[] = { p->logp, p->value, p->reward, p->done,
                              p->adv, p->ret, p->boot };
    double *const dto[] = { q->logp, q->value, q->reward, q->done,
                            q->adv, q->ret, q->boot };
    for (size_t k = 0; k < sizeof dto / sizeof *dto; k++)
        memcpy(dto[k], dfrom[k], n * sizeof(double));
    memcpy(q->cut, p->cut, n);
    return q;
}

/* The agent of test_learns_masked_bandit taught the bandit (agent(4, 6,
 * 7, 256), 20000 decisions from seed 99), and its greedy accuracy then:
 * trained once, on first use, for every test that starts from it (the
 * training is most of this program's time under valgrind); freed by
 * teardown().  Callers train copies (agent_copy), never this one. */
static struct lr_ppo *taught;
static double taught_acc;

static const struct lr_ppo *
taught_bandit(void)
{
    if (!taught) {
        taught = agent(4, 6, 7, 256);
        taught_acc = train_bandit(taught, 20000, 99);
    }
    return taught;
}

/* The bandit with four contexts at a time (n_envs = 4, lockstep):
 * one lr_ppo_act_batch() per step.  With 'env0_ctx0', environment 0
 * draws context 0 only (its mask still random), so that the agent
 * learns contexts 1 to 3 from environments 1 to 3 alone. */
static double
train_bandit_envs(struct lr_ppo *p, int steps, uint64_t seed,
                  bool env0_ctx0)
{
    enum { E = 4 };
    struct lr_rng r;
    lr_rng_seed(&r, seed);
    CU_ASSERT_EQUAL_FATAL(p->cfg.n_envs, E);
    for (int s = 0; s < steps; s += E) {
        float obs[E * 4] = { 0 };
        uint8_t mask[E * 6];
        int ctx[E], act[E];
        double logp[E], v[E], zero[E] = { 0 };
        for (int e = 0; e < E; e++)
            ctx[e] = bandit_draw(&r, obs + e * 4, mask + e * 6);
        if (env0_ctx0) {
            obs[ctx[0]] = 0;
            obs[0] = 1;
            ctx[0] = 0;
        }
        CU_ASSERT_EQUAL(lr_ppo_act_batch(p, E, obs, mask, true, act, logp,
                                         v), 0);
        bool full = false;
        for (int e = 0; e < E; e++) {
            CU_ASSERT(act[e] >= 0 && mask[e * 6 + act[e]]);
            double rew = act[e] == best_allowed(ctx[e], mask + e * 6) ? 1
                         : score[ctx[e]][act[e]] - 1;
            full = lr_ppo_store(p, obs + e * 4, mask + e * 6, act[e],
                                logp[e], v[e], rew, true);
        }
        if (full)
            lr_ppo_update_envs(p, zero, NULL);
    }
    return bandit_accuracy(p, &r);
}

/* 2000 decisions, not 20000: from this seed the agent is at 100% from
 * 2000 on (97.3% at 1000), in test_norm_reward's case and in the
 * 4-env one before its rows differed.  A
 * defect that stops the learning (the scaled reward's sign flipped, or
 * GAE's) leaves it near 13% at 2000 as at 20000; one that only slows
 * it shows the sooner the fewer the decisions (GAE along the first
 * environment only: 84.5% at 1000, 96.9% at 2000, 100% at 20000).  The
 * 20000 were 16 s of each case under valgrind. */
enum { BANDIT_QUICK = 2000 };

/* Four environments whose rows differ: environment 0 sees context 0
 * only, so contexts 1 to 3 are learnt from the other three's rewards.
 * GAE along environment 0 alone (compute_gae's e < 1) leaves their
 * advantages unset and the agent near 46% at 2000, 3000 and 5000
 * decisions, where with the four mixed (train_bandit_envs without
 * env0_ctx0) it was 96.9% at 2000 and passed.  The right code is at
 * 96.1% to 100% after 2000 over ten seeds and at 98.1% to 100% after
 * 3000 over forty (agent 1 to 4 and 7, draws 1 to 7 and 99; -O2 and
 * ASan alike): 3000. */
static void
test_learns_masked_bandit_envs(void)
{
    struct lr_ppo *p = agent_envs(4, 6, 7, 256, 4);
    double after = train_bandit_envs(p, 3000, 99, true);
    CU_ASSERT(after >= 0.95);
    lr_ppo_free(p);
}

/* lr_ppo_act_batch() chooses as lr_ppo_act() does, row by row: the same
 * greedy actions (with logp or without), log-probabilities and values to
 * rounding, and the same draws from the same generator; a batch beyond
 * capacity is refused. */
static void
test_act_batch(void)
{
    enum { NO = 6, NA = 9, E = 8 };
    struct lr_ppo *a = agent_envs(NO, NA, 21, 64, E);
    struct lr_ppo *b = agent_envs(NO, NA, 21, 64, E);
    struct lr_rng r;
    lr_rng_seed(&r, 22);
    int same = 0, rows = 0;
    double worst = 0;
    for (int round = 0; round < 50; round++) {
        float obs[E * NO];
        uint8_t mask[E * NA] = { 0 };
        for (int i = 0; i < E * NO; i++)
            obs[i] = (float) (lr_rng_uniform(&r) * 6 - 3);
        for (int e = 0; e < E; e++)
            if (e != 3)   /* row 3 allows nothing */
                random_mask(&r, mask + e * NA, NA);
        bool sample = round % 2;
        int act[E];
        double lp[E], v[E];
        CU_ASSERT_EQUAL_FATAL(lr_ppo_act_batch(a, E, obs, mask, sample, act,
                                               lp, v), 0);
        for (int e = 0; e < E; e++) {
            double lp1 = 0, v1 = 0;
            int a1 = lr_ppo_act(b, obs + e * NO, mask + e * NA, sample, &lp1,
                                &v1);
            rows++;
            same += a1 == act[e];
            if (a1 >= 0)
                worst = fmax(worst, fmax(fabs(lp1 - lp[e]), fabs(v1 - v[e])));
        }
        /* Greedy without logp (no softmax): the same actions. */
        if (!sample) {
            int act2[E];
            CU_ASSERT_EQUAL_FATAL(lr_ppo_act_batch(a, E, obs, mask, false,
                                                   act2, NULL, NULL), 0);
            for (int e = 0; e < E; e++) {
                rows++;
                same += act2[e] == act[e];
            }
        }
    }
    CU_ASSERT_EQUAL(same, rows);
    /* Float (the batched pass) against double (one sample): the weights'
     * and the products' rounding, about 1e-7 of values of order 1. */
    CU_ASSERT(worst < 1e-5);
    /* Capacity: a minibatch (64 / 4 = 16 rows) here. */
    int n = a->cap + 1;
    CU_ASSERT_EQUAL(a->cap, 16);
    float *obs = calloc((size_t) n * NO, sizeof *obs);
    uint8_t *mask = malloc((size_t) n * NA);
    int *act = malloc((size_t) n * sizeof *act);
    memset(mask, 1, (size_t) n * NA);
    CU_ASSERT_EQUAL(lr_ppo_act_batch(a, n, obs, mask, false, act, NULL,
                                     NULL), EINVAL);
    CU_ASSERT_EQUAL(lr_ppo_act_batch(a, 0, obs, mask, false, act, NULL,
                                     NULL), EINVAL);
    CU_ASSERT_EQUAL(lr_ppo_act_batch(a, n - 1, obs, mask, false, act, NULL,
                                     NULL), 0);
    free(obs);
    free(mask);
    free(act);
    lr_ppo_free(a);
    lr_ppo_free(b);
}

/* lr_ppo_reserve(): an agent read from a file has room for 2 rows; the
 * room grows, never shrinks, and a batch in one pass gives the bits of
 * passes of 2 rows (a row's products do not depend on its neighbours).
 * With an anchor, the anchor's buffers grow too (a minibatch of the new
 * room then trains: valgrind and ASan see the buffers' sizes). */
static void
test_reserve(void)
{
    enum { NO = 4, NA = 6, N = 37 };    /* the bandit's sizes */
    struct lr_ppo *p = agent(NO, NA, 41, 64);
    double acc = train_bandit(p, 1500, 42);
    size_t len = lr_ppo_encoded_size(p);
    uint8_t *buf = malloc(len);
    CU_ASSERT_EQUAL_FATAL(lr_ppo_encode(p, buf, len), len);
    struct lr_ppo *q = NULL;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(lr_ppo_decode(buf, len, &q, err, sizeof err), 0);
    free(buf);
    CU_ASSERT_EQUAL(q->cap, 2);
    struct lr_rng r;
    lr_rng_seed(&r, 43);
    float obs[N * NO];
    uint8_t mask[N * NA];
    for (int i = 0; i < N * NO; i++)
        obs[i] = (float) (lr_rng_uniform(&r) * 4 - 2);
    for (int e = 0; e < N; e++)
        random_mask(&r, mask + e * NA, NA);
    int ref[N], act[N];
    double ref_lp[N], lp[N];
    for (int i = 0; i < N; i += 2)
        CU_ASSERT_EQUAL_FATAL(lr_ppo_act_batch(q, N - i < 2 ? 1 : 2,
                                               obs + i * NO, mask + i * NA,
                                               false, ref + i, ref_lp + i,
                                               NULL), 0);
    CU_ASSERT_EQUAL(lr_ppo_act_batch(q, N, obs, mask, false, act, lp, NULL),
                    EINVAL);
    CU_ASSERT_EQUAL(lr_ppo_reserve(q, 0), EINVAL);
    CU_ASSERT_EQUAL(q->cap, 2);
    CU_ASSERT_EQUAL_FATAL(lr_ppo_reserve(q, N), 0);
    CU_ASSERT_EQUAL(q->cap, N);
    CU_ASSERT_EQUAL(lr_ppo_reserve(q, 3), 0);
    CU_ASSERT_EQUAL(q->cap, N);
    CU_ASSERT_EQUAL_FATAL(lr_ppo_act_batch(q, N, obs, mask, false, act, lp,
                                           NULL), 0);
    CU_ASSERT_EQUAL(memcmp(ref, act, sizeof act), 0);
    CU_ASSERT_EQUAL(memcmp(ref_lp, lp, sizeof lp), 0);
    lr_ppo_free(q);
    /* The anchor's buffers: a minibatch of 64 rows after the growth. */
    CU_ASSERT_EQUAL_FATAL(lr_ppo_anchor(p, 0.1), 0);
    CU_ASSERT_EQUAL_FATAL(lr_ppo_reserve(p, 64), 0);
    CU_ASSERT_EQUAL(p->cap, 64);
    p->cfg.n_minibatches = 1;
    CU_ASSERT(train_bandit(p, 640, 45) >= acc - 0.05);
    lr_ppo_free(p);
}

/* GAE with two environments interleaved (time-major) equals GAE along
 * each one's own sequence, bootstrapped from its own last value, with an
 * episode end inside one of them. */
static void
test_gae_envs(void)
{
    enum { E = 2, T = 5 };
    struct lr_ppo *p = agent_envs(2, 3, 31, E * T, E);
    p->cfg.gamma = 0.9;
    p->cfg.lambda = 0.8;
    struct lr_rng r;
    lr_rng_seed(&r, 32);
    double rew[T][E], val[T][E];
    bool done[T][E] = { { false } };
    done[2][1] = true;
    for (int t = 0; t < T; t++)
        for (int e = 0; e < E; e++) {
            float obs[2] = { (float) t, (float) e };
            uint8_t mask[3] = { 1, 1, 1 };
            rew[t][e] = lr_rng_uniform(&r) * 2 - 1;
            val[t][e] = lr_rng_uniform(&r) * 2 - 1;
            lr_ppo_store(p, obs, mask, 0, -1, val[t][e], rew[t][e],
                         done[t][e]);
        }
    double last[E] = { 0.7, -0.4 };
    /* Episodes that ended are no cuts: none counted. */
    struct lr_ppo_stats st;
    lr_ppo_update_envs(p, last, &st);
    CU_ASSERT_EQUAL(st.truncated, 0);
    double worst = 0;
    for (int e = 0; e < E; e++) {
        double next_adv = 0, next_v = last[e];
        for (int t = T - 1; t >= 0; t--) {
            double nd = done[t][e] ? 0 : 1;
            double delta = rew[t][e] + 0.9 * next_v * nd - val[t][e];
            next_adv = delta + 0.9 * 0.8 * nd * next_adv;
            worst = fmax(worst, fabs(p->adv[t * E + e] - next_adv));
            worst = fmax(worst, fabs(p->ret[t * E + e]
                                     - (next_adv + val[t][e])));
            next_v = val[t][e];
        }
    }
    CU_ASSERT(worst < 1e-12);
    CU_ASSERT_EQUAL(p->n, 0);
    lr_ppo_free(p);
}

/* An episode cut by a time limit (lr_ppo_truncate) is bootstrapped from
 * the value of the state after its last transition, an episode that
 * ended is not: with two environments interleaved, environment 1 cut
 * after step 2 (V of its next state 0.6) and environment 0 ended after
 * step 3, GAE equals the hand computation
 *   delta_t = r_t + gamma (d_t ? B_t : V_{t+1}) - V_t,
 *   A_t = delta_t + gamma lambda (1 - d_t) A_{t+1},
 * B_t = 0.6 for the cut one and 0 for the ended one.  Before
 * lr_ppo_truncate, `lightrail train` stored the end of every episode
 * (every --episode steps of a process that never ends) as done, and the
 * last transitions' targets lost gamma V(s'). */
static void
test_gae_truncation(void)
{
    enum { E = 2, T = 5 };
    struct lr_ppo *p = agent_envs(2, 3, 33, E * T, E);
    p->cfg.gamma = 0.9;
    p->cfg.lambda = 0.8;
    struct lr_rng r;
    lr_rng_seed(&r, 34);
    double rew[T][E], val[T][E], boot[T][E] = { { 0 } };
    bool done[T][E] = { { false } };
    done[2][1] = true;
    boot[2][1] = 0.6;
    done[3][0] = true;
    uint8_t mask[3] = { 1, 1, 1 };
    float obs[2] = { 0, 0 };
    /* Nothing of e stored, e out of range, or e's last transition did
     * not end: refused. */
    CU_ASSERT_EQUAL(lr_ppo_truncate(p, 0, 0.6), EINVAL);
    for (int t = 0; t < T; t++) {
        for (int e = 0; e < E; e++) {
            rew[t][e] = lr_rng_uniform(&r) * 2 - 1;
            val[t][e] = lr_rng_uniform(&r) * 2 - 1;
            lr_ppo_store(p, obs, mask, 0, -1, val[t][e], rew[t][e],
                         done[t][e]);
        }
        /* After the step of both, as lightrail train marks them. */
        for (int e = 0; e < E; e++) {
            if (!done[t][e])
                CU_ASSERT_EQUAL(lr_ppo_truncate(p, e, 0.6), EINVAL);
            if (boot[t][e] != 0) {
                CU_ASSERT_EQUAL(lr_ppo_truncate(p, e, NAN), EINVAL);
                CU_ASSERT_EQUAL(lr_ppo_truncate(p, e, boot[t][e]), 0);
            }
        }
    }
    CU_ASSERT_EQUAL(lr_ppo_truncate(p, E, 0.6), EINVAL);
    CU_ASSERT_EQUAL(lr_ppo_truncate(p, -1, 0.6), EINVAL);
    double last[E] = { 0.7, -0.4 };
    /* The stats count the one cut (the end is none), what lightrail
     * train prints to show its cuts reached GAE. */
    struct lr_ppo_stats st;
    lr_ppo_update_envs(p, last, &st);
    CU_ASSERT_EQUAL(st.truncated, 1);
    double worst = 0;
    for (int e = 0; e < E; e++) {
        double next_adv = 0, next_v = last[e];
        for (int t = T - 1; t >= 0; t--) {
            double nd = done[t][e] ? 0 : 1;
            double next = done[t][e] ? boot[t][e] : next_v;
            double delta = rew[t][e] + 0.9 * next - val[t][e];
            next_adv = delta + 0.9 * 0.8 * nd * next_adv;
            worst = fmax(worst, fabs(p->adv[t * E + e] - next_adv));
            worst = fmax(worst, fabs(p->ret[t * E + e]
                                     - (next_adv + val[t][e])));
            next_v = val[t][e];
        }
    }
    CU_ASSERT(worst < 1e-12);
    /* The cut transition's return is r + gamma 0.6, not r. */
    CU_ASSERT_DOUBLE_EQUAL(p->ret[2 * E + 1], rew[2][1] + 0.9 * 0.6, 1e-12);
    /* A new rollout starts with no bootstrap left over. */
    for (int t = 0; t < E * T; t++)
        lr_ppo_store(p, obs, mask, 0, -1, 0, 1, t == 1 * E + 1);
    lr_ppo_update_envs(p, last, &st);
    CU_ASSERT_DOUBLE_EQUAL(p->ret[1 * E + 1], 1, 1e-12);
    CU_ASSERT_EQUAL(st.truncated, 0);
    lr_ppo_free(p);
}

/* An agent of n_steps 'n' and 'mb' minibatches, one epoch, gamma 0 (a
 * transition's advantage is its own r - V), holding the rollout of
 * seed 50 with reward k raised by 1 (k < 0: none), updated. */
static struct lr_ppo *
minibatch_run(int n, int mb, int k)
{
    struct lr_ppo *p = agent(3, 4, 51, n);
    p->cfg.n_minibatches = mb;
    p->cfg.n_epochs = 1;
    p->cfg.gamma = 0;
    struct lr_rng r;
    lr_rng_seed(&r, 50);
    random_rollout(p, &r, n, 0.2);
    if (k >= 0)
        p->reward[k] += 1;
    lr_ppo_update(p, 0, NULL);
    return p;
}

/* Every transition of a rollout is in a minibatch of each epoch, also
 * when the minibatches do not divide it (10 transitions in 4: each
 * reward changes the critic's weights through its return, none is left
 * out as a remainder; the actor may not move, as the advantages of a
 * minibatch of two normalise to +-1/sqrt 2 whatever they were); a
 * rollout shorter than twice the minibatch count is cut in fewer, of 2
 * transitions or more, and none empty; a configuration with minibatches
 * of one transition is refused. */
static void
test_minibatches_cover(void)
{
    struct lr_ppo *ref = minibatch_run(10, 4, -1);
    for (int k = 0; k < 10; k++) {
        struct lr_ppo *p = minibatch_run(10, 4, k);
        CU_ASSERT(memcmp(p->critic->params, ref->critic->params,
                         (size_t) ref->critic->n_params
                         * sizeof *ref->critic->params) != 0);
        lr_ppo_free(p);
    }
    lr_ppo_free(ref);
    struct lr_ppo *p = agent(3, 4, 52, 8);
    struct lr_rng r;
    lr_rng_seed(&r, 53);
    random_rollout(p, &r, 3, 0.2);
    lr_ppo_update(p, 0, NULL);
    /* 4 epochs of one minibatch of 3 (not 4 of 0, 1, 1 and 1). */
    CU_ASSERT_EQUAL(p->adam_actor.t, 4);
    CU_ASSERT_EQUAL(p->adam_critic.t, 4);
    lr_ppo_free(p);
    /* A minibatch of one transition is refused: its advantage
     * normalises to 0 (an agent with 64 minibatches of one learnt the
     * 4-armed bandit to 24% correct choices, chance). */
    struct lr_ppo_config c;
    lr_ppo_defaults(&c, 3, 4);
    c.n_steps = 64;
    c.n_minibatches = 64;
    CU_ASSERT_EQUAL(lr_ppo_new(&c, &p), EINVAL);
    CU_ASSERT_PTR_NULL(p);
    c.n_minibatches = 33;
    CU_ASSERT_EQUAL(lr_ppo_new(&c, &p), EINVAL);
    c.n_minibatches = 32;
    CU_ASSERT_EQUAL_FATAL(lr_ppo_new(&c, &p), 0);
    lr_ppo_free(p);
}

/* Transitions without a decision (lr_ppo_store): the action -1 that
 * lr_ppo_act gives on a mask that allows nothing, and an action its
 * mask forbids, have only their value term: with every transition so,
 * the actor's gradient is 0 and the loss is the value loss alone (the
 * same by both paths); mixed with decided ones, both paths still agree
 * and the loss stays finite.  Before, the update read logit -1 (out of
 * bounds) and the probabilities of the row before. */
static void
test_undecided_transitions(void)
{
    enum { NO = 3, NA = 4, N = 8 };
    double loss[2], grad[2], vloss[2];
    for (int ps = 0; ps < 2; ps++) {
        struct lr_ppo *p = agent(NO, NA, 60, N);
        p->cfg.per_sample = ps;
        struct lr_rng r;
        lr_rng_seed(&r, 61);
        random_rollout(p, &r, N, 0.3);
        uint8_t none[NA] = { 0 }, some[NA] = { 1, 0, 1, 0 };
        for (int t = 0; t < N; t++) {
            float obs[NO] = { (float) t / N, -0.5f, 0.25f };
            bool empty = t % 2;
            double logp, v;
            int a = lr_ppo_act(p, obs, empty ? none : some, true, &logp,
                               &v);
            CU_ASSERT_EQUAL(a, empty ? -1 : a);
            memcpy(p->obs + t * NO, obs, sizeof obs);
            memcpy(p->mask + t * NA, empty ? none : some, NA);
            p->act[t] = empty ? -1 : 1;      /* 1: forbidden by 'some' */
            p->logp[t] = empty ? -INFINITY : -1;
        }
        loss[ps] = lr_ppo_loss_grad(p, 0, N);
        grad[ps] = 0;
        for (int i = 0; i < p->actor->n_params; i++)
            grad[ps] = fmax(grad[ps], fabs(p->actor->grad[i]));
        /* The value loss alone, from the critic in double. */
        vloss[ps] = 0;
        for (int t = 0; t < N; t++) {
            double x[NO], v;
            for (int k = 0; k < NO; k++)
                x[k] = p->obs[t * NO + k];
            lr_mlp_forward(p->critic, x, &v);
            double dv = fmin(fmax(v - p->value[t], -0.2), 0.2);
            double e1 = (v - p->ret[t]) * (v - p->ret[t]);
            double e2 = (p->value[t] + dv - p->ret[t])
                        * (p->value[t] + dv - p->ret[t]);
            vloss[ps] += 0.5 * 0.5 * fmax(e1, e2) / N;
        }
        CU_ASSERT_EQUAL(grad[ps], 0);
        CU_ASSERT(isfinite(loss[ps]));
        CU_ASSERT_DOUBLE_EQUAL(loss[ps], vloss[ps], 1e-6);
        /* Half of them decided again: a finite loss, a moving actor. */
        for (int t = 0; t < N; t += 2)
            p->act[t] = 2;
        CU_ASSERT(isfinite(lr_ppo_loss_grad(p, 0, N)));
        double g = 0;
        for (int i = 0; i < p->actor->n_params; i++)
            g = fmax(g, fabs(p->actor->grad[i]));
        CU_ASSERT(g > 0 && isfinite(g));
        lr_ppo_update(p, 0, NULL);
        for (int i = 0; i < p->actor->n_params; i++)
            CU_ASSERT_FATAL(isfinite(p->actor->params[i]));
        lr_ppo_free(p);
    }
    CU_ASSERT_DOUBLE_EQUAL(loss[0], loss[1], 1e-5);
}

static void
test_learns_masked_bandit(void)
{
    struct lr_ppo *untrained = agent(4, 6, 7, 256);
    double before = train_bandit(untrained, 0, 99);
    CU_ASSERT_PTR_NOT_NULL_FATAL(taught_bandit());
    CU_ASSERT(taught_acc >= 0.95);
    CU_ASSERT(before < 0.8);
    lr_ppo_free(untrained);
}

/* cfg.norm_reward: each stored reward is the raw one over the
 * population deviation of every discounted return so far (1 for the
 * first), environment e's return updated with the reward first and
 * reset after an end; two environments in lockstep, gamma 0.5.  The
 * expectation is computed here by two passes over the returns, not by
 * the running update the agent uses.  Without the flag, rewards are
 * stored as given.  And the bandit is still learnt with it. */
static void
test_norm_reward(void)
{
    const double r[8] = { 1, -2, 3, 0.5, -1, 4, 2, -3 };
    const bool done[8] = { false, false, true, false, false, false, false,
                           false };
    for (int on = 0; on <= 1; on++) {
        struct lr_ppo_config c;
        lr_ppo_defaults(&c, 2, 2);
        c.n_steps = 8;
        c.n_envs = 2;
        c.n_minibatches = 1;
        c.gamma = 0.5;
        c.norm_reward = on;
        struct lr_ppo *p = NULL;
        CU_ASSERT_EQUAL_FATAL(lr_ppo_new(&c, &p), 0);
        float obs[2] = { 0.5f, -0.5f };
        uint8_t mask[2] = { 1, 1 };
        double g[2] = { 0, 0 }, seen[8];
        for (int t = 0; t < 8; t++) {
            lr_ppo_store(p, obs, mask, 0, -0.7, 0.1, r[t], done[t]);
            int e = t % 2;
            g[e] = 0.5 * g[e] + r[t];
            seen[t] = g[e];
            double mean = 0, var = 0;
            for (int i = 0; i <= t; i++)
                mean += seen[i] / (t + 1);
            for (int i = 0; i <= t; i++)
                var += (seen[i] - mean) * (seen[i] - mean) / (t + 1);
            double want = on ? r[t] / sqrt((t ? var : 1) + 1e-8) : r[t];
            CU_ASSERT_DOUBLE_EQUAL(p->reward[t], want, 1e-12);
            if (done[t])
                g[e] = 0;
        }
        /* By hand: the first reward is unscaled, the second is -2 over
         * the deviation of the returns {1, -2}, 1.5. */
        if (on) {
            CU_ASSERT_DOUBLE_EQUAL(p->reward[0], 1, 1e-7);
            CU_ASSERT_DOUBLE_EQUAL(p->reward[1], -2 / 1.5, 1e-7);
        }
        lr_ppo_free(p);
    }
    struct lr_ppo_config c;
    lr_ppo_defaults(&c, 4, 6);
    c.hidden[0] = c.hidden[1] = 16;
    c.seed = 7;
    c.n_steps = 256;
    c.lr = 3e-3;
    c.total_steps = 40000;
    c.norm_reward = true;
    struct lr_ppo *p = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_ppo_new(&c, &p), 0);
    CU_ASSERT(train_bandit(p, BANDIT_QUICK, 99) >= 0.95);
    lr_ppo_free(p);
}

/* With freeze_actor, an update changes the critic and leaves the actor
 * bit for bit; unfrozen, the next changes both. */
static void
test_freeze_actor(void)
{
    struct lr_ppo *p = agent(4, 6, 31, 64);
    int na = p->actor->n_params, nc = p->critic->n_params;
    double *a0 = malloc((size_t) na * sizeof *a0);
    double *c0 = malloc((size_t) nc * sizeof *c0);
    for (int round = 0; round < 2; round++) {
        p->freeze_actor = round == 0;
        memcpy(a0, p->actor->params, (size_t) na * sizeof *a0);
        memcpy(c0, p->critic->params, (size_t) nc * sizeof *c0);
        train_bandit(p, 64, 32 + (uint64_t) round);
        bool actor_same = !memcmp(a0, p->actor->params,
                                  (size_t) na * sizeof *a0);
        bool critic_same = !memcmp(c0, p->critic->params,
                                   (size_t) nc * sizeof *c0);
        CU_ASSERT_EQUAL(actor_same, round == 0);
        CU_ASSERT(!critic_same);
    }
    free(a0);
    free(c0);
    lr_ppo_free(p);
}

/* A contextual bandit: context c of 4 (one-hot), 6 actions, a random
 * half of them masked at each step; action a pays score[c][a], the best
 * allowed action is worth 1.  Masked, the policy only has to learn an
 * order per context. */
/* An agent taught the bandit, then trained on the reversed rewards:
 * without an anchor it unlearns (accuracy falls); anchored to what it
 * was taught, it keeps most of it.  Both runs start from copies of the
 * same taught agent.  10000 reversed decisions: unanchored, the accuracy
 * is 0.923 after 4000, 0.640 after 6000, 0.430 after 10000 and 0.367
 * after 20000 (the earlier length); anchored, 1.000 at each.  An anchor
 * term of 0 (lr_ppo_anchor keeping its coefficient at 0) makes the
 * anchored run the unanchored one, 0.430, and fails here. */
static void
test_anchor_keeps_start(void)
{
    const struct lr_ppo *start = taught_bandit();
    CU_ASSERT_PTR_NOT_NULL_FATAL(start);
    CU_ASSERT_FATAL(taught_acc >= 0.95);
    double acc[2];
    for (int anchored = 0; anchored < 2; anchored++) {
        struct lr_ppo *p = agent_copy(start);
        if (anchored)
            CU_ASSERT_EQUAL_FATAL(lr_ppo_anchor(p, 10), 0);
        acc[anchored] = train_bandit_flip(p, 10000, 100, true);
        lr_ppo_free(p);
    }
    printf("(accuracy after reversed rewards: %.3f unanchored, %.3f "
           "anchored) ", acc[0], acc[1]);
    CU_ASSERT(acc[0] < 0.6);
    CU_ASSERT(acc[1] >= 0.9);
}

/* Random masks, random observations, sampled and greedy: never a masked
 * action; nothing allowed gives -1; greedy without logp (no softmax)
 * chooses as greedy with it. */
static void
test_masks_never_violated(void)
{
    enum { NO = 6, NA = 40 };
    struct lr_ppo *p = agent(NO, NA, 3, 64);
    struct lr_rng r;
    lr_rng_seed(&r, 4);
    int bad = 0;
    for (int s = 0; s < 5000; s++) {
        float obs[NO];
        uint8_t mask[NA] = { 0 };
        for (int i = 0; i < NO; i++)
            obs[i] = (float) (lr_rng_uniform(&r) * 20 - 10);
        int n_allowed = (int) lr_rng_below(&r, 4);   /* 0..3 allowed */
        for (int i = 0; i < n_allowed; i++)
            mask[lr_rng_below(&r, NA)] = 1;
        double logp, v;
        int a = lr_ppo_act(p, obs, mask, s % 2, &logp, &v);
        int any = 0;
        for (int i = 0; i < NA; i++)
            any |= mask[i];
        if (!any)
            bad += a != -1;
        else
            bad += a < 0 || !mask[a] || !(logp <= 0) || !isfinite(logp);
        /* Greedy without logp skips the softmax: the same action. */
        if (!(s % 2))
            bad += lr_ppo_act(p, obs, mask, false, NULL, NULL) != a;
        if (any && lr_ppo_store(p, obs, mask, a, logp, v,
                                lr_rng_uniform(&r), false))
            lr_ppo_update(p, 0, NULL);
    }
    CU_ASSERT_EQUAL(bad, 0);
    lr_ppo_free(p);
}

static void
test_deterministic(void)
{
    struct lr_ppo *a = agent(4, 6, 5, 128), *b = agent(4, 6, 5, 128);
    train_bandit(a, 1000, 8);
    train_bandit(b, 1000, 8);
    CU_ASSERT_EQUAL(memcmp(a->actor->params, b->actor->params,
                           (size_t) a->actor->n_params * sizeof(double)), 0);
    CU_ASSERT_EQUAL(memcmp(a->critic->params, b->critic->params,
                           (size_t) a->critic->n_params * sizeof(double)), 0);
    lr_ppo_free(a);
    lr_ppo_free(b);
    /* Four environments in lockstep, batched collection and update. */
    a = agent_envs(4, 6, 5, 128, 4);
    b = agent_envs(4, 6, 5, 128, 4);
    train_bandit_envs(a, 1000, 8, false);
    train_bandit_envs(b, 1000, 8, false);
    CU_ASSERT_EQUAL(memcmp(a->actor->params, b->actor->params,
                           (size_t) a->actor->n_params * sizeof(double)), 0);
    CU_ASSERT_EQUAL(memcmp(a->critic->params, b->critic->params,
                           (size_t) a->critic->n_params * sizeof(double)), 0);
    lr_ppo_free(a);
    lr_ppo_free(b);
}

/* The update's gradient-norm statistics, against the networks' own
 * gradients: one epoch of one minibatch leaves that minibatch's
 * gradient in each network (Adam reads it, scaled, and leaves it), so
 * its L2 norms are computed here from the weights' gradients.  The
 * clip (1e-3, far below either norm) scales the steps only: the
 * statistics are the norms before clipping.  Before: one grad_norm,
 * the actor's norm plus the critic's (3.036 = 0.255 + 2.781 here), the
 * norm of nothing. */
static void
test_grad_norm_stat(void)
{
    struct lr_ppo *p = agent(4, 6, 21, 32);
    p->cfg.n_epochs = 1;
    p->cfg.n_minibatches = 1;
    p->cfg.max_grad_norm = 1e-3;
    struct lr_rng r;
    lr_rng_seed(&r, 22);
    random_rollout(p, &r, 32, 0.3);
    struct lr_ppo_stats st;
    lr_ppo_update(p, 0, &st);
    double sa = 0, sc = 0;
    for (int i = 0; i < p->actor->n_params; i++)
        sa += p->actor->grad[i] * p->actor->grad[i];
    for (int i = 0; i < p->critic->n_params; i++)
        sc += p->critic->grad[i] * p->critic->grad[i];
    double na = sqrt(sa), nc = sqrt(sc);
    CU_ASSERT(na > 1e-2 && nc > 1e-2);
    CU_ASSERT_DOUBLE_EQUAL(st.actor_grad_norm, na, 1e-9 * na);
    CU_ASSERT_DOUBLE_EQUAL(st.critic_grad_norm, nc, 1e-9 * nc);
    if (fabs(st.actor_grad_norm - na) > 1e-9 * na
        || fabs(st.critic_grad_norm - nc) > 1e-9 * nc)
        fprintf(stderr, "actor %.17g (want %.17g), critic %.17g (want "
                "%.17g)\n", st.actor_grad_norm, na, st.critic_grad_norm, nc);
    lr_ppo_free(p);
}

/* n_envs must divide the rollout. */
/* Coefficients that would make an update write inf or NaN weights are
 * refused; an infinite clip or gradient norm (no clipping) is not, and
 * trains to finite weights. */
static void
test_coef_config(void)
{
    struct lr_ppo_config c;
    struct lr_ppo *p = NULL;
    double *coef[3] = { &c.lr, &c.ent_coef, &c.vf_coef };
    for (int k = 0; k < 3; k++)
        for (int s = 0; s < 2; s++) {
            lr_ppo_defaults(&c, 4, 6);
            *coef[k] = s ? NAN : INFINITY;
            CU_ASSERT_EQUAL(lr_ppo_new(&c, &p), EINVAL);
            CU_ASSERT_PTR_NULL(p);
        }
    lr_ppo_defaults(&c, 4, 6);
    c.hidden[0] = c.hidden[1] = 8;
    c.n_steps = 64;
    c.clip = INFINITY;
    c.max_grad_norm = INFINITY;
    CU_ASSERT_EQUAL_FATAL(lr_ppo_new(&c, &p), 0);
    train_bandit(p, 128, 7);
    for (int i = 0; i < p->actor->n_params; i++)
        CU_ASSERT_FATAL(isfinite(p->actor->params[i]));
    lr_ppo_free(p);
}

static void
test_envs_config(void)
{
    struct lr_ppo_config c;
    lr_ppo_defaults(&c, 4, 6);
    c.n_steps = 10;
    c.n_minibatches = 2;
    c.n_envs = 4;
    struct lr_ppo *p = NULL;
    CU_ASSERT_EQUAL(lr_ppo_new(&c, &p), EINVAL);
    CU_ASSERT_PTR_NULL(p);
    c.n_envs = 0;
    CU_ASSERT_EQUAL(lr_ppo_new(&c, &p), EINVAL);
    c.n_envs = 5;
    CU_ASSERT_EQUAL_FATAL(lr_ppo_new(&c, &p), 0);
    CU_ASSERT_EQUAL(p->cap, 5);
    lr_ppo_free(p);
}

static void
test_save_load(void)
{
    struct lr_ppo *p = agent(4, 6, 11, 128);
    train_bandit(p, 600, 12);
    size_t n = lr_ppo_encoded_size(p);
    uint8_t *buf = malloc(n);
    CU_ASSERT_EQUAL_FATAL(lr_ppo_encode(p, buf, n), n);
    CU_ASSERT_EQUAL(lr_ppo_encode(p, buf, n - 1), 0);
    struct lr_ppo *q = NULL;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(lr_ppo_decode(buf, n, &q, err, sizeof err), 0);
    struct lr_rng r;
    lr_rng_seed(&r, 13);
    for (int s = 0; s < 200; s++) {
        float obs[4];
        uint8_t mask[6];
        for (int i = 0; i < 4; i++)
            obs[i] = (float) lr_rng_uniform(&r);
        random_mask(&r, mask, 6);
        double lp1, lp2, v1, v2;
        int a1 = lr_ppo_act(p, obs, mask, false, &lp1, &v1);
        int a2 = lr_ppo_act(q, obs, mask, false, &lp2, &v2);
        CU_ASSERT(a1 == a2 && lp1 == lp2 && v1 == v2);
    }
    lr_ppo_free(q);
    /* One flipped bit: the checksum says so. */
    buf[n / 2] ^= 1;
    CU_ASSERT_EQUAL(lr_ppo_decode(buf, n, &q, err, sizeof err), EPROTO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "checksum"));
    CU_ASSERT_PTR_NULL(q);
    buf[n / 2] ^= 1;
    CU_ASSERT_EQUAL(lr_ppo_decode(buf, n - 8, &q, err, sizeof err), EINVAL);
    buf[11] = 9;    /* version 9 */
    CU_ASSERT_EQUAL(lr_ppo_decode(buf, n, &q, err, sizeof err), EPROTO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "version"));
    buf[0] = 'X';
    CU_ASSERT_EQUAL(lr_ppo_decode(buf, n, &q, err, sizeof err), EPROTO);
    free(buf);
    lr_ppo_free(p);
}

/* A file's few header bytes decide how much decoding allocates: sizes
 * whose network would not fit an int's count of parameters are refused
 * by size, with nothing built (before, 1e6 inputs and hidden layers of
 * 1e5 overflowed the count, and the decoder said "out of memory" or
 * tried to build it); the critic's weights are checked as the actor's. */
static void
test_decode_hostile(void)
{
    uint8_t b[8 + 4 * 7 + 8];
    memcpy(b, "LRPPOW\0\0", 8);
    uint32_t h[7] = { LR_PPO_FORMAT_VERSION, 1000000, 1000000, 100000,
                      100000, 0xffffffffu, 0xffffffffu };
    for (int i = 0; i < 7; i++)
        lr_put32(b + 8 + 4 * i, h[i]);
    lr_put64(b + sizeof b - 8, lr_fnv1a64(b, sizeof b - 8));
    struct lr_ppo *q = (struct lr_ppo *) &q;
    char err[256] = "";
    CU_ASSERT_EQUAL(lr_ppo_decode(b, sizeof b, &q, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NULL(q);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "out of range"));

    int big[2] = { 100000, 100000 }, small[2] = { 7, 5 };
    struct lr_mlp *m = (struct lr_mlp *) &m;
    CU_ASSERT_EQUAL(lr_mlp_param_count(1000000, big, 2, 1000000), -1);
    CU_ASSERT_EQUAL(lr_mlp_new(1000000, big, 2, 1000000, &m), EINVAL);
    CU_ASSERT_PTR_NULL(m);
    CU_ASSERT_EQUAL(lr_mlp_param_count(3, small, 2, 4),
                    7 * (3 + 1) + 5 * (7 + 1) + 4 * (5 + 1));
    CU_ASSERT_EQUAL(lr_mlp_param_count(3, small, 0, 4), 4 * (3 + 1));
    CU_ASSERT_EQUAL(lr_mlp_param_count(0, small, 2, 4), -1);
    /* One layer at the limit (2^27 = 32 x 2^22 parameters) and one
     * past it; one output padded to 32 transposed columns: 2^22 inputs
     * take 2^27 floats there, one more input is past the limit though
     * its parameters are few. */
    CU_ASSERT_EQUAL(lr_mlp_param_count((1 << 22) - 1, small, 0, 32),
                    32L << 22);
    CU_ASSERT_EQUAL(lr_mlp_param_count(1 << 22, small, 0, 32), -1);
    CU_ASSERT_EQUAL(lr_mlp_param_count(1 << 22, small, 0, 1),
                    (1L << 22) + 1);
    CU_ASSERT_EQUAL(lr_mlp_param_count((1 << 22) + 1, small, 0, 1), -1);

    /* A critic weight that is not finite, under a valid checksum. */
    struct lr_ppo *p = agent(4, 6, 11, 128);
    size_t n = lr_ppo_encoded_size(p);
    uint8_t *buf = malloc(n);
    CU_ASSERT_EQUAL_FATAL(lr_ppo_encode(p, buf, n), n);
    lr_put_f64(buf + n - 16, NAN);    /* the critic's last bias */
    lr_put64(buf + n - 8, lr_fnv1a64(buf, n - 8));
    CU_ASSERT_EQUAL(lr_ppo_decode(buf, n, &q, err, sizeof err), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "not finite"));
    CU_ASSERT_PTR_NULL(q);
    free(buf);
    lr_ppo_free(p);
}

/* lr_mlp_copy_widened: a network with 3 more inputs, given the weights
 * of one with 5, computes what it computes on the first 5 inputs,
 * whatever the other 3 hold (to the rounding of the longer sums: BLAS
 * may add in another order); other sizes are refused and leave the
 * target as it was. */
static void
test_mlp_widened(void)
{
    int hidden[2] = { 7, 6 }, other[2] = { 7, 5 };
    struct lr_mlp *a = NULL, *b = NULL, *c = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_mlp_new(5, hidden, 2, 4, &a), 0);
    CU_ASSERT_EQUAL_FATAL(lr_mlp_new(8, hidden, 2, 4, &b), 0);
    CU_ASSERT_EQUAL_FATAL(lr_mlp_new(8, other, 2, 4, &c), 0);
    struct lr_rng r;
    lr_rng_seed(&r, 11);
    lr_mlp_init(a, &r, 1.0);
    lr_mlp_init(b, &r, 1.0);
    lr_mlp_init(c, &r, 1.0);
    double c0 = c->params[3];
    CU_ASSERT(!lr_mlp_copy_widened(a, c));
    CU_ASSERT(!lr_mlp_copy_widened(b, a));
    CU_ASSERT_EQUAL(c->params[3], c0);
    CU_ASSERT_FATAL(lr_mlp_copy_widened(a, b));
    for (int t = 0; t < 20; t++) {
        double x[8], ya[4], yb[4];
        for (int i = 0; i < 8; i++)
            x[i] = 4 * lr_rng_uniform(&r) - 2;
        lr_mlp_forward(a, x, ya);
        lr_mlp_forward(b, x, yb);
        for (int k = 0; k < 4; k++)
            CU_ASSERT_DOUBLE_EQUAL(ya[k], yb[k], 1e-12 * (1 + fabs(ya[k])));
        /* Not a copy of a's first inputs only: b reads its own. */
        x[0] += 1;
        lr_mlp_forward(b, x, yb);
        CU_ASSERT(fabs(ya[0] - yb[0]) + fabs(ya[1] - yb[1]) > 1e-6);
    }
    lr_mlp_free(a);
    lr_mlp_free(b);
    lr_mlp_free(c);
}

/* lr_mlp_average: each weight the mean of the sources' (into one of
 * them too); of a network with itself, the network; other sizes are
 * refused and leave the target as it was. */
static void
test_mlp_average(void)
{
    int hidden[2] = { 7, 6 }, other[2] = { 7, 5 };
    struct lr_mlp *a = NULL, *b = NULL, *c = NULL, *m = NULL, *d = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_mlp_new(5, hidden, 2, 4, &a), 0);
    CU_ASSERT_EQUAL_FATAL(lr_mlp_new(5, hidden, 2, 4, &b), 0);
    CU_ASSERT_EQUAL_FATAL(lr_mlp_new(5, hidden, 2, 4, &c), 0);
    CU_ASSERT_EQUAL_FATAL(lr_mlp_new(5, hidden, 2, 4, &m), 0);
    CU_ASSERT_EQUAL_FATAL(lr_mlp_new(5, other, 2, 4, &d), 0);
    struct lr_rng r;
    lr_rng_seed(&r, 12);
    lr_mlp_init(a, &r, 1.0);
    lr_mlp_init(b, &r, 1.0);
    lr_mlp_init(c, &r, 1.0);
    lr_mlp_init(d, &r, 1.0);
    const struct lr_mlp *abc[3] = { a, b, c }, *ad[2] = { a, d };
    double d0 = d->params[2];
    CU_ASSERT(!lr_mlp_average(m, ad, 2));
    CU_ASSERT(!lr_mlp_average(d, abc, 3));
    CU_ASSERT(!lr_mlp_average(m, abc, 0));
    CU_ASSERT_EQUAL(d->params[2], d0);
    CU_ASSERT_FATAL(lr_mlp_average(m, abc, 3));
    for (int j = 0; j < a->n_params; j++)
        CU_ASSERT_DOUBLE_EQUAL(m->params[j], (a->params[j] + b->params[j]
                                              + c->params[j]) / 3, 1e-15);
    /* Into a source: a becomes the mean of a and b. */
    double a3 = a->params[3], b3 = b->params[3];
    const struct lr_mlp *ab[2] = { a, b };
    CU_ASSERT_FATAL(lr_mlp_average(a, ab, 2));
    CU_ASSERT_DOUBLE_EQUAL(a->params[3], (a3 + b3) / 2, 1e-15);
    /* Of b with itself: b computes as before. */
    double x[5] = { 0.3, -1, 2, 0.5, -0.7 }, y0[4], y1[4];
    lr_mlp_forward(b, x, y0);
    const struct lr_mlp *bb[2] = { b, b };
    CU_ASSERT_FATAL(lr_mlp_average(m, bb, 2));
    lr_mlp_forward(m, x, y1);
    for (int k = 0; k < 4; k++)
        CU_ASSERT_DOUBLE_EQUAL(y0[k], y1[k], 1e-12 * (1 + fabs(y0[k])));
    lr_mlp_free(a);
    lr_mlp_free(b);
    lr_mlp_free(c);
    lr_mlp_free(m);
    lr_mlp_free(d);
}

/* lr_ppo_decode builds the agent without lr_mlp_init's orthogonal
 * weights, which every weight of the buffer overwrote: its weights are
 * the buffer's, bit for bit, and its rng is as lr_ppo_defaults() seeds
 * it, no draw taken (before 2026-12-07 the initialisation drew from it).
 * Nothing draws from a loaded agent's rng (lightraild, sim and a
 * rollout's base take the argmax; train --init copies the weights into
 * an agent of its own seed), so no run changed. */
static void
test_decode_draws_nothing(void)
{
    struct lr_ppo *p = agent(4, 6, 11, 128);
    size_t n = lr_ppo_encoded_size(p);
    uint8_t *buf = malloc(n);
    CU_ASSERT_EQUAL_FATAL(lr_ppo_encode(p, buf, n), n);
    struct lr_ppo *q = NULL;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(lr_ppo_decode(buf, n, &q, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(q->actor->n_params, p->actor->n_params);
    CU_ASSERT_EQUAL_FATAL(q->critic->n_params, p->critic->n_params);
    CU_ASSERT(memcmp(q->actor->params, p->actor->params,
                     (size_t) p->actor->n_params * sizeof(double)) == 0);
    CU_ASSERT(memcmp(q->critic->params, p->critic->params,
                     (size_t) p->critic->n_params * sizeof(double)) == 0);
    struct lr_ppo_config c;
    lr_ppo_defaults(&c, 4, 6);
    struct lr_rng r;
    lr_rng_seed(&r, c.seed);
    CU_ASSERT(memcmp(&q->rng, &r, sizeof r) == 0);
    lr_ppo_free(q);
    free(buf);
    lr_ppo_free(p);
}

static CU_TestInfo tests[] = {
    { "MLP gradient = finite differences", test_mlp_gradient },
    { "MLP batched = per sample = finite differences", test_mlp_batch },
    { "MLP float copy follows Adam and announced writes",
      test_mlp_float_copy },
    { "MLP widened input computes as the narrower one", test_mlp_widened },
    { "MLP average: the mean of the weights", test_mlp_average },
    { "PPO loss gradient: batched = per sample = finite differences",
      test_ppo_loss_gradient },
    { "PPO loss gradient with the anchor: batched = per sample = finite "
      "differences", test_anchor_loss_gradient },
    { "anchor term: 0 where anchored, c_A KL after", test_anchor_term },
    { "a frozen actor stays, the critic learns", test_freeze_actor },
    { "the anchor keeps what the start was taught", test_anchor_keeps_start },
    { "act_batch chooses as act", test_act_batch },
    { "reserve grows the batch, which chooses as smaller ones",
      test_reserve },
    { "GAE along each environment", test_gae_envs },
    { "GAE bootstraps a cut episode, not an ended one",
      test_gae_truncation },
    { "n_envs must divide the rollout", test_envs_config },
    { "coefficients that are not finite are refused", test_coef_config },
    { "every transition in a minibatch of 2 or more, none empty",
      test_minibatches_cover },
    { "a transition without a decision trains the critic only",
      test_undecided_transitions },
    { "learns a masked bandit with a fixed seed", test_learns_masked_bandit },
    { "learns a masked bandit, 4 environments in lockstep",
      test_learns_masked_bandit_envs },
    { "rewards scaled by the returns' deviation (norm_reward)",
      test_norm_reward },
    { "masks never violated (random)", test_masks_never_violated },
    { "same seed, same weights", test_deterministic },
    { "save and load give identical outputs", test_save_load },
    { "decode refuses absurd sizes before building, and NaN critics",
      test_decode_hostile },
    { "update: the gradient norms are the networks'", test_grad_norm_stat },
    { "decode: the buffer's weights, no initialisation drawn",
      test_decode_draws_nothing },
    CU_TEST_INFO_NULL,
};

/* One BLAS thread: the determinism tests compare bits. */
static int
setup(void)
{
    openblas_set_num_threads(1);
    return 0;
}

static int
teardown(void)
{
    lr_ppo_free(taught);
    taught = NULL;
    return 0;
}

LR_TEST_MAIN_WITH("ppo", tests, setup, teardown)
