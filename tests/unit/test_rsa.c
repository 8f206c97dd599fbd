/*
 * RMSA policies: hand-made spectra where each policy's answer is known,
 * and randomised checks of every policy against slot-by-slot searches
 * and against its own definition (MSCL's cost by brute force).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_rsa.h"
#include "tests/lr_test.h"
#include "tests/unit/lr_test_topo.h"

static struct lr_rsa *
engine(const struct lr_topo *t, const char *policy, int k, int guard,
       uint64_t sizes)
{
    struct lr_modtable mods;
    lr_modtable_default(&mods);
    struct lr_rsa_config cfg = { .k = k, .order = LR_KSP_KM, .guard = guard,
                                 .demand_sizes = { sizes } };
    struct lr_rsa *rsa = NULL;
    CU_ASSERT_EQUAL(lr_rsa_new(t, &cfg, &mods, lr_rsa_policy_find(policy),
                               &rsa), 0);
    return rsa;
}

/* One 100 km link a->b of 20 slots; free runs [0,10) [12,16) [18,20). */
static struct lr_topo *
one_link(void)
{
    struct lr_topo *t = lr_topo_new("one");
    lr_topo_add_node(t, "a");
    lr_topo_add_node(t, "b");
    lr_topo_add_link(t, "a-b", 0, 1, 100, 20, 0);
    return t;
}

static void
occupy_one_link(struct lr_rsa *rsa)
{
    int link = 0;
    CU_ASSERT_EQUAL(lr_spectrum_alloc(rsa->sp, &link, 1, 10, 2), 0);
    CU_ASSERT_EQUAL(lr_spectrum_alloc(rsa->sp, &link, 1, 16, 2), 0);
}

/* 16QAM at 100 km: 50 Gb/s per slot; guard 0, so 100 Gb/s = 2 slots and
 * 150 Gb/s = 3 slots. */
static int
first_slot(const char *policy, double rate, uint64_t sizes)
{
    struct lr_topo *t = one_link();
    struct lr_rsa *rsa = engine(t, policy, 1, 0, sizes);
    occupy_one_link(rsa);
    struct lr_rsa_request req = { 0, 1, rate };
    struct lr_rsa_choice c;
    int first = lr_rsa_decide(rsa, &req, &c) == LR_RSA_OK ? c.first : -1;
    lr_rsa_free(rsa);
    lr_topo_free(t);
    return first;
}

static void
test_fit_rules_by_hand(void)
{
    /* m = 3: runs of 10, 4, 2 slots. */
    CU_ASSERT_EQUAL(first_slot("ksp-ff", 150, 0), 0);
    CU_ASSERT_EQUAL(first_slot("ksp-lf", 150, 0), 13);
    CU_ASSERT_EQUAL(first_slot("ksp-bf", 150, 0), 12);
    CU_ASSERT_EQUAL(first_slot("ksp-ef", 150, 0), 0);   /* no exact run */
    /* m = 2: the run [18,20) is exact. */
    CU_ASSERT_EQUAL(first_slot("ksp-ff", 100, 0), 0);
    CU_ASSERT_EQUAL(first_slot("ksp-lf", 100, 0), 18);
    CU_ASSERT_EQUAL(first_slot("ksp-bf", 100, 0), 18);
    CU_ASSERT_EQUAL(first_slot("ksp-ef", 100, 0), 18);
    /* MSCL with demand sizes {2, 3}: F(L) = (L-1) + (L-2) for L >= 3,
     * F(2) = 1.  m = 3 at 12 loses F(4) = 5; at 0 it loses
     * F(10) - F(7) = 17 - 11 = 6: MSCL takes 12. */
    CU_ASSERT_EQUAL(first_slot("mscl", 150, (1 << 2) | (1 << 3)), 12);
    /* m = 2 at 18 loses F(2) = 1, the least possible. */
    CU_ASSERT_EQUAL(first_slot("mscl", 100, (1 << 2) | (1 << 3)), 18);
    /* On one link the route-level and link-level losses coincide. */
    CU_ASSERT_EQUAL(first_slot("mscl-link", 150, (1 << 2) | (1 << 3)), 12);
    CU_ASSERT_EQUAL(first_slot("mscl-link", 100, (1 << 2) | (1 << 3)), 18);
}

