/*
 * lr_sim_trace: `lightrail sim --trace FILE`, every decision of every
 * run as one JSON object per line, for seeing what a policy does (which
 * DCs, how many GPUs in each, which lightpath), not only how well.
 *
 * A tracing policy wraps the policy of a run: its choose() reads the
 * pending job and the free GPUs of every DC, asks the wrapped policy,
 * and writes the line.  It draws nothing from the run's random numbers
 * and changes nothing in the environment, so a traced run decides and
 * measures exactly as an untraced one.
 *
 * One line (keys always present unless said):
 *   {"policy":"ppo","load":3.15,"seed":1001,"job":17,"counted":true,
 *    "time":4.21,"model":"gpt-1.9b","gpus":16,
 *    "free":{"dc-ca":12,...},                  GPUs free before it
 *    "blocked":false,
 *    "placement":[{"dc":"dc-ca","gpus":8},...],  in chain order
 *    "tier_gbps":400,"route":0,                  only across DCs
 *    "iteration_s":2.41}
 * A blocked job has "blocked":true, "refused" (true when some candidate
 * was feasible: a refusal on purpose) and no placement.  The lines of a
 * rollout policy (sim --rollout BASE) also have "deviated": true when
 * its choice was not its base's (lr_jenv_rollout_stats' count).  "job" numbers
 * the run's arrivals from 1; "counted" is false during the warm-up.  A
 * job with no feasible candidate at all is blocked before any policy
 * sees it (lr_jenv_step()): it has no line, its number is missing.
 *
 * Ownership: the trace borrows the FILE, the environment's names
 * (struct lr_jenv_cli) and the wrapped policy; it owns nothing.
 */
#ifndef LR_SIM_TRACE_H
#define LR_SIM_TRACE_H 1

#include <stdio.h>

#include "planner/lr_jenv.h"
#include "planner/lr_jenv_rollout.h"
#include "tools/lightrail/lr_jenv_cli.h"

struct lr_sim_trace {
    struct lr_jenv_policy policy;       /* the wrapper; arg: this struct */
    FILE *f;
    const struct lr_jenv_cli *j;
    const struct lr_jenv_policy *inner;
    void *inner_arg;
    const struct lr_jenv_rollout *ro;   /* inner_arg when inner is a
                                         * rollout policy, else NULL */
    const char *name;                   /* the policy's name in sim */
    double load;
    unsigned long long seed;
    long warmup;
    int err;                            /* 0, or the first write's errno */
};

/* Makes 't' the tracing wrapper of 'inner' (with 'inner_arg') for one
 * run of lr_jenv_run(): pass &t->policy and t as its policy and arg.
 * 'ro': inner_arg when 'inner' is the rollout policy 'ro', so that its
 * lines tell its deviations; NULL for any other policy. */
void lr_sim_trace_begin(struct lr_sim_trace *t, FILE *f,
                        const struct lr_jenv_cli *j,
                        const struct lr_jenv_policy *inner, void *inner_arg,
                        const struct lr_jenv_rollout *ro, const char *name,
                        double load, unsigned long long seed, long warmup);

#endif
