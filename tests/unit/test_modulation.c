/* Distance-adaptive modulation: choice by reach and slots by rate. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "planner/lr_modulation.h"
#include "tests/lr_test.h"

static void
test_choose(void)
{
    struct lr_modtable t;
    lr_modtable_default(&t);
    CU_ASSERT_EQUAL(t.n, 4);
    /* Most efficient format whose reach covers the length. */
    CU_ASSERT_STRING_EQUAL(t.f[lr_mod_choose(&t, 100)].name, "16QAM");
    CU_ASSERT_STRING_EQUAL(t.f[lr_mod_choose(&t, 625)].name, "16QAM");
    CU_ASSERT_STRING_EQUAL(t.f[lr_mod_choose(&t, 626)].name, "8QAM");
    CU_ASSERT_STRING_EQUAL(t.f[lr_mod_choose(&t, 2500)].name, "QPSK");
    CU_ASSERT_STRING_EQUAL(t.f[lr_mod_choose(&t, 2501)].name, "BPSK");
    CU_ASSERT_EQUAL(lr_mod_choose(&t, 100001), -1);
    /* A path of 297.8 + 258.1 + 69.1 km is 625 km, within 16QAM's reach,
     * though the sum of the doubles is 625.0000000000001; a length past
     * the reach by the topology's resolution (1 m) is still out. */
    double sum = 297.8;
    sum += 258.1;
    sum += 69.1;
    CU_ASSERT_STRING_EQUAL(t.f[lr_mod_choose(&t, sum)].name, "16QAM");
    CU_ASSERT_STRING_EQUAL(t.f[lr_mod_choose(&t, 625.001)].name, "8QAM");
    CU_ASSERT_STRING_EQUAL(t.f[lr_mod_choose(&t, 99999.999)].name, "BPSK");
    CU_ASSERT_EQUAL(lr_mod_choose(&t, 100000.001), -1);
}

static void
test_slots(void)
{
    struct lr_modtable t;
    lr_modtable_default(&t);
    const struct lr_modformat *bpsk = &t.f[0], *qpsk = &t.f[1],
                              *qam8 = &t.f[2], *qam16 = &t.f[3];
    /* ceil(R / (SE x 12.5)) + guard, by hand: */
    CU_ASSERT_EQUAL(lr_mod_slots(qam16, 100, 1), 3);   /* 100/50 = 2 */
    CU_ASSERT_EQUAL(lr_mod_slots(qam16, 25, 1), 2);    /* 0.5 -> 1 */
    CU_ASSERT_EQUAL(lr_mod_slots(qam8, 100, 1), 4);    /* 2.67 -> 3 */
    CU_ASSERT_EQUAL(lr_mod_slots(qam8, 75, 1), 3);     /* exactly 2 */
    CU_ASSERT_EQUAL(lr_mod_slots(qpsk, 26, 1), 3);     /* 1.04 -> 2 */
    CU_ASSERT_EQUAL(lr_mod_slots(bpsk, 100, 1), 9);    /* 8 */
    CU_ASSERT_EQUAL(lr_mod_slots(bpsk, 100, 0), 8);
    CU_ASSERT_DOUBLE_EQUAL(lr_mod_capacity(qpsk, 5, 1), 100, 1e-12);
}

/* A format of tiny SE at a high rate needs more slots than an int holds
 * (SE 2^-20: 100000 / (12.5 x 2^-20) = 8388608000 slots): the count
 * saturates instead of wrapping to a negative block. */
static void
test_slots_saturate(void)
{
    struct lr_modtable t = { 0 };
    CU_ASSERT_EQUAL_FATAL(lr_modtable_add(&t, "TINY", 1000, 0x1p-20), 0);
    CU_ASSERT_EQUAL_FATAL(lr_modtable_add(&t, "SMALL", 1000, 0x1p-10), 0);
    CU_ASSERT_EQUAL(lr_mod_slots(&t.f[0], 100000, 1), INT_MAX);
    CU_ASSERT_EQUAL(lr_mod_slots(&t.f[0], 100000, 0), INT_MAX);
    CU_ASSERT_EQUAL(lr_mod_slots(&t.f[0], NAN, 1), INT_MAX);
    /* SE 2^-10: 10000 / (12.5 / 1024) = 819200 exactly, within range. */
    CU_ASSERT_EQUAL(lr_mod_slots(&t.f[1], 10000, 1), 819201);
}

static void
test_add_rejects(void)
{
    struct lr_modtable t = { 0 };
    CU_ASSERT_EQUAL(lr_modtable_add(&t, "X", 0, 2), EINVAL);
    CU_ASSERT_EQUAL(lr_modtable_add(&t, "X", 10, -1), EINVAL);
    CU_ASSERT_EQUAL(lr_modtable_add(&t, "", 10, 1), EINVAL);
    CU_ASSERT_EQUAL(lr_modtable_add(&t, "X", 10, 1), 0);
    CU_ASSERT_EQUAL(lr_modtable_add(&t, "X", 20, 1), EEXIST);
    CU_ASSERT_EQUAL(t.n, 1);
}

/* The built-in table must be the DeepRMSA file, when it is at hand. */
static void
test_default_matches_reference_file(void)
{
    FILE *f = fopen("../shared/data/modulations_deeprmsa.csv", "r");
    if (!f)
        f = fopen(LR_SHARED_DIR "/data/modulations_deeprmsa.csv", "r");
    if (!f) {
        fprintf(stderr, "skip: ../shared/data/modulations_deeprmsa.csv "
                "absent\n");
        return;
    }
    struct lr_modtable t;
    lr_modtable_default(&t);
    char line[256];
    int rows = 0;
    CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, f));  /* header */
    while (fgets(line, sizeof line, f)) {
        char name[32];
        double reach, se;
        if (sscanf(line, "%31[^,],%lf,%lf", name, &reach, &se) != 3)
            continue;
        int found = 0;
        for (int i = 0; i < t.n; i++)
            if (!strcmp(t.f[i].name, name)) {
                found = 1;
                CU_ASSERT_DOUBLE_EQUAL(t.f[i].reach_km, reach, 0);
                CU_ASSERT_DOUBLE_EQUAL(t.f[i].se, se, 0);
            }
        CU_ASSERT(found);
        rows++;
    }
    fclose(f);
    CU_ASSERT_EQUAL(rows, t.n);
}

static CU_TestInfo tests[] = {
    { "most efficient format within reach", test_choose },
    { "slots = ceil(rate / (SE x 12.5)) + guard", test_slots },
    { "slot counts beyond INT_MAX saturate", test_slots_saturate },
    { "bad formats are refused", test_add_rejects },
    { "default table equals modulations_deeprmsa.csv",
      test_default_matches_reference_file },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN("modulation", tests)
