/*
 * KSP-FF: K shortest paths, first fit.
 *
 * Definition.  Try the K candidate paths in order (km or hops order, see
 * lr_ksp.c); on each, take the lowest-indexed block of m contiguous slots
 * free on every link of the path; the first path with such a block wins.
 * This is the baseline of the RMSA literature: "K-shortest-path first-fit"
 * in X. Chen et al., "DeepRMSA: a deep reinforcement learning framework
 * for routing, modulation and spectrum assignment in elastic optical
 * networks", JLT 37(16), 2019, and in M. Doherty and A. Beghelli, "XLRON"
 * (2023) and "Reinforcement learning for RMSA: hype or hope?", JOCN 2025.
 *
 * Cost: per path O(h W + W log m) word operations (lr_bitset.h).
 */
#include "planner/lr_rsa.h"

static int
pick_first(uint64_t *free, int nw, int m)
{
    lr_bits_fit_starts(free, nw, m);
    return lr_bits_next_set(free, nw, 0);
}

static bool
ksp_ff_choose(struct lr_rsa *rsa, const struct lr_rsa_cand *c, int n,
              struct lr_rsa_choice *out)
{
    return lr_rsa_ksp_fit(rsa, c, n, pick_first, out);
}

const struct lr_rsa_policy lr_rsa_ksp_ff = {
    .name = "ksp-ff",
    .summary = "K shortest paths in order, lowest free block (first fit)",
    .choose = ksp_ff_choose,
};
