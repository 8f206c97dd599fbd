/* lr_rate: see lr_rate.h. */
#include <math.h>

#include "planner/lr_rate.h"

void
lr_rate_reset(struct lr_rate *r, double t0, double tau, double warm)
{
    *r = (struct lr_rate) {
        .sum = 0, .last = t0, .t0 = t0, .tau = tau, .warm = warm,
    };
}

void
lr_rate_add(struct lr_rate *r, double t)
{
    t = fmax(t, r->last);
    r->sum = r->sum * exp(-(t - r->last) / r->tau) + 1;
    r->last = t;
}

double
lr_rate_get(const struct lr_rate *r, double t)
{
    t = fmax(t, r->last);
    double elapsed = fmax(t - r->t0, r->warm);
    if (!(elapsed > 0) || r->sum == 0)
        return 0;
    /* 1 - exp(-x) as -expm1(-x): exact for the small x of a young
     * count; exp(-inf) = 0 for t0 = -inf. */
    return r->sum * exp(-(t - r->last) / r->tau)
           / (r->tau * -expm1(-elapsed / r->tau));
}

void
lr_rate_set(struct lr_rate *r, double t, double rate)
{
    r->t0 = -INFINITY;
    r->last = t;
    r->sum = rate * r->tau;
}