/* Demand sizes of 64 slots or more (until 2026-12-05 the set was one
 * word: they were lost, and a set of only such sizes read as empty,
 * every size from 1 to 63).  One link a->b of 200 slots, [100, 115)
 * busy: free runs of 100 and 85.  With S = {80}, F(L) = max(0, L - 79):
 * 10 slots (500 Gb/s at 16QAM, guard 0) anywhere in the first run lose
 * at least F(100) - F(90) = 21 - 11 = 10, at the start of the second
 * F(85) - F(75) = 6 - 0 = 6: MSCL takes 115.  Read as every size from 1
 * to 63, both lose 630 and the tie goes to slot 0. */
static void
test_demand_sizes_beyond_63(void)
{
    struct lr_topo *t = lr_topo_new("wide");
    lr_topo_add_node(t, "a");
    lr_topo_add_node(t, "b");
    lr_topo_add_link(t, "a-b", 0, 1, 100, 200, 0);
    struct lr_modtable mods;
    lr_modtable_default(&mods);
    struct lr_rsa_config cfg = { .k = 1, .order = LR_KSP_KM, .guard = 0 };
    lr_bits_set(cfg.demand_sizes, 80, 1);
    struct lr_rsa *rsa = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_rsa_new(t, &cfg, &mods,
                                     lr_rsa_policy_find("mscl"), &rsa), 0);
    CU_ASSERT_EQUAL(rsa->run_capacity[79], 0);
    CU_ASSERT_EQUAL(rsa->run_capacity[80], 1);
    CU_ASSERT_EQUAL(rsa->run_capacity[100], 21);
    int link = 0;
    CU_ASSERT_EQUAL(lr_spectrum_alloc(rsa->sp, &link, 1, 100, 15), 0);
    struct lr_rsa_request req = { 0, 1, 500 };
    struct lr_rsa_choice c;
    CU_ASSERT_EQUAL(lr_rsa_decide(rsa, &req, &c), LR_RSA_OK);
    CU_ASSERT_EQUAL(c.first, 115);
    CU_ASSERT_EQUAL(c.m, 10);
    lr_rsa_free(rsa);
    /* Empty: every size from 1 to the width, F(L) = L (L + 1) / 2 (it
     * stopped at 63: F(100) was 4,347). */
    struct lr_rsa_config every = { .k = 1, .order = LR_KSP_KM, .guard = 0 };
    CU_ASSERT_EQUAL_FATAL(lr_rsa_new(t, &every, &mods,
                                     lr_rsa_policy_find("mscl"), &rsa), 0);
    CU_ASSERT_EQUAL(rsa->run_capacity[100], 5050);
    CU_ASSERT_EQUAL(rsa->run_capacity[200], 20100);
    lr_rsa_free(rsa);
    lr_topo_free(t);
}

/* Square 0-1-2-3 (100, 100, 150, 150 km): paths 0->2 are via 1 (200 km)
 * then via 3 (300 km).  Slots 0..9 of 0->1 are busy. */
static void
test_ksp_ff_versus_ff_ksp(void)
{
    struct lr_topo *t = lr_topo_new("square");
    const char *names[] = { "a", "b", "c", "d" };
    for (int i = 0; i < 4; i++)
        lr_topo_add_node(t, names[i]);
    lr_test_fibre(t, 0, 1, 100, 40);
    lr_test_fibre(t, 1, 2, 100, 40);
    lr_test_fibre(t, 2, 3, 150, 40);
    lr_test_fibre(t, 3, 0, 150, 40);
    const char *pol[] = { "ksp-ff", "ff-ksp" };
    int want_len[] = { 200, 300 }, want_first[] = { 10, 0 };
    for (int i = 0; i < 2; i++) {
        struct lr_rsa *rsa = engine(t, pol[i], 2, 1, 0);
        int link = lr_topo_link_between(t, 0, 1);
        CU_ASSERT_EQUAL(lr_spectrum_alloc(rsa->sp, &link, 1, 0, 10), 0);
        struct lr_rsa_request req = { 0, 2, 100 };
        struct lr_rsa_choice c;
        CU_ASSERT_EQUAL_FATAL(lr_rsa_decide(rsa, &req, &c), LR_RSA_OK);
        CU_ASSERT_DOUBLE_EQUAL(rsa->ksp->paths[c.path].length_km,
                               want_len[i], 0);
        CU_ASSERT_EQUAL(c.first, want_first[i]);
        CU_ASSERT_EQUAL(c.m, 3);  /* 16QAM: 2 slots + 1 guard */
        lr_rsa_free(rsa);
    }
    lr_topo_free(t);
}

