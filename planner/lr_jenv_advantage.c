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

int
lr_jenv_qvalues(const struct lr_jenv *e, struct lr_jenv *work,
                const struct lr_jenv_policy *base, void *base_arg,
                struct lr_jenv_q *q, int n, int ref, int samples,
                long horizon, uint64_t seed, enum lr_jenv_fork_mode mode)
{
    if (n < 1 || ref < 0 || ref >= n || samples < 2 || horizon < 1
        || lr_jenv_done(e))
        return EINVAL;
    const uint8_t *mask = lr_jenv_mask(e);
    for (int i = 0; i < n; i++)
        if (q[i].action < -1 || q[i].action >= lr_jenv_n_cands(e)
            || (q[i].action >= 0 && !mask[q[i].action]))
            return EINVAL;
    double *b = malloc((size_t) n * sizeof *b);
    double *s2 = calloc((size_t) n, sizeof *s2);
    if (!b || !s2) {
        free(b);
        free(s2);
        return ENOMEM;
    }
    for (int i = 0; i < n; i++)
        q[i].blocked = q[i].diff = 0;
    int rc = 0;
    for (int m = 0; m < samples && !rc; m++) {
        for (int i = 0; i < n; i++) {
            rc = lr_jenv_fork(work, e, seed + (uint64_t) m, horizon, mode);
            if (rc)
                break;
            struct lr_rng r;
            lr_rng_seed(&r, (seed + (uint64_t) m) ^ LR_ADV_POLICY_SALT);
            lr_jenv_step(work, q[i].action);
            while (!lr_jenv_done(work))
                lr_jenv_step(work, base->choose(base_arg, work,
                                                lr_jenv_mask(work), &r));
            struct lr_jenv_metrics mt;
            lr_jenv_metrics(work, &mt);
            b[i] = (double) mt.blocked;
        }
        if (rc)
            break;
        for (int i = 0; i < n; i++) {
            double d = b[i] - b[ref];
            q[i].blocked += b[i];
            q[i].diff += d;
            s2[i] += d * d;
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
    if (top > 0 && n > top + 1)
        n = top + 1;
    if (refusal)
        q[n++].action = -1;
    return n;
}
