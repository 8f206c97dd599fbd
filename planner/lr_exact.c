/*
 * lr_exact: branch and bound over the whole plan space of the v1 model.
 *
 * Plan space.  Every ordered choice of distinct DCs (any subset, any
 * order, consecutive DCs linked), every cut of layers 1..L into
 * contiguous stages, every assignment of stages to the chosen DCs in
 * order (a DC's stages consecutive), and every device count g >= 1 per
 * stage with sum g <= N_k per DC.  The number of plans grows as
 * O(K! 2^(L-1) prod_k N_k^(stages in k)): exponential; this is for small
 * instances (the tests and docs/cdynp.md use L <= 12, K <= 3, N_k <= 4).
 *
 * Search.  Depth-first, one stage per level: (layers i..j, DC, g).  Every
 * term of T only grows as stages are added (the sums, the bottleneck
 * max(t, x), the sync max S), and the stages still to come need at least
 *     3 b sum_{l >= i} F_l / max_k (N_k P_k eta_k)
 * of compute time, so
 *     LB = sum + (m - 1) bottleneck + max S + that remainder
 * is a lower bound on T of every completion; a node with LB >= the best
 * T found is cut.  Memory needs min(m, p) with the final p unknown; a
 * stage must fit for the stages placed so far (a necessary condition,
 * since min(m, p) only grows), and a complete plan is checked in full by
 * lr_tm_evaluate().  The search starts from CDynP's plan as its first
 * incumbent, which tightens the cut from the first node.  Exact: no plan
 * is cut whose T could be below the incumbent.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_cdynp.h"
#include "planner/lr_exact.h"

struct search {
    const struct lr_tm *tm;
    long max_nodes;
    struct lr_exact_stats *stats;
    double max_compute;       /* max_k N_k P_k eta_k */
    struct lr_plan cur;
    struct lr_plan *best;
    struct lr_tm_eval *best_eval;
    struct lr_tm_eval *scratch;
    bool found;
    int used_dev[LR_TM_MAX_DCS];
    bool visited[LR_TM_MAX_DCS];
};

static void
dfs(struct search *s, int i, double sum, double bneck, double smax)
{
    const struct lr_tm *tm = s->tm;
    const int L = tm->model->n_layers;
    if (s->max_nodes && s->stats->nodes >= s->max_nodes) {
        s->stats->complete = false;
        return;
    }
    s->stats->nodes++;

    if (i == L) {
        s->stats->leaves++;
        if (lr_tm_evaluate(tm, &s->cur, s->scratch) == LR_TM_OK
            && (!s->found || s->scratch->T < s->best_eval->T)) {
            *s->best = s->cur;
            *s->best_eval = *s->scratch;
            s->found = true;
        }
        return;
    }
    double rest = 3 * tm->train.micro * lr_model_flops(tm->model, i, L - 1)
                  / s->max_compute;
    if (s->found && sum + (tm->m - 1) * bneck + smax + rest
                    >= s->best_eval->T)
        return;
    if (s->cur.n_stages == LR_PLAN_MAX_STAGES)
        return;

    const int p = s->cur.n_stages;
    const int cur = p ? s->cur.stages[p - 1].dc : -1;
    for (int k = 0; k < tm->n_dcs && s->stats->complete; k++) {
        if (k != cur && (s->visited[k] || (cur >= 0 && !(tm->link[cur][k].bw
                                                         > 0))))
            continue;
        int avail = tm->dcs[k].n_devices - (k == cur ? s->used_dev[k] : 0);
        double c = 0, x = 0;
        if (p)
            lr_tm_boundary(tm, i - 1, cur, k, &c, &x);
        /* Out of nodes: every loop ends (their counts, up to a DC's
         * devices times the layers, would call dfs() that often). */
        for (int j = i; j < L && s->stats->complete; j++) {
            for (int g = avail; g >= 1 && s->stats->complete; g--) {
                if (!lr_tm_stage_fits(tm, k, i, j, g, p + 1))
                    break;   /* fewer devices need more memory */
                double t = lr_tm_stage_time(tm, k, i, j, g);
                double sy = lr_tm_stage_sync(tm, k, i, j, g);
                bool was = s->visited[k];
                s->visited[k] = true;
                s->used_dev[k] += g;
                s->cur.stages[p] = (struct lr_stage) { i, j, k, g };
                s->cur.n_stages = p + 1;
                dfs(s, j + 1, sum + t + 2 * c, fmax(bneck, fmax(t, x)),
                    fmax(smax, sy));
                s->cur.n_stages = p;
                s->used_dev[k] -= g;
                s->visited[k] = was;
            }
        }
    }
}

enum lr_tm_why
lr_exact_plan(const struct lr_tm *tm, long max_nodes, struct lr_plan *plan,
              struct lr_tm_eval *eval, struct lr_exact_stats *stats)
{
    struct search s = {
        .tm = tm, .max_nodes = max_nodes, .stats = stats,
        .best = plan, .best_eval = eval,
    };
    memset(stats, 0, sizeof *stats);
    stats->complete = true;
    for (int k = 0; k < tm->n_dcs; k++) {
        double c = tm->dcs[k].n_devices * tm->dcs[k].peak * tm->dcs[k].eff;
        if (c > s.max_compute)
            s.max_compute = c;
    }
    s.scratch = malloc(sizeof *s.scratch);
    if (!s.scratch) {
        eval->why = LR_TM_NOMEM;
        return LR_TM_NOMEM;
    }
    /* CDynP's plan, if any, is the first incumbent. */
    s.found = lr_cdynp_plan(tm, NULL, plan, eval) == LR_TM_OK;
    dfs(&s, 0, 0, 0, 0);
    free(s.scratch);
    if (!s.found) {
        eval->why = LR_TM_MEMORY;
        eval->T = INFINITY;
        return LR_TM_MEMORY;
    }
    return LR_TM_OK;
}