/* A chain a-b-c-d of 297.8, 258.1 and 69.1 km: the path a->d is 625 km,
 * 16QAM's reach exactly, so 100 Gb/s takes 2 slots (guard 0), not the 3
 * of 8QAM that a rounding of the sum (625.0000000000001) would give. */
static void
test_reach_at_its_bound(void)
{
    struct lr_topo *t = lr_topo_new("chain");
    const char *names[] = { "a", "b", "c", "d" };
    double km[] = { 297.8, 258.1, 69.1 };
    for (int i = 0; i < 4; i++)
        lr_topo_add_node(t, names[i]);
    for (int i = 0; i < 3; i++)
        lr_test_fibre(t, i, i + 1, km[i], 20);
    struct lr_rsa *rsa = engine(t, "ksp-ff", 1, 0, 0);
    struct lr_rsa_request req = { 0, 3, 100 };
    struct lr_rsa_choice c;
    CU_ASSERT_EQUAL_FATAL(lr_rsa_decide(rsa, &req, &c), LR_RSA_OK);
    CU_ASSERT_STRING_EQUAL(rsa->mods.f[c.mod].name, "16QAM");
    CU_ASSERT_EQUAL(c.m, 2);
    lr_rsa_free(rsa);
    lr_topo_free(t);
}

static void
test_block_reasons(void)
{
    struct lr_topo *t = lr_topo_new("far");
    lr_topo_add_node(t, "a");
    lr_topo_add_node(t, "b");
    lr_topo_add_node(t, "c");
    lr_topo_add_link(t, "a-b", 0, 1, 200000, 10, 0);  /* beyond BPSK */
    lr_topo_add_link(t, "b-c", 1, 2, 100, 4, 0);
    struct lr_rsa *rsa = engine(t, "ksp-ff", 3, 1, 0);
    struct lr_rsa_choice c;
    struct lr_rsa_request far = { 0, 1, 50 }, none = { 2, 0, 50 },
                          big = { 1, 2, 400 }, fits = { 1, 2, 100 };
    CU_ASSERT_EQUAL(lr_rsa_decide(rsa, &far, &c), LR_RSA_NO_REACH);
    CU_ASSERT_EQUAL(lr_rsa_decide(rsa, &none, &c), LR_RSA_NO_PATH);
    CU_ASSERT_EQUAL(lr_rsa_decide(rsa, &big, &c), LR_RSA_NO_SPECTRUM);
    /* What each refusal says (lr_rsa_explain): b-c is 100 km, 16QAM (50
     * Gb/s a slot), so 400 Gb/s needs 8 slots and a guard, 100 Gb/s 2 and
     * a guard; b-c has 4 slots. */
    char why[256];
    lr_rsa_explain(rsa, &far, LR_RSA_NO_REACH, why, sizeof why);
    CU_ASSERT_STRING_EQUAL(why, lr_rsa_block_reason(LR_RSA_NO_REACH));
    lr_rsa_explain(rsa, &none, LR_RSA_NO_PATH, why, sizeof why);
    CU_ASSERT_STRING_EQUAL(why, lr_rsa_block_reason(LR_RSA_NO_PATH));
    lr_rsa_explain(rsa, &big, LR_RSA_NO_SPECTRUM, why, sizeof why);
    CU_ASSERT_STRING_EQUAL(why, "no block of 9 contiguous slots free on "
                                "every link of any of its 1 candidate path "
                                "(the longest: 4 slots)");
    CU_ASSERT_EQUAL(lr_rsa_decide(rsa, &fits, &c), LR_RSA_OK);
    CU_ASSERT_EQUAL(lr_rsa_commit(rsa, &c), 0);
    CU_ASSERT_EQUAL(lr_rsa_decide(rsa, &fits, &c), LR_RSA_NO_SPECTRUM);
    lr_rsa_explain(rsa, &fits, LR_RSA_NO_SPECTRUM, why, sizeof why);
    CU_ASSERT_STRING_EQUAL(why, "no block of 3 contiguous slots free on "
                                "every link of any of its 1 candidate path "
                                "(the longest: 1 slot)");
    int bc = 1;
    CU_ASSERT_EQUAL(lr_spectrum_alloc(rsa->sp, &bc, 1, 3, 1), 0);
    lr_rsa_explain(rsa, &fits, LR_RSA_NO_SPECTRUM, why, sizeof why);
    CU_ASSERT_STRING_EQUAL(why, "no block of 3 contiguous slots free on "
                                "every link of any of its 1 candidate path "
                                "(none free)");
    /* Truncated to the buffer, still a string. */
    char small[8];
    lr_rsa_explain(rsa, &fits, LR_RSA_NO_SPECTRUM, small, sizeof small);
    CU_ASSERT_STRING_EQUAL(small, "no bloc");
    /* A format whose block for the rate is beyond an int (1e-6 b/s/Hz at
     * 100000 Gb/s: 8e9 slots) blocks under every policy; it used to wrap
     * to a negative size that every policy "fitted". */
    struct lr_modtable tiny = { 0 };
    CU_ASSERT_EQUAL(lr_modtable_add(&tiny, "TINY", 1000, 1e-6), 0);
    struct lr_rsa_config tcfg = { .k = 3, .order = LR_KSP_KM, .guard = 1 };
    struct lr_rsa_request huge = { 1, 2, 100000 };
    for (int i = 0; lr_rsa_policies[i]; i++) {
        struct lr_rsa *tr = NULL;
        CU_ASSERT_EQUAL_FATAL(lr_rsa_new(t, &tcfg, &tiny, lr_rsa_policies[i],
                                         &tr), 0);
        CU_ASSERT_EQUAL(lr_rsa_decide(tr, &huge, &c), LR_RSA_NO_SPECTRUM);
        lr_rsa_free(tr);
    }
    CU_ASSERT_PTR_NULL(lr_rsa_policy_find("ksp-xx"));
    CU_ASSERT_PTR_NOT_NULL(lr_rsa_policy_find("KSP-FF"));
    lr_rsa_free(rsa);
    lr_topo_free(t);
}

