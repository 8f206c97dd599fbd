/*
 * KSP-EF: K shortest paths, exact fit.
 *
 * Definition.  Try the K paths in order; on each, take a maximal free run
 * of exactly m slots (the lowest one) if there is one, else the lowest
 * block of m slots (first fit); the first path with either wins.  Exact
 * fit fills holes that match the request and otherwise behaves as first
 * fit.  XLRON reports KSP-EF 4-11% below KSP-FF in blocking (M. Doherty
 * and A. Beghelli, "Reinforcement learning for RMSA: hype or hope?",
 * JOCN 2025; ../shared/reference/optical.md).
 */
#include "planner/lr_rsa.h"

static int
pick_exact(uint64_t *free, int nw, int m)
{
    int first = -1;
    for (int p = lr_bits_next_set(free, nw, 0); p >= 0;) {
        int end = lr_bits_next_clear(free, nw, p);
        if (end - p == m)
            return p;
        if (end - p > m && first < 0)
            first = p;
        p = lr_bits_next_set(free, nw, end);
    }
    return first;
}

static bool
ksp_ef_choose(struct lr_rsa *rsa, const struct lr_rsa_cand *c, int n,
              struct lr_rsa_choice *out)
{
    return lr_rsa_ksp_fit(rsa, c, n, pick_exact, out);
}

const struct lr_rsa_policy lr_rsa_ksp_ef = {
    .name = "ksp-ef",
    .summary = "K shortest paths in order, a free run of exactly m slots, else first fit",
    .choose = ksp_ef_choose,
};
