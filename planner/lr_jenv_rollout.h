/*
 * lr_jenv_rollout: the rollout policy of a base policy, one step of
 * policy improvement decided online by Monte Carlo simulation
 * (G. Tesauro, G. R. Galperin, "On-line policy improvement using
 * Monte-Carlo search", NIPS 1996; D. P. Bertsekas, J. N. Tsitsiklis,
 * C. Wu, "Rollout algorithms for combinatorial optimization",
 * J. Heuristics 3, 1997; D. P. Bertsekas, "Rollout, policy iteration,
 * and distributed reinforcement learning", Athena 2020, ch. 2).
 *
 * Model.  In state s with a job pending, let b = pi(s) be the base
 * policy's choice.  The alternatives are b, the 'top' fastest other
 * feasible candidates (least predicted iteration time T), and refusing
 * when asked.  For each, lr_jenv_qvalues() (lr_jenv_advantage.h)
 * estimates A(s, a) = Q_H(s, a) - Q_H(s, b): blocked jobs among the
 * pending one and the next H arrivals, pi deciding those, over M futures
 * shared by every alternative (common random numbers) that know only
 * what a policy observes.  The rollout policy takes
 *     a* = argmin_a A(s, a)   if A(s, a*) < -z SE(a*),   else b,
 * i.e. it leaves the base policy only when the estimate says, with a
 * margin of z standard errors, that doing so blocks fewer.  With z = 0
 * and M -> infinity this is the textbook rollout policy, which blocks no
 * more than pi (the policy improvement theorem; here with a finite
 * horizon H, the effect of a decision must die out within H arrivals).
 * The margin is our addition against the selection bias of taking the
 * minimum of noisy means (an alternative equal to b still reads better
 * half the time): with z > 0 the policy deviates less, and a deviation
 * it makes is worth more.
 *
 * Screening (optional, 'screen' = S > 0; our addition, a two-stage
 * selection as in ranking-and-selection procedures): S futures first
 * rate every alternative; only those that read better than b there
 * (A < 0) go on, with b, to M fresh futures, and the choice above is
 * made on those alone.  Most decisions end after the S futures (nothing
 * reads better), and the final estimate is free of the first stage's
 * selection bias.
 *
 * Cost per decision: M (top + 1 + refusal) (H + 1) environment steps
 * (with screening S (top + 1 + refusal) (H + 1), plus M (k + 1) (H + 1)
 * when k alternatives pass);
 * the 'min_gpus' filter spends it only on jobs that ask for at least
 * that many GPUs (the large jobs are where the base's choices cost
 * most, docs/ppo.md "Is greedy nearly optimal?").  A base with
 * choose_batch (the agent: lr_ppo_jenv_policy) decides 16 futures of
 * every alternative side by side, one batched pass of its network per
 * step instead of one pass per future (lr_jenv_qvalues; 16 x (top + 1
 * + refusal) clones of the environment; the agent's batch grows to
 * that, lr_ppo_reserve), about 3 times faster in all
 * (docs/benchmarks.md).
 * The batched pass is in single precision (lr_mlp.h), so a future where
 * two of the agent's logits nearly tie may go the other way than with
 * the agent's one-at-a-time pass (double).
 *
 * Deterministic: the futures' seeds come from the rng the caller passes
 * to choose (lr_jenv_run seeds it per run).
 *
 * Pure.  Functions return 0 or a positive errno value.
 */
#ifndef LR_JENV_ROLLOUT_H
#define LR_JENV_ROLLOUT_H 1

#include <stdbool.h>

#include "planner/lr_jenv_advantage.h"

struct lr_jenv_rollout_config {
    const struct lr_jenv_policy *base;  /* not owned; e.g. &lr_jenv_greedy */
    void *base_arg;                     /* the base's state, not owned */
    int samples;                        /* futures M, >= 2 */
    long horizon;                       /* arrivals H after the pending one */
    int top;                            /* other candidates tried, >= 0 */
    double margin;                      /* z, >= 0 */
    int min_gpus;                       /* deliberate for demand >= this */
    bool refusal;                       /* also try refusing */
    int screen;                         /* futures S of the screening
                                         * stage; 0: none */
};

#define LR_JENV_ROLLOUT_DEFAULTS \
    .base = &lr_jenv_greedy, .samples = 100, .horizon = 40, .top = 8, \
    .margin = 1.0, .min_gpus = 0, .refusal = false, .screen = 0

struct lr_jenv_rollout_stats {
    long decisions;      /* jobs it decided */
    long deliberated;    /* of which simulated (a feasible alternative) */
    long screened;       /* of which some alternative passed the screen */
    long deviated;       /* of which not the base policy's choice */
    long refused;        /* of which a refusal */
};

struct lr_jenv_rollout;

/* A rollout policy for environment 'e' (or any clone of it: the futures
 * run in a clone of e made here; e must outlive the policy).  EINVAL for
 * a config out of range (no base, samples < 2, horizon < 1, top < 0,
 * margin < 0, screen < 0 or 1), ENOMEM. */
int lr_jenv_rollout_new(const struct lr_jenv *e,
                        const struct lr_jenv_rollout_config *cfg,
                        struct lr_jenv_rollout **out);
void lr_jenv_rollout_free(struct lr_jenv_rollout *);

/* Counts since lr_jenv_rollout_new or the last reset. */
void lr_jenv_rollout_stats(const struct lr_jenv_rollout *,
                           struct lr_jenv_rollout_stats *out);
void lr_jenv_rollout_reset_stats(struct lr_jenv_rollout *);

/* Its 'arg' is a struct lr_jenv_rollout *.  When the simulation itself
 * fails (out of memory) it falls back to the base policy's choice. */
extern const struct lr_jenv_policy lr_jenv_rollout_policy;

#endif
