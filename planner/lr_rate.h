/*
 * lr_rate: the rate of a stream of events (arrivals) as the events so
 * far show it, an exponentially weighted count corrected for its start:
 *
 *     S(t)      = sum over events a <= t of exp(-(t - a) / tau)
 *     lambda^(t) = S(t) / (tau (1 - exp(-max(t - t0, w) / tau)))
 *
 * For Poisson events of any constant rate lambda from t0 on, E S(t) =
 * lambda tau (1 - exp(-(t - t0) / tau)), so lambda^ is unbiased at every
 * t >= t0 + w (the correction is Adam's for its moments: D. P. Kingma
 * and J. Ba, "Adam", ICLR 2015, section 3); its relative spread is about
 * 1 / sqrt(2 lambda tau) once t - t0 >> tau.  Deviation: the window is
 * at least w (the warm-up), so that the first events after a start do
 * not read as a huge rate (one event at t0 + epsilon would give about
 * 1 / epsilon, and 1 / t has no mean for an exponential t); before t0 +
 * w the estimate reads low by about the factor (t - t0) / w.  O(1) time
 * and space per event.  Pure: the caller owns the struct and gives the
 * times.
 *
 * Used by the joint environment's load estimate (lr_jenv.h) and by
 * lightraild for its intents (controller/lr_ctl_ppo.h), the same
 * formula on both sides.
 */
#ifndef LR_RATE_H
#define LR_RATE_H 1

struct lr_rate {
    double sum;               /* S at 'last' */
    double last;              /* time of the last event */
    double t0;                /* start of the count; -inf: as if always */
    double tau;               /* time constant, > 0 */
    double warm;              /* w, the least window, >= 0 */
};

/* An empty count from time t0 with time constant tau (> 0) and warm-up
 * w (>= 0). */
void lr_rate_reset(struct lr_rate *, double t0, double tau, double warm);
/* One event at time t; a t before the last event's counts as at the
 * last event's (a clock that stepped back). */
void lr_rate_add(struct lr_rate *, double t);
/* lambda^ at time t, events per unit of time (a t before the last
 * event's reads as at it); 0 before the first event, or at t0 with
 * w = 0. */
double lr_rate_get(const struct lr_rate *, double t);
/* Makes lambda^ read 'rate' at time t, as if events at that rate had
 * always come (t0 = -inf); later events count on from there. */
void lr_rate_set(struct lr_rate *, double t, double rate);

#endif
