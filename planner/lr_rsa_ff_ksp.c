/*
 * FF-KSP: first fit over all K paths.
 *
 * Definition.  For every candidate path compute its lowest free block of
 * m slots; take the path whose block starts lowest (path order on ties).
 * Where KSP-FF prefers the shortest path that has room anywhere, FF-KSP
 * prefers the lowest spectrum anywhere, packing the band from one end at
 * the price of longer paths.  Source: the "spectrum-first" variant in the
 * RSA tutorial of Chatterjee, Sarma and Oki, IEEE COMST 17(3), 2015;
 * evaluated as FF-KSP by XLRON (Doherty and Beghelli, 2023).
 */
#include "planner/lr_rsa.h"

static bool
ff_ksp_choose(struct lr_rsa *rsa, const struct lr_rsa_cand *c, int n,
              struct lr_rsa_choice *out)
{
    uint64_t free[LR_BITS_MAX_WORDS];
    int best = -1, best_first = 0;
    for (int i = 0; i < n; i++) {
        lr_rsa_path_free(rsa, c[i].p, free);
        lr_bits_fit_starts(free, rsa->sp->nw, c[i].m);
        int first = lr_bits_next_set(free, rsa->sp->nw, 0);
        if (first >= 0 && (best < 0 || first < best_first)) {
            best = i;
            best_first = first;
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

const struct lr_rsa_policy lr_rsa_ff_ksp = {
    .name = "ff-ksp",
    .summary = "over all K paths, the lowest free block (path order on ties)",
    .choose = ff_ksp_choose,
};
