/*
 * lr_candmask: which of a fixed list of candidates are feasible, a word
 * of 64 candidates at a time (the joint environment's mask, lr_jenv.h).
 *
 * Model.  A candidate c is feasible for a job of class k and demand d when
 *
 *     T(k, c) is finite                                 (the class fits c)
 *     AND for every DC x:  ask(d, x, c) <= room(x)      (the GPUs)
 *     AND for every hop of c, its route r and tier t:  fit(r, t)
 *                                                       (a lightpath)
 *
 * with room(x) the free GPUs of DC x and fit(r, t) whether route r has
 * a first fit of tier t's width each way.  Read as sets of candidates:
 *
 *     feasible = Finite(k) \ U_x Over(d, x, room(x))
 *                          \ U_{(r, t): not fit(r, t)} Use(r, t)
 *
 * where Over(d, x, v) is the set of candidates that ask more than v GPUs
 * of DC x for demand d, and Use(r, t) the candidates with a hop on r at
 * tier t.  Over(d, x, v) takes only as many values as DC x has distinct
 * asks (a few): its sets are precomputed, one per distinct ask a, each
 * the candidates asking at least a; Over(d, x, v) is the set of the
 * least a > v (empty past the largest).  So a mask costs
 * O(W (X + U)) word operations for W = ceil(C / 64) words, X DCs and U
 * unfit (route, tier) pairs, plus C bytes to write it out, where testing
 * each candidate costs C times a few dependent loads and unpredictable
 * branches (whether a candidate is feasible is a coin toss to the branch
 * predictor).
 *
 * Use: lr_candmask_new, then lr_candmask_finite / _ask / _use for each
 * fact of the model, then lr_candmask_seal; after that the set is
 * read-only and lr_candmask_eval may run from several threads, each with
 * its own 'bits' scratch.  Errors: EINVAL for indices out of range or
 * calls out of order, ENOMEM.  Ownership: lr_candmask_new returns a set
 * the caller frees with lr_candmask_free; eval borrows its arguments.
 */
#ifndef LR_CANDMASK_H
#define LR_CANDMASK_H 1

#include <stddef.h>
#include <stdint.h>

struct lr_candmask;

/* A set for n_cands candidates, n_classes classes, n_demands demands,
 * n_dcs DCs, n_routes routes and n_tiers tiers (at most 8). */
int lr_candmask_new(int n_cands, int n_classes, int n_demands, int n_dcs,
                    int n_routes, int n_tiers, struct lr_candmask **out);
void lr_candmask_free(struct lr_candmask *);

/* Facts, before lr_candmask_seal: T(k, c) is finite; candidate c asks
 * 'gpus' (> 0) of DC x for demand d (once per (d, x, c)); c has a hop
 * on route r at tier t. */
int lr_candmask_finite(struct lr_candmask *, int k, int c);
int lr_candmask_ask(struct lr_candmask *, int d, int x, int c, int gpus);
int lr_candmask_use(struct lr_candmask *, int r, int t, int c);

/* Builds the sets of the model; no fact may be added after.  EINVAL
 * when sealed already; ENOMEM (the set is then good only for
 * lr_candmask_free). */
int lr_candmask_seal(struct lr_candmask *);

/* Words of the 'bits' scratch of lr_candmask_eval: ceil(n_cands / 64). */
int lr_candmask_words(const struct lr_candmask *);

/* The mask of a job of class k and demand d: mask[c] = 1 when c is
 * feasible, else 0, for c < n_cands; room[x] the free GPUs of each DC
 * and fit[r * fit_stride] the tiers with a lightpath on route r (bit
 * t; a stride, so that the fits may stay in the routes' own records,
 * fit_stride = sizeof the record).  'bits'
 * (lr_candmask_words words) is scratch and ends as the feasible set.
 * Returns how many are feasible; -1 (EINVAL's) before sealing or for k
 * or d out of range. */
int lr_candmask_eval(const struct lr_candmask *, int k, int d,
                     const int *room, const uint8_t *fit,
                     size_t fit_stride, uint64_t *bits, uint8_t *mask);

#endif
