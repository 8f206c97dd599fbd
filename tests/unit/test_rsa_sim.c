/* The RMSA simulator: reproducibility, counting and the load extremes. */
#include <limits.h>
#include <string.h>

#include "planner/lr_rsa_sim.h"
#include "tests/lr_test.h"
#include "tests/unit/lr_test_topo.h"

static struct lr_topo *topo;
static struct lr_rsa *rsa;

static int
setup(void)
{
    struct lr_rng r;
    lr_rng_seed(&r, 3);
    topo = lr_test_random_topo(&r, 10, 0.2, 100);
    struct lr_modtable mods;
    lr_modtable_default(&mods);
    struct lr_rsa_config cfg = { .k = 5, .order = LR_KSP_KM, .guard = 1 };
    return lr_rsa_new(topo, &cfg, &mods, &lr_rsa_ksp_ff, &rsa);
}

static int
teardown(void)
{
    lr_rsa_free(rsa);
    lr_topo_free(topo);
    return 0;
}

static struct lr_rsa_sim_result
run(double load, uint64_t seed, long n, long warmup)
{
    struct lr_rsa_sim_config cfg;
    lr_rsa_sim_defaults(&cfg);
    cfg.load = load;
    cfg.seed = seed;
    cfg.n_requests = n;
    cfg.warmup = warmup;
    struct lr_rsa_sim_result res = { 0 };
    CU_ASSERT_EQUAL(lr_rsa_sim_run(rsa, &cfg, &res), 0);
    return res;
}

static void
test_reproducible(void)
{
    struct lr_rsa_sim_result a = run(300, 42, 5000, 1000);
    struct lr_rsa_sim_result b = run(300, 42, 5000, 1000);
    struct lr_rsa_sim_result c = run(300, 43, 5000, 1000);
    CU_ASSERT_EQUAL(a.counted, 4000);
    CU_ASSERT_EQUAL(a.blocked, b.blocked);
    CU_ASSERT_DOUBLE_EQUAL(a.utilisation, b.utilisation, 0);
    /* A different seed draws different traffic. */
    CU_ASSERT(a.blocked != c.blocked || a.utilisation != c.utilisation);
    CU_ASSERT(a.blocked > 0);
}

static void
test_load_extremes(void)
{
    /* At 1 Erlang about one lightpath is up at a time: nothing blocks. */
    struct lr_rsa_sim_result lo = run(1, 1, 4000, 500);
    CU_ASSERT_EQUAL(lo.blocked, 0);
    CU_ASSERT(lo.utilisation > 0 && lo.utilisation < 0.05);
    /* At 20,000 Erlang most requests block, for want of spectrum. */
    struct lr_rsa_sim_result hi = run(20000, 1, 4000, 2000);
    CU_ASSERT(hi.blocking > 0.5);
    CU_ASSERT_EQUAL(hi.blocked_by[LR_RSA_NO_SPECTRUM], hi.blocked);
    CU_ASSERT(hi.utilisation > lo.utilisation && hi.utilisation <= 1);
    CU_ASSERT(hi.bit_blocking > 0 && hi.bit_blocking <= 1);
}

static void
test_bad_config(void)
{
    struct lr_rsa_sim_config cfg;
    lr_rsa_sim_defaults(&cfg);
    struct lr_rsa_sim_result res;
    cfg.load = 0;
    CU_ASSERT_EQUAL(lr_rsa_sim_run(rsa, &cfg, &res), EINVAL);
    cfg.load = 10;
    cfg.warmup = cfg.n_requests;
    CU_ASSERT_EQUAL(lr_rsa_sim_run(rsa, &cfg, &res), EINVAL);
}

