/*
 * Data parallelism across DCs, the baseline of
 * ../shared/reference/training.md: every DC of a chosen set holds a full
 * replica and processes a share of the batch B proportional to its
 * compute C_k = N_k P_k eta_k, in microbatches of b on each device.
 *
 *   compute:   3 (B C_k / sum C) F / C_k = 3 B F / sum C   (every DC alike;
 *              shares are taken as fractions of samples)
 *   all-reduce of e sum W bytes, hierarchical: a ring inside each DC, then
 *              a ring over the DCs across the slowest of their links,
 *              ring(S, n, alpha, beta) = 2 (n-1) alpha + 2 (n-1)/n S / beta
 *   T = compute + max_k ring(S, N_k, alpha_k, beta_k)
 *       + ring(S, K, max delta, min C)
 *   memory: 16 sum W + b e sum A <= M_k on every device
 *
 * Which DCs: the chains of lr_cdynp_order() and their prefixes (a DC
 * behind a slow link can cost more than its compute gives; a DC without
 * devices is in none); the least T wins; LR_TM_DEVICES when no DC has
 * devices.  Cost O(K^2).
 */
#include <math.h>

#include "planner/lr_baseline.h"
#include "planner/lr_cdynp.h"

static double
ring(double bytes, int n, double alpha, double beta)
{
    return n <= 1 ? 0 : 2.0 * (n - 1) * alpha
                        + 2.0 * (n - 1) / n * bytes / beta;
}

enum lr_tm_why
lr_baseline_dp(const struct lr_tm *tm, struct lr_plan *plan,
               struct lr_tm_eval *eval)
{
    const struct lr_model *m = tm->model;
    const int L = m->n_layers;
    const double bytes = tm->train.elem_bytes * lr_model_params(m, 0, L - 1);
    const double mem = 16 * lr_model_params(m, 0, L - 1)
                       + tm->train.micro * tm->train.elem_bytes
                         * lr_model_act(m, 0, L - 1);
    int order[LR_TM_MAX_DCS];
    int n = lr_cdynp_order(tm, order);
    bool found = false;

    eval->why = LR_TM_MEMORY;
    eval->T = INFINITY;
    /* The head has the most compute: without devices there, there are
     * none anywhere, and a replica needs one (its compute time would
     * be 3 B F / 0, a T of inf "planned"). */
    if (!(tm->dcs[order[0]].n_devices > 0)) {
        eval->why = LR_TM_DEVICES;
        return LR_TM_DEVICES;
    }
    for (int used = 1; used <= n; used++) {
        int k = order[used - 1];
        if (mem > tm->dcs[k].mem)
            break;   /* every longer prefix holds this DC too */
        double total = 0, intra = 0, slow_bw = INFINITY, slow_lat = 0;
        for (int i = 0; i < used; i++) {
            const struct lr_tm_dc *d = &tm->dcs[order[i]];
            total += d->n_devices * d->peak * d->eff;
            intra = fmax(intra, ring(bytes, d->n_devices, d->alpha, d->beta));
            if (i > 0) {
                const struct lr_tm_link *l = &tm->link[order[i - 1]][order[i]];
                slow_bw = fmin(slow_bw, l->bw);
                slow_lat = fmax(slow_lat, l->lat);
            }
        }
        double compute = 3 * tm->train.batch * lr_model_flops(m, 0, L - 1)
                         / total;
        double inter = used > 1 ? ring(bytes, used, slow_lat, slow_bw) : 0;
        double T = compute + intra + inter;
        if (found && T >= eval->T)
            continue;
        found = true;
        plan->n_stages = used;
        *eval = (struct lr_tm_eval) { .why = LR_TM_OK, .bad_stage = -1 };
        eval->T = T;
        eval->compute_sum = compute;
        eval->sync_max = intra + inter;
        for (int i = 0; i < used; i++) {
            plan->stages[i] = (struct lr_stage) {
                0, L - 1, order[i], tm->dcs[order[i]].n_devices,
            };
            eval->t[i] = compute;
            eval->sync[i] = intra + inter;
            eval->mem[i] = mem;
        }
    }
    return eval->why;
}
