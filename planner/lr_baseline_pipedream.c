/*
 * PipeDream's partitioner (D. Narayanan et al., "PipeDream: generalized
 * pipeline parallelism for DNN training", SOSP 2019), as the baseline of
 * ../shared/reference/training.md:
 *     A(j, n) = min over i < j, 1 <= n' < n of
 *               max( A(i, n - n'), 2 C_i, T(i+1..j, n') )
 *     A(j, n) also = T(1..j, n)      (one stage, replicated n ways)
 * over N = sum_k N_k devices, with C_i the transfer time of the
 * activations after layer i and T the time per microbatch of a stage
 * replicated n' ways, which in PipeDream is the larger of its compute and
 * its weight synchronisation, the two overlapping:
 *     T(i..j, n') = max( t(i..j, n'), S(i..j, n') / m )
 * with t and S the stage time and ring all-reduce of lr_timemodel.h
 * (S is per iteration, so per microbatch S / m).  PipeDream assumes one
 * homogeneous cluster: we give it the mean device (sum P eta / N), the
 * mean intra-DC bandwidth and latency for C_i and S, and no memory limit
 * (its partitioner has none; the plan is checked against memory when
 * evaluated).
 *
 * Mapping: the stages, in order, go to the DCs of lr_cdynp_order() (which
 * leaves out DCs without devices) in order; a stage moves on to the next
 * DC when the current one has fewer free devices than its replicas, and
 * a stage wider than a whole DC is cut down to that DC's size (the v1
 * model keeps a stage in one DC).  The plan is evaluated with the real
 * devices and links.
 *
 * The recurrence has no bound on the number of stages: with more than
 * LR_PLAN_MAX_STAGES layers and devices its best cut can have more
 * stages than a plan holds, and we refuse it (LR_TM_STAGES) rather than
 * cut it short.
 *
 * No devices at all (N = 0): LR_TM_DEVICES.
 *
 * Cost O(L^2 N^2) time, O(L N) space: past
 * LR_BASELINE_PIPEDREAM_MAX_STEPS steps we refuse (LR_TM_WORK) before
 * allocating anything.
 */
#include <math.h>
#include <stdlib.h>

#include "planner/lr_baseline.h"
#include "planner/lr_cdynp.h"

struct pd_cell {
    double a;
    int i;                    /* previous stage's last layer, -1 = none */
    int n;                    /* this stage's replicas */
};

enum lr_tm_why
lr_baseline_pipedream(const struct lr_tm *tm, struct lr_plan *plan,
                      struct lr_tm_eval *eval)
{
    return lr_baseline_pipedream_max(tm, LR_PLAN_MAX_STAGES, plan, eval);
}

enum lr_tm_why
lr_baseline_pipedream_max(const struct lr_tm *tm, int max_stages,
                          struct lr_plan *plan, struct lr_tm_eval *eval)
{
    const struct lr_model *m = tm->model;
    const int L = m->n_layers;
    int N = 0;
    double speed = 0, beta = 0, alpha = 0;
    for (int k = 0; k < tm->n_dcs; k++) {
        N += tm->dcs[k].n_devices;
        speed += tm->dcs[k].n_devices * tm->dcs[k].peak * tm->dcs[k].eff;
        beta += tm->dcs[k].beta / tm->n_dcs;
        alpha += tm->dcs[k].alpha / tm->n_dcs;
    }
    if (N < 1) {
        /* No cell to walk back from (the table's columns are 1..N). */
        eval->why = LR_TM_DEVICES;
        eval->bad_stage = -1;
        eval->T = INFINITY;
        return LR_TM_DEVICES;
    }
    if (lr_baseline_pipedream_steps(L, N) > LR_BASELINE_PIPEDREAM_MAX_STEPS) {
        eval->why = LR_TM_WORK;
        eval->bad_stage = -1;
        eval->T = INFINITY;
        return LR_TM_WORK;
    }
    speed /= N;
    const double b = tm->train.micro, e = tm->train.elem_bytes;
    /* T(i..j, n) of the header, on the mean device and network. */
#define STAGE(i, j, n)                                                       \
    fmax(3 * b * lr_model_flops(m, (i), (j)) / ((n) * speed),                \
         (n) > 1 ? (2.0 * ((n) - 1) / (n) * e * lr_model_params(m, (i), (j)) \
                    / beta + 2.0 * ((n) - 1) * alpha) / tm->m : 0)

    struct pd_cell *A = malloc((size_t) L * (N + 1) * sizeof *A);
    if (!A) {
        eval->why = LR_TM_NOMEM;
        return LR_TM_NOMEM;
    }
#define CELL(j, n) A[(size_t) (j) * (N + 1) + (n)]
    for (int j = 0; j < L; j++)
        for (int n = 1; n <= N; n++) {
            struct pd_cell best = { STAGE(0, j, n), -1, n };
            for (int i = 0; i < j; i++) {
                double comm = 2 * lr_tm_boundary_bytes(tm, i) / beta;
                for (int np = 1; np < n; np++) {
                    double v = fmax(fmax(CELL(i, n - np).a, comm),
                                    STAGE(i + 1, j, np));
                    if (v < best.a)
                        best = (struct pd_cell) { v, i, np };
                }
            }
            CELL(j, n) = best;
        }

    /* Walk back from (L-1, N), then map the stages onto DCs. */
    struct lr_stage st[LR_PLAN_MAX_STAGES];
    int ns = 0, j = L - 1;
    if (max_stages < 1 || max_stages > LR_PLAN_MAX_STAGES)
        max_stages = LR_PLAN_MAX_STAGES;
    for (int n = N; j >= 0 && ns < max_stages;) {
        struct pd_cell c = CELL(j, n);
        st[ns++] = (struct lr_stage) { c.i + 1, j, -1, c.n };
        n -= c.n;
        j = c.i;
    }
#undef CELL
#undef STAGE
    free(A);
    if (j >= 0) {
        /* Layers 0..j are left: the cut has more stages than a plan
         * holds. */
        eval->why = LR_TM_STAGES;
        eval->bad_stage = -1;
        eval->T = INFINITY;
        return LR_TM_STAGES;
    }

    int order[LR_TM_MAX_DCS], n_order = lr_cdynp_order(tm, order);
    int pos = 0, used = 0;
    plan->n_stages = 0;
    for (int s = ns - 1; s >= 0; s--) {
        struct lr_stage x = st[s];
        while (pos < n_order
               && tm->dcs[order[pos]].n_devices - used < x.g
               && used > 0) {
            pos++;
            used = 0;
        }
        if (pos >= n_order) {
            eval->why = LR_TM_DEVICES;
            eval->T = INFINITY;
            return LR_TM_DEVICES;
        }
        int cap = tm->dcs[order[pos]].n_devices;
        if (x.g > cap)
            x.g = cap;
        x.dc = order[pos];
        used += x.g;
        plan->stages[plan->n_stages++] = x;
    }
    return lr_tm_evaluate(tm, plan, eval);
}
