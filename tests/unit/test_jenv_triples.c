/*
 * Pipelines over three DCs in the joint environment
 * (lr_jenv_config.triples): the candidate list (the pairs' list
 * unchanged in front), the GPU split, triples whose hops share a link
 * left out, the mask and each hop's first fit against a brute-force
 * reading of the spectrum, the four lightpaths booked and released, and
 * the incremental route caches against a mirror rebuilt from scratch.
 * Also the lazy mask of rollouts (lr_jenv_set_lazy_mask), on this
 * network with and without triples.
 *
 * The instance: a ring of five ROADMs N0..N4 (64 slots a fibre, 10-14
 * km), DCs d0, d1, d2 on N0, N2, N3 with 16 GPUs each; a 4-layer model
 * that fits one GPU.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_bitset.h"
#include "planner/lr_jenv.h"
#include "tests/lr_test.h"

static struct lr_topo *ring, *line;
static struct lr_cluster *cl, *cl_line;
static struct lr_model *model;

static int
add_fibre(struct lr_topo *t, int v, int w, double km, int slots)
{
    char id[16];
    snprintf(id, sizeof id, "%d-%d", v, w);
    if (lr_topo_add_link(t, id, v, w, km, slots, 0))
        return 1;
    snprintf(id, sizeof id, "%d-%d", w, v);
    return lr_topo_add_link(t, id, w, v, km, slots, 0);
}

static int
setup(void)
{
    ring = lr_topo_new("ring5");
    line = lr_topo_new("line3");
    cl = lr_cluster_new();
    cl_line = lr_cluster_new();
    if (!ring || !line || !cl || !cl_line)
        return 1;
    const char *names[5] = { "N0", "N1", "N2", "N3", "N4" };
    for (int v = 0; v < 5; v++)
        if (lr_topo_add_node(ring, names[v]))
            return 1;
    for (int v = 0; v < 5; v++)
        if (add_fibre(ring, v, (v + 1) % 5, 10 + v, 64))
            return 1;
    /* The line A - B - C, DCs on A, C and B. */
    if (lr_topo_add_node(line, "A") || lr_topo_add_node(line, "B")
        || lr_topo_add_node(line, "C") || add_fibre(line, 0, 1, 10, 64)
        || add_fibre(line, 1, 2, 10, 64))
        return 1;
    if (lr_cluster_add_type(cl, "gpu", 100e12, 0.5, 80e9)
        || lr_cluster_add_dc(cl, "d0", "gpu", 16, 100e9, 5e-6, "N0")
        || lr_cluster_add_dc(cl, "d1", "gpu", 16, 100e9, 5e-6, "N2")
        || lr_cluster_add_dc(cl, "d2", "gpu", 16, 100e9, 5e-6, "N3")
        || lr_cluster_add_type(cl_line, "gpu", 100e12, 0.5, 80e9)
        || lr_cluster_add_dc(cl_line, "a", "gpu", 16, 100e9, 5e-6, "A")
        || lr_cluster_add_dc(cl_line, "c", "gpu", 16, 100e9, 5e-6, "C")
        || lr_cluster_add_dc(cl_line, "b", "gpu", 16, 100e9, 5e-6, "B"))
        return 1;
    struct lr_layer layers[4] = {
        { 1e12, 1e6, 1e6 }, { 2e12, 2e6, 1e6 },
        { 3e12, 3e6, 2e6 }, { 4e12, 4e6, 1e6 },
    };
    return lr_model_from_layers("toy", layers, 4, &model);
}

static int
teardown(void)
{
    lr_model_free(model);
    lr_cluster_free(cl);
    lr_cluster_free(cl_line);
    lr_topo_free(ring);
    lr_topo_free(line);
    return 0;
}

