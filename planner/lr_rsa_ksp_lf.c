/*
 * KSP-LF: K shortest paths, last fit.
 *
 * Definition.  As KSP-FF (lr_rsa_ksp_ff.c) but on each path the block
 * taken is the highest-indexed one.  On its own last fit only mirrors
 * first fit; it exists because mixing the two ends of the band by class
 * of request is a classic way to keep large and small blocks apart, and
 * because operators ask for it (TransportPCE assigns spectrum high to
 * low).  Source: the fit-policy family surveyed in B. C. Chatterjee,
 * N. Sarma and E. Oki, "Routing and spectrum allocation in elastic optical
 * networks: a tutorial", IEEE COMST 17(3), 2015.
 */
#include "planner/lr_rsa.h"

static int
pick_last(uint64_t *free, int nw, int m)
{
    lr_bits_fit_starts(free, nw, m);
    return lr_bits_last_set(free, nw);
}

static bool
ksp_lf_choose(struct lr_rsa *rsa, const struct lr_rsa_cand *c, int n,
              struct lr_rsa_choice *out)
{
    return lr_rsa_ksp_fit(rsa, c, n, pick_last, out);
}

const struct lr_rsa_policy lr_rsa_ksp_lf = {
    .name = "ksp-lf",
    .summary = "K shortest paths in order, highest free block (last fit)",
    .choose = ksp_lf_choose,
};