/* Two candidates of different formats: x-z-y, 200 km (16QAM: 100 Gb/s
 * in 2 slots and a guard), and x-y, 700 km (8QAM, 37.5 Gb/s a slot: 3
 * and a guard); every link of 2 slots, all free. */
static void
test_explain_formats(void)
{
    struct lr_topo *t = lr_topo_new("two");
    lr_topo_add_node(t, "x");
    lr_topo_add_node(t, "y");
    lr_topo_add_node(t, "z");
    lr_topo_add_link(t, "x-y", 0, 1, 700, 2, 0);
    lr_topo_add_link(t, "x-z", 0, 2, 100, 2, 0);
    lr_topo_add_link(t, "z-y", 2, 1, 100, 2, 0);
    struct lr_rsa *rsa = engine(t, "ksp-ff", 3, 1, 0);
    struct lr_rsa_request req = { 0, 1, 100 };
    struct lr_rsa_choice c;
    CU_ASSERT_EQUAL(lr_rsa_decide(rsa, &req, &c), LR_RSA_NO_SPECTRUM);
    char why[256];
    lr_rsa_explain(rsa, &req, LR_RSA_NO_SPECTRUM, why, sizeof why);
    CU_ASSERT_STRING_EQUAL(why, "no block of 3 to 4 contiguous slots free "
                                "on every link of any of its 2 candidate "
                                "paths (the longest: 2 slots)");
    lr_rsa_free(rsa);
    lr_topo_free(t);
}

/* Slot by slot: is [first, first+m) free on every link of path p? */
static bool
naive_fits(const struct lr_rsa *rsa, const struct lr_path *p, int first,
           int m)
{
    for (int l = 0; l < p->n_links; l++) {
        int link = p->links[l];
        if (first < 0 || first + m > rsa->sp->n_slots[link])
            return false;
        for (int s = first; s < first + m; s++)
            if (lr_bits_any(lr_spectrum_link(rsa->sp, link), s, 1))
                return false;
    }
    return true;
}

static int
naive_lowest(const struct lr_rsa *rsa, const struct lr_path *p, int m)
{
    for (int s = 0; s < rsa->sp->nw * 64; s++)
        if (naive_fits(rsa, p, s, m))
            return s;
    return -1;
}

