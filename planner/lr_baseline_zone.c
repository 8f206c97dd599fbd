/*
 * lr_baseline_zone: the zone/telemetry-aware baseline, after the
 * network-aware schedulers of Kubernetes (topology-aware scheduling:
 * keep a job in as few zones as possible, then rank the candidates by
 * the network as measured).  A zone here is a data center.
 *
 * Model.  Let C_n be the chains of n distinct DCs, each linked to the
 * next.  For n = 1, 2, ..., K, CDynP plans every chain c of C_n with its
 * order fixed to c (lr_cdynp_plan(), docs/cdynp.md); the first n for
 * which some chain has a plan is kept, and among its plans P_c the one of
 * least
 *     S(P_c) = T(P_c) over the network as measured,
 * lr_telemetry_score(): each inter-DC link's bandwidth cut to what the
 * lightpaths have left after their measured throughput and loss, its
 * latency raised to the measured delay (planner/lr_telemetry.h); pairs
 * without a measurement, or no telemetry at all, keep the inventory's
 * figures (S = T).  Ties go to the earlier chain (DC indices in
 * lexicographic order).  The plan's evaluation 'ev' is the nominal one
 * (lr_tm_evaluate), as the other baselines give.
 *
 * Complexity: at most sum_n K!/(K-n)! fixed-chain CDynP runs, each the
 * chain DP of one order (the search stops at the first n that works).
 *
 * Deviation: those schedulers place pods on nodes; here the stages inside
 * the chosen DCs are CDynP's, and "measured" is the emulated data plane's
 * counters (southbound/sb_linux.h) when the controller has one.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "planner/lr_baseline.h"
#include "planner/lr_cdynp.h"

struct zone_search {
    const struct lr_tm *tm;
    const struct lr_telemetry *tel;
    int n;                        /* chain length being tried */
    int order[LR_TM_MAX_DCS];
    bool used[LR_TM_MAX_DCS];
    struct lr_plan *cand, *best;
    struct lr_tm_eval *ev;
    double best_score;
    bool found;
    enum lr_tm_why why;           /* the last failure, when none found */
};

static void
try_order(struct zone_search *z)
{
    struct lr_cdynp_options opt = {
        .window = LR_CDYNP_DEFAULT_WINDOW, .order = z->order,
        .n_order = z->n,
    };
    enum lr_tm_why why = lr_cdynp_plan(z->tm, &opt, z->cand, z->ev);
    if (why != LR_TM_OK) {
        /* Out of memory says nothing of the chains: it stands. */
        if (z->why != LR_TM_NOMEM)
            z->why = why;
        return;
    }
    double s = z->tel ? lr_telemetry_score(z->tm, z->tel, z->cand)
                      : z->ev->T;
    if (!z->found || s < z->best_score) {
        *z->best = *z->cand;
        z->best_score = s;
        z->found = true;
    }
}

/* Every chain of z->n DCs extending order[0..k-1]. */
static void
chains(struct zone_search *z, int k)
{
    if (k == z->n) {
        try_order(z);
        return;
    }
    for (int d = 0; d < z->tm->n_dcs; d++) {
        if (z->used[d] || (k > 0 && !(z->tm->link[z->order[k - 1]][d].bw > 0)))
            continue;
        z->used[d] = true;
        z->order[k] = d;
        chains(z, k + 1);
        z->used[d] = false;
    }
}

enum lr_tm_why
lr_baseline_zone(const struct lr_tm *tm, const struct lr_telemetry *tel,
                 struct lr_plan *plan, struct lr_tm_eval *ev)
{
    struct zone_search z = {
        .tm = tm, .tel = tel, .best = plan, .ev = ev, .why = LR_TM_DEVICES,
    };
    z.cand = malloc(sizeof *z.cand);
    if (!z.cand)
        return ev->why = LR_TM_NOMEM;
    /* Beyond one DC per layer a chain has a DC without a layer. */
    for (z.n = 1; z.n <= tm->n_dcs && z.n <= tm->model->n_layers && !z.found;
         z.n++)
        chains(&z, 0);
    free(z.cand);
    if (!z.found || z.why == LR_TM_NOMEM)
    {
        ev->T = INFINITY;
        return ev->why = z.why;
    }
    lr_tm_evaluate(tm, plan, ev);
    return LR_TM_OK;
}
