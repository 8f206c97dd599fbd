/* Mean, confidence interval and median, checked against hand results. */
#include <math.h>

#include "planner/lr_stats.h"
#include "tests/lr_test.h"

static void
test_ci95_hand(void)
{
    /* x = 1..5: mean 3, s^2 = (4+1+0+1+4)/4 = 2.5, s = 1.58114,
     * t(0.975, 4) = 2.776, ci = 2.776 x 1.58114 / sqrt(5) = 1.96296. */
    double x[] = { 1, 2, 3, 4, 5 };
    struct lr_stats s;
    lr_stats_compute(x, 5, &s);
    CU_ASSERT_DOUBLE_EQUAL(s.mean, 3.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(s.stddev, 1.58114, 1e-5);
    CU_ASSERT_DOUBLE_EQUAL(s.ci95, 1.96296, 1e-4);
}

static void
test_single_and_empty(void)
{
    double x[] = { 0.25 };
    struct lr_stats s;
    lr_stats_compute(x, 1, &s);
    CU_ASSERT_DOUBLE_EQUAL(s.mean, 0.25, 1e-15);
    CU_ASSERT_EQUAL(s.ci95, 0);
    lr_stats_compute(x, 0, &s);
    CU_ASSERT_EQUAL(s.n, 0);
    CU_ASSERT_EQUAL(s.mean, 0);
}

static void
test_t_quantiles(void)
{
    /* Tabulated t(0.975): df 9 = 2.262, df 40 = 2.021, df 120 = 1.980. */
    CU_ASSERT_DOUBLE_EQUAL(lr_stats_t975(9), 2.262, 1e-3);
    CU_ASSERT_DOUBLE_EQUAL(lr_stats_t975(40), 2.021, 1e-3);
    CU_ASSERT_DOUBLE_EQUAL(lr_stats_t975(120), 1.980, 1e-3);
    CU_ASSERT(isnan(lr_stats_t975(0)));
}

static void
test_median(void)
{
    double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 };
    CU_ASSERT_DOUBLE_EQUAL(lr_stats_median(odd, 3), 3, 0);
    CU_ASSERT_DOUBLE_EQUAL(lr_stats_median(even, 4), 2.5, 0);
}

static CU_TestInfo tests[] = {
    { "ci95 of 1..5 by hand", test_ci95_hand },
    { "one sample and none", test_single_and_empty },
    { "Student t quantiles", test_t_quantiles },
    { "median", test_median },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN("stats", tests)