/* Every policy, many requests: a decision is always free on its whole
 * path and sized right; a block means no candidate had room; KSP-FF is
 * the first path with room at its lowest block. */
static void
test_random_policies(void)
{
    for (int pi = 0; lr_rsa_policies[pi]; pi++) {
        struct lr_rng r;
        lr_rng_seed(&r, 100 + pi);
        struct lr_topo *t = lr_test_random_topo(&r, 9, 0.25, 100);
        struct lr_rsa *rsa = engine(t, lr_rsa_policies[pi]->name, 4, 1, 0);
        struct lr_rsa_choice *live = calloc(3000, sizeof *live);
        int n_live = 0, blocked = 0, ok = 0;
        for (int step = 0; step < 3000; step++) {
            if (n_live > 0 && lr_rng_uniform(&r) < 0.4) {
                int i = (int) lr_rng_below(&r, (uint32_t) n_live);
                CU_ASSERT_EQUAL(lr_rsa_release(rsa, &live[i]), 0);
                live[i] = live[--n_live];
                continue;
            }
            struct lr_rsa_request req = {
                .src = (int) lr_rng_below(&r, 9),
                .rate_gbps = 25 + lr_rng_below(&r, 76),
            };
            req.dst = (req.src + 1 + (int) lr_rng_below(&r, 8)) % 9;
            int n;
            const struct lr_path *p = lr_ksp_paths(rsa->ksp, req.src,
                                                   req.dst, &n);
            struct lr_rsa_choice c;
            enum lr_rsa_block b = lr_rsa_decide(rsa, &req, &c);
            if (b == LR_RSA_OK) {
                const struct lr_path *cp = &rsa->ksp->paths[c.path];
                CU_ASSERT(cp >= p && cp < p + n);
                CU_ASSERT_EQUAL(c.mod, lr_mod_choose(&rsa->mods,
                                                     cp->length_km));
                CU_ASSERT_EQUAL(c.m, lr_mod_slots(&rsa->mods.f[c.mod],
                                                  req.rate_gbps, 1));
                CU_ASSERT(naive_fits(rsa, cp, c.first, c.m));
                if (lr_rsa_policies[pi] == &lr_rsa_ksp_ff) {
                    int want_path = -1, want_first = -1;
                    for (int i = 0; i < n && want_path < 0; i++) {
                        int mod = lr_mod_choose(&rsa->mods, p[i].length_km);
                        int m = lr_mod_slots(&rsa->mods.f[mod],
                                             req.rate_gbps, 1);
                        int s = naive_lowest(rsa, &p[i], m);
                        if (s >= 0) {
                            want_path = (int) (&p[i] - rsa->ksp->paths);
                            want_first = s;
                        }
                    }
                    CU_ASSERT_EQUAL(c.path, want_path);
                    CU_ASSERT_EQUAL(c.first, want_first);
                }
                CU_ASSERT_EQUAL_FATAL(lr_rsa_commit(rsa, &c), 0);
                live[n_live++] = c;
                ok++;
            } else {
                CU_ASSERT_EQUAL(b, LR_RSA_NO_SPECTRUM);
                for (int i = 0; i < n; i++) {
                    int mod = lr_mod_choose(&rsa->mods, p[i].length_km);
                    int m = lr_mod_slots(&rsa->mods.f[mod], req.rate_gbps,
                                         1);
                    CU_ASSERT_EQUAL(naive_lowest(rsa, &p[i], m), -1);
                }
                blocked++;
            }
        }
        /* Both outcomes must have happened for the checks to mean much. */
        CU_ASSERT(blocked > 20);
        CU_ASSERT(ok > 500);
        free(live);
        lr_rsa_free(rsa);
        lr_topo_free(t);
    }
}

/* The narrowest link of path p: the slots every link of it has. */
static int
path_width(const struct lr_rsa *rsa, const struct lr_path *p)
{
    int w = rsa->sp->n_slots[p->links[0]];
    for (int l = 1; l < p->n_links; l++)
        if (rsa->sp->n_slots[p->links[l]] < w)
            w = rsa->sp->n_slots[p->links[l]];
    return w;
}

/* Policy 'pol' by its definition (the headers of lr_rsa_ksp_*.c),
 * slot by slot on path p: the first slot of its block, or -1. */
