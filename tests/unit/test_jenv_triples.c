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
#include "tests/lr_test.h"
#include "tests/unit/lr_test_jenv.h"

static struct lr_topo *ring, *line;
static struct lr_cluster *cl, *cl_line;
static struct lr_model *model;

static int
setup(void)
{
    ring = lr_test_jenv_ring("ring5", 5);
    line = lr_topo_new("line3");
    cl = lr_cluster_new();
    cl_line = lr_cluster_new();
    if (!ring || !line || !cl || !cl_line)
        return 1;
    /* The line A - B - C, DCs on A, C and B. */
    if (lr_topo_add_node(line, "A") || lr_topo_add_node(line, "B")
        || lr_topo_add_node(line, "C")
        || lr_test_jenv_fibre(line, 0, 1, 10, 64)
        || lr_test_jenv_fibre(line, 1, 2, 10, 64))
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
    return lr_test_jenv_toy(&model);
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
    return lr_test_jenv_make(t, c, cfg);
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
            apart += !lr_test_jenv_hops_share(t, a);
            if (lr_jenv_cand(t, a)->route == 0)
                CU_ASSERT(!lr_test_jenv_hops_share(t, a));
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
        bool share = lr_test_jenv_hops_share(t, a);
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

/* Random play that takes a triple whenever one is feasible: the mask,
 * the first fits and the caches against brute force and a mirror
 * (lr_test_jenv_play); 200 refusals then leave nothing booked (holding
 * 1, load 6: about 33 time units). */
static void
test_mask_and_booking(void)
{
    struct lr_jenv_config c = config(true);
    lr_test_jenv_play(ring, cl, &c, 3, 31, 2000, 200);
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
    lr_test_jenv_book_chain(t, ring, a);
    /* At t = 0.5 the first job runs. */
    CU_ASSERT_EQUAL(lr_jenv_dc_free(t, 0), 13);
    CU_ASSERT_EQUAL(lr_jenv_dc_free(t, 1), 13);
    CU_ASSERT_EQUAL(lr_jenv_dc_free(t, 2), 14);
    /* At t = 5 it has left. */
    lr_test_jenv_left(t, ring, 3, 16);
    lr_jenv_free(t);
}

/* With 6 GPUs free in each DC, a 16-GPU job fits no DC and no pair (8
 * + 8) but a triple (5 + 5 + 6): greedy takes the fastest triple, and
 * without triples the job is blocked. */
static void
test_only_a_triple_fits(void)
{
    struct lr_jenv_config c0 = config(false), c1 = config(true);
    static const int used[3] = { 10, 10, 10 };
    lr_test_jenv_only_chain(ring, cl, &c1, &c0, used, 3, 3);
}

/* The lazy mask against the eager one, with and without triples
 * (lr_test_jenv_lazy). */
static void
test_lazy_mask(void)
{
    for (int tri = 0; tri < 2; tri++) {
        struct lr_jenv_config c = config(tri);
        lr_test_jenv_lazy(ring, cl, &c, 21, tri ? 3 : 0);
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
