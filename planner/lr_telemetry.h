/*
 * lr_telemetry: what the network measured between data centers, in the
 * planner's terms, and the score a telemetry-aware scheduler gives a
 * plan with it (the zone/telemetry-aware baseline of network-aware
 * schedulers: candidates are ranked by the iteration time they would
 * have over the network as measured, not as provisioned).
 *
 * Model.  For the directed DC pair (a, b), over one sampling interval:
 *   C    capacity of the lightpaths a -> b, bytes/s (as provisioned)
 *   th   throughput measured on them, bytes/s (their traffic)
 *   p    loss: packets dropped / packets offered, in [0, 1]
 *   d    delay, s
 * from link counters (bytes B, packets P, drops D at two instants t0, t1,
 * on a data plane whose rates are scaled by s = emulated / real):
 *   th = s (B1 - B0) / (t1 - t0),  p = (D1 - D0) / (P1 - P0 + D1 - D0).
 * The bandwidth left to a new job and the latency it would see:
 *   avail(a, b) = max(C - th, 0) (1 - p),   lat(a, b) = d;
 * lr_telemetry_apply() sets the time model's link {a, b} (symmetric in
 * lr_tm) to bw = min(bw, avail(a, b), avail(b, a)) where the link exists
 * or only telemetry knows it, lat = max(lat, d(a, b), d(b, a)); pairs
 * without a measurement are left as they are.  lr_telemetry_score() is
 * T of a plan on that view (lr_tm_evaluate), +inf when the plan cannot
 * run there (a pair with nothing left).
 *
 * Pure: no I/O; the controller fills the struct from netlink counters
 * (controller/lr_ctl.c, lr_ctl_sample()).
 */
#ifndef LR_TELEMETRY_H
#define LR_TELEMETRY_H 1

#include <stdbool.h>
#include <stdint.h>

#include "planner/lr_timemodel.h"

struct lr_link_telemetry {
    bool valid;               /* a measurement exists */
    double capacity;          /* C, bytes/s */
    double throughput;        /* th, bytes/s */
    double loss;              /* p */
    double delay;             /* d, s */
};

struct lr_telemetry {
    int n_dcs;
    struct lr_link_telemetry link[LR_TM_MAX_DCS][LR_TM_MAX_DCS]; /* a->b */
};

/* Counters of one directed link at one instant. */
struct lr_counter_sample {
    uint64_t bytes, packets, drops;
    int64_t ms;               /* a monotonic clock, milliseconds */
};

/* th (bytes/s, times 'scale') and p between two samples.  EINVAL when
 * no time passed or a counter went backwards (the link was made
 * again): no measurement. */
int lr_telemetry_measure(const struct lr_counter_sample *before,
                         const struct lr_counter_sample *after, double scale,
                         double *throughput, double *loss);

/* Clears every pair; 'n_dcs' DCs. */
void lr_telemetry_reset(struct lr_telemetry *, int n_dcs);

/* Adds one measured lightpath a -> b: capacities and throughputs add up,
 * the loss is the throughput-weighted mean (the capacity-weighted one
 * when idle), the delay the largest. */
void lr_telemetry_add(struct lr_telemetry *, int a, int b, double capacity,
                      double throughput, double loss, double delay);

/* avail(a, b) above; 0 for a pair without a measurement. */
double lr_telemetry_available(const struct lr_telemetry *, int a, int b);

/* The time model's links as measured (see above). */
void lr_telemetry_apply(const struct lr_telemetry *, struct lr_tm *);

/* T of 'plan' over a copy of 'tm' with the telemetry applied; +inf when
 * it cannot run there. */
double lr_telemetry_score(const struct lr_tm *, const struct lr_telemetry *,
                          const struct lr_plan *);

#endif
