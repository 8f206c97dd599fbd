/*
 * lr_jenv_rollout: the rollout policy of a base policy (model and
 * sources in lr_jenv_rollout.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "planner/lr_jenv_rollout.h"
#include "planner/lr_rng.h"

/* Futures of every alternative run side by side, for a base with
 * choose_batch: a batch of LR_ROLLOUT_SIDE x (alternatives) rows, in at
 * most LR_ROLLOUT_CLONES clones (with top = 0, every candidate: fewer
 * futures side by side, down to one at a time when even one future of
 * every alternative does not fit). */
#define LR_ROLLOUT_SIDE 16
#define LR_ROLLOUT_CLONES 512

struct lr_jenv_rollout {
    struct lr_jenv_rollout_config cfg;
    struct lr_jenv **work;        /* owned: n_work clones, the futures */
    int n_work;
    struct lr_jenv_q *q;          /* owned: n_cands + 1 alternatives */
    struct lr_jenv_rollout_stats st;
};

int
lr_jenv_rollout_new(const struct lr_jenv *e,
                    const struct lr_jenv_rollout_config *cfg,
                    struct lr_jenv_rollout **out)
{
    *out = NULL;
    if (!cfg->base || cfg->samples < 2 || cfg->horizon < 1 || cfg->top < 0
        || !(cfg->margin >= 0) || cfg->screen < 0 || cfg->screen == 1)
        return EINVAL;
    struct lr_jenv_rollout *r = calloc(1, sizeof *r);
    if (!r)
        return ENOMEM;
    r->cfg = *cfg;
    /* The most lr_jenv_alternatives() gives: the base's choice and at
     * most 'top' others, then refusing. */
    int n_alt = lr_jenv_n_cands(e);
    if (cfg->top > 0 && cfg->top < n_alt - 1)
        n_alt = cfg->top + 1;
    n_alt += cfg->refusal;
    int n_work = cfg->base->choose_batch ? LR_ROLLOUT_SIDE * n_alt : 1;
    if (n_work > LR_ROLLOUT_CLONES)
        n_work = LR_ROLLOUT_CLONES;
    r->q = malloc(((size_t) lr_jenv_n_cands(e) + 1) * sizeof *r->q);
    r->work = calloc((size_t) n_work, sizeof *r->work);
    if (!r->q || !r->work) {
        lr_jenv_rollout_free(r);
        return ENOMEM;
    }
    for (r->n_work = 0; r->n_work < n_work; r->n_work++)
        if (lr_jenv_clone(e, &r->work[r->n_work])) {
            lr_jenv_rollout_free(r);
            return ENOMEM;
        }
    *out = r;
    return 0;
}

void
lr_jenv_rollout_free(struct lr_jenv_rollout *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->n_work; i++)
        lr_jenv_free(r->work[i]);
    free(r->work);
    free(r->q);
    free(r);
}

void
lr_jenv_rollout_stats(const struct lr_jenv_rollout *r,
                      struct lr_jenv_rollout_stats *out)
{
    *out = r->st;
}

void
lr_jenv_rollout_reset_stats(struct lr_jenv_rollout *r)
{
    r->st = (struct lr_jenv_rollout_stats) { 0 };
}

static int
rollout_choose(void *arg, const struct lr_jenv *e, const uint8_t *mask,
               struct lr_rng *rng)
{
    struct lr_jenv_rollout *r = arg;
    const struct lr_jenv_rollout_config *c = &r->cfg;
    r->st.decisions++;
    int b = c->base->choose(c->base_arg, e, mask, rng);
    /* Drawn whatever follows, so that the stream of seeds (and every
     * later decision) does not depend on which jobs were simulated. */
    uint64_t seed = lr_rng_next(rng);
    if (b < 0 || lr_jenv_job_gpus(e) < c->min_gpus)
        return b;
    int n = lr_jenv_alternatives(e, b, c->top, c->refusal, r->q);
    if (n < 2)
        return b;
    r->st.deliberated++;
    /* With known work the futures keep what the policy was told. */
    enum lr_jenv_fork_mode mode = lr_jenv_job_work(e) >= 0
                                      ? LR_JENV_FORK_KNOWN_WORK
                                      : LR_JENV_FORK_OBSERVABLE;
    if (c->screen > 0) {
        if (lr_jenv_qvalues(e, r->work, r->n_work, c->base, c->base_arg,
                            r->q, n, 0, c->screen, c->horizon, seed, mode))
            return b;
        int k = 1;
        for (int i = 1; i < n; i++)
            if (r->q[i].diff < 0)
                r->q[k++].action = r->q[i].action;
        if (k == 1)
            return b;
        r->st.screened++;
        n = k;
        /* Fresh futures: seeds past the screen's. */
        seed += (uint64_t) c->screen;
    }
    if (lr_jenv_qvalues(e, r->work, r->n_work, c->base, c->base_arg,
                        r->q, n, 0, c->samples, c->horizon, seed, mode))
        return b;
    int best = 0;
    for (int i = 1; i < n; i++)
        if (r->q[i].diff < r->q[best].diff)
            best = i;
    if (best == 0 || !(r->q[best].diff < -c->margin * r->q[best].diff_se))
        return b;
    r->st.deviated++;
    r->st.refused += r->q[best].action < 0;
    return r->q[best].action;
}

const struct lr_jenv_policy lr_jenv_rollout_policy = {
    "rollout",
    "the base policy improved by Monte Carlo rollouts of each alternative",
    rollout_choose, NULL, false,
};
