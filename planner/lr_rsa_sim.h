/*
 * lr_rsa_sim: a discrete-event simulator of dynamic lightpath traffic, the
 * RMSA benchmark protocol of ../shared/reference/optical.md.
 *
 * Requests arrive as a Poisson process of rate lambda = load / h (h the
 * mean holding time, 1 here); each picks a source uniformly and a
 * different destination uniformly, and an integer rate uniform in
 * [rate_min, rate_max] Gb/s.  A holding time is exponential with mean h;
 * with 'truncate' set it is redrawn until 0 < t < 2h, as DeepRMSA's code
 * does, which lowers the real mean to about 0.687 h: the load quoted
 * ("250 E") is the nominal lambda h, the carried traffic about 0.687 of
 * it.  Departures due before an arrival are processed first (a binary
 * min-heap by departure time).  The first 'warmup' requests are served
 * but not counted; blocking is counted over the next
 * n_requests - warmup.
 *
 * Pure: no I/O; the caller gets the counts and prints them.
 */
#ifndef LR_RSA_SIM_H
#define LR_RSA_SIM_H 1

#include <stdbool.h>
#include <stdint.h>

#include "planner/lr_rsa.h"

struct lr_rsa_sim_config {
    double load;              /* Erlang (nominal) */
    long n_requests;          /* total, warm-up included */
    long warmup;
    uint64_t seed;
    int rate_min, rate_max;   /* Gb/s, integers */
    bool truncate;            /* DeepRMSA holding-time redraw */
};

struct lr_rsa_sim_result {
    long counted;             /* requests after warm-up */
    long blocked;             /* of those */
    double blocking;          /* blocked / counted */
    double bit_blocking;      /* blocked Gb/s / requested Gb/s */
    long blocked_by[4];       /* per enum lr_rsa_block */
    double utilisation;       /* time-average share of booked slots */
};

/* Fills 'cfg' with the benchmark protocol: 13,000 requests, 3,000 warm-up,
 * 25..100 Gb/s, truncated holding; load and seed left for the caller. */
void lr_rsa_sim_defaults(struct lr_rsa_sim_config *cfg);

/* Runs one seed on 'rsa' (its spectrum is reset first and left as the
 * run ends).  Returns 0, EINVAL for a bad config, or ENOMEM. */
int lr_rsa_sim_run(struct lr_rsa *rsa, const struct lr_rsa_sim_config *cfg,
                   struct lr_rsa_sim_result *out);

/* The set of block sizes requests of [rate_min, rate_max] may need with
 * the engine's modulation table and guard, into set[] (what
 * lr_rsa_config.demand_sizes takes); sizes above LR_RSA_MAX_DEMAND_SIZE
 * slots, which no spectrum holds, are left out. */
void lr_rsa_sim_demand_sizes(const struct lr_modtable *, int guard,
                             int rate_min, int rate_max,
                             uint64_t set[LR_RSA_DEMAND_WORDS]);

#endif
