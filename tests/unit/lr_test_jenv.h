/*
 * What the tests of chains over several DCs in the joint environment
 * share (test_jenv_triples, test_jenv_quads): a ring of ROADMs, the toy
 * model, brute-force readings of the spectrum and of a chain's hops,
 * random play that checks the mask, every hop's first fit and the
 * incremental caches as it books chains, the lazy mask stepped beside
 * the eager one, and a job only chains of one length can take.  Static
 * functions: include it once per test program, after tests/lr_test.h.
 */
#ifndef LR_TEST_JENV_H
#define LR_TEST_JENV_H 1

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_bitset.h"
#include "planner/lr_jenv.h"
#include "tests/lr_test.h"

/* A fibre each way between nodes v and w. */
static inline int
lr_test_jenv_fibre(struct lr_topo *t, int v, int w, double km, int slots)
{
    char id[16];
    snprintf(id, sizeof id, "%d-%d", v, w);
    if (lr_topo_add_link(t, id, v, w, km, slots, 0))
        return 1;
    snprintf(id, sizeof id, "%d-%d", w, v);
    return lr_topo_add_link(t, id, w, v, km, slots, 0);
}

/* A ring of n ROADMs N0..N(n-1), 64 slots a fibre, fibre v of 10 + v km;
 * NULL when out of memory. */
static inline struct lr_topo *
lr_test_jenv_ring(const char *name, int n)
{
    struct lr_topo *t = lr_topo_new(name);
    if (!t)
        return NULL;
    for (int v = 0; v < n; v++) {
        char id[16];
        snprintf(id, sizeof id, "N%d", v);
        if (lr_topo_add_node(t, id))
            goto fail;
    }
    for (int v = 0; v < n; v++)
        if (lr_test_jenv_fibre(t, v, (v + 1) % n, 10 + v, 64))
            goto fail;
    return t;
fail:
    lr_topo_free(t);
    return NULL;
}

/* A 4-layer model that fits one GPU. */
static inline int
lr_test_jenv_toy(struct lr_model **out)
{
    struct lr_layer layers[4] = {
        { 1e12, 1e6, 1e6 }, { 2e12, 2e6, 1e6 },
        { 3e12, 3e6, 2e6 }, { 4e12, 4e6, 1e6 },
    };
    return lr_model_from_layers("toy", layers, 4, out);
}

/* True when two hops of candidate a (any two) share a directed link:
 * either direction of one against either of the other. */
static inline bool
lr_test_jenv_hops_share(const struct lr_jenv *e, int a)
{
    int n_hops = lr_jenv_cand(e, a)->n_dcs - 1;
    for (int h = 0; h < n_hops; h++)
        for (int g = h + 1; g < n_hops; g++)
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2; j++) {
                    const struct lr_path *p = lr_jenv_cand_hop_path(e, a, h,
                                                                    i);
                    const struct lr_path *q = lr_jenv_cand_hop_path(e, a, g,
                                                                    j);
                    for (int x = 0; x < p->n_links; x++)
                        for (int y = 0; y < q->n_links; y++)
                            if (p->links[x] == q->links[y])
                                return true;
                }
    return false;
}

/* First fit of m slots on path p over occupancy 'occ' (nw words a link),
 * by brute force: -1 when none. */
static inline int
lr_test_jenv_first_fit(const struct lr_path *p, const uint64_t *occ, int nw,
                       int n_slots, int m)
{
    for (int s = 0; s + m <= n_slots; s++) {
        bool free = true;
        for (int j = 0; j < p->n_links && free; j++)
            free = !lr_bits_any(occ + (size_t) p->links[j] * nw, s, m);
        if (free)
            return s;
    }
    return -1;
}

/* Slots booked over every link of 't'. */
static inline int
lr_test_jenv_booked(const struct lr_jenv *e, const struct lr_topo *t)
{
    int nw, booked = 0;
    const uint64_t *occ = lr_jenv_occupancy(e, &nw);
    for (int l = 0; l < t->n_links; l++)
        booked += lr_bits_count(occ + (size_t) l * nw, nw);
    return booked;
}

/* Chain candidate a, feasible on an empty network 't', booked by hand
 * (an arrival pending): every hop's first fit is slot 0 each way and
 * the chain's slots the sum of its hops'; once lr_jenv_step() takes it,
 * the slots booked over every link are each hop's slots times its two
 * paths' links, and each hop's forward first fit has moved up by its
 * own slots exactly (its hops share no link).  The caller checks the
 * GPUs, then lr_test_jenv_left() after the job has left. */
