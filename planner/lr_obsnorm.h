/*
 * lr_obsnorm: standardised observations while training, folded into the
 * first layer of a network for everything else.
 *
 * Model.  Per input j, the mean mu_j and standard deviation s_j of the
 * observations of a warm-up (Welford's update: B. P. Welford,
 * Technometrics 4(3), 1962, 419-420; O(n) per observation), frozen
 * after it, and sd_j = max(s_j, LR_OBSNORM_SD_FLOOR).  The networks
 * train on z = (x - mu) / sd (lr_obsnorm_apply).  A first layer W z + b
 * equals W' x + b' with
 *     W'_ij = W_ij / sd_j,   b'_i = b_i - sum_j W'_ij mu_j
 * (lr_obsnorm_fold), so the folded network decides on raw observations
 * as the trained one does on standardised ones, up to rounding: the
 * decision path, the policy file, lightraild and `lightrail sim` need
 * nothing new.  lr_obsnorm_unfold is the inverse (W_ij = W'_ij sd_j,
 * b_i = b'_i + sum_j W'_ij mu_j), for a start trained on raw
 * observations that goes on training on standardised ones: the function
 * it computes is kept, Adam's steps are taken in the new coordinates.
 *
 * Deviations from CleanRL's NormalizeObservation (running statistics
 * over all of training, z clipped to [-10, 10]): the statistics are
 * frozen after the warm-up, so what the networks learn from does not
 * drift under them, and sd is floored at LR_OBSNORM_SD_FLOOR instead of
 * clipping z, so no input is scaled up more than 1 / LR_OBSNORM_SD_FLOOR
 * times (an input that is nearly always 0 would otherwise become huge
 * the rare time it is not) and the map stays linear, hence foldable.
 *
 * Ownership: lr_obsnorm_new() returns statistics the caller frees with
 * lr_obsnorm_free().  Errors: 0 or an errno value, the object unchanged.
 */
#ifndef LR_OBSNORM_H
#define LR_OBSNORM_H 1

#include "planner/lr_mlp.h"

#define LR_OBSNORM_SD_FLOOR 0.1

struct lr_obsnorm {
    int n;                    /* inputs */
    long count;               /* observations added */
    double *mean, *m2;        /* Welford's running mean and sum of
                               * squared deviations */
    double *sd;               /* after lr_obsnorm_freeze: the floored
                               * standard deviations */
    double *inv_sd;           /* 1 / sd */
    bool frozen;
};

/* Statistics of n inputs, none seen.  EINVAL for n < 1; ENOMEM. */
int lr_obsnorm_new(int n, struct lr_obsnorm **out);
void lr_obsnorm_free(struct lr_obsnorm *);

/* Adds one observation (n floats).  EBUSY once frozen. */
int lr_obsnorm_add(struct lr_obsnorm *, const float *x);

/* Computes sd (the population standard deviation, floored) from the
 * observations added; adds are refused from then on.  EINVAL with fewer
 * than 2 observations; EBUSY when already frozen. */
int lr_obsnorm_freeze(struct lr_obsnorm *);

/* Standardises 'rows' observations of n floats in place: z = (x - mu) /
 * sd, rounded to float.  Frozen statistics only (a no-op otherwise). */
void lr_obsnorm_apply(const struct lr_obsnorm *, float *x, int rows);

/* Folds the frozen statistics into the first layer of 'net' (its input
 * n wide): net then computes on x what it computed on z.  EINVAL when
 * not frozen or the widths differ. */
int lr_obsnorm_fold(const struct lr_obsnorm *, struct lr_mlp *net);
/* The inverse: net then computes on z what it computed on x. */
int lr_obsnorm_unfold(const struct lr_obsnorm *, struct lr_mlp *net);

#endif