static void
test_demand_sizes(void)
{
    struct lr_modtable mods;
    lr_modtable_default(&mods);
    /* 25..100 Gb/s with guard 1: 16QAM 2-3, 8QAM 2-4, QPSK 2-5,
     * BPSK 3-9 slots. */
    uint64_t set[LR_RSA_DEMAND_WORDS], want[LR_RSA_DEMAND_WORDS] = { 0 };
    for (int m = 2; m <= 9; m++)
        want[0] |= UINT64_C(1) << m;
    lr_rsa_sim_demand_sizes(&mods, 1, 25, 100, set);
    CU_ASSERT_EQUAL(memcmp(set, want, sizeof set), 0);
    /* A range that ends at INT_MAX ends (the loop counter overflowed):
     * 16QAM, 50 Gb/s per slot, needs 42949673 + 1 slots, more than any
     * spectrum: left out. */
    struct lr_modtable qam16 = { 0 };
    CU_ASSERT_EQUAL(lr_modtable_add(&qam16, "16QAM", 625, 4), 0);
    lr_rsa_sim_demand_sizes(&qam16, 1, INT_MAX - 1, INT_MAX, set);
    memset(want, 0, sizeof want);
    CU_ASSERT_EQUAL(memcmp(set, want, sizeof set), 0);
    /* 4,000 Gb/s: 80 slots + 1 of guard = 81, bit 17 of word 1 (until
     * 2026-12-05 lost: the set read as empty, every size to 63). */
    lr_rsa_sim_demand_sizes(&qam16, 1, 4000, 4000, set);
    want[1] = UINT64_C(1) << 17;
    CU_ASSERT_EQUAL(memcmp(set, want, sizeof set), 0);
}

/* A block as wide as the widest spectrum, LR_BITS_MAX_WORDS x 64 =
 * 1,024 slots, fits a link of that width, and MSCL counts it: 16QAM (50
 * Gb/s per slot) at 51,150 Gb/s needs 1,023 slots + 1 of guard.  S =
 * {1024} gives F(L) = max(0, L - 1023): F(1023) = 0, F(1024) = 1.
 * (Until 2026-12-05 the set stopped below 1,024: it came back empty,
 * read as every size, F(1024) = 1024 x 1025 / 2.) */
static void
test_demand_size_of_the_whole_spectrum(void)
{
    struct lr_modtable qam16 = { 0 };
    CU_ASSERT_EQUAL(lr_modtable_add(&qam16, "16QAM", 625, 4), 0);
    CU_ASSERT_EQUAL(lr_mod_slots(&qam16.f[0], 51150, 1), 1024);
    struct lr_rsa_config cfg = { .k = 1, .order = LR_KSP_KM, .guard = 1 };
    lr_rsa_sim_demand_sizes(&qam16, 1, 51150, 51150, cfg.demand_sizes);
    CU_ASSERT_FALSE(lr_bits_any(cfg.demand_sizes, 1, 1023));
    struct lr_topo *t = lr_topo_new("widest");
    lr_topo_add_node(t, "a");
    lr_topo_add_node(t, "b");
    lr_topo_add_link(t, "a-b", 0, 1, 100, 64 * LR_BITS_MAX_WORDS, 0);
    struct lr_rsa *wide = NULL;
    CU_ASSERT_EQUAL_FATAL(lr_rsa_new(t, &cfg, &qam16,
                                     lr_rsa_policy_find("mscl-link"), &wide),
                          0);
    CU_ASSERT_EQUAL(wide->run_capacity[1023], 0);
    CU_ASSERT_EQUAL(wide->run_capacity[1024], 1);
    lr_rsa_free(wide);
    lr_topo_free(t);
}

static CU_TestInfo tests[] = {
    { "same seed, same run", test_reproducible },
    { "no blocking at 1 E, mostly blocking at 20000 E", test_load_extremes },
    { "bad configurations refused", test_bad_config },
    { "demand sizes of the benchmark protocol", test_demand_sizes },
    { "a demand size as wide as the widest spectrum",
      test_demand_size_of_the_whole_spectrum },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN_WITH("rsa-sim", tests, setup, teardown)
