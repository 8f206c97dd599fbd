/*
 * lr_cdynp_chain: the CDynP coordinator.
 *
 * Model.  DCs c_0 .. c_{n-1} form a chain (lr_cdynp_order()).  The
 * pre-partition gives DC c_k the layers whose forward FLOPs make up its
 * share of the chain's compute, N P eta (the one number each DC reveals):
 * boundary beta_k = the first layer l with
 *     sum_{i <= l} F_i >= (sum_{i <= k} compute_i / sum_i compute_i) sum F,
 * clamped to [k, L - n + k] so that every DC keeps at least one layer.
 * DC c_k may end its range anywhere in [beta_k - w, beta_k + w] within
 * that (the last DC ends at L - 1): the clamped boundary's window, so
 * it has w + 1 layers at least (until 2026-12-06 the window's ends were
 * clamped instead, which left a boundary past the clamp a window of
 * fewer, one when it was w or more past).
 * The head computes F_0(b) = Cost_0(0, b) on its window; each next DC
 * takes the summary {(a, F_{k-1}(a))} and computes F_k on its window
 * (lr_cdynp_local.c); the tail picks b = L - 1 and the choices are walked
 * back DC by DC.  Each DC then lays out its own stages for its range.
 *
 * Memory depends on the total number of stages p (min(m, p) microbatches
 * in flight), which no DC knows in advance: we plan assuming p0 = n, and
 * if the plan has more stages, plan again assuming that many, until the
 * assumption covers the plan (p only grows, and past m it no longer
 * matters).  Each chain starts from its own p0: an assumption carried
 * over from a longer chain checks every stage for more microbatches in
 * flight than it will hold, which cost a one-DC chain its plan, or left
 * it a plan 140 times slower than its own (test_cdynp.c).  A chain whose
 * assumptions had plans but none that holds, or whose plan held is
 * dearer than its first run's, makes count-bounded runs: at most q
 * stages in all, for the q the assumptions did not cover, the count
 * crossing DCs in the summaries (try_chain_obj()).
 *
 * Which chains.  With a given order, that chain only.  Otherwise, up to
 * LR_CDYNP_ALL_ORDERS DCs, every ordered subset of DCs linked one to the
 * next (sum_n K!/(K-n)! chains: 64 for K = 4, 1,956 for K = 6), keeping
 * the least T: the coordinator knows only the links and the aggregate
 * compute, so it cannot tell in advance which DCs are worth their link.
 * Each DC's costs do not depend on the chain, so its cache serves every
 * chain (each party keeps one cache per objective and assumed stage
 * count, and the caches of one objective share the rows memory does not
 * tell apart: lr_cdynp_local.c).  Beyond that, the greedy chain of
 * lr_cdynp_order() and each of its prefixes (until 2026-12-06 the only
 * chains: on random instances of 7-8 DCs, 496 of 600 plans above the
 * exact optimum, 17.5% on average, lr-bench-cdynp --wide), then a beam
 * search over chains of width B (lr_cdynp_options.beam, default
 * LR_CDYNP_BEAM = 8):
 *     C_1     = every one-DC chain (of a DC with compute);
 *     C_{n+1} = the B chains of least T among the extensions of the B
 *               best of C_n by one DC at the tail or at the head,
 *               linked to that end;
 * a chain's T is its own plan's, the tail's report, and a chain without
 * a plan ranks after every chain with one, more compute first.  A chain
 * is not run when T >= m 3 b sum F / (its DCs' compute), a bound on any
 * plan over it, is above the best T found (beam_run()); it then ranks
 * as one without a plan.  So the
 * coordinator uses what it already had, the links, each DC's aggregate
 * compute and the T the tails report, and a DC sees nothing of a kind
 * it did not: summaries of predecessors, as in the search over every
 * chain up to LR_CDYNP_ALL_ORDERS DCs (over agents, more chains are
 * more round trips, but for the requests a DC answered already in the
 * plan, which lr_agent_plan() answers from lr_cdynp_memo.c).  The beam keeps every plan it runs into (the least
 * T of all chains run, the greedy ones first, ties to the earlier), so
 * its plan is never worse than the greedy prefixes'.  Not exact: a chain
 * whose prefixes are all poor plans is not reached (and the DP's
 * choices depend on the chain's direction, which is why both ends
 * extend); on the instances above 107 of 600 stay above exact, 0.63%
 * on average (docs/cdynp.md).
 *
 * The beam's cost.  With K DCs with compute and L layers it runs at most
 *     K + sum_{n=1}^{min(K,L)-1} 2 B (K - n)  <=  K + B K (K - 1)
 * chains, each costing a chain's run (below); B narrows until that
 * bound is within LR_CDYNP_BEAM_CHAINS = 512 chains (B = 8 up to 8 DCs,
 * 6 at 9, 3 at 12, 2 at 14-16, 1 from 17), and at width 1 (beyond 22
 * DCs) the beam stops before a length that could pass it.  The DCs'
 * caches are shared by every chain as above, but a DC now sits at many
 * positions, so it computes the rows of many more layer ranges: at
 * worst its whole local DP, O(L^2 N^2) per (objective, assumed count),
 * which dominates on deep models over many DCs (docs/benchmarks.md);
 * the chains the bound skips cost nothing.
 *
 * Parties.  The coordinator talks to every DC through struct
 * lr_cdynp_party: a handle in this process or an agent across the
 * network.  It judges a chain by the cost the tail reports, T = sum +
 * (m-1) bottleneck + sync, which is the time model's T for the plan the
 * DCs will lay out (lr_cdynp_dc_step() sums the same terms), so it needs
 * no DC's stages.
 *
 * Complexity: per chain, sum over DCs of the local DP on its windowed
 * ranges, O(sum_k (2w+1) R_k^2 N_k^2) with R_k the longest range DC k may
 * get (rows already computed cost nothing), plus O(n (2w+1)^2) for the
 * chain itself; times the chains run: sum_n K!/(K-n)! up to
 * LR_CDYNP_ALL_ORDERS DCs, at most K + LR_CDYNP_BEAM_CHAINS beyond (the
 * greedy prefixes and the beam), and the beam's bookkeeping,
 * O(B K^2 log(B K)) sorting plus O((B K)^2 K) for the duplicate checks
 * a level, is small beside them.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_cdynp.h"

/* The greedy chain over per-DC compute figures (see lr_cdynp_order()). */
static int
order_by(const struct lr_cdynp_view *tm, const double *compute, int *order)
{
    bool used[LR_TM_MAX_DCS] = { false };
    int n = 0, head = 0;
    for (int k = 1; k < tm->n_dcs; k++)
        if (compute[k] > compute[head])
            head = k;
    order[n++] = head;
    used[head] = true;
    for (;;) {
        int tail = order[n - 1], next = -1;
        for (int k = 0; k < tm->n_dcs; k++) {
            double bw = tm->link[tail][k].bw;
            /* A DC without compute (no devices) can hold no stage, and
             * a pipeline cannot pass through a DC it has no stage in:
             * appended, it would end every longer prefix. */
            if (used[k] || !(bw > 0) || !(compute[k] > 0))
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

int
lr_cdynp_beam_option(int width)
{
    return width > 0 ? width : -1;
}

int
lr_cdynp_order(const struct lr_tm *tm, int *order)
{
    double compute[LR_TM_MAX_DCS];
    struct lr_cdynp_view v = lr_cdynp_view_of(tm);
    for (int k = 0; k < tm->n_dcs; k++)
        compute[k] = tm->dcs[k].n_devices * tm->dcs[k].peak * tm->dcs[k].eff;
    return order_by(&v, compute, order);
}

struct plan_search {
    const struct lr_cdynp_view *tm;
    struct lr_cdynp_party *const *party;      /* by DC index */
    double compute[LR_TM_MAX_DCS];
    int window;
    struct lr_cdynp_summary *buf[2];
    struct lr_plan *cand;         /* NULL when no plan is wanted */
    struct lr_plan *cand_kept;    /* the chain's best of its bounded runs */
    struct lr_plan *plan;
    struct lr_cdynp_result run, *best;
    bool found;
    bool fixed;                   /* one chain, given by the caller */
    double chain_T;               /* the chain try_chain() ran last: its
                                   * least T, INFINITY for no plan */
    enum lr_tm_why why;           /* the last failure, when none found */
    int party_err;                /* the first error of a party */
    /* By DC index: the oldest generation (obj_gen()) of an objective
     * the party did not know (ENOTSUP: an agent from before it), 0 when
     * none.  Runs of that generation or newer are no longer asked of it;
     * an older one may be (an agent that refused a _BOUND objective may
     * know the _ONE ones), once. */
    int unknown_from[LR_TM_MAX_DCS];
};

/* How new an objective is: 0 for lex and time, 1 for the _ONE pair
 * (agents since 2026-12-04), 2 for the _BOUND pair (2026-12-05).  An
 * agent that does not know one knows none newer. */
static int
obj_gen(enum lr_cdynp_objective obj)
{
    return lr_cdynp_obj_bound(obj) ? 2 : lr_cdynp_obj_one(obj) ? 1 : 0;
}

/* What a party's error says of the request. */
static enum lr_tm_why
party_why(int err)
{
    return err == ENOENT ? LR_TM_MEMORY
           : err == ENOMEM ? LR_TM_NOMEM
           : err == EOVERFLOW ? LR_TM_STAGES : LR_TM_DEVICES;
}

/* A party's error in a run of 'obj' at DC 'dc'.  ENOTSUP to a newer
 * objective is the party not knowing it: no failure, the run has no
 * plan, and the party gets no more runs that new (run_chain()); the
 * plans of the other runs stand, and the caller says what was skipped
 * (lr_agent_plan()). */
static enum lr_tm_why
party_failed(struct plan_search *ps, int dc, enum lr_cdynp_objective obj,
             int err)
{
    if (err == ENOTSUP && obj_gen(obj) > 0) {
        if (!ps->unknown_from[dc] || obj_gen(obj) < ps->unknown_from[dc])
            ps->unknown_from[dc] = obj_gen(obj);
        return LR_TM_MEMORY;
    }
    if (!ps->party_err && err != ENOENT)
        ps->party_err = err;
    return party_why(err);
}

/* Runs the chain order[0..n-1] once under (obj, assumed): pre-partition
 * windows, the steps down the chain, the backtracking, and each DC's
 * finish.  Fills ps->run (and ps->cand when a plan is wanted). */
static enum lr_tm_why
run_chain(struct plan_search *ps, const int *order, int n,
          enum lr_cdynp_objective obj, int assumed)
{
    const struct lr_cdynp_view *tm = ps->tm;
    const struct lr_model *m = tm->model;
    const int L = m->n_layers;
    struct lr_cdynp_result *r = &ps->run;
    if (L < n)
        return LR_TM_SHAPE;   /* a DC of the chain would get no layer */

    double total = 0, acc = 0;
    for (int k = 0; k < n; k++)
        total += ps->compute[order[k]];
    int lo[LR_TM_MAX_DCS], hi[LR_TM_MAX_DCS];
    for (int k = 0; k < n; k++) {
        int min_b = k, max_b = L - n + k;
        if (k == n - 1) {
            lo[k] = hi[k] = L - 1;
            break;
        }
        acc += ps->compute[order[k]];
        double target = acc / total * lr_model_flops(m, 0, L - 1);
        int beta = 0;
        while (beta < L - 1 && lr_model_flops(m, 0, beta) < target)
            beta++;
        /* The boundary first, then its window: clamping the window's
         * ends instead narrowed it to fewer than w + 1 layers (to one
         * when beta was w or more past the clamp). */
        beta = beta < min_b ? min_b : beta > max_b ? max_b : beta;
        int l0 = ps->window < 0 ? min_b : beta - ps->window;
        int h0 = ps->window < 0 ? max_b : beta + ps->window;
        lo[k] = l0 < min_b ? min_b : l0;
        hi[k] = h0 > max_b ? max_b : h0;
        if (hi[k] - lo[k] + 1 > LR_CDYNP_MAX_ENTRIES)
            hi[k] = lo[k] + LR_CDYNP_MAX_ENTRIES - 1;
    }
    /* A party that did not know an objective this new gets no run of it
     * (party_failed()): the run has no plan, as the one it refused. */
    for (int k = 0; k < n; k++)
        if (ps->unknown_from[order[k]]
            && obj_gen(obj) >= ps->unknown_from[order[k]])
            return LR_TM_MEMORY;
    /* A counted summary has an entry per (layer, count): one that would
     * not fit is no run (whole-range windows of deep models). */
    if (lr_cdynp_obj_bound(obj))
        for (int k = 0; k < n; k++)
            if ((hi[k] - lo[k] + 1) * assumed > LR_CDYNP_MAX_ENTRIES)
                return LR_TM_MEMORY;

    for (int k = 0; k < n; k++) {
        const struct lr_tm_link *link = k ? &tm->link[order[k - 1]][order[k]]
                                          : NULL;
        if (k && !(link->bw > 0))
            return LR_TM_NO_LINK;
        struct lr_cdynp_party *p = ps->party[order[k]];
        int err = p->cls->step(p, obj, assumed, k ? ps->buf[(k - 1) % 2]
                                                  : NULL, link,
                               (uint16_t) k, lo[k], hi[k], ps->buf[k % 2]);
        if (err)
            return party_failed(ps, order[k], obj, err);
    }
    /* The tail's entry for the last layer is the whole chain's cost;
     * counted, the best of its entries for the last layer (each count up
     * to 'assumed'; ties: the fewest stages). */
    const struct lr_cdynp_summary *tail = ps->buf[(n - 1) % 2];
    if (tail->n < 1 || tail->e[tail->n - 1].layer != (uint32_t) (L - 1))
        return LR_TM_MEMORY;
    int e = tail->n - 1, stages = 0;
    if (lr_cdynp_obj_bound(obj)) {
        for (int i = tail->n - 2;
             i >= 0 && tail->e[i].layer == (uint32_t) (L - 1); i--)
            if (lr_cdynp_cost_cmp(&tail->e[i].cost, &tail->e[e].cost, obj,
                                  tm->m) <= 0)
                e = i;
        stages = tail->e[e].stages;
    }
    r->cost = tail->e[e].cost;
    r->T = r->cost.sum + (tm->m - 1) * r->cost.bottleneck + r->cost.sync;
    r->n_dcs = n;
    r->objective = obj;
    r->assumed = assumed;

    /* Counted, each DC's own stages: its count less its predecessor's. */
    int last = L - 1, own[LR_TM_MAX_DCS];
    for (int k = n - 1; k >= 0; k--) {
        struct lr_cdynp_party *p = ps->party[order[k]];
        int prev, prev_stages = 0;
        int err = p->cls->backtrack(p, obj, assumed, last, stages, &prev,
                                    &prev_stages);
        if (err)
            return party_failed(ps, order[k], obj, err);
        if (prev >= last || (k == 0 && prev != -1) || (k > 0 && prev < 0))
            return LR_TM_SHAPE;
        if (lr_cdynp_obj_bound(obj)
            && (prev_stages >= stages || (k == 0) != (prev_stages == 0)
                || (k > 0 && prev_stages < 1)))
            return LR_TM_SHAPE;
        own[k] = stages - prev_stages;
        r->dc[k] = order[k];
        r->first[k] = prev + 1;
        r->last[k] = last;
        last = prev;
        stages = prev_stages;
    }
    if (ps->cand)
        ps->cand->n_stages = 0;
    for (int k = 0; k < n; k++) {
        struct lr_cdynp_party *p = ps->party[order[k]];
        int err = p->cls->finish(p, obj, assumed, r->first[k], r->last[k],
                                 own[k], order[k], ps->cand,
                                 &r->n_stages[k]);
        if (err)
            return party_failed(ps, order[k], obj, err);
        if (lr_cdynp_obj_bound(obj) && r->n_stages[k] != own[k])
            return LR_TM_SHAPE;
    }
    return LR_TM_OK;
}

/* Plans one chain under one objective and keeps it if it is the best so
 * far.  Memory was checked for 'assumed' stages; the plan holds when it
 * has no more, or min(m, p) did not change.
 *
 * The assumptions tried.  Each stage needs more memory the more stages
 * are assumed, so the plans that fit under a grow fewer as a grows, and
 * once none fits under some a (the ceiling), none fits under any a above
 * it: a plan that holds has fewer stages than the ceiling.  We start at
 * a = n and jump to the plan's own count p while p > a, below the
 * ceiling; a jump that lands on no plan lowers the ceiling to where it
 * landed and resumes one above the last a that had a plan, so that a
 * plan of a count between the two is not skipped (a jump from 1 to 5
 * stages lost a plan of 3 that fit under 3 only).  Every run narrows
 * (last a with a plan, ceiling): at most 'ceiling - n' runs, in practice
 * one or two; the first runs, and the plan when they find one, are the
 * plain jumps'.
 *
 * The count-bounded runs.  The DP under an assumption a keeps its best
 * plan whatever that plan's own count, so a plan of few stages that
 * fits only for few is passed by when a plan of more fits for as many.
 * When the assumptions had plans and the plan kept is missing or dearer
 * than the first run's, the chain runs B(q) for each q from n up to the
 * assumption whose plan held (else up to the ceiling, else to min(m, L)):
 * memory checked for q stages and at most q stages in the plan (the
 * _BOUND objectives, whose summaries carry the chain's count), skipping
 * a q whose own run gave a plan of at most q stages.  A plan that holds
 * with p stages fits under every assumption up to p, so the plan held
 * covers the counts from its assumption up, and B(q) each count below.
 * B(n) is one stage per DC (the _ONE objectives, which agents have
 * answered since 2026-12-04; the _BOUND ones since 2026-12-05).  The
 * plan of least T among them is the chain's (ties: the earlier). */
static void
try_chain_obj(struct plan_search *ps, const int *order, int n,
              enum lr_cdynp_objective obj)
{
    const int m = ps->tm->m;
    int assumed = n < m ? n : m;
    int last_ok = 0;              /* the last a whose run had a plan */
    int ceiling = INT_MAX;        /* the least a known to have none */
    double T_first = INFINITY;    /* the first run's plan */
    int covered[16], n_covered = 0;   /* a whose run held */
    enum lr_tm_why why = LR_TM_OK;
    for (int round = 0; round < 16; round++) {
        why = run_chain(ps, order, n, obj, assumed);
        if (why == LR_TM_MEMORY && last_ok) {
            ceiling = assumed;
            assumed = last_ok + 1;
            if (assumed >= ceiling)
                break;
            continue;
        }
        if (why != LR_TM_OK)
            break;
        int p = 0;
        for (int k = 0; k < n; k++)
            p += ps->run.n_stages[k];
        if (round == 0)
            T_first = ps->run.T;
        if (p <= assumed)
            covered[n_covered++] = assumed;
        if (p <= assumed || (assumed >= m && p >= m))
            break;
        last_ok = assumed;
        assumed = p < m ? p : m;
        if (assumed >= ceiling)
            assumed = ceiling - 1;
        if (assumed <= last_ok) {
            why = LR_TM_MEMORY;   /* (last_ok, ceiling) is empty */
            break;
        }
        why = LR_TM_MEMORY;   /* unless the next round settles it */
    }
    const bool held = why == LR_TM_OK;
    if (last_ok && !(held && ps->run.T <= T_first * (1 + 1e-9))) {
        const int L = ps->tm->model->n_layers;
        int top = held ? assumed : ceiling != INT_MAX ? ceiling
                  : (m < L ? m : L) + 1;
        struct lr_cdynp_result kept = ps->run;
        if (held && ps->cand)
            *ps->cand_kept = *ps->cand;
        bool have = held;
        for (int q = n; q < top && !ps->party_err; q++) {
            bool skip = false;
            for (int i = 0; i < n_covered; i++)
                skip |= covered[i] == q;
            if (skip)
                continue;
            enum lr_cdynp_objective o
                = q == n ? (obj == LR_CDYNP_TIME ? LR_CDYNP_TIME_ONE
                                                 : LR_CDYNP_LEX_ONE)
                : obj == LR_CDYNP_TIME ? LR_CDYNP_TIME_BOUND
                : LR_CDYNP_LEX_BOUND;
            if (run_chain(ps, order, n, o, q) != LR_TM_OK
                || (have && !(ps->run.T < kept.T)))
                continue;
            kept = ps->run;
            if (ps->cand)
                *ps->cand_kept = *ps->cand;
            have = true;
        }
        if (have) {
            ps->run = kept;
            if (ps->cand)
                *ps->cand = *ps->cand_kept;
            why = LR_TM_OK;
        }
    }
    if (why == LR_TM_OK && ps->run.T < ps->chain_T)
        ps->chain_T = ps->run.T;
    if (why == LR_TM_OK && (!ps->found || ps->run.T < ps->best->T)) {
        *ps->best = ps->run;
        if (ps->plan)
            *ps->plan = *ps->cand;
        ps->found = true;
    } else if (why != LR_TM_OK) {
        ps->why = why;
    }
}

/* Plans the chain order[0..n-1] under both objectives, keeping its plan
 * if it is the best so far; returns the chain's own least T (INFINITY
 * when it has none), which the beam search ranks chains by. */
static double
try_chain(struct plan_search *ps, const int *order, int n)
{
    ps->chain_T = INFINITY;
    /* A chain of more DCs than layers is no plan; in the search over
     * chains its verdict must not stand for the reason the others gave
     * (a model that fits nowhere was told 'more devices'). */
    if (n > ps->tm->model->n_layers && !ps->fixed)
        return INFINITY;
    try_chain_obj(ps, order, n, LR_CDYNP_LEX);
    try_chain_obj(ps, order, n, LR_CDYNP_TIME);
    return ps->chain_T;
}

/* Every ordered subset of linked DCs, extending 'order[0..n-1]'. */
static void
all_chains(struct plan_search *ps, int *order, int n, bool *used)
{
    /* A party that cannot be reached fails every chain: stop. */
    if (ps->party_err)
        return;
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

/* A chain of the beam search: its DCs, its own least T (INFINITY when
 * it has no plan) and their aggregate compute; 'rank' is the order it
 * was made in, the last tie-break, so that the beam does not depend on
 * qsort()'s order among equals. */
struct beam_chain {
    int n;
    int dc[LR_TM_MAX_DCS];
    double T;
    double compute;
    int rank;
};

/* Less T first; among chains without a plan (or of equal T) more
 * compute first, as a chain of more compute holds more; then the
 * earlier made. */
static int
beam_cmp(const void *pa, const void *pb)
{
    const struct beam_chain *a = pa, *b = pb;
    if (a->T != b->T)
        return a->T < b->T ? -1 : 1;
    if (a->compute != b->compute)
        return a->compute > b->compute ? -1 : 1;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

/* The most chains the beam search over 'k' DCs with compute may run at
 * width 'w' on a model of 'L' layers: the k one-DC chains, then for
 * each length n below min(k, L) at most w chains, each extended at
 * either end by each of the k - n DCs not in it. */
static long
beam_bound(int k, int L, int w)
{
    long chains = k;
    for (int n = 1; n < k && n < L; n++)
        chains += 2L * w * (k - n);
    return chains;
}

/* The width the beam search runs at: 'want' (the option's), narrowed
 * until beam_bound() is within LR_CDYNP_BEAM_CHAINS; 1 at least. */
static int
beam_width(const struct plan_search *ps, int want)
{
    int k = 0;
    for (int i = 0; i < ps->tm->n_dcs; i++)
        k += ps->compute[i] > 0;
    while (want > 1
           && beam_bound(k, ps->tm->model->n_layers, want)
              > LR_CDYNP_BEAM_CHAINS)
        want--;
    return want;
}

/* Runs the chain 'c' and sets its T, unless it is one of the greedy
 * chain's prefixes ('greedy[0..n_greedy-1]', 'greedy_T[i]' the T of
 * its first i + 1 DCs), which ran before the beam and whose plans are
 * already kept: then its T from there. */
static void
beam_run(struct plan_search *ps, struct beam_chain *c, const int *greedy,
         const double *greedy_T, int n_greedy)
{
    bool prefix = c->n <= n_greedy;
    for (int i = 0; prefix && i < c->n; i++)
        prefix = c->dc[i] == greedy[i];
    if (prefix) {
        c->T = greedy_T[c->n - 1];
        return;
    }
    /* A stage of g devices of DC k takes 3 b F / (g P_k eta_k) for its
     * layers' F, so the chain's slowest stage, and the sum of its stage
     * times, take at least the model's 3 b sum F over the chain's
     * compute: T >= m 3 b sum F / compute, from figures the coordinator
     * has.  A chain bound above the best T found cannot better it and
     * is not run (half the search time of LLaMA-2 70B over 16 DCs);
     * it ranks as a chain without a plan, more compute first, for its
     * extensions may still do better (ranked by the bound instead, the
     * loose bound took the beam's places: 1.3% mean gap on --wide
     * where this keeps 0.63%). */
    const double lb = ps->tm->m * 3 * ps->tm->micro
                      * lr_model_flops(ps->tm->model, 0,
                                       ps->tm->model->n_layers - 1)
                      / c->compute;
    if (ps->found && lb > ps->best->T * (1 + 1e-9)) {
        c->T = INFINITY;
        return;
    }
    c->T = try_chain(ps, c->dc, c->n);
}

/* True when chains[0..n-1] holds a chain of the DCs of 'c'. */
static bool
beam_has(const struct beam_chain *chains, int n, const struct beam_chain *c)
{
    for (int i = 0; i < n; i++)
        if (!memcmp(chains[i].dc, c->dc, (size_t) c->n * sizeof *c->dc))
            return true;
    return false;
}

/* The beam search over chains beyond LR_CDYNP_ALL_ORDERS DCs (see the
 * file's comment, "Which chains"): every one-DC chain, then each of
 * the 'width' best chains of n DCs extended at its tail and at its head
 * by every DC with compute linked to that end, keeping the 'width' best
 * of n + 1, until no chain extends or the next length could take the
 * chains run past LR_CDYNP_BEAM_CHAINS (which beam_width() keeps from
 * happening but at width 1, beyond 22 DCs).  'cand' has room for
 * width x (2 n_dcs + 1) chains: the kept chains and their extensions. */
static void
beam_chains(struct plan_search *ps, int width, struct beam_chain *cand,
            const int *greedy, const double *greedy_T, int n_greedy)
{
    const struct lr_cdynp_view *tm = ps->tm;
    int n_cand = 0;
    long left = LR_CDYNP_BEAM_CHAINS;
    for (int k = 0; k < tm->n_dcs && !ps->party_err; k++) {
        if (!(ps->compute[k] > 0))
            continue;
        struct beam_chain *c = &cand[n_cand];
        c->n = 1;
        c->dc[0] = k;
        c->compute = ps->compute[k];
        c->rank = n_cand++;
        beam_run(ps, c, greedy, greedy_T, n_greedy);
    }
    const int n_one = n_cand;
    while (n_cand > 0 && !ps->party_err) {
        qsort(cand, (size_t) n_cand, sizeof *cand, beam_cmp);
        const int kept = n_cand < width ? n_cand : width, n = cand[0].n;
        left -= n_cand;
        if (n >= tm->n_dcs || n >= tm->model->n_layers
            || 2L * kept * (n_one - n) > left)
            return;   /* beyond LR_CDYNP_BEAM_CHAINS only at width 1 */
        /* The extensions go after the kept chains they are made from,
         * then down over them. */
        struct beam_chain *next = cand + kept;
        n_cand = 0;
        for (int i = 0; i < kept && !ps->party_err; i++) {
            bool used[LR_TM_MAX_DCS] = { false };
            for (int j = 0; j < n; j++)
                used[cand[i].dc[j]] = true;
            const int head = cand[i].dc[0], tail = cand[i].dc[n - 1];
            /* At the head as well as the tail: the DP's choices depend
             * on the chain's direction, so a chain and its reverse may
             * differ, and the best chain's prefixes need not be the
             * best of their length (on lr-bench-cdynp --wide, 0.54%
             * mean gap where the tail alone left 1.3% at width 8). */
            for (int end = 0; end < 2; end++)
                for (int k = 0; k < tm->n_dcs && !ps->party_err; k++) {
                    if (used[k] || !(ps->compute[k] > 0)
                        || !(end ? tm->link[k][head].bw > 0
                                 : tm->link[tail][k].bw > 0))
                        continue;
                    struct beam_chain *c = &next[n_cand];
                    c->n = n + 1;
                    c->dc[end ? 0 : n] = k;
                    memcpy(c->dc + (end ? 1 : 0), cand[i].dc,
                           (size_t) n * sizeof *c->dc);
                    if (beam_has(next, n_cand, c))
                        continue;
                    c->compute = cand[i].compute + ps->compute[k];
                    c->rank = n_cand++;
                    beam_run(ps, c, greedy, greedy_T, n_greedy);
                }
        }
        memmove(cand, next, (size_t) n_cand * sizeof *cand);
    }
}

enum lr_tm_why
lr_cdynp_plan_parties(const struct lr_cdynp_view *tm,
                      struct lr_cdynp_party *const *parties,
                      const struct lr_cdynp_options *opt,
                      struct lr_cdynp_result *res, struct lr_plan *plan,
                      int *party_err)
{
    struct plan_search ps = {
        .tm = tm, .party = parties,
        .window = opt ? opt->window : LR_CDYNP_DEFAULT_WINDOW,
        .plan = plan, .best = res, .why = LR_TM_MEMORY,
    };
    int order[LR_TM_MAX_DCS];
    memset(res, 0, sizeof *res);
    ps.buf[0] = malloc(sizeof **ps.buf);
    ps.buf[1] = malloc(sizeof **ps.buf);
    ps.cand = plan ? malloc(sizeof *ps.cand) : NULL;
    ps.cand_kept = plan ? malloc(sizeof *ps.cand_kept) : NULL;
    if (!ps.buf[0] || !ps.buf[1] || (plan && (!ps.cand || !ps.cand_kept))) {
        ps.why = LR_TM_NOMEM;
        goto cleanup;
    }
    for (int k = 0; k < tm->n_dcs; k++) {
        int err = parties[k]->cls->compute(parties[k], &ps.compute[k]);
        if (err) {
            party_failed(&ps, k, LR_CDYNP_LEX, err);
            ps.why = LR_TM_DEVICES;
            goto cleanup;
        }
    }

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
        ps.fixed = true;
        try_chain(&ps, opt->order, opt->n_order);
    } else if (tm->n_dcs <= LR_CDYNP_ALL_ORDERS) {
        /* The greedy chain first, as beyond LR_CDYNP_ALL_ORDERS (among
         * chains of equal T, the earlier one is kept). */
        bool used[LR_TM_MAX_DCS] = { false };
        try_chain(&ps, order, order_by(tm, ps.compute, order));
        all_chains(&ps, order, 0, used);
    } else {
        /* The greedy chain's prefixes first, as before the beam search
         * (among chains of equal T, the earlier one is kept), so the
         * beam can only better their plan. */
        double greedy_T[LR_TM_MAX_DCS];
        int n = order_by(tm, ps.compute, order);
        for (int k = 1; k <= n; k++)
            greedy_T[k - 1] = ps.party_err ? INFINITY
                              : try_chain(&ps, order, k);
        int want = !opt || !opt->beam ? LR_CDYNP_BEAM
                   : opt->beam > LR_CDYNP_MAX_BEAM ? LR_CDYNP_MAX_BEAM
                   : opt->beam;
        if (want > 0 && !ps.party_err) {
            int width = beam_width(&ps, want);
            struct beam_chain *cand
                = malloc((size_t) width * (size_t) (2 * tm->n_dcs + 1)
                         * sizeof *cand);
            if (!cand) {
                ps.why = LR_TM_NOMEM;
                ps.found = false;
                goto cleanup;
            }
            beam_chains(&ps, width, cand, order, greedy_T, n);
            free(cand);
        }
    }

cleanup:
    free(ps.buf[0]);
    free(ps.buf[1]);
    free(ps.cand);
    free(ps.cand_kept);
    if (party_err)
        *party_err = ps.party_err;
    if (ps.party_err)
        return party_why(ps.party_err);
    return ps.found ? LR_TM_OK : ps.why;
}

/* lr_cdynp_plan() and lr_cdynp_plan_pool(): the DCs as parties in this
 * process, their handles from 'pool' when not NULL. */
static enum lr_tm_why
plan_local(struct lr_cdynp_pool *pool, const struct lr_tm *tm,
           const struct lr_cdynp_options *opt, struct lr_plan *plan,
           struct lr_tm_eval *eval)
{
    struct lr_cdynp_party *party[LR_TM_MAX_DCS] = { NULL };
    struct lr_cdynp_result *res = malloc(sizeof *res);
    enum lr_tm_why why = LR_TM_NOMEM;
    int k;
    for (k = 0; res && k < tm->n_dcs; k++) {
        if (!(party[k] = pool ? lr_cdynp_pool_party_new(pool, tm, k)
                              : lr_cdynp_local_party_new(tm, k)))
            break;
        lr_cdynp_local_party_set_step(party[k], opt ? opt->device_step : 0);
    }
    if (res && k == tm->n_dcs) {
        struct lr_cdynp_view v = lr_cdynp_view_of(tm);
        why = lr_cdynp_plan_parties(&v, party, opt, res, plan, NULL);
        /* The plan the parties laid out, judged by the model itself. */
        if (why == LR_TM_OK)
            why = lr_tm_evaluate(tm, plan, eval);
    }
    for (k = 0; k < tm->n_dcs; k++)
        if (party[k])
            party[k]->cls->free(party[k]);
    free(res);
    if (why != LR_TM_OK) {
        eval->why = why;
        eval->T = INFINITY;
    }
    return why;
}

enum lr_tm_why
lr_cdynp_plan(const struct lr_tm *tm, const struct lr_cdynp_options *opt,
              struct lr_plan *plan, struct lr_tm_eval *eval)
{
    return plan_local(NULL, tm, opt, plan, eval);
}

enum lr_tm_why
lr_cdynp_plan_pool(struct lr_cdynp_pool *pool, const struct lr_tm *tm,
                   const struct lr_cdynp_options *opt, struct lr_plan *plan,
                   struct lr_tm_eval *eval)
{
    return plan_local(pool, tm, opt, plan, eval);
}
