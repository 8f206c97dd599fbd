/* The pooled blocking bound (planner/lr_lossbound.h) against Erlang B,
 * the product form by brute force, and a case where refusing pays. */
#include <errno.h>
#include <math.h>

#include "planner/lr_lossbound.h"
#include "tests/lr_test.h"

/* Erlang B by its own recursion: B(0) = 1, B(c) = a B / (c + a B). */
static double
erlang_b(int c, double a)
{
    double b = 1;
    for (int i = 1; i <= c; i++)
        b = a * b / (i + a * b);
    return b;
}

static void
test_single_class_is_erlang_b(void)
{
    /* By hand: C = 2, a = 1: B = (1/2) / (1 + 1 + 1/2) = 0.2. */
    struct lr_lossbound_class one = { 1, 1.0 };
    struct lr_lossbound r;
    CU_ASSERT_EQUAL(lr_lossbound_cs(2, &one, 1, &r), 0);
    CU_ASSERT_DOUBLE_EQUAL(r.blocking, 0.2, 1e-12);
    struct lr_lossbound_class c = { 1, 7.5 };
    CU_ASSERT_EQUAL(lr_lossbound_cs(10, &c, 1, &r), 0);
    CU_ASSERT_DOUBLE_EQUAL(r.blocking, erlang_b(10, 7.5), 1e-12);
    /* A job of b servers on C = b m servers is a job of one on m. */
    c.demand = 4;
    CU_ASSERT_EQUAL(lr_lossbound_cs(40, &c, 1, &r), 0);
    CU_ASSERT_DOUBLE_EQUAL(r.blocking, erlang_b(10, 7.5), 1e-12);
    /* With one class, admitting whenever possible is optimal. */
    CU_ASSERT_EQUAL(lr_lossbound_optimal(40, &c, 1, 1e-13, 100000, &r), 0);
    CU_ASSERT_DOUBLE_EQUAL(r.blocking, erlang_b(10, 7.5), 1e-8);
    CU_ASSERT_EQUAL(r.refusing_states, 0);
}

/* Complete sharing is product form: p(n) ~ prod a_k^n_k / n_k! over
 * sum n_k b_k <= C.  Brute force over every state. */
static void
test_kaufman_roberts_against_product_form(void)
{
    struct lr_lossbound_class cl[3] = { { 4, 0.9 }, { 8, 0.7 }, { 16, 0.5 } };
    const int C = 56;
    double norm = 0, blocked[3] = { 0 };
    for (int a = 0; a * 4 <= C; a++)
        for (int b = 0; a * 4 + b * 8 <= C; b++)
            for (int d = 0; a * 4 + b * 8 + d * 16 <= C; d++) {
                double p = pow(0.9, a) / tgamma(a + 1) * pow(0.7, b)
                           / tgamma(b + 1) * pow(0.5, d) / tgamma(d + 1);
                int used = a * 4 + b * 8 + d * 16;
                norm += p;
                for (int k = 0; k < 3; k++)
                    if (used + cl[k].demand > C)
                        blocked[k] += p;
            }
    struct lr_lossbound r;
    CU_ASSERT_EQUAL(lr_lossbound_cs(C, cl, 3, &r), 0);
    double want = 0;
    for (int k = 0; k < 3; k++) {
        CU_ASSERT_DOUBLE_EQUAL(r.per_class[k], blocked[k] / norm, 1e-12);
        want += cl[k].load * blocked[k] / norm;
    }
    CU_ASSERT_DOUBLE_EQUAL(r.blocking, want / 2.1, 1e-12);
    /* The optimum never blocks more than complete sharing. */
    struct lr_lossbound o;
    CU_ASSERT_EQUAL(lr_lossbound_optimal(C, cl, 3, 1e-13, 100000, &o), 0);
    CU_ASSERT(o.blocking <= r.blocking + 1e-9);
}

/* Jobs of 1 and of 16 servers on 16, 5 Erlang each: refusing every
 * 16-server job is better than complete sharing; that policy blocks
 * (5 x 1 + 5 x ErlangB(16, 5)) / 10. */
static void
test_refusing_pays(void)
{
    struct lr_lossbound_class cl[2] = { { 1, 5 }, { 16, 5 } };
    struct lr_lossbound cs, o;
    CU_ASSERT_EQUAL(lr_lossbound_cs(16, cl, 2, &cs), 0);
    CU_ASSERT_EQUAL(lr_lossbound_optimal(16, cl, 2, 1e-13, 100000, &o), 0);
    double refuse_big = (1 + erlang_b(16, 5)) / 2;
    CU_ASSERT(o.refusing_states > 0);
    CU_ASSERT(o.blocking < cs.blocking - 1e-3);
    CU_ASSERT(o.blocking <= refuse_big + 1e-9);
}

static void
test_bad_input(void)
{
    struct lr_lossbound_class cl[2] = { { 0, 1 }, { 4, 1 } };
    struct lr_lossbound r;
    CU_ASSERT_EQUAL(lr_lossbound_cs(10, cl, 2, &r), EINVAL);
    CU_ASSERT_EQUAL(lr_lossbound_cs(0, cl + 1, 1, &r), EINVAL);
    cl[0] = (struct lr_lossbound_class) { 1, -1 };
    CU_ASSERT_EQUAL(lr_lossbound_optimal(10, cl, 2, 1e-9, 10, &r), EINVAL);
    /* Three classes of one server on 1,000: 1001^3 codes: too many states. */
    struct lr_lossbound_class many[3] = { { 1, 1 }, { 1, 1 }, { 1, 1 } };
    CU_ASSERT_EQUAL(lr_lossbound_optimal(1000, many, 3, 1e-9, 10, &r), E2BIG);
    /* Not converged in 2 iterations. */
    CU_ASSERT_EQUAL(lr_lossbound_optimal(40, many, 2, 1e-15, 2, &r),
                    ETIMEDOUT);
}

static CU_TestInfo tests[] = {
    { "one class: Erlang B, admitting is optimal",
      test_single_class_is_erlang_b },
    { "Kaufman-Roberts equals the product form",
      test_kaufman_roberts_against_product_form },
    { "refusing wide jobs can pay", test_refusing_pays },
    { "bad input", test_bad_input },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN("lossbound", tests)
