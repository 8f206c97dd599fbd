/*
 * lr_cdynp_chain: the CDynP coordinator.
 *
 * Model.  DCs c_0 .. c_{n-1} form a chain (lr_cdynp_order()).  The
 * pre-partition gives DC c_k the layers whose forward FLOPs make up its
 * share of the chain's compute, N P eta (the one number each DC reveals):
 * boundary beta_k = the first layer l with
 *     sum_{i <= l} F_i >= (sum_{i <= k} compute_i / sum_i compute_i) sum F,
 * clamped so that every DC keeps at least one layer.  DC c_k may end its
 * range anywhere in [beta_k - w, beta_k + w] (the last DC ends at L - 1).
 * The head computes F_0(b) = Cost_0(0, b) on its window; each next DC
 * takes the summary {(a, F_{k-1}(a))} and computes F_k on its window
 * (lr_cdynp_local.c); the tail picks b = L - 1 and the choices are walked
 * back DC by DC.  Each DC then lays out its own stages for its range.
 *
 * Memory depends on the total number of stages p (min(m, p) microbatches
 * in flight), which no DC knows in advance: we plan assuming p0 = n, and
 * if the plan has more stages, plan again assuming that many, until the
 * assumption covers the plan (p only grows, and past m it no longer
 * matters).
 *
 * Which chains.  With a given order, that chain only.  Otherwise, up to
 * LR_CDYNP_ALL_ORDERS DCs, every ordered subset of DCs linked one to the
 * next (sum_n K!/(K-n)! chains: 64 for K = 4, 1,956 for K = 6), keeping
 * the least T: the coordinator knows only the links and the aggregate
 * compute, so it cannot tell in advance which DCs are worth their link.
 * Each DC's costs do not depend on the chain, so its cache serves every
 * chain (one cache per objective and assumed stage count).  Beyond that, the greedy chain of lr_cdynp_order() and each of
 * its prefixes.
 *
 * Complexity: per chain, sum over DCs of the local DP on its windowed
 * ranges, O(sum_k (2w+1) R_k^2 N_k^2) with R_k the longest range DC k may
 * get, plus O(n (2w+1)^2) for the chain itself.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_cdynp.h"

int
lr_cdynp_order(const struct lr_tm *tm, int *order)
{
    bool used[LR_TM_MAX_DCS] = { false };
    int n = 0;
    double compute[LR_TM_MAX_DCS];
    for (int k = 0; k < tm->n_dcs; k++)
        compute[k] = tm->dcs[k].n_devices * tm->dcs[k].peak * tm->dcs[k].eff;
    int head = 0;
    for (int k = 1; k < tm->n_dcs; k++)
        if (compute[k] > compute[head])
            head = k;
    order[n++] = head;
    used[head] = true;
    for (;;) {
        int tail = order[n - 1], next = -1;
        for (int k = 0; k < tm->n_dcs; k++) {
            double bw = tm->link[tail][k].bw;
            if (used[k] || !(bw > 0))
                continue;
            if (next < 0 || bw > tm->link[tail][next].bw
                || (bw == tm->link[tail][next].bw
                    && compute[k] > compute[next]))
                next = k;
        }
        if (next < 0)
            break;
        order[n++] = next;
        used[next] = true;
    }
    return n;
}

/* Runs the chain over handles dc[0..n-1] (chain order, DC indices
 * order[]).  Returns LR_TM_OK with 'plan' filled, or why not. */
static enum lr_tm_why
run_chain(const struct lr_tm *tm, struct lr_cdynp_dc **dc, const int *order,
          int n, int window, struct lr_cdynp_summary *buf[2],
          struct lr_plan *plan)
{
    const int L = tm->model->n_layers;
    const struct lr_model *m = tm->model;
    if (L < n)
        return LR_TM_DEVICES;

