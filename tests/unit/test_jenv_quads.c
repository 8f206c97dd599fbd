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
#include "tests/lr_test.h"
#include "tests/unit/lr_test_jenv.h"

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
setup(void)
{
    ring = lr_test_jenv_ring("ring6", 6);
    cl = lr_cluster_new();
    if (!ring || !cl)
        return 1;
    if (lr_cluster_add_type(cl, "gpu", 100e12, 0.5, 80e9)
        || lr_cluster_add_dc(cl, "d0", "gpu", 16, 100e9, 5e-6, "N0")
        || lr_cluster_add_dc(cl, "d1", "gpu", 16, 100e9, 5e-6, "N2")
        || lr_cluster_add_dc(cl, "d2", "gpu", 16, 100e9, 5e-6, "N3")
        || lr_cluster_add_dc(cl, "d3", "gpu", 16, 100e9, 5e-6, "N5"))
        return 1;
    return lr_test_jenv_toy(&model);
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
    return lr_test_jenv_make(ring, cl, cfg);
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

/* The split of want_split for each demand; T finite exactly for the
 * quadruples whose hops share no link (a demand of 3: none). */
static void
test_gpu_split(void)
{
    struct lr_jenv_config c = config(false, true);
    struct lr_jenv *q = make(&c);
    int apart = 0, shared = 0;
    for (int a = N_BASE; a < N_BASE + N_CHAIN; a++) {
        apart += !lr_test_jenv_hops_share(q, a);
        shared += lr_test_jenv_hops_share(q, a);
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
                CU_ASSERT_EQUAL(fin, !lr_test_jenv_hops_share(q, a));
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

/* Random play that takes a quadruple whenever one is feasible: the
 * mask, the first fits and the caches against brute force and a mirror
 * (lr_test_jenv_play); 300 refusals then leave nothing booked (holding
 * 1, load 8: about 37 time units). */
static void
test_mask_and_booking(void)
{
    struct lr_jenv_config c = config(true, true);
    lr_test_jenv_play(ring, cl, &c, 4, 41, 2000, 300);
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
    lr_test_jenv_book_chain(q, ring, a);
    /* At t = 0.5 the first job runs. */
    for (int i = 0; i < 4; i++)
        CU_ASSERT_EQUAL(lr_jenv_dc_free(q, cd->dc[i]), 14);
    /* At t = 5 it has left. */
    lr_test_jenv_left(q, ring, 4, 16);
    lr_jenv_free(q);
}

/* With 4 GPUs free in each DC, a 16-GPU job fits no DC, no pair (8 + 8)
 * and no triple (5 + 5 + 6) but a quadruple (4 x 4): greedy takes the
 * fastest quadruple, and without quadruples the job is blocked. */
static void
test_only_a_quad_fits(void)
{
    struct lr_jenv_config c0 = config(true, false), c1 = config(true, true);
    static const int used[4] = { 12, 12, 12, 12 };
    lr_test_jenv_only_chain(ring, cl, &c1, &c0, used, 4, 4);
}

/* The lazy mask against the eager one with quadruples
 * (lr_test_jenv_lazy), which the run takes. */
static void
test_lazy_mask(void)
{
    struct lr_jenv_config c = config(true, true);
    lr_test_jenv_lazy(ring, cl, &c, 23, 4);
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