static struct lr_jenv_config
config(bool triples)
{
    struct lr_jenv_config c = {
        .load = 6, .holding = 1, .k = 2, .guard = 1, .block_penalty = 2,
        .train = { .batch = 8, .micro = 1, .elem_bytes = 2 },
        .n_models = 1, .models = { model }, .n_demands = 4,
        .demands = { 2, 4, 8, 16 }, .triples = triples,
    };
    return c;
}

static struct lr_jenv *
make(const struct lr_topo *t, const struct lr_cluster *c,
     const struct lr_jenv_config *cfg)
{
    struct lr_jenv *e = NULL;
    char err[256];
    int rc = lr_jenv_new(t, c, cfg, &e, err, sizeof err);
    if (rc)
        fprintf(stderr, "lr_jenv_new: %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    return e;
}

/* 3 singles + 6 ordered pairs x 2 routes x 3 tiers = 39 without; the
 * same 39 first with, then 6 ordered triples x 2 x 3 = 36 more, each
 * with distinct DCs and its hops' pairs; the 39 keep their T. */
static void
test_candidates(void)
{
    struct lr_jenv_config c0 = config(false), c1 = config(true);
    struct lr_jenv *e = make(ring, cl, &c0), *t = make(ring, cl, &c1);
    CU_ASSERT_EQUAL(lr_jenv_n_cands(e), 39);
    CU_ASSERT_EQUAL(lr_jenv_n_cands(t), 75);
    for (int a = 0; a < 39; a++)
        CU_ASSERT(!memcmp(lr_jenv_cand(e, a), lr_jenv_cand(t, a),
                          sizeof(struct lr_jenv_cand)));
    int seen[3][3][3] = { { { 0 } } };
    for (int a = 39; a < 75; a++) {
        const struct lr_jenv_cand *cd = lr_jenv_cand(t, a);
        CU_ASSERT_EQUAL(cd->n_dcs, 3);
        CU_ASSERT(cd->dc[0] != cd->dc[1] && cd->dc[1] != cd->dc[2]
                  && cd->dc[0] != cd->dc[2]);
        CU_ASSERT_EQUAL(cd->pair[0], cd->dc[0] * 3 + cd->dc[1]);
        CU_ASSERT_EQUAL(cd->pair[1], cd->dc[1] * 3 + cd->dc[2]);
        CU_ASSERT_EQUAL(cd->pair[2], -1);
        CU_ASSERT_EQUAL(cd->split, -1);
        seen[cd->dc[0]][cd->dc[1]][cd->dc[2]]++;
    }
    /* Every ordered triple, once per route and tier. */
    for (int x = 0; x < 3; x++)
        for (int y = 0; y < 3; y++)
            for (int z = 0; z < 3; z++)
                CU_ASSERT_EQUAL(seen[x][y][z], x != y && y != z && x != z
                                               ? 6 : 0);
    for (int d = 0; d < 4; d++) {
        CU_ASSERT(lr_jenv_present(e, 0, d) >= 0);
        CU_ASSERT(lr_jenv_present(t, 0, d) >= 0);
        for (int a = 0; a < 39; a++)
            CU_ASSERT_EQUAL(lr_jenv_cand_time(e, a), lr_jenv_cand_time(t, a));
        CU_ASSERT(!memcmp(lr_jenv_mask(e), lr_jenv_mask(t), 39));
    }
    lr_jenv_free(e);
    lr_jenv_free(t);
}

/* True when the paths of the two hops share a directed link. */
static bool
hops_share(const struct lr_jenv *e, int a)
{
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            const struct lr_path *p = lr_jenv_cand_hop_path(e, a, 0, i);
            const struct lr_path *q = lr_jenv_cand_hop_path(e, a, 1, j);
            for (int x = 0; x < p->n_links; x++)
                for (int y = 0; y < q->n_links; y++)
                    if (p->links[x] == q->links[y])
                        return true;
        }
    return false;
}

/* floor((g + 1) / 3) in the first two DCs, the rest in the third; a
 * demand of 2 leaves the third empty: never feasible. */
