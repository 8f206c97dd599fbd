/*
 * MSCL: minimum spectrum capacity loss over the routes a block would hurt.
 *
 * Model.  A route's capacity is the number of ways the requests that can
 * arrive could still be placed on it.  With S the set of block sizes
 * requests may need (lr_rsa_config.demand_sizes) and the route's free
 * mask (slots free on all its links) made of maximal runs of lengths
 * L_1, L_2, ...:
 *     cap(R) = sum_runs F(L),   F(L) = sum_{s in S} max(0, L - s + 1).
 * Booking m slots at p on path P takes [p, p + m) out of the free mask of
 * every route R that shares a link with P (P itself included), so R loses
 *     loss_R(p) = sum over runs [a, b) of R meeting [p, p + m) of
 *                 F(b - a) - F(max(0, p - a)) - F(max(0, b - p - m))
 * and the cost of the candidate is sum_R loss_R(p) over the K-path routes
 * of every node pair.  We take, over every candidate path and every
 * feasible start, the least cost; ties go to the earlier path in K order,
 * then the lower p.  A long path touches more routes, so the rule trades
 * path length against fragmentation with no knob to tune.
 *
 * Source.  Spectrum-continuity capacity loss: Y. Wang, X. Cao, Q. Hu and
 * Y. Pan, "Towards elastic and fine-granular bandwidth allocation in
 * spectrum-sliced optical networks", JOCN 4(11), 2012, as we read it:
 * they weigh the loss on the routes that share links with the lightpath;
 * we take "routes" to be the precomputed K paths of every pair and count
 * them unweighted.  XLRON reports min-capacity-loss KSP 22-73% below
 * KSP-FF in blocking (../shared/reference/optical.md); docs/rmsa.md has
 * our figures.
 *
 * Cost.  Per request: the free masks of the routes through the
 * candidate's links (U routes, O(U h W) words, computed once per request
 * and cached by stamp), then for each of the C feasible (path, start)
 * pairs, one run walk of a few words per route: O(C U) with early exit
 * once the cost passes the best so far.  On NSFNET (U about 150) that is
 * about 50x KSP-FF; docs/benchmarks.md has the figures.
 */
#include <string.h>

#include "planner/lr_rsa.h"

/* Free mask of route 'r', computed at most once per request. */
static const uint64_t *
route_free(struct lr_rsa *rsa, int r)
{
    uint64_t *f = rsa->path_free + (size_t) r * rsa->sp->nw;
    if (rsa->path_stamp[r] != rsa->stamp) {
        const struct lr_path *p = &rsa->ksp->paths[r];
        lr_spectrum_path_free(rsa->sp, p->links, p->n_links, f);
        rsa->path_stamp[r] = rsa->stamp;
    }
    return f;
}

/* Capacity route mask 'f' loses when [p, p + m) is taken out of it. */
static long
route_loss(const uint64_t *f, int nw, int p, int m, const int *F)
{
    long loss = 0;
    int a = lr_bits_prev_clear(f, p) + 1;   /* start of the run at p */
    if (a > p)
        a = lr_bits_next_set(f, nw, p);     /* p itself is not free */
    while (a >= 0 && a < p + m) {
        int b = lr_bits_next_clear(f, nw, a);
        int left = p > a ? p - a : 0, right = b > p + m ? b - p - m : 0;
        loss += F[b - a] - F[left] - F[right];
        a = lr_bits_next_set(f, nw, b);
    }
    return loss;
}

static bool
mscl_choose(struct lr_rsa *rsa, const struct lr_rsa_cand *c, int n,
            struct lr_rsa_choice *out)
{
    uint64_t free[LR_BITS_MAX_WORDS];
    const int nw = rsa->sp->nw;
    const int *F = rsa->run_capacity;
    int best = -1, best_first = 0;
    long best_cost = 0;

    if (++rsa->stamp == 0) {            /* wrapped: forget every stamp */
        memset(rsa->path_stamp, 0, (size_t) rsa->ksp->n_paths
                                   * sizeof *rsa->path_stamp);
        rsa->stamp = 1;
    }
    for (int i = 0; i < n; i++) {
        const struct lr_path *p = c[i].p;
        const int m = c[i].m;
        lr_rsa_path_free(rsa, p, free);
        lr_bits_fit_starts(free, nw, m);
        if (lr_bits_next_set(free, nw, 0) < 0)
            continue;

        /* The routes this path touches, each once. */
        if (++rsa->seen == 0) {
            memset(rsa->path_seen, 0, (size_t) rsa->ksp->n_paths
                                      * sizeof *rsa->path_seen);
            rsa->seen = 1;
        }
        int n_touch = 0;
        for (int l = 0; l < p->n_links; l++) {
            int link = p->links[l];
            for (int j = rsa->link_path_first[link];
                 j < rsa->link_path_first[link + 1]; j++) {
                int r = rsa->link_paths[j];
                if (rsa->path_seen[r] != rsa->seen) {
                    rsa->path_seen[r] = rsa->seen;
                    route_free(rsa, r);
                    rsa->touched[n_touch++] = r;
                }
            }
        }

        for (int s = lr_bits_next_set(free, nw, 0); s >= 0;
             s = lr_bits_next_set(free, nw, s + 1)) {
            long cost = 0;
            for (int t = 0; t < n_touch && (best < 0 || cost < best_cost);
                 t++) {
                const uint64_t *f = rsa->path_free
                                    + (size_t) rsa->touched[t] * nw;
                cost += route_loss(f, nw, s, m, F);
            }
            if (best < 0 || cost < best_cost) {
                best = i;
                best_first = s;
                best_cost = cost;
            }
        }
    }
    if (best < 0)
        return false;
    *out = (struct lr_rsa_choice) {
        .path = c[best].path, .mod = c[best].mod,
        .first = best_first, .m = c[best].m,
    };
    return true;
}

const struct lr_rsa_policy lr_rsa_mscl = {
    .name = "mscl",
    .summary = "least loss of spectrum capacity on every route sharing a link",
    .choose = mscl_choose,
};