static int
naive_pick(const char *pol, const struct lr_rsa *rsa, const struct lr_path *p,
           int m)
{
    int W = path_width(rsa, p);
    if (!strcmp(pol, "ksp-lf")) {
        for (int s = W - 1; s >= 0; s--)
            if (naive_fits(rsa, p, s, m))
                return s;
        return -1;
    }
    /* The maximal free runs, low to high. */
    int best = -1, best_len = 0, exact = -1, first = -1;
    for (int a = 0; a < W;) {
        if (!naive_fits(rsa, p, a, 1)) {
            a++;
            continue;
        }
        int b = a;
        while (b < W && naive_fits(rsa, p, b, 1))
            b++;
        if (b - a >= m && first < 0)
            first = a;
        if (b - a >= m && (best < 0 || b - a < best_len)) {
            best = a;
            best_len = b - a;
        }
        if (b - a == m && exact < 0)
            exact = a;
        a = b;
    }
    if (!strcmp(pol, "ksp-bf"))
        return best;
    if (!strcmp(pol, "ksp-ef"))
        return exact >= 0 ? exact : first;
    return first;             /* ksp-ff, ff-ksp */
}

/* F(L) with every demand size: sum_{s = 1..L} (L - s + 1). */
static long
run_f(int L)
{
    return (long) L * (L + 1) / 2;
}

/* Capacity route (or link) R loses when [p, p + m) is booked: the
 * runs of R's free mask that meet the block (lr_rsa_mscl.c). */
static long
naive_route_loss(const struct lr_rsa *rsa, const struct lr_path *R, int p,
                 int m)
{
    int W = path_width(rsa, R);
    long loss = 0;
    for (int a = 0; a < W;) {
        if (!naive_fits(rsa, R, a, 1)) {
            a++;
            continue;
        }
        int b = a;
        while (b < W && naive_fits(rsa, R, b, 1))
            b++;
        if (a < p + m && b > p)
            loss += run_f(b - a) - run_f(p > a ? p - a : 0)
                    - run_f(b > p + m ? b - p - m : 0);
        a = b;
    }
    return loss;
}

/* MSCL's cost of booking [p, p + m) on P: the loss on every K-path
 * route sharing a link with P (mscl), or on P's own links (mscl-link). */
static long
naive_mscl_cost(const struct lr_rsa *rsa, const struct lr_path *P, int p,
                int m, bool own_links)
{
    long cost = 0;
    if (own_links) {
        for (int l = 0; l < P->n_links; l++) {
            struct lr_path one = { 1, &P->links[l], 0 };
            cost += naive_route_loss(rsa, &one, p, m);
        }
        return cost;
    }
    for (int r = 0; r < rsa->ksp->n_paths; r++) {
        const struct lr_path *R = &rsa->ksp->paths[r];
        bool shares = false;
        for (int i = 0; i < P->n_links && !shares; i++)
            for (int j = 0; j < R->n_links; j++)
                shares |= P->links[i] == R->links[j];
        if (shares)
            cost += naive_route_loss(rsa, R, p, m);
    }
    return cost;
}

/* Every policy against its own definition, slot by slot: KSP-LF, -BF
 * and -EF on the first path with a block, FF-KSP the lowest block over
 * all paths (path order on ties), MSCL and MSCL-link the least cost over
 * every path and start (ties: path order, then the lower start); links
 * of different widths (60 to 359 slots, the two directions of a fibre
 * apart, so padding sits inside a path's spectrum), guard 0 to 2, both
 * path orders, and a release for every three requests.
 * test_random_policies checks KSP-FF the same way on uniform links. */