static void
test_gpu_split(void)
{
    struct lr_jenv_config c = config(true);
    struct lr_jenv *t = make(ring, cl, &c);
    static const int want[4][3] = {
        { 0, 0, 0 }, { 1, 1, 2 }, { 3, 3, 2 }, { 5, 5, 6 },
    };
    for (int d = 0; d < 4; d++) {
        lr_jenv_present(t, 0, d);
        int finite = 0, apart = 0;
        for (int a = 39; a < 75; a++) {
            finite += isfinite(lr_jenv_cand_time(t, a));
            apart += !hops_share(t, a);
            if (lr_jenv_cand(t, a)->route == 0)
                CU_ASSERT(!hops_share(t, a));
            for (int i = 0; i < 3; i++)
                CU_ASSERT_EQUAL(lr_jenv_cand_gpus(t, a, i), want[d][i]);
        }
        /* Every triple whose hops share no fibre fits, or none (2 GPUs);
         * on the ring, route 1 of a hop often runs back over the other
         * hop, route 0 never. */
        CU_ASSERT_EQUAL(finite, d == 0 ? 0 : apart);
        CU_ASSERT(apart >= 18 && apart < 36);
    }
    lr_jenv_free(t);
}

/* On the line A - B - C with DCs a (A), c (C), b (B): the chain a, b, c
 * goes A-B then B-C (no link shared: feasible); a, c, b goes A-B-C then
 * C-B, which the first hop's way back uses too (left out). */
static void
test_shared_link(void)
{
    struct lr_jenv_config c = config(true);
    c.k = 1;
    struct lr_jenv *t = make(line, cl_line, &c);
    lr_jenv_present(t, 0, 2);
    int ok = 0, out = 0;
    for (int a = 0; a < lr_jenv_n_cands(t); a++) {
        const struct lr_jenv_cand *cd = lr_jenv_cand(t, a);
        if (cd->n_dcs != 3)
            continue;
        bool share = hops_share(t, a);
        CU_ASSERT_EQUAL(isfinite(lr_jenv_cand_time(t, a)), !share);
        CU_ASSERT(!share || !lr_jenv_mask(t)[a]);
        ok += !share;
        out += share;
        /* a = 0, c = 1, b = 2 */
        if (cd->dc[0] == 0 && cd->dc[1] == 2 && cd->dc[2] == 1)
            CU_ASSERT(!share);
        if (cd->dc[0] == 0 && cd->dc[1] == 1 && cd->dc[2] == 2)
            CU_ASSERT(share);
    }
    /* Only chains whose middle DC is b avoid a shared fibre. */
    CU_ASSERT_EQUAL(ok, 2 * LR_JENV_N_TIERS);
    CU_ASSERT_EQUAL(out, 4 * LR_JENV_N_TIERS);
    lr_jenv_free(t);
}

/* First fit of m slots on path p over occupancy 'occ' (nw words a link),
 * by brute force: -1 when none. */
