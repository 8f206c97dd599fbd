/*
 * MSCL-link: minimum spectrum capacity loss on the path's own links, over
 * all K paths and all blocks.  A cheap cousin of MSCL (lr_rsa_mscl.c).
 *
 * Model.  The capacity of a link is the number of ways the requests that
 * can arrive could still be placed on it.  With S the set of block sizes
 * requests may need (lr_rsa_config.demand_sizes) and the link's free
 * spectrum made of maximal free runs of lengths L_1, L_2, ...:
 *     cap(e) = sum_runs F(L),   F(L) = sum_{s in S} max(0, L - s + 1).
 * Placing m slots at p inside a run [r0, r1) of link e leaves the runs
 * [r0, p) and [p + m, r1), so the capacity lost on e is
 *     loss_e(p) = F(r1 - r0) - F(p - r0) - F(r1 - p - m)
 * and the loss of a candidate is the sum over the links of its path.  We
 * take, over every candidate path and every feasible start p, the least
 * total loss; ties go to the earlier path in K order, then the lower p.
 * Longer paths lose capacity on more links, so the rule trades path
 * length against fragmentation without a tuning knob.
 *
 * Source.  Spectrum-capacity-loss assignment follows Y. Wang, X. Cao, Q.
 * Hu and Y. Pan, "Towards elastic and fine-granular bandwidth allocation
 * in spectrum-sliced optical networks", JOCN 4(11), 2012 (MSCL), as we
 * read it.  Deviation: the original counts the loss on the routes that
 * share links with the path (lr_rsa_mscl.c does); here we count the
 * path's own links only, which is about 10x cheaper and, on NSFNET,
 * gives up most of the gain (docs/rmsa.md).
 *
 * Cost.  F is tabulated once per engine (lr_rsa.c).  Per request:
 * K x (feasible starts) x h run look-ups, each a ctz/clz scan of a few
 * words: O(K W h) in the worst case, about 10x KSP-FF in practice.
 */
#include "planner/lr_rsa.h"

static bool
mscl_link_choose(struct lr_rsa *rsa, const struct lr_rsa_cand *c, int n,
                 struct lr_rsa_choice *out)
{
    uint64_t free[LR_BITS_MAX_WORDS];
    const int nw = rsa->sp->nw, width = nw * 64;
    const int *F = rsa->run_capacity;
    int best = -1, best_first = 0;
    long best_loss = 0;

    for (int i = 0; i < n; i++) {
        const int m = c[i].m;
        const struct lr_path *p = c[i].p;
        lr_rsa_path_free(rsa, p, free);
        lr_bits_fit_starts(free, nw, m);
        for (int s = lr_bits_next_set(free, nw, 0); s >= 0;
             s = lr_bits_next_set(free, nw, s + 1)) {
            long loss = 0;
            for (int l = 0; l < p->n_links && (best < 0 || loss < best_loss);
                 l++) {
                const uint64_t *occ = lr_spectrum_link(rsa->sp, p->links[l]);
                int r0 = lr_bits_prev_set(occ, s) + 1;
                int r1 = lr_bits_next_set(occ, nw, s + m);
                if (r1 < 0)
                    r1 = width;
                loss += F[r1 - r0] - F[s - r0] - F[r1 - s - m];
            }
            if (best < 0 || loss < best_loss) {
                best = i;
                best_first = s;
                best_loss = loss;
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

const struct lr_rsa_policy lr_rsa_mscl_link = {
    .name = "mscl-link",
    .summary = "least loss of spectrum capacity on the path's own links",
    .choose = mscl_link_choose,
};