static void
test_policies_by_definition(void)
{
    for (int pi = 0; lr_rsa_policies[pi]; pi++) {
        const char *pol = lr_rsa_policies[pi]->name;
        const bool mscl = !strncmp(pol, "mscl", 4);
        for (int trial = 0; trial < 2; trial++) {
            struct lr_rng r;
            lr_rng_seed(&r, 700 + 10 * pi + trial);
            const int n = 6;
            struct lr_topo *t = lr_topo_new("widths");
            char name[LR_NAME_MAX];
            for (int i = 0; i < n; i++) {
                snprintf(name, sizeof name, "n%d", i);
                lr_topo_add_node(t, name);
            }
            for (int a = 0; a < n; a++)
                for (int b = a + 1; b < n; b++)
                    if (b == a + 1 || lr_rng_uniform(&r) < 0.3) {
                        double km = 50 + lr_rng_below(&r, 1500);
                        snprintf(name, sizeof name, "%d-%d", a, b);
                        lr_topo_add_link(t, name, a, b, km,
                                         60 + (int) lr_rng_below(&r, 300), 0);
                        snprintf(name, sizeof name, "%d-%d", b, a);
                        lr_topo_add_link(t, name, b, a, km,
                                         60 + (int) lr_rng_below(&r, 300), 0);
                    }
            struct lr_modtable mods;
            lr_modtable_default(&mods);
            const int guard = (pi + trial) % 3;
            struct lr_rsa_config cfg = {
                .k = 3, .order = trial ? LR_KSP_HOPS : LR_KSP_KM,
                .guard = guard,
            };
            struct lr_rsa *rsa = NULL;
            CU_ASSERT_EQUAL_FATAL(lr_rsa_new(t, &cfg, &mods,
                                             lr_rsa_policies[pi], &rsa), 0);
            struct lr_rsa_choice *live = calloc(800, sizeof *live);
            CU_ASSERT_PTR_NOT_NULL_FATAL(live);
            int n_live = 0, ok = 0, blocked = 0, checked = 0;
            for (int step = 0; step < 800; step++) {
                if (n_live > 0 && lr_rng_uniform(&r) < 0.25) {
                    int i = (int) lr_rng_below(&r, (uint32_t) n_live);
                    CU_ASSERT_EQUAL(lr_rsa_release(rsa, &live[i]), 0);
                    live[i] = live[--n_live];
                    continue;
                }
                struct lr_rsa_request req = {
                    .src = (int) lr_rng_below(&r, n),
                    .rate_gbps = 10 + lr_rng_below(&r, 400),
                };
                req.dst = (req.src + 1 + (int) lr_rng_below(&r, n - 1)) % n;
                int np;
                const struct lr_path *p = lr_ksp_paths(rsa->ksp, req.src,
                                                       req.dst, &np);
                /* MSCL's brute force is slow: every fourth request. */
                bool check = !mscl || step % 4 == 0;
                int want_path = -1, want_first = -1;
                long want_cost = 0;
                for (int i = 0; i < np && check; i++) {
                    int mod = lr_mod_choose(&mods, p[i].length_km);
                    if (mod < 0)
                        continue;
                    int m = lr_mod_slots(&mods.f[mod], req.rate_gbps, guard);
                    if (mscl) {
                        for (int s = 0; s < path_width(rsa, &p[i]); s++) {
                            if (!naive_fits(rsa, &p[i], s, m))
                                continue;
                            long cost = naive_mscl_cost(
                                rsa, &p[i], s, m, !strcmp(pol, "mscl-link"));
                            if (want_path < 0 || cost < want_cost) {
                                want_path = i;
                                want_first = s;
                                want_cost = cost;
                            }
                        }
                        continue;
                    }
                    int s = naive_pick(pol, rsa, &p[i], m);
                    if (s >= 0 && (want_path < 0
                                   || (!strcmp(pol, "ff-ksp")
                                       && s < want_first))) {
                        want_path = i;
                        want_first = s;
                    }
                }
                struct lr_rsa_choice c;
                enum lr_rsa_block b = lr_rsa_decide(rsa, &req, &c);
                if (check) {
                    checked++;
                    CU_ASSERT_EQUAL(b == LR_RSA_OK, want_path >= 0);
                    if (b == LR_RSA_OK && want_path >= 0) {
                        CU_ASSERT_EQUAL(c.path, (int) (&p[want_path]
                                                       - rsa->ksp->paths));
                        CU_ASSERT_EQUAL(c.first, want_first);
                    }
                }
                if (b != LR_RSA_OK) {
                    blocked++;
                    continue;
                }
                CU_ASSERT(naive_fits(rsa, &rsa->ksp->paths[c.path], c.first,
                                     c.m));
                CU_ASSERT_EQUAL_FATAL(lr_rsa_commit(rsa, &c), 0);
                live[n_live++] = c;
                ok++;
            }
            /* Releasing every lightpath leaves the spectrum empty. */
            while (n_live > 0)
                CU_ASSERT_EQUAL(lr_rsa_release(rsa, &live[--n_live]), 0);
            long used, total;
            lr_spectrum_usage(rsa->sp, &used, &total);
            CU_ASSERT_EQUAL(used, 0);
            CU_ASSERT(ok > 100);
            CU_ASSERT(blocked > 10);
            CU_ASSERT(checked > 100);
            free(live);
            lr_rsa_free(rsa);
            lr_topo_free(t);
        }
    }
}

