/*
 * Pipelines over four DCs in the joint environment
 * (lr_jenv_config.quads): the candidate list (every earlier candidate
 * unchanged in front, with and without triples), the GPU split,
 * quadruples two of whose hops share a link left out, the mask and each
 * hop's first fit against a brute-force reading of the spectrum, the six
 * lightpaths booked and released, the incremental route caches against a
 * mirror rebuilt from scratch, a job that only a quadruple can take, and
 * the lazy mask of rollouts against the eager one.
 *
 * The instance: a ring of six ROADMs N0..N5 (64 slots a fibre, 10-15
 * km), DCs d0..d3 on N0, N2, N3, N5 with 16 GPUs each; a 4-layer model
 * that fits one GPU.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_bitset.h"
#include "planner/lr_jenv.h"
#include "tests/lr_test.h"

static struct lr_topo *ring;
static struct lr_cluster *cl;
static struct lr_model *model;

/* The demands of config(), and the split each gets over a quadruple. */
#define N_DEMANDS 5
static const int demands[N_DEMANDS] = { 3, 4, 6, 8, 16 };
static const int want_split[N_DEMANDS][4] = {
    { 0, 0, 0, 0 },             /* 3: never feasible */
    { 1, 1, 1, 1 }, { 1, 1, 2, 2 }, { 2, 2, 2, 2 }, { 4, 4, 4, 4 },
};

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
    ring = lr_topo_new("ring6");
    cl = lr_cluster_new();
    if (!ring || !cl)
        return 1;
    const char *names[6] = { "N0", "N1", "N2", "N3", "N4", "N5" };
    for (int v = 0; v < 6; v++)
        if (lr_topo_add_node(ring, names[v]))
            return 1;
    for (int v = 0; v < 6; v++)
        if (add_fibre(ring, v, (v + 1) % 6, 10 + v, 64))
            return 1;
    if (lr_cluster_add_type(cl, "gpu", 100e12, 0.5, 80e9)
        || lr_cluster_add_dc(cl, "d0", "gpu", 16, 100e9, 5e-6, "N0")
        || lr_cluster_add_dc(cl, "d1", "gpu", 16, 100e9, 5e-6, "N2")
        || lr_cluster_add_dc(cl, "d2", "gpu", 16, 100e9, 5e-6, "N3")
        || lr_cluster_add_dc(cl, "d3", "gpu", 16, 100e9, 5e-6, "N5"))
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
    lr_topo_free(ring);
    return 0;
}

static struct lr_jenv_config
config(bool triples, bool quads)
{
    struct lr_jenv_config c = {
        .load = 8, .holding = 1, .k = 2, .guard = 1, .block_penalty = 2,
        .train = { .batch = 8, .micro = 1, .elem_bytes = 2 },
        .n_models = 1, .models = { model }, .n_demands = N_DEMANDS,
        .triples = triples, .quads = quads,
    };
    memcpy(c.demands, demands, sizeof demands);
    return c;
}