    double total = 0, acc = 0;
    for (int k = 0; k < n; k++)
        total += lr_cdynp_dc_compute(dc[k]);
    int lo[LR_TM_MAX_DCS], hi[LR_TM_MAX_DCS];
    for (int k = 0; k < n; k++) {
        int min_b = k, max_b = L - n + k;
        if (k == n - 1) {
            lo[k] = hi[k] = L - 1;
            break;
        }
        acc += lr_cdynp_dc_compute(dc[k]);
        double target = acc / total * lr_model_flops(m, 0, L - 1);
        int beta = 0;
        while (beta < L - 1 && lr_model_flops(m, 0, beta) < target)
            beta++;
        int l0 = window < 0 ? min_b : beta - window;
        int h0 = window < 0 ? max_b : beta + window;
        lo[k] = l0 < min_b ? min_b : l0 > max_b ? max_b : l0;
        hi[k] = h0 > max_b ? max_b : h0 < min_b ? min_b : h0;
        if (hi[k] - lo[k] + 1 > LR_CDYNP_MAX_ENTRIES)
            hi[k] = lo[k] + LR_CDYNP_MAX_ENTRIES - 1;
    }

    for (int k = 0; k < n; k++) {
        const struct lr_tm_link *link = k ? &tm->link[order[k - 1]][order[k]]
                                          : NULL;
        if (k && !(link->bw > 0))
            return LR_TM_NO_LINK;
        int err = lr_cdynp_dc_step(dc[k], k ? buf[(k - 1) % 2] : NULL, link,
                                   (uint16_t) k, lo[k], hi[k], buf[k % 2]);
        if (err)
            return LR_TM_MEMORY;
    }

    int first[LR_TM_MAX_DCS], last = L - 1;
    for (int k = n - 1; k >= 0; k--) {
        int prev;
        if (lr_cdynp_dc_backtrack(dc[k], last, &prev))
            return LR_TM_MEMORY;
        first[k] = prev + 1;
        if (k == 0 && prev != -1)
            return LR_TM_SHAPE;
        int range_last = last;
        last = prev;
        hi[k] = range_last;   /* reuse: the range DC k finally runs */
    }
    plan->n_stages = 0;
    for (int k = 0; k < n; k++)
        if (lr_cdynp_dc_stages(dc[k], first[k], hi[k], order[k], plan))
            return LR_TM_MEMORY;
    return LR_TM_OK;
}

struct plan_search {
    const struct lr_tm *tm;
    int window;
    /* Handle sets, one per (objective, assumed stage count): a DC's costs
     * depend on both but not on the chain, so each set keeps its cache
     * across every chain that needs it. */
    struct handle_set {
        enum lr_cdynp_objective obj;
        int assumed;
        struct lr_cdynp_dc *dc[LR_TM_MAX_DCS];
    } sets[LR_CDYNP_MAX_SETS];
    int n_sets;
    int assumed[2];               /* per objective: only grows */
    bool oom;
    struct lr_cdynp_summary *buf[2];
    struct lr_plan *cand, *plan;
    struct lr_tm_eval *ev, *eval;
    bool found;
    enum lr_tm_why why;           /* the last failure, when none found */
};

/* The handles for 'obj' assuming 'assumed' stages (only min(m, p)
 * matters), made on first use; NULL when out of memory or sets. */
static struct lr_cdynp_dc **
handles(struct plan_search *ps, enum lr_cdynp_objective obj, int assumed)
{
    if (assumed > ps->tm->m)
        assumed = ps->tm->m;
    for (int i = 0; i < ps->n_sets; i++)
        if (ps->sets[i].obj == obj && ps->sets[i].assumed == assumed)
            return ps->sets[i].dc;
    if (ps->n_sets == LR_CDYNP_MAX_SETS)
        return NULL;
    struct handle_set *hs = &ps->sets[ps->n_sets++];
    hs->obj = obj;
    hs->assumed = assumed;
    for (int k = 0; k < ps->tm->n_dcs; k++) {
        hs->dc[k] = lr_cdynp_dc_new(ps->tm, k, assumed);
        if (!hs->dc[k]) {
            ps->oom = true;
            return NULL;
        }
        lr_cdynp_dc_reset(hs->dc[k], assumed, obj);
    }
    return hs->dc;
}

/* Plans one chain (DC indices order[0..n-1]) under one objective and
 * keeps the plan if it is the best so far. */