/* Every policy but MSCL's reads a lazy table (lightraild's start then
 * computes no path) whose every pair, first asked by lr_rsa_decide(),
 * holds the eager table's paths in order; MSCL's, which weighs every
 * route, is eager.  A 16-ROADM ring of equal spans has ties between
 * opposite ROADMs. */
static void
test_lazy_paths_equal_eager(void)
{
    struct lr_rng r;
    lr_rng_seed(&r, 7);
    struct lr_topo *topos[2] = { lr_topo_new("ring16"),
                                 lr_test_random_topo(&r, 12, 0.3, 64) };
    char name[LR_NAME_MAX];
    for (int i = 0; i < 16; i++) {
        snprintf(name, sizeof name, "r%d", i);
        lr_topo_add_node(topos[0], name);
    }
    for (int i = 0; i < 16; i++)
        lr_test_fibre(topos[0], i, (i + 1) % 16, 100, 64);
    for (int ti = 0; ti < 2; ti++) {
        const struct lr_topo *t = topos[ti];
        struct lr_ksp *eager = NULL;
        CU_ASSERT_EQUAL_FATAL(lr_ksp_compute(t, 4, LR_KSP_KM, &eager), 0);
        for (int pi = 0; lr_rsa_policies[pi]; pi++) {
            const struct lr_rsa_policy *pol = lr_rsa_policies[pi];
            bool route_level = pol == &lr_rsa_mscl
                               || pol == &lr_rsa_mscl_link;
            struct lr_rsa *rsa = engine(t, pol->name, 4, 1, 0);
            CU_ASSERT_FATAL(rsa != NULL);
            CU_ASSERT_EQUAL(rsa->ksp->lazy == NULL, route_level);
            for (int s = 0; s < t->n_nodes; s++)
                for (int d = 0; d < t->n_nodes; d++) {
                    if (s == d)
                        continue;
                    struct lr_rsa_request req = { s, d, 100 };
                    struct lr_rsa_choice c;
                    CU_ASSERT_EQUAL(lr_rsa_decide(rsa, &req, &c),
                                    LR_RSA_OK);
                    int ne, nl;
                    const struct lr_path *pe = lr_ksp_paths(eager, s, d,
                                                            &ne);
                    const struct lr_path *pl = lr_ksp_paths(rsa->ksp, s, d,
                                                            &nl);
                    CU_ASSERT_EQUAL_FATAL(nl, ne);
                    CU_ASSERT(c.path >= pl - rsa->ksp->paths
                              && c.path < pl - rsa->ksp->paths + nl);
                    for (int i = 0; i < nl; i++) {
                        CU_ASSERT_EQUAL_FATAL(pl[i].n_links, pe[i].n_links);
                        CU_ASSERT_EQUAL(pl[i].length_km, pe[i].length_km);
                        for (int j = 0; j < pl[i].n_links; j++)
                            CU_ASSERT_EQUAL(pl[i].links[j], pe[i].links[j]);
                    }
                }
            lr_rsa_free(rsa);
        }
        lr_ksp_free(eager);
    }
    lr_topo_free(topos[0]);
    lr_topo_free(topos[1]);
}

static CU_TestInfo tests[] = {
    { "first, last, best, exact fit and MSCL by hand",
      test_fit_rules_by_hand },
    { "KSP-FF prefers the path, FF-KSP the slot", test_ksp_ff_versus_ff_ksp },
    { "MSCL with demand sizes of 64 slots or more",
      test_demand_sizes_beyond_63 },
    { "a path exactly at a format's reach uses it", test_reach_at_its_bound },
    { "block reasons: no path, no reach, no spectrum", test_block_reasons },
    { "a refusal's explanation with two formats", test_explain_formats },
    { "every policy against slot-by-slot searches", test_random_policies },
    { "every policy against its definition, links of several widths",
      test_policies_by_definition },
    { "a lazy table's paths equal the eager table's",
      test_lazy_paths_equal_eager },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN("rsa", tests)