static struct lr_jenv *
make(const struct lr_jenv_config *cfg)
{
    struct lr_jenv *e = NULL;
    char err[256];
    int rc = lr_jenv_new(ring, cl, cfg, &e, err, sizeof err);
    if (rc)
        fprintf(stderr, "lr_jenv_new: %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    return e;
}

/* 4 singles + 12 ordered pairs x 2 routes x 3 tiers = 76; triples add
 * 24 x 6 = 144, quadruples 24 x 6 = 144 after them. */
#define N_BASE 76
#define N_CHAIN 144

/* Every candidate before the quadruples is the one of the list without
 * them, with the same T and mask; the quadruples are every ordered
 * quadruple once per route and tier, route and tier innermost. */
static void
test_candidates(void)
{
    for (int tri = 0; tri < 2; tri++) {
        struct lr_jenv_config c0 = config(tri, false), c1 = config(tri, true);
        struct lr_jenv *e = make(&c0), *q = make(&c1);
        int before = N_BASE + (tri ? N_CHAIN : 0);
        CU_ASSERT_EQUAL(lr_jenv_n_cands(e), before);
        CU_ASSERT_EQUAL(lr_jenv_n_cands(q), before + N_CHAIN);
        for (int a = 0; a < before; a++)
            CU_ASSERT(!memcmp(lr_jenv_cand(e, a), lr_jenv_cand(q, a),
                              sizeof(struct lr_jenv_cand)));
        int seen[4][4][4][4];
        memset(seen, 0, sizeof seen);
        for (int a = before; a < before + N_CHAIN; a++) {
            const struct lr_jenv_cand *cd = lr_jenv_cand(q, a);
            CU_ASSERT_EQUAL_FATAL(cd->n_dcs, 4);
            int i = a - before;
            CU_ASSERT_EQUAL(cd->tier, i % LR_JENV_N_TIERS);
            CU_ASSERT_EQUAL(cd->route, i / LR_JENV_N_TIERS % 2);
            for (int h = 0; h < 3; h++)
                CU_ASSERT_EQUAL(cd->pair[h], cd->dc[h] * 4 + cd->dc[h + 1]);
            CU_ASSERT_EQUAL(cd->split, -1);
            seen[cd->dc[0]][cd->dc[1]][cd->dc[2]][cd->dc[3]]++;
        }
        int once = 0;
        for (int w = 0; w < 4; w++)
            for (int x = 0; x < 4; x++)
                for (int y = 0; y < 4; y++)
                    for (int z = 0; z < 4; z++) {
                        bool distinct = w != x && w != y && w != z
                                        && x != y && x != z && y != z;
                        CU_ASSERT_EQUAL(seen[w][x][y][z], distinct ? 6 : 0);
                        once += distinct;
                    }
        CU_ASSERT_EQUAL(once, 24);
        for (int d = 0; d < N_DEMANDS; d++) {
            lr_jenv_present(e, 0, d);
            lr_jenv_present(q, 0, d);
            for (int a = 0; a < before; a++)
                CU_ASSERT_EQUAL(lr_jenv_cand_time(e, a),
                                lr_jenv_cand_time(q, a));
            CU_ASSERT(!memcmp(lr_jenv_mask(e), lr_jenv_mask(q),
                              (size_t) before));
        }
        lr_jenv_free(e);
        lr_jenv_free(q);
    }
}

/* True when two hops of candidate a share a directed link (either
 * direction of one against either of the other). */
static bool
hops_share(const struct lr_jenv *e, int a)
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

/* The split of want_split for each demand; T finite exactly for the
 * quadruples whose hops share no link (a demand of 3: none). */
static void
test_gpu_split(void)
{
    struct lr_jenv_config c = config(false, true);
    struct lr_jenv *q = make(&c);
    int apart = 0, shared = 0;
    for (int a = N_BASE; a < N_BASE + N_CHAIN; a++) {
        apart += !hops_share(q, a);
        shared += hops_share(q, a);
    }
    /* On the ring both kinds occur (the brute force is not trivial). */
    CU_ASSERT(apart > 0 && shared > 0);
    for (int d = 0; d < N_DEMANDS; d++) {
        lr_jenv_present(q, 0, d);
        int finite = 0;
        for (int a = N_BASE; a < N_BASE + N_CHAIN; a++) {
            bool fin = isfinite(lr_jenv_cand_time(q, a));
            finite += fin;
            if (d > 0)
                CU_ASSERT_EQUAL(fin, !hops_share(q, a));
            for (int i = 0; i < 4; i++)
                CU_ASSERT_EQUAL(lr_jenv_cand_gpus(q, a, i), want_split[d][i]);
            int sum = 0;
            for (int i = 0; i < 4; i++)
                sum += lr_jenv_cand_gpus(q, a, i);
            CU_ASSERT(sum == 0 || sum == demands[d]);
        }
        CU_ASSERT_EQUAL(finite, d == 0 ? 0 : apart);
    }
    lr_jenv_free(q);
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

static int
booked_slots(const struct lr_jenv *e)
{
    int nw, booked = 0;
    const uint64_t *occ = lr_jenv_occupancy(e, &nw);
    for (int l = 0; l < ring->n_links; l++)
        booked += lr_bits_count(occ + (size_t) l * nw, nw);
    return booked;
}

/* Random play that takes a quadruple whenever one is feasible (else any
 * feasible candidate), checking at each step: the mask of every
 * quadruple and its hops' first fits against the brute force; the mask
 * and the observation against a mirror built from the occupancy (the
 * incremental caches); and at the end, with the jobs all gone, nothing
 * booked. */
static void
test_mask_and_booking(void)
{
    struct lr_jenv_config c = config(true, true);
    struct lr_jenv *e = make(&c), *m = make(&c);
    int n = lr_jenv_obs_size(e), na = lr_jenv_n_actions(e);
    int first_quad = N_BASE + N_CHAIN;
    float *o1 = calloc((size_t) n, sizeof *o1);
    float *o2 = calloc((size_t) n, sizeof *o2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o2);
    struct lr_rng rng;
    lr_rng_seed(&rng, 7);
    lr_jenv_reset(e, 41, 0);
    int bad_mask = 0, bad_first = 0, bad_mirror = 0, quads = 0;
    int steps = 2000;
    char err[256];
    for (int s = 0; s < steps; s++) {
        int nw, used[4];
        const uint64_t *occ = lr_jenv_occupancy(e, &nw);
        const uint8_t *mask = lr_jenv_mask(e);
        int g = lr_jenv_job_gpus(e), feasible[N_CHAIN], nq = 0;
        for (int a = first_quad; a < first_quad + N_CHAIN; a++) {
            const struct lr_jenv_cand *cd = lr_jenv_cand(e, a);
            bool ok = !hops_share(e, a) && g >= 4;
            for (int i = 0; i < 4; i++)
                ok = ok && lr_jenv_cand_gpus(e, a, i)
                           <= lr_jenv_dc_free(e, cd->dc[i]);
            for (int h = 0; h < 3; h++)
                for (int dir = 0; dir < 2; dir++) {
                    int f = brute_first_fit(
                        lr_jenv_cand_hop_path(e, a, h, dir), occ, nw, 64,
                        lr_jenv_cand_hop_slots(e, a, h));
                    bad_first += f != lr_jenv_cand_hop_first(e, a, h, dir);
                    ok = ok && f >= 0;
                }
            bad_mask += ok != (mask[a] != 0);
            if (mask[a])
                feasible[nq++] = a;
        }
        for (int d = 0; d < 4; d++)
            used[d] = 16 - lr_jenv_dc_free(e, d);
        if (lr_jenv_set_state(m, used, occ, nw, err, sizeof err)) {
            bad_mirror++;
            break;
        }
        int demand = 0;
        while (demands[demand] != g)
            demand++;
        lr_jenv_present(m, lr_jenv_job_model(e), demand);
        lr_jenv_observe(e, o1);
        lr_jenv_observe(m, o2);
        bad_mirror += memcmp(lr_jenv_mask(e), lr_jenv_mask(m), (size_t) na)
                      || memcmp(o1, o2, (size_t) n * sizeof *o1);
        int a = nq ? feasible[lr_rng_below(&rng, (uint32_t) nq)]
                   : lr_jenv_random.choose(NULL, e, mask, &rng);
        quads += nq > 0;
        lr_jenv_step(e, a);
    }
    CU_ASSERT_EQUAL(bad_mask, 0);
    CU_ASSERT_EQUAL(bad_first, 0);
    CU_ASSERT_EQUAL(bad_mirror, 0);
    /* The run booked quadruples, often. */
    CU_ASSERT(quads > steps / 10);
    /* Refuse everything until every job has left (holding 1, load 8:
     * 300 refusals take about 37 time units). */
    for (int s = 0; s < 300; s++)
        lr_jenv_step(e, -1);
    CU_ASSERT_EQUAL(lr_jenv_n_running(e), 0);
    CU_ASSERT_EQUAL(booked_slots(e), 0);
    for (int d = 0; d < 4; d++)
        CU_ASSERT_EQUAL(lr_jenv_dc_free(e, d), 16);
    free(o1);
    free(o2);
    lr_jenv_free(m);
    lr_jenv_free(e);
}

/* One quadruple by hand: an 8-GPU job on the first feasible quadruple
 * books 2 GPUs in each of its DCs and, on each of its six paths, its
 * hop's slots from 0 (an empty ring); after it has left the ring is
 * empty again. */
static void
test_quad_by_hand(void)
{
    static const struct lr_jenv_arrival trace[] = {
        { 0, 1, 0, 3, 0 }, { 0.5, 1, 0, 1, 0 }, { 5, 1, 0, 1, 0 },
    };
    struct lr_jenv_config c = config(false, true);
    c.trace = trace;
    c.n_trace = 3;
    struct lr_jenv *q = make(&c);
    CU_ASSERT_EQUAL_FATAL(lr_jenv_job_gpus(q), 8);
    int a = N_BASE;
    while (a < N_BASE + N_CHAIN && !lr_jenv_mask(q)[a])
        a++;
    CU_ASSERT_FATAL(a < N_BASE + N_CHAIN);
    const struct lr_jenv_cand *cd = lr_jenv_cand(q, a);
    int want = 0, sum_slots = 0;
    for (int h = 0; h < 3; h++) {
        sum_slots += lr_jenv_cand_hop_slots(q, a, h);
        for (int dir = 0; dir < 2; dir++) {
            CU_ASSERT_EQUAL(lr_jenv_cand_hop_first(q, a, h, dir), 0);
            want += lr_jenv_cand_hop_slots(q, a, h)
                    * lr_jenv_cand_hop_path(q, a, h, dir)->n_links;
        }
    }
    CU_ASSERT_EQUAL(lr_jenv_cand_slots(q, a), sum_slots);
    lr_jenv_step(q, a);
    /* At t = 0.5 the first job runs. */
    for (int i = 0; i < 4; i++)
        CU_ASSERT_EQUAL(lr_jenv_dc_free(q, cd->dc[i]), 14);
    CU_ASSERT_EQUAL(booked_slots(q), want);
    /* Its slots are taken: the same quadruple's hops now fit higher. */
    for (int h = 0; h < 3; h++)
        CU_ASSERT(lr_jenv_cand_hop_first(q, a, h, 0)
                  >= lr_jenv_cand_hop_slots(q, a, h));
    lr_jenv_step(q, -1);
    /* At t = 5 it has left. */
    CU_ASSERT_EQUAL(booked_slots(q), 0);
    for (int d = 0; d < 4; d++)
        CU_ASSERT_EQUAL(lr_jenv_dc_free(q, d), 16);
    lr_jenv_free(q);
}

/* With 4 GPUs free in each DC, a 16-GPU job fits no DC, no pair (8 + 8)
 * and no triple (5 + 5 + 6) but a quadruple (4 x 4): greedy takes the
 * fastest quadruple, and without quadruples the job is blocked. */
static void
test_only_a_quad_fits(void)
{
    for (int with = 0; with < 2; with++) {
        struct lr_jenv_config c = config(true, with);
        struct lr_jenv *q = make(&c);
        int used[4] = { 12, 12, 12, 12 }, nw;
        char err[256];
        lr_jenv_occupancy(q, &nw);      /* for the words per link */
        uint64_t *empty = calloc((size_t) ring->n_links * nw, sizeof *empty);
        CU_ASSERT_PTR_NOT_NULL_FATAL(empty);
        CU_ASSERT_EQUAL_FATAL(lr_jenv_set_state(q, used, empty, nw, err,
                                                sizeof err), 0);
        int n = lr_jenv_present(q, 0, 4);
        struct lr_rng rng;
        lr_rng_seed(&rng, 1);
        int a = lr_jenv_greedy.choose(NULL, q, lr_jenv_mask(q), &rng);
        if (!with) {
            CU_ASSERT_EQUAL(n, 0);
            CU_ASSERT_EQUAL(a, -1);
        } else {
            CU_ASSERT(n > 0);
            CU_ASSERT_FATAL(a >= 0);
            CU_ASSERT_EQUAL(lr_jenv_cand(q, a)->n_dcs, 4);
            for (int b = 0; b < lr_jenv_n_cands(q); b++)
                if (lr_jenv_mask(q)[b])
                    CU_ASSERT(lr_jenv_cand(q, b)->n_dcs == 4
                              && lr_jenv_cand_time(q, b)
                                 >= lr_jenv_cand_time(q, a));
        }
        free(empty);
        lr_jenv_free(q);
    }
}

/* A lazy environment against an eager one on the same arrivals, with
 * quadruples: the same first feasible candidate at every step, the same
 * mask when read, the same reward for greedy's action, another feasible
 * one, an infeasible one and a refusal, and the same network at the
 * end. */
static void
test_lazy_mask(void)
{
    struct lr_jenv_config c = config(true, true);
    struct lr_jenv *e = make(&c), *z = make(&c);
    lr_jenv_set_lazy_mask(z, true);
    lr_jenv_reset(e, 23, 0);
    lr_jenv_reset(z, 23, 0);
    int n = lr_jenv_n_cands(e), na = lr_jenv_n_actions(e);
    uint8_t *m = malloc((size_t) na);
    CU_ASSERT_FATAL(m != NULL);
    struct lr_rng r;
    lr_rng_seed(&r, 9);
    bool first_same = true, mask_same = true, reward_same = true;
    int steps = 0, others = 0, infeasible = 0, quads = 0;
    for (; steps < 3000; steps++) {
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
        quads += a >= 0 && m[a] && lr_jenv_cand(e, a)->n_dcs == 4;
        double re = lr_jenv_step(e, a), rz = lr_jenv_step(z, a);
        reward_same = reward_same && memcmp(&re, &rz, sizeof re) == 0;
    }
    CU_ASSERT(first_same);
    CU_ASSERT(mask_same);
    CU_ASSERT(reward_same);
    CU_ASSERT(others > 50 && infeasible > 50 && quads > 10);
    int nw, nw2;
    const uint64_t *oe = lr_jenv_occupancy(e, &nw);
    const uint64_t *oz = lr_jenv_occupancy(z, &nw2);
    CU_ASSERT_FATAL(nw == nw2);
    CU_ASSERT(memcmp(oe, oz, (size_t) ring->n_links * nw * sizeof *oe) == 0);
    free(m);
    lr_jenv_free(z);
    lr_jenv_free(e);
}

static CU_TestInfo tests[] = {
    { "candidates: earlier ones unchanged, quadruples after",
      test_candidates },
    { "GPU split and quadruples whose hops share a link",
      test_gpu_split },
    { "mask, first fits and booking against brute force",
      test_mask_and_booking },
    { "one quadruple booked and released by hand", test_quad_by_hand },
    { "a job only a quadruple can take", test_only_a_quad_fits },
    { "the lazy mask with quadruples", test_lazy_mask },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN_WITH("jenv-quads", tests, setup, teardown)
