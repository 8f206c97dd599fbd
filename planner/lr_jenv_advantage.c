/*
 * lr_jenv_advantage: Q-values of the first action by rollouts with common
 * random numbers.  The model and the sources are in lr_jenv_advantage.h.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "planner/lr_jenv_advantage.h"
#include "planner/lr_rng.h"

/* The base policy's own draws in future m: apart from the arrivals'. */
#define LR_ADV_POLICY_SALT 0x9e3779b97f4a7c15ULL

/* Futures m0 .. m0+g-1 of every action, one at a time in work[0]:
 * b[j * n + i] gets the blocked jobs of action i in future m0 + j. */
static int
futures_one(const struct lr_jenv *e, struct lr_jenv *work,
            const struct lr_jenv_policy *base, void *base_arg,
            const struct lr_jenv_q *q, int n, long horizon, uint64_t seed,
            enum lr_jenv_fork_mode mode, double *b)
{
    lr_jenv_set_lazy_mask(work, base->lazy_mask);   /* kept by forks */
    for (int i = 0; i < n; i++) {
        int rc = lr_jenv_fork(work, e, seed, horizon, mode);
        if (rc)
            return rc;
        struct lr_rng r;
        lr_rng_seed(&r, seed ^ LR_ADV_POLICY_SALT);
        lr_jenv_step(work, q[i].action);
        while (!lr_jenv_done(work))
            lr_jenv_step(work, base->choose(base_arg, work, base->lazy_mask
                                            ? NULL : lr_jenv_mask(work),
                                            &r));
        struct lr_jenv_metrics mt;
        lr_jenv_metrics(work, &mt);
        b[i] = (double) mt.blocked;
    }
    return 0;
}

/* The same for g futures side by side in work[0 .. g*n-1], the base
 * deciding the pending jobs of all that are not done in one call of
 * choose_batch (live[] and act[]: room for g*n). */
static int
futures_batch(const struct lr_jenv *e, struct lr_jenv *const *work,
              const struct lr_jenv_policy *base, void *base_arg,
              const struct lr_jenv_q *q, int n, int g, long horizon,
              uint64_t seed, enum lr_jenv_fork_mode mode, double *b,
              struct lr_jenv **live, int *act)
{
    int w = g * n;
    for (int x = 0; x < w; x++) {
        /* Whatever an earlier base left: choose_batch reads the masks. */
        lr_jenv_set_lazy_mask(work[x], base->lazy_mask);
        int rc = lr_jenv_fork(work[x], e, seed + (uint64_t) (x / n),
                              horizon, mode);
        if (rc)
            return rc;
        lr_jenv_step(work[x], q[x % n].action);
    }
    for (;;) {
        int k = 0;
        for (int x = 0; x < w; x++)
            if (!lr_jenv_done(work[x]))
                live[k++] = work[x];
        if (!k)
            break;
        int rc = base->choose_batch(base_arg, k, live, act);
        if (rc)
            return rc;
        for (int x = 0; x < k; x++)
            lr_jenv_step(live[x], act[x]);
    }
    for (int x = 0; x < w; x++) {
        struct lr_jenv_metrics mt;
        lr_jenv_metrics(work[x], &mt);
        b[x] = (double) mt.blocked;
    }
    return 0;
}

int
lr_jenv_qvalues(const struct lr_jenv *e, struct lr_jenv *const *work,
                int n_work, const struct lr_jenv_policy *base,
                void *base_arg, struct lr_jenv_q *q, int n, int ref,
                int samples, long horizon, uint64_t seed,
                enum lr_jenv_fork_mode mode)
{
    if (n < 1 || ref < 0 || ref >= n || samples < 2 || horizon < 1
        || n_work < 1 || lr_jenv_done(e))
        return EINVAL;
    const uint8_t *mask = lr_jenv_mask(e);
    for (int i = 0; i < n; i++)
        if (q[i].action < -1 || q[i].action >= lr_jenv_n_cands(e)
            || (q[i].action >= 0 && !mask[q[i].action]))
            return EINVAL;
    /* Futures side by side: as many as the clones hold for all n. */
    int G = base->choose_batch ? n_work / n : 0;
    int per = G > 0 ? G : 1;
    double *b = malloc((size_t) per * n * sizeof *b);
    double *s2 = calloc((size_t) n, sizeof *s2);
    struct lr_jenv **live = malloc((size_t) per * n * sizeof *live);
    int *act = malloc((size_t) per * n * sizeof *act);
    if (!b || !s2 || !live || !act) {
        free(b);
        free(s2);
        free(live);
        free(act);
        return ENOMEM;
    }
    for (int i = 0; i < n; i++)
        q[i].blocked = q[i].diff = 0;
    int rc = 0;
    for (int m0 = 0; m0 < samples && !rc; m0 += per) {
        int g = samples - m0 < per ? samples - m0 : per;
        uint64_t s0 = seed + (uint64_t) m0;
        rc = G > 0 ? futures_batch(e, work, base, base_arg, q, n, g, horizon,
                                   s0, mode, b, live, act)
                   : futures_one(e, work[0], base, base_arg, q, n, horizon,
                                 s0, mode, b);
        for (int j = 0; j < g && !rc; j++) {
            const double *bj = b + (size_t) j * n;
            for (int i = 0; i < n; i++) {
                double d = bj[i] - bj[ref];
                q[i].blocked += bj[i];
                q[i].diff += d;
                s2[i] += d * d;
            }
        }
    }
    for (int i = 0; i < n && !rc; i++) {
        double mean = q[i].diff / samples;
        double var = (s2[i] - samples * mean * mean) / (samples - 1);
        q[i].blocked /= samples;
        q[i].diff = mean;
        q[i].diff_se = sqrt(var > 0 ? var / samples : 0);
    }
    free(b);
    free(s2);
    free(live);
    free(act);
    return rc;
}

int
lr_jenv_alternatives(const struct lr_jenv *e, int base, int top,
                     bool refusal, struct lr_jenv_q *q)
{
    const uint8_t *mask = lr_jenv_mask(e);
    int n = 0, nc = lr_jenv_n_cands(e);
    q[n++].action = base;
    for (int a = 0; a < nc; a++) {
        if (!mask[a] || a == base)
            continue;
        /* Insertion by T, stable for equal T (the lower index first). */
        double t = lr_jenv_cand_time(e, a);
        int i = n;
        while (i > 1 && lr_jenv_cand_time(e, q[i - 1].action) > t) {
            q[i] = q[i - 1];
            i--;
        }
        q[i].action = a;
        n++;
    }
    if (top > 0 && n - 1 > top)
        n = top + 1;
    if (refusal)
        q[n++].action = -1;
    return n;
}
