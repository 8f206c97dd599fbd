/*
 * KSP-BF: K shortest paths, best fit.
 *
 * Definition.  Try the K paths in order; on each, among the maximal free
 * runs common to the path's links (the path's free mask), take the
 * smallest run of at least m slots (the lowest one on ties) and place the
 * block at its low end; the first path with such a run wins.  Best fit
 * keeps large runs whole for large requests.  Source: the fit-policy
 * family of Chatterjee, Sarma and Oki, IEEE COMST 17(3), 2015; XLRON
 * (Doherty and Beghelli, 2023) evaluates KSP-BF under the same protocol.
 *
 * Cost: O(h W) for the mask plus one ctz per run boundary.
 */
#include "planner/lr_rsa.h"

static int
pick_best(uint64_t *free, int nw, int m)
{
    int best = -1, best_len = 0;
    for (int p = lr_bits_next_set(free, nw, 0); p >= 0;) {
        int end = lr_bits_next_clear(free, nw, p);
        int len = end - p;
        if (len >= m && (best < 0 || len < best_len)) {
            best = p;
            best_len = len;
            if (len == m)
                break;
        }
        p = lr_bits_next_set(free, nw, end);
    }
    return best;
}

static bool
ksp_bf_choose(struct lr_rsa *rsa, const struct lr_rsa_cand *c, int n,
              struct lr_rsa_choice *out)
{
    return lr_rsa_ksp_fit(rsa, c, n, pick_best, out);
}

const struct lr_rsa_policy lr_rsa_ksp_bf = {
    .name = "ksp-bf",
    .summary = "K shortest paths in order, smallest free run that fits (best fit)",
    .choose = ksp_bf_choose,
};