static inline void
lr_test_jenv_book_chain(struct lr_jenv *e, const struct lr_topo *t, int a)
{
    int n_hops = lr_jenv_cand(e, a)->n_dcs - 1, want = 0, sum_slots = 0;
    CU_ASSERT_FATAL(n_hops >= 1 && lr_jenv_mask(e)[a]);
    for (int h = 0; h < n_hops; h++) {
        sum_slots += lr_jenv_cand_hop_slots(e, a, h);
        for (int dir = 0; dir < 2; dir++) {
            CU_ASSERT_EQUAL(lr_jenv_cand_hop_first(e, a, h, dir), 0);
            want += lr_jenv_cand_hop_slots(e, a, h)
                    * lr_jenv_cand_hop_path(e, a, h, dir)->n_links;
        }
    }
    CU_ASSERT_EQUAL(lr_jenv_cand_slots(e, a), sum_slots);
    lr_jenv_step(e, a);
    CU_ASSERT_EQUAL(lr_test_jenv_booked(e, t), want);
    for (int h = 0; h < n_hops; h++)
        CU_ASSERT_EQUAL(lr_jenv_cand_hop_first(e, a, h, 0),
                        lr_jenv_cand_hop_slots(e, a, h));
}

/* Steps once with no decision pending (the next arrival, after every
 * job has left) and checks that 't' has no slot booked and DCs
 * 0..n_dcs-1 all 'gpus' free. */
static inline void
lr_test_jenv_left(struct lr_jenv *e, const struct lr_topo *t, int n_dcs,
                  int gpus)
{
    lr_jenv_step(e, -1);
    CU_ASSERT_EQUAL(lr_test_jenv_booked(e, t), 0);
    for (int d = 0; d < n_dcs; d++)
        CU_ASSERT_EQUAL(lr_jenv_dc_free(e, d), gpus);
}