static int
brute_first_fit(const struct lr_path *p, const uint64_t *occ, int nw,
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

/* Random play that takes a triple whenever one is feasible (else any
 * feasible candidate), checking at each step: the mask of every triple
 * and its hops' first fits against the brute force; the mask, the
 * observation and the first fits against a mirror built from the
 * occupancy (the incremental caches); and at the end, with the jobs all
 * gone, nothing booked. */
static void
test_mask_and_booking(void)
{
    struct lr_jenv_config c = config(true);
    struct lr_jenv *e = make(ring, cl, &c), *m = make(ring, cl, &c);
    int n = lr_jenv_obs_size(e), na = lr_jenv_n_actions(e);
    float *o1 = calloc((size_t) n, sizeof *o1);
    float *o2 = calloc((size_t) n, sizeof *o2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o2);
    struct lr_rng rng;
    lr_rng_seed(&rng, 5);
    lr_jenv_reset(e, 31, 0);
    int bad_mask = 0, bad_first = 0, bad_mirror = 0, triples = 0;
    int steps = 2000;
    char err[256];
    for (int s = 0; s < steps; s++) {
        int nw, used[3];
        const uint64_t *occ = lr_jenv_occupancy(e, &nw);
        const uint8_t *mask = lr_jenv_mask(e);
        int g = lr_jenv_job_gpus(e), feasible_triples[64], nt = 0;
        for (int a = 0; a < lr_jenv_n_cands(e); a++) {
            const struct lr_jenv_cand *cd = lr_jenv_cand(e, a);
            if (cd->n_dcs != 3)
                continue;
            bool ok = isfinite(lr_jenv_cand_time(e, a)) && g >= 3;
            for (int i = 0; i < 3; i++)
                ok = ok && lr_jenv_cand_gpus(e, a, i)
                           <= lr_jenv_dc_free(e, cd->dc[i]);
            for (int h = 0; h < 2; h++)
                for (int dir = 0; dir < 2; dir++) {
                    int f = brute_first_fit(
                        lr_jenv_cand_hop_path(e, a, h, dir), occ, nw, 64,
                        lr_jenv_cand_hop_slots(e, a, h));
                    bad_first += f != lr_jenv_cand_hop_first(e, a, h, dir);
                    ok = ok && f >= 0;
                }
            bad_mask += ok != (mask[a] != 0);
            if (mask[a] && nt < 64)
                feasible_triples[nt++] = a;
        }
        for (int d = 0; d < 3; d++)
            used[d] = 16 - lr_jenv_dc_free(e, d);
        if (lr_jenv_set_state(m, used, occ, nw, err, sizeof err)) {
            bad_mirror++;
            break;
        }
        int demand = g == 2 ? 0 : g == 4 ? 1 : g == 8 ? 2 : 3;
        lr_jenv_present(m, lr_jenv_job_model(e), demand);
        lr_jenv_observe(e, o1);
        lr_jenv_observe(m, o2);
        bad_mirror += memcmp(lr_jenv_mask(e), lr_jenv_mask(m), (size_t) na)
                      || memcmp(o1, o2, (size_t) n * sizeof *o1);
        int a = nt ? feasible_triples[lr_rng_below(&rng, (uint32_t) nt)]
                   : lr_jenv_random.choose(NULL, e, mask, &rng);
        triples += nt > 0;
        lr_jenv_step(e, a);
    }
    CU_ASSERT_EQUAL(bad_mask, 0);
    CU_ASSERT_EQUAL(bad_first, 0);
    CU_ASSERT_EQUAL(bad_mirror, 0);
    /* The run booked triples, often. */
    CU_ASSERT(triples > steps / 10);
    /* Refuse everything until every job has left (holding 1, load 6:
     * 200 refusals take about 33 time units). */
    for (int s = 0; s < 200; s++)
        lr_jenv_step(e, -1);
    CU_ASSERT_EQUAL(lr_jenv_n_running(e), 0);
    int nw;
    const uint64_t *occ = lr_jenv_occupancy(e, &nw);
    int booked = 0;
    for (int l = 0; l < ring->n_links; l++)
        booked += lr_bits_count(occ + (size_t) l * nw, nw);
    CU_ASSERT_EQUAL(booked, 0);
    for (int d = 0; d < 3; d++)
        CU_ASSERT_EQUAL(lr_jenv_dc_free(e, d), 16);
    free(o1);
    free(o2);
    lr_jenv_free(m);
    lr_jenv_free(e);
}

/* One triple by hand: a job of 8 GPUs on the first triple (d0, d1, d2,
 * route 0, 100 G) books 3/3/2 GPUs and, on each of the four paths,
 * its hop's slots from 0 (an empty ring); the next job, after the first
 * has left, finds the ring empty again. */
static void
test_triple_by_hand(void)
{
    static const struct lr_jenv_arrival trace[] = {
        { 0, 1, 0, 2, 0 }, { 0.5, 1, 0, 1, 0 }, { 5, 1, 0, 1, 0 },
    };
    struct lr_jenv_config c = config(true);
    c.trace = trace;
    c.n_trace = 3;
    struct lr_jenv *t = make(ring, cl, &c);
    int a = 39;
    const struct lr_jenv_cand *cd = lr_jenv_cand(t, a);
    CU_ASSERT_EQUAL_FATAL(cd->n_dcs, 3);
    CU_ASSERT_EQUAL(cd->dc[0], 0);
    CU_ASSERT_EQUAL(cd->dc[1], 1);
    CU_ASSERT_EQUAL(cd->dc[2], 2);
    CU_ASSERT_EQUAL(cd->route, 0);
    CU_ASSERT_EQUAL(cd->tier, 0);
    CU_ASSERT_FATAL(lr_jenv_mask(t)[a]);
    int want = 0;
    for (int h = 0; h < 2; h++)
        for (int dir = 0; dir < 2; dir++) {
            CU_ASSERT_EQUAL(lr_jenv_cand_hop_first(t, a, h, dir), 0);
            want += lr_jenv_cand_hop_slots(t, a, h)
                    * lr_jenv_cand_hop_path(t, a, h, dir)->n_links;
        }
    CU_ASSERT_EQUAL(lr_jenv_cand_slots(t, a),
                    lr_jenv_cand_hop_slots(t, a, 0)
                    + lr_jenv_cand_hop_slots(t, a, 1));
    lr_jenv_step(t, a);
    /* At t = 0.5 the first job runs. */
    CU_ASSERT_EQUAL(lr_jenv_dc_free(t, 0), 13);
    CU_ASSERT_EQUAL(lr_jenv_dc_free(t, 1), 13);
    CU_ASSERT_EQUAL(lr_jenv_dc_free(t, 2), 14);
    int nw, booked = 0;
    const uint64_t *occ = lr_jenv_occupancy(t, &nw);
    for (int l = 0; l < ring->n_links; l++)
        booked += lr_bits_count(occ + (size_t) l * nw, nw);
    CU_ASSERT_EQUAL(booked, want);
    /* Its slots are taken: the same triple's hops now fit further up. */
    for (int h = 0; h < 2; h++)
        CU_ASSERT_EQUAL(lr_jenv_cand_hop_first(t, a, h, 0),
                        lr_jenv_cand_hop_slots(t, a, h));
    lr_jenv_step(t, -1);
    /* At t = 5 it has left. */
    occ = lr_jenv_occupancy(t, &nw);
    booked = 0;
    for (int l = 0; l < ring->n_links; l++)
        booked += lr_bits_count(occ + (size_t) l * nw, nw);
    CU_ASSERT_EQUAL(booked, 0);
    for (int d = 0; d < 3; d++)
        CU_ASSERT_EQUAL(lr_jenv_dc_free(t, d), 16);
    lr_jenv_free(t);
}

/* With 6 GPUs free in each DC, a 16-GPU job fits no DC and no pair (8
 * + 8) but a triple (5 + 5 + 6): greedy takes the fastest triple, and
 * without triples the job is blocked. */
static void
test_only_a_triple_fits(void)
{
    for (int with = 0; with < 2; with++) {
        struct lr_jenv_config c = config(with);
        struct lr_jenv *t = make(ring, cl, &c);
        int used[3] = { 10, 10, 10 }, nw;
        char err[256];
        lr_jenv_occupancy(t, &nw);      /* for the words per link */
        uint64_t *empty = calloc((size_t) ring->n_links * nw, sizeof *empty);
        CU_ASSERT_PTR_NOT_NULL_FATAL(empty);
        CU_ASSERT_EQUAL_FATAL(lr_jenv_set_state(t, used, empty, nw, err,
                                                sizeof err), 0);
        int n = lr_jenv_present(t, 0, 3);
        struct lr_rng rng;
        lr_rng_seed(&rng, 1);
        int a = lr_jenv_greedy.choose(NULL, t, lr_jenv_mask(t), &rng);
        if (!with) {
            CU_ASSERT_EQUAL(n, 0);
            CU_ASSERT_EQUAL(a, -1);
        } else {
            CU_ASSERT(n > 0);
            CU_ASSERT_FATAL(a >= 0);
            CU_ASSERT_EQUAL(lr_jenv_cand(t, a)->n_dcs, 3);
            for (int b = 0; b < lr_jenv_n_cands(t); b++) {
                if (lr_jenv_mask(t)[b])
                    CU_ASSERT(lr_jenv_cand(t, b)->n_dcs == 3
                              && lr_jenv_cand_time(t, b)
                                 >= lr_jenv_cand_time(t, a));
            }
        }
        free(empty);
        lr_jenv_free(t);
    }
}

/* A lazy environment against an eager one on the same arrivals, with
 * and without triples: the same first feasible candidate (greedy's
 * choice over the eager mask) at every step, the same mask when read,
 * the same reward for every kind of action (greedy's; another feasible
 * one, which the lazy step must test itself; an infeasible one; a
 * refusal), the same network and metrics at the end; and a lazy fork
 * stepped by greedy without a mask ends as an eager one with it. */
static void
test_lazy_mask(void)
{
    for (int tri = 0; tri < 2; tri++) {
        struct lr_jenv_config c = config(tri);
        struct lr_jenv *e = make(ring, cl, &c), *z = make(ring, cl, &c);
        lr_jenv_set_lazy_mask(z, true);
        lr_jenv_reset(e, 21, 0);
        lr_jenv_reset(z, 21, 0);
        int n = lr_jenv_n_cands(e), na = lr_jenv_n_actions(e);
        uint8_t *m = malloc((size_t) na);
        CU_ASSERT_FATAL(m != NULL);
        struct lr_rng r;
        lr_rng_seed(&r, 5);
        bool first_same = true, mask_same = true, reward_same = true;
        int steps = 0, others = 0, infeasible = 0;
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
            double re = lr_jenv_step(e, a), rz = lr_jenv_step(z, a);
            reward_same = reward_same && memcmp(&re, &rz, sizeof re) == 0;
        }
        CU_ASSERT(first_same);
        CU_ASSERT(mask_same);
        CU_ASSERT(reward_same);
        CU_ASSERT(steps > 1000 && others > 50 && infeasible > 50);
        struct lr_jenv_metrics me, mz;
        lr_jenv_metrics(e, &me);
        lr_jenv_metrics(z, &mz);
        CU_ASSERT(me.blocked == mz.blocked && me.admitted == mz.admitted
                  && me.blocked > 0);
        int nw, nw2;
        const uint64_t *oe = lr_jenv_occupancy(e, &nw);
        const uint64_t *oz = lr_jenv_occupancy(z, &nw2);
        CU_ASSERT_FATAL(nw == nw2);
        CU_ASSERT(memcmp(oe, oz, (size_t) ring->n_links * nw * sizeof *oe)
                  == 0);

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
            lr_jenv_step(w, lr_jenv_greedy.choose(NULL, w, lr_jenv_mask(w),
                                                  &r));
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
}

static CU_TestInfo tests[] = {
    { "candidates: pairs unchanged, triples after", test_candidates },
    { "GPU split of a triple", test_gpu_split },
    { "hops sharing a link are left out", test_shared_link },
    { "mask, first fits, caches: randomised", test_mask_and_booking },
    { "one triple by hand", test_triple_by_hand },
    { "greedy takes a triple when only a triple fits",
      test_only_a_triple_fits },
    { "lazy mask = eager mask, step by step", test_lazy_mask },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN_WITH("jenv-triples", tests, setup, teardown)
