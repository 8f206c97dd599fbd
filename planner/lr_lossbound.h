/*
 * lr_lossbound: how little any policy could block if every GPU of every
 * DC formed one pool, for the job mix of the joint environment
 * (lr_jenv.h, holding mode exp).
 *
 * Model.  C identical servers (GPUs), classes k = 1..K; class k arrives
 * Poisson with rate lambda_k, needs b_k servers at once and holds them
 * for an exponential time of mean 1 (so its offered load is
 * a_k = lambda_k Erlang), independently of where it runs.
 *
 * - Complete sharing (admit whenever b_k servers are free), the
 *   Kaufman-Roberts recursion (J. S. Kaufman, IEEE Trans. Commun. 29(10),
 *   1981; J. W. Roberts, Performance of Data Communication Systems,
 *   1981):  q(0) = 1,  j q(j) = sum_k a_k b_k q(j - b_k)  (q(<0) = 0);
 *   class k is blocked in the states j > C - b_k:
 *   B_k = sum_{j > C - b_k} q(j) / sum_j q(j).   O(C K).
 * - The optimal admission policy (a job may be refused on purpose to
 *   keep room for others): a Markov decision process on the states
 *   n = (n_1..n_K), sum n_k b_k <= C, cost 1 per refused or blocked
 *   arrival, average cost minimised by relative value iteration after
 *   uniformisation with L = sum lambda + max sum n_k + 1 (Puterman,
 *   Markov Decision Processes, 1994, sec. 8.5.5):
 *     h'(n) = (1/L) [ sum_k lambda_k min(1 + h(n), h(n + e_k))
 *                     + sum_k n_k h(n - e_k) + (L - sum lambda - sum n) h(n) ]
 *   (h(n + e_k) only where it fits; else 1 + h(n)), then h' -= h'(0),
 *   until the span of h' - h is below tol; the blocking is
 *   g L / sum lambda with g the average cost per uniformised step.
 *   O(iterations x states x K).
 *
 * Why it bounds every policy of lr_jenv in the exp holding mode: a
 * policy's admissions in the real network (GPUs split over DCs, memory,
 * spectrum) are also feasible in the pool, and since holding times do not
 * depend on the placement, the real system's admission decisions form
 * one (history-dependent) admission policy of this MDP, which cannot beat
 * the MDP's optimum.  In the work holding mode the placement changes the
 * holding time and this is not a bound.
 *
 * Pure.  Functions return 0 or a positive errno value (EINVAL for bad
 * numbers, E2BIG for a state space over LR_LOSSBOUND_MAX_STATES, ENOMEM).
 */
#ifndef LR_LOSSBOUND_H
#define LR_LOSSBOUND_H 1

#define LR_LOSSBOUND_MAX_CLASSES 8
#define LR_LOSSBOUND_MAX_STATES 2000000

struct lr_lossbound_class {
    int demand;               /* b_k >= 1 servers */
    double load;              /* a_k = lambda_k > 0 Erlang (holding mean 1) */
};

struct lr_lossbound {
    double blocking;          /* arrival-weighted: sum a_k B_k / sum a_k */
    double per_class[LR_LOSSBOUND_MAX_CLASSES];   /* lr_lossbound_cs() */
    /* lr_lossbound_optimal() only: states where refusing some class is
     * strictly better than admitting it (0: complete sharing is
     * optimal), and the iterations run. */
    long refusing_states;
    int iterations;
};

/* Complete sharing, Kaufman-Roberts. */
int lr_lossbound_cs(int capacity, const struct lr_lossbound_class *,
                    int n_classes, struct lr_lossbound *out);

/* The optimal admission policy (per_class left 0).  'tol' e.g. 1e-12; ETIMEDOUT when max_iter is reached first
 * (out still holds the last estimate). */
int lr_lossbound_optimal(int capacity, const struct lr_lossbound_class *,
                         int n_classes, double tol, int max_iter,
                         struct lr_lossbound *out);

#endif
