/*
 * SPP, as we read it.  SPP (S. Luo et al., "Efficient pipeline planning
 * for expedited distributed DNN training", INFOCOM 2022) partitions a
 * model into pipeline stages, maps them onto devices and schedules the
 * microbatches of a synchronous pipeline, minimising the iteration time.
 * Its exact recurrence is not in hand (../shared/reference/training.md).
 *
 * Our reading: SPP plans for one cluster.  It knows every device (its
 * speed, its memory) and searches the whole plan space the way a global
 * planner can: every chain of DCs, every cut, every device count, no
 * pre-partition window, no privacy, minimising T's own expression.  What
 * it does not model is the wide-area network: it prices every transfer
 * between stages at the cluster's mean intra-DC bandwidth and latency, as
 * a single-cluster planner does.  The plan it picks is then evaluated
 * with the real links.
 *
 * Implementation: the same DP as CDynP (lr_cdynp.h) with the window open
 * to the whole range, run on a copy of the time model whose inter-DC
 * links all carry the mean intra-DC figures.  Cost: CDynP's with
 * w = L, that is O(K! sum_k L^3 N_k^2) for K <= LR_CDYNP_ALL_ORDERS.
 */
#include <stdlib.h>

#include "planner/lr_baseline.h"
#include "planner/lr_cdynp.h"

enum lr_tm_why
lr_baseline_spp(const struct lr_tm *tm, struct lr_plan *plan,
                struct lr_tm_eval *eval)
{
    struct lr_tm *view = malloc(sizeof *view);
    if (!view) {
        eval->why = LR_TM_NOMEM;
        return LR_TM_NOMEM;
    }
    *view = *tm;
    double beta = 0, alpha = 0;
    for (int k = 0; k < tm->n_dcs; k++) {
        beta += tm->dcs[k].beta / tm->n_dcs;
        alpha += tm->dcs[k].alpha / tm->n_dcs;
    }
    /* SPP sees one cluster: where DCs are linked, it sees intra-DC
     * speed. */
    for (int a = 0; a < tm->n_dcs; a++)
        for (int b = a + 1; b < tm->n_dcs; b++)
            if (tm->link[a][b].bw > 0)
                lr_tm_set_link(view, a, b, beta, alpha);
    struct lr_cdynp_options opt = { .window = -1 };
    enum lr_tm_why why = lr_cdynp_plan(view, &opt, plan, eval);
    free(view);
    if (why != LR_TM_OK)
        return why;
    return lr_tm_evaluate(tm, plan, eval);
}