static inline struct lr_jenv *
lr_test_jenv_make(const struct lr_topo *t, const struct lr_cluster *cl,
                  const struct lr_jenv_config *cfg)
{
    struct lr_jenv *e = NULL;
    char err[256];
    int rc = lr_jenv_new(t, cl, cfg, &e, err, sizeof err);
    if (rc)
        fprintf(stderr, "lr_jenv_new: %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    return e;
}

/* Random play on 't' (64 slots a fibre) and 'cl' under 'cfg', arrivals
 * of seed 'seed', that takes a candidate over 'chain' DCs whenever one
 * is feasible (else any feasible candidate), checking at each of 'steps'
 * steps: the mask of every such candidate and its hops' first fits
 * against the brute force (its GPUs free, its split giving GPUs, no two
 * hops on one fibre, a free block on every path); the mask and the
 * observation against a mirror built from the occupancy (the
 * incremental caches).  Then 'drain' refusals, after which no job runs
 * and nothing is booked.  The run must take such chains often. */
static inline void
lr_test_jenv_play(const struct lr_topo *t, const struct lr_cluster *cl,
                  const struct lr_jenv_config *cfg, int chain,
                  uint64_t seed, int steps, int drain)
{
    struct lr_jenv *e = lr_test_jenv_make(t, cl, cfg);
    struct lr_jenv *m = lr_test_jenv_make(t, cl, cfg);
    int n = lr_jenv_obs_size(e), na = lr_jenv_n_actions(e);
    int nc = lr_jenv_n_cands(e), n_dcs = lr_jenv_n_dcs(e);
    float *o1 = calloc((size_t) n, sizeof *o1);
    float *o2 = calloc((size_t) n, sizeof *o2);
    int *feasible = calloc((size_t) nc, sizeof *feasible);
    int *used = calloc((size_t) n_dcs, sizeof *used);
    CU_ASSERT_FATAL(o1 && o2 && feasible && used);
    struct lr_rng rng;
    lr_rng_seed(&rng, 5);
    lr_jenv_reset(e, seed, 0);
    int bad_mask = 0, bad_first = 0, bad_mirror = 0, taken = 0;
    char err[256];
    for (int s = 0; s < steps; s++) {
        int nw, nf = 0;
        const uint64_t *occ = lr_jenv_occupancy(e, &nw);
        const uint8_t *mask = lr_jenv_mask(e);
        for (int a = 0; a < nc; a++) {
            const struct lr_jenv_cand *cd = lr_jenv_cand(e, a);
            if (cd->n_dcs != chain)
                continue;
            bool ok = lr_jenv_cand_gpus(e, a, 0) > 0
                      && !lr_test_jenv_hops_share(e, a);
            for (int i = 0; i < chain; i++)
                ok = ok && lr_jenv_cand_gpus(e, a, i)
                           <= lr_jenv_dc_free(e, cd->dc[i]);
            for (int h = 0; h + 1 < chain; h++)
                for (int dir = 0; dir < 2; dir++) {
                    int f = lr_test_jenv_first_fit(
                        lr_jenv_cand_hop_path(e, a, h, dir), occ, nw, 64,
                        lr_jenv_cand_hop_slots(e, a, h));
                    bad_first += f != lr_jenv_cand_hop_first(e, a, h, dir);
                    ok = ok && f >= 0;
                }
            bad_mask += ok != (mask[a] != 0);
            if (mask[a])
                feasible[nf++] = a;
        }
        for (int d = 0; d < n_dcs; d++)
            used[d] = lr_jenv_dc_gpus(e, d) - lr_jenv_dc_free(e, d);
        if (lr_jenv_set_state(m, used, occ, nw, err, sizeof err)) {
            bad_mirror++;
            break;
        }
        int demand = 0;
        while (cfg->demands[demand] != lr_jenv_job_gpus(e))
            demand++;
        lr_jenv_present(m, lr_jenv_job_model(e), demand);
        lr_jenv_observe(e, o1);
        lr_jenv_observe(m, o2);
        bad_mirror += memcmp(lr_jenv_mask(e), lr_jenv_mask(m), (size_t) na)
                      || memcmp(o1, o2, (size_t) n * sizeof *o1);
        int a = nf ? feasible[lr_rng_below(&rng, (uint32_t) nf)]
                   : lr_jenv_random.choose(NULL, e, mask, &rng);
        taken += nf > 0;
        lr_jenv_step(e, a);
    }
    CU_ASSERT_EQUAL(bad_mask, 0);
    CU_ASSERT_EQUAL(bad_first, 0);
    CU_ASSERT_EQUAL(bad_mirror, 0);
    CU_ASSERT(taken > steps / 10);
    for (int s = 0; s < drain; s++)
        lr_jenv_step(e, -1);
    CU_ASSERT_EQUAL(lr_jenv_n_running(e), 0);
    CU_ASSERT_EQUAL(lr_test_jenv_booked(e, t), 0);
    for (int d = 0; d < n_dcs; d++)
        CU_ASSERT_EQUAL(lr_jenv_dc_free(e, d), lr_jenv_dc_gpus(e, d));
    free(used);
    free(feasible);
    free(o1);
    free(o2);
    lr_jenv_free(m);
    lr_jenv_free(e);
}

/* A job of demand index 'demand' on an empty network but for 'used'
 * GPUs taken in each DC (lr_jenv_set_state): under 'with' only chains of
 * 'chain' DCs can take it, and greedy takes the fastest of them; under
 * 'without' (the same but for the option that adds them) it is blocked
 * (no feasible candidate, greedy refuses). */
static inline void
lr_test_jenv_only_chain(const struct lr_topo *t, const struct lr_cluster *cl,
                        const struct lr_jenv_config *with,
                        const struct lr_jenv_config *without,
                        const int *used, int demand, int chain)
{
    for (int k = 0; k < 2; k++) {
        struct lr_jenv *e = lr_test_jenv_make(t, cl, k ? with : without);
        int nw;
        char err[256];
        lr_jenv_occupancy(e, &nw);      /* for the words per link */
        uint64_t *empty = calloc((size_t) t->n_links * nw, sizeof *empty);
        CU_ASSERT_PTR_NOT_NULL_FATAL(empty);
        CU_ASSERT_EQUAL_FATAL(lr_jenv_set_state(e, used, empty, nw, err,
                                                sizeof err), 0);
        int n = lr_jenv_present(e, 0, demand);
        struct lr_rng rng;
        lr_rng_seed(&rng, 1);
        int a = lr_jenv_greedy.choose(NULL, e, lr_jenv_mask(e), &rng);
        if (!k) {
            CU_ASSERT_EQUAL(n, 0);
            CU_ASSERT_EQUAL(a, -1);
        } else {
            CU_ASSERT(n > 0);
            CU_ASSERT_FATAL(a >= 0);
            CU_ASSERT_EQUAL(lr_jenv_cand(e, a)->n_dcs, chain);
            for (int b = 0; b < lr_jenv_n_cands(e); b++)
                if (lr_jenv_mask(e)[b])
                    CU_ASSERT(lr_jenv_cand(e, b)->n_dcs == chain
                              && lr_jenv_cand_time(e, b)
                                 >= lr_jenv_cand_time(e, a));
        }
        free(empty);
        lr_jenv_free(e);
    }
}

/* A lazy environment against an eager one on the same arrivals (seed
 * 'seed'): the same first feasible candidate (greedy's choice over the
 * eager mask) at every step, the same mask when read, the same reward
 * for every kind of action (greedy's; another feasible one, which the
 * lazy step must test itself; an infeasible one; a refusal), the same
 * network and metrics at the end; and a lazy fork stepped by greedy
 * without a mask ends as an eager one with it.  With chain > 0 the run
 * must take candidates over that many DCs. */
static inline void
lr_test_jenv_lazy(const struct lr_topo *t, const struct lr_cluster *cl,
                  const struct lr_jenv_config *cfg, uint64_t seed, int chain)
{
    struct lr_jenv *e = lr_test_jenv_make(t, cl, cfg);
    struct lr_jenv *z = lr_test_jenv_make(t, cl, cfg);
    lr_jenv_set_lazy_mask(z, true);
    lr_jenv_reset(e, seed, 0);
    lr_jenv_reset(z, seed, 0);
    int n = lr_jenv_n_cands(e), na = lr_jenv_n_actions(e);
    uint8_t *m = malloc((size_t) na);
    CU_ASSERT_FATAL(m != NULL);
    struct lr_rng r;
    lr_rng_seed(&r, 5);
    bool first_same = true, mask_same = true, reward_same = true;
    int steps = 0, others = 0, infeasible = 0, taken = 0;
    for (; steps < 3000 && !lr_jenv_done(e); steps++) {
        memcpy(m, lr_jenv_mask(e), (size_t) na);
        int g = lr_jenv_greedy.choose(NULL, e, m, &r);
        first_same = first_same && lr_jenv_first_feasible(z) == g
                     && lr_jenv_first_feasible(e) == g;
        if (steps % 3 == 0)
            mask_same = mask_same
                        && memcmp(lr_jenv_mask(z), m, (size_t) na) == 0;
        int a = g, pick = (int) lr_rng_below(&r, (uint32_t) n);
        if (steps % 4 == 1 && m[pick] && pick != g) {
            a = pick;
            others++;
        } else if (steps % 4 == 2 && !m[pick]) {
            a = pick;
            infeasible++;
        } else if (steps % 4 == 3) {
            a = -1;
        }
        taken += a >= 0 && m[a] && lr_jenv_cand(e, a)->n_dcs == chain;
        double re = lr_jenv_step(e, a), rz = lr_jenv_step(z, a);
        reward_same = reward_same && memcmp(&re, &rz, sizeof re) == 0;
    }
    CU_ASSERT(first_same);
    CU_ASSERT(mask_same);
    CU_ASSERT(reward_same);
    CU_ASSERT(steps > 1000 && others > 50 && infeasible > 50);
    CU_ASSERT(chain == 0 || taken >= 5);
    struct lr_jenv_metrics me, mz;
    lr_jenv_metrics(e, &me);
    lr_jenv_metrics(z, &mz);
    CU_ASSERT(me.blocked == mz.blocked && me.admitted == mz.admitted
              && me.blocked > 0);
    int nw, nw2;
    const uint64_t *oe = lr_jenv_occupancy(e, &nw);
    const uint64_t *oz = lr_jenv_occupancy(z, &nw2);
    CU_ASSERT_FATAL(nw == nw2);
    CU_ASSERT(memcmp(oe, oz, (size_t) t->n_links * nw * sizeof *oe) == 0);

    /* Forks of e: f, lazy, stays lazy when forked into; w, eager. */
    struct lr_jenv *w = NULL, *f = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_jenv_clone(e, &w), 0);
    CU_ASSERT_EQUAL_FATAL(lr_jenv_clone(e, &f), 0);
    lr_jenv_set_lazy_mask(f, true);
    CU_ASSERT_EQUAL_FATAL(lr_jenv_fork(f, e, 99, 400,
                                       LR_JENV_FORK_KNOWN_WORK), 0);
    CU_ASSERT_EQUAL_FATAL(lr_jenv_fork(w, e, 99, 400,
                                       LR_JENV_FORK_KNOWN_WORK), 0);
    while (!lr_jenv_done(w)) {
        lr_jenv_step(w, lr_jenv_greedy.choose(NULL, w, lr_jenv_mask(w), &r));
        lr_jenv_step(f, lr_jenv_greedy.choose(NULL, f, NULL, &r));
    }
    CU_ASSERT(lr_jenv_done(f));
    lr_jenv_metrics(w, &me);
    lr_jenv_metrics(f, &mz);
    CU_ASSERT(me.blocked == mz.blocked && me.admitted == mz.admitted
              && me.arrivals == 401 && me.blocked > 0);
    lr_jenv_free(f);
    lr_jenv_free(w);
    free(m);
    lr_jenv_free(z);
    lr_jenv_free(e);
}

#endif