static void
try_chain_obj(struct plan_search *ps, const int *order, int n,
              enum lr_cdynp_objective obj)
{
    const struct lr_tm *tm = ps->tm;
    struct lr_cdynp_dc *chain[LR_TM_MAX_DCS];
    int assumed = n > ps->assumed[obj] ? n : ps->assumed[obj];
    enum lr_tm_why why = LR_TM_OK;
    for (int round = 0; round < 16; round++) {
        struct lr_cdynp_dc **dc = handles(ps, obj, assumed);
        if (!dc) {
            why = LR_TM_MEMORY;
            break;
        }
        for (int k = 0; k < n; k++)
            chain[k] = dc[order[k]];
        why = run_chain(tm, chain, order, n, ps->window, ps->buf, ps->cand);
        if (why != LR_TM_OK)
            break;
        why = lr_tm_evaluate(tm, ps->cand, ps->ev);
        /* The plan's memory was checked for 'assumed' stages; it holds
         * when the plan has no more, or min(m, p) did not change. */
        int p = ps->cand->n_stages;
        if (p <= assumed || (assumed >= tm->m && p >= tm->m))
            break;
        assumed = p;
    }
    ps->assumed[obj] = assumed;
    if (why == LR_TM_OK && (!ps->found || ps->ev->T < ps->eval->T)) {
        *ps->plan = *ps->cand;
        *ps->eval = *ps->ev;
        ps->found = true;
    } else if (why != LR_TM_OK) {
        ps->why = why;
    }
}

static void
try_chain(struct plan_search *ps, const int *order, int n)
{
    try_chain_obj(ps, order, n, LR_CDYNP_LEX);
    try_chain_obj(ps, order, n, LR_CDYNP_TIME);
}

/* Every ordered subset of linked DCs, extending 'order[0..n-1]'. */
static void
all_chains(struct plan_search *ps, int *order, int n, bool *used)
{
    if (n > 0)
        try_chain(ps, order, n);
    for (int k = 0; k < ps->tm->n_dcs; k++) {
        if (used[k] || (n > 0 && !(ps->tm->link[order[n - 1]][k].bw > 0)))
            continue;
        used[k] = true;
        order[n] = k;
        all_chains(ps, order, n + 1, used);
        used[k] = false;
    }
}

enum lr_tm_why
lr_cdynp_plan(const struct lr_tm *tm, const struct lr_cdynp_options *opt,
              struct lr_plan *plan, struct lr_tm_eval *eval)
{
    struct plan_search ps = {
        .tm = tm, .window = opt ? opt->window : LR_CDYNP_DEFAULT_WINDOW,
        .plan = plan, .eval = eval, .why = LR_TM_MEMORY,
    };
    ps.buf[0] = malloc(sizeof **ps.buf);
    ps.buf[1] = malloc(sizeof **ps.buf);
    ps.cand = malloc(sizeof *ps.cand);
    ps.ev = malloc(sizeof *ps.ev);
    if (!ps.buf[0] || !ps.buf[1] || !ps.cand || !ps.ev)
        goto cleanup;

    int order[LR_TM_MAX_DCS];
    if (opt && opt->order) {
        if (opt->n_order < 1 || opt->n_order > tm->n_dcs) {
            ps.why = LR_TM_SHAPE;
            goto cleanup;
        }
        for (int k = 0; k < opt->n_order; k++)
            if (opt->order[k] < 0 || opt->order[k] >= tm->n_dcs) {
                ps.why = LR_TM_SHAPE;
                goto cleanup;
            }
        try_chain(&ps, opt->order, opt->n_order);
    } else if (tm->n_dcs <= LR_CDYNP_ALL_ORDERS) {
        /* The greedy chain first: its stage count seeds the assumption,
         * so that the other chains mostly share its caches. */
        bool used[LR_TM_MAX_DCS] = { false };
        try_chain(&ps, order, lr_cdynp_order(tm, order));
        all_chains(&ps, order, 0, used);
    } else {
        int n = lr_cdynp_order(tm, order);
        for (int k = 1; k <= n; k++)
            try_chain(&ps, order, k);
    }

cleanup:
    for (int i = 0; i < ps.n_sets; i++)
        for (int k = 0; k < tm->n_dcs; k++)
            lr_cdynp_dc_free(ps.sets[i].dc[k]);
    free(ps.buf[0]);
    free(ps.buf[1]);
    free(ps.cand);
    free(ps.ev);
    if (!ps.found) {
        eval->why = ps.why;
        eval->T = INFINITY;
        return ps.why;
    }
    return LR_TM_OK;
}
