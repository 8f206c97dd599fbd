/*
 * lr_jenv_advantage: how much could one decision beat a base policy's
 * own choice?  Q-values of the first action by Monte Carlo rollouts, the
 * policy-improvement step of rollout algorithms (D. P. Bertsekas, J. N.
 * Tsitsiklis, C. Wu, "Rollout algorithms for combinatorial optimization",
 * J. Heuristics 3, 1997; G. Tesauro, G. R. Galperin, "On-line policy
 * improvement using Monte-Carlo search", NIPS 1996).
 *
 * Model.  In state s of the joint environment (lr_jenv.h) with a job
 * pending, for an action a (a candidate, or -1 to refuse):
 *   Q_H(s, a) = E[ blocked jobs among the pending one and the next H
 *                  arrivals, when a is taken now and the base policy pi
 *                  decides every later job ],
 * estimated over M futures drawn by lr_jenv_fork() with seeds
 * seed + m (m = 0..M-1).  The futures know only what a policy observes
 * (LR_JENV_FORK_OBSERVABLE: the pending job's holding and the running
 * jobs' remaining ones drawn afresh), or also every job's work
 * (LR_JENV_FORK_KNOWN_WORK): the first measures what the policies here,
 * which see no job's length, could gain; the second what knowing the
 * lengths would add.  The same M futures (arrivals, holding times,
 * the base policy's own draws) serve every action: common random
 * numbers, so that the paired differences
 *   D_m(a) = blocked_m(a) - blocked_m(ref),   A(s, a) = mean_m D_m(a),
 * with ref = pi(s), carry little of the futures' own noise.  A(s, a) < 0
 * means a blocks fewer than the base policy's choice.  H must outlast
 * the effect of one decision: the holding of the job placed and of the
 * jobs its placement displaced (in the work mode a job holds X T / T_ref,
 * about 2 to 3 mean arrival gaps per Erlang of load).
 *
 * Why it matters.  Per decision, the average number of blocked jobs of
 * any policy mu differs from pi's by the mean of A_pi(s, mu(s)) over the
 * states mu visits (the performance difference formula of average-cost
 * MDPs: X.-R. Cao, Stochastic Learning and Optimization, Springer 2007,
 * ch. 2; S. Kakade, J. Langford, ICML 2002, for the discounted form).
 * If no action beats pi by more than eps in the states visited, no
 * policy visiting such states can block more than eps per decision less
 * than pi.  The gain of a state, max(0, -min_a A(s, a)), taken over noisy
 * estimates, reads high (the minimum of noisy means): an upper estimate.
 *
 * Cost: M x (number of actions) x (H + 1) environment steps.
 *
 * Pure.  Functions return 0 or a positive errno value.
 */
#ifndef LR_JENV_ADVANTAGE_H
#define LR_JENV_ADVANTAGE_H 1

#include "planner/lr_jenv.h"

struct lr_jenv_q {
    int action;               /* in: a feasible candidate, or -1 (refuse) */
    double blocked;           /* out: mean blocked jobs, Q_H(s, a) */
    double diff;              /* out: A(s, a) = mean of D_m(a) */
    double diff_se;           /* out: its standard error, sd(D) / sqrt(M) */
};

/* Fills q[0..n-1] for the pending job of 'e' (not changed), the
 * differences against q[ref].  work[0..n_work-1] are clones of e's
 * environment (lr_jenv_clone), where the futures run.  'base' decides
 * after the first action ('base_arg' its state), its draws seeded per
 * future.  A base with choose_batch runs floor(n_work / n) futures of
 * all n actions side by side, deciding their pending jobs in one call
 * each step (a network's batched pass); the sums are taken in the same
 * order, so the result is the one of the futures one at a time (in
 * work[0]) whenever choose_batch decides as choose does.  EINVAL for
 * n < 1, ref out of range, samples < 2, horizon < 1, n_work < 1, no
 * pending job, an action that is neither feasible nor -1, a 'work' of
 * another environment or an unknown mode; ENOMEM; choose_batch's
 * error. */
int lr_jenv_qvalues(const struct lr_jenv *e, struct lr_jenv *const *work,
                    int n_work, const struct lr_jenv_policy *base,
                    void *base_arg, struct lr_jenv_q *q, int n, int ref,
                    int samples, long horizon, uint64_t seed,
                    enum lr_jenv_fork_mode mode);

/* Fills q[].action with the alternatives of the pending job of 'e': 'base'
 * (a feasible candidate) first, then the other feasible candidates from
 * the fastest (least T; the lower index first among equal T), at most
 * 'top' of them (top <= 0: all), then -1 (refusing) when 'refusal'.  'q'
 * has room for lr_jenv_n_cands(e) + 1 entries.  Returns the count. */
int lr_jenv_alternatives(const struct lr_jenv *e, int base, int top,
                         bool refusal, struct lr_jenv_q *q);

#endif
