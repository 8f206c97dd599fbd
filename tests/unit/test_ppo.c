/*
 * The MLP and PPO: gradients against central finite differences, a tiny
 * masked task learnt with a fixed seed, masks never violated under random
 * masks, determinism, and save/load giving identical outputs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

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

static struct lr_ppo *
agent(int n_obs, int n_act, uint64_t seed, int n_steps)
{
    struct lr_ppo_config c;
    lr_ppo_defaults(&c, n_obs, n_act);
    c.hidden[0] = c.hidden[1] = 16;
    c.seed = seed;
    c.n_steps = n_steps;
    c.lr = 3e-3;
    c.total_steps = 40000;
    struct lr_ppo *p = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_ppo_new(&c, &p), 0);
    return p;
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

/* The whole PPO loss (clipped policy term, entropy of the masked policy,
 * clipped value term) against finite differences on every weight. */
static void
test_ppo_loss_gradient(void)
{
    enum { NO = 3, NA = 5, N = 16 };
    struct lr_ppo *p = agent(NO, NA, 9, N);
    struct lr_rng r;
    lr_rng_seed(&r, 10);
    for (int t = 0; t < N; t++) {
        float obs[NO];
        uint8_t mask[NA];
        for (int i = 0; i < NO; i++)
            obs[i] = (float) (lr_rng_uniform(&r) * 2 - 1);
        random_mask(&r, mask, NA);
        double logp, v;
        int a = lr_ppo_act(p, obs, mask, true, &logp, &v);
        /* Old policy and values a little off, inside and outside the
         * clip range. */
        lr_ppo_store(p, obs, mask, a, logp + (lr_rng_uniform(&r) - 0.5) * 0.6,
                     v + (lr_rng_uniform(&r) - 0.5) * 0.6,
                     lr_rng_uniform(&r), false);
        p->adv[t] = lr_rng_uniform(&r) * 2 - 1;
        p->ret[t] = lr_rng_uniform(&r) * 2 - 1;
    }
    lr_ppo_loss_grad(p, 0, N);
    struct lr_mlp *nets[2] = { p->actor, p->critic };
    double worst = 0;
    for (int k = 0; k < 2; k++) {
        struct lr_mlp *m = nets[k];
        double *g = malloc((size_t) m->n_params * sizeof *g);
        memcpy(g, m->grad, (size_t) m->n_params * sizeof *g);
        for (int i = 0; i < m->n_params; i++) {
            double keep = m->params[i], h = 1e-6;
            m->params[i] = keep + h;
            double lp = lr_ppo_loss_grad(p, 0, N);
            m->params[i] = keep - h;
            double lm = lr_ppo_loss_grad(p, 0, N);
            m->params[i] = keep;
            double fd = (lp - lm) / (2 * h);
            if (fabs(fd - g[i]) > 1e-7)
                worst = fmax(worst, max_rel_err(fd, g[i]));
        }
        free(g);
    }
    CU_ASSERT(worst < 1e-4);
    lr_ppo_free(p);
}

/* A contextual bandit: context c of 4 (one-hot), 6 actions, a random
 * half of them masked at each step; action a pays score[c][a], the best
 * allowed action is worth 1.  Masked, the policy only has to learn an
 * order per context. */
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

static double
train_bandit(struct lr_ppo *p, int steps, uint64_t seed)
{
    struct lr_rng r;
    lr_rng_seed(&r, seed);
    for (int s = 0; s < steps; s++) {
        float obs[4] = { 0 };
        uint8_t mask[6];
        int c = (int) lr_rng_below(&r, 4);
        obs[c] = 1;
        random_mask(&r, mask, 6);
        double logp, v;
        int a = lr_ppo_act(p, obs, mask, true, &logp, &v);
        CU_ASSERT(a >= 0 && mask[a]);
        double rew = a == best_allowed(c, mask) ? 1 : score[c][a] - 1;
        if (lr_ppo_store(p, obs, mask, a, logp, v, rew, true))
            lr_ppo_update(p, 0, NULL);
    }
    int right = 0;
    for (int s = 0; s < 1000; s++) {
        float obs[4] = { 0 };
        uint8_t mask[6];
        int c = (int) lr_rng_below(&r, 4);
        obs[c] = 1;
        random_mask(&r, mask, 6);
        right += lr_ppo_act(p, obs, mask, false, NULL, NULL)
                 == best_allowed(c, mask);
    }
    return right / 1000.0;
}

static void
test_learns_masked_bandit(void)
{
    struct lr_ppo *p = agent(4, 6, 7, 256);
    struct lr_ppo *untrained = agent(4, 6, 7, 256);
    double before = train_bandit(untrained, 0, 99);
    double after = train_bandit(p, 20000, 99);
    CU_ASSERT(after >= 0.95);
    CU_ASSERT(before < 0.8);
    lr_ppo_free(p);
    lr_ppo_free(untrained);
}

/* Random masks, random observations, sampled and greedy: never a masked
 * action; nothing allowed gives -1. */
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

static CU_TestInfo tests[] = {
    { "MLP gradient = finite differences", test_mlp_gradient },
    { "PPO loss gradient = finite differences", test_ppo_loss_gradient },
    { "learns a masked bandit with a fixed seed", test_learns_masked_bandit },
    { "masks never violated (random)", test_masks_never_violated },
    { "same seed, same weights", test_deterministic },
    { "save and load give identical outputs", test_save_load },
    CU_TEST_INFO_NULL,
};

/* One BLAS thread: the determinism tests compare bits. */
static int
setup(void)
{
    openblas_set_num_threads(1);
    return 0;
}

LR_TEST_MAIN_WITH("ppo", tests, setup, NULL)
