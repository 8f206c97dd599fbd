/* Observation statistics and their folding into a first layer
 * (planner/lr_obsnorm.h): statistics computed by hand, the folded
 * network on raw inputs equal to the trained one on standardised ones,
 * unfolding as the inverse, and the errors. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_obsnorm.h"
#include "planner/lr_rng.h"
#include "tests/lr_test.h"

static void
test_statistics_by_hand(void)
{
    /* Input 0 takes 1, 2, 3, 4: mean 2.5, population variance 1.25.
     * Input 1 is always 7: sd 0, floored.  Input 2 is 0, 0, 0, 0.1:
     * mean 0.025, sd 0.0433, floored. */
    const float xs[4][3] = { { 1, 7, 0 }, { 2, 7, 0 }, { 3, 7, 0 },
                             { 4, 7, 0.1f } };
    struct lr_obsnorm *s;
    CU_ASSERT_FATAL(lr_obsnorm_new(3, &s) == 0);
    for (int i = 0; i < 4; i++)
        CU_ASSERT_EQUAL(lr_obsnorm_add(s, xs[i]), 0);
    CU_ASSERT_EQUAL(lr_obsnorm_freeze(s), 0);
    CU_ASSERT_DOUBLE_EQUAL(s->mean[0], 2.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(s->sd[0], sqrt(1.25), 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(s->mean[1], 7, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(s->sd[1], LR_OBSNORM_SD_FLOOR, 0);
    CU_ASSERT_DOUBLE_EQUAL(s->mean[2], 0.025, 1e-8);
    CU_ASSERT_DOUBLE_EQUAL(s->sd[2], LR_OBSNORM_SD_FLOOR, 0);
    float z[2][3] = { { 4, 7, 0.1f }, { 2.5f, 8, 0 } };
    lr_obsnorm_apply(s, &z[0][0], 2);
    CU_ASSERT_DOUBLE_EQUAL(z[0][0], 1.5 / sqrt(1.25), 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(z[0][1], 0, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(z[0][2], 0.75, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(z[1][0], 0, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(z[1][1], 10, 1e-5);   /* 1 / the floor */
    CU_ASSERT_DOUBLE_EQUAL(z[1][2], -0.25, 1e-6);
    lr_obsnorm_free(s);
}

/* A network of 5 inputs on very different scales, and statistics of
 * 200 of its inputs. */
#define IN 5
static void
draw(struct lr_rng *r, float *x)
{
    for (int j = 0; j < IN; j++)
        x[j] = (float) (10.0 * j + (j + 1) * lr_rng_uniform(r));
}

static void
test_fold_keeps_the_function(void)
{
    struct lr_rng r;
    lr_rng_seed(&r, 7);
    struct lr_mlp *net;
    int hidden[2] = { 8, 6 };
    CU_ASSERT_FATAL(lr_mlp_new(IN, hidden, 2, 3, &net) == 0);
    lr_mlp_init(net, &r, 1.0);
    /* Non-zero biases, so that the shift of the bias is exercised. */
    for (int i = 0; i < 8; i++)
        net->params[8 * IN + i] = 0.1 * (i - 4);
    double *orig = malloc((size_t) net->n_params * sizeof *orig);
    CU_ASSERT_FATAL(orig != NULL);
    memcpy(orig, net->params, (size_t) net->n_params * sizeof *orig);
    struct lr_obsnorm *s;
    CU_ASSERT_FATAL(lr_obsnorm_new(IN, &s) == 0);
    float x[IN];
    for (int i = 0; i < 200; i++) {
        draw(&r, x);
        lr_obsnorm_add(s, x);
    }
    CU_ASSERT_EQUAL(lr_obsnorm_freeze(s), 0);
    /* The trained network's outputs on standardised inputs. */
    double yz[20][3], xd[IN], y[3];
    float xs[20][IN];
    for (int t = 0; t < 20; t++) {
        draw(&r, xs[t]);
        float z[IN];
        memcpy(z, xs[t], sizeof z);
        lr_obsnorm_apply(s, z, 1);
        for (int j = 0; j < IN; j++)
            xd[j] = z[j];
        lr_mlp_forward(net, xd, yz[t]);
    }
    CU_ASSERT_EQUAL(lr_obsnorm_fold(s, net), 0);
    double worst = 0, moved = 0;
    for (int t = 0; t < 20; t++) {
        for (int j = 0; j < IN; j++)
            xd[j] = xs[t][j];
        lr_mlp_forward(net, xd, y);
        for (int k = 0; k < 3; k++)
            worst = fmax(worst, fabs(y[k] - yz[t][k]));
    }
    /* z is rounded to float before the trained network sees it: the
     * outputs agree to that rounding, not to double's. */
    CU_ASSERT(worst < 1e-5);
    for (int p = 0; p < net->n_params; p++)
        moved = fmax(moved, fabs(net->params[p] - orig[p]));
    CU_ASSERT(moved > 0.1);
    /* Layers after the first are untouched. */
    int first = 8 * IN + 8;
    size_t rest = (size_t) (net->n_params - first) * sizeof *orig;
    CU_ASSERT_EQUAL(memcmp(net->params + first, orig + first, rest), 0);
    CU_ASSERT_EQUAL(lr_obsnorm_unfold(s, net), 0);
    double back = 0;
    for (int p = 0; p < net->n_params; p++)
        back = fmax(back, fabs(net->params[p] - orig[p]));
    CU_ASSERT(back < 1e-12);
    free(orig);
    lr_obsnorm_free(s);
    lr_mlp_free(net);
}

static void
test_errors(void)
{
    struct lr_obsnorm *s = NULL;
    CU_ASSERT_EQUAL(lr_obsnorm_new(0, &s), EINVAL);
    CU_ASSERT_FATAL(lr_obsnorm_new(2, &s) == 0);
    float x[2] = { 1, 2 };
    struct lr_mlp *net;
    int hidden[1] = { 4 };
    CU_ASSERT_FATAL(lr_mlp_new(2, hidden, 1, 1, &net) == 0);
    CU_ASSERT_EQUAL(lr_obsnorm_fold(s, net), EINVAL);   /* not frozen */
    lr_obsnorm_add(s, x);
    CU_ASSERT_EQUAL(lr_obsnorm_freeze(s), EINVAL);      /* one sample */
    /* apply before freezing leaves the input as it is */
    lr_obsnorm_apply(s, x, 1);
    CU_ASSERT(x[0] == 1 && x[1] == 2);
    lr_obsnorm_add(s, x);
    CU_ASSERT_EQUAL(lr_obsnorm_freeze(s), 0);
    CU_ASSERT_EQUAL(lr_obsnorm_freeze(s), EBUSY);
    CU_ASSERT_EQUAL(lr_obsnorm_add(s, x), EBUSY);
    CU_ASSERT_EQUAL(s->count, 2);
    struct lr_mlp *wide;
    CU_ASSERT_FATAL(lr_mlp_new(3, hidden, 1, 1, &wide) == 0);
    CU_ASSERT_EQUAL(lr_obsnorm_fold(s, wide), EINVAL);
    CU_ASSERT_EQUAL(lr_obsnorm_unfold(s, wide), EINVAL);
    CU_ASSERT_EQUAL(lr_obsnorm_fold(s, net), 0);
    lr_mlp_free(wide);
    lr_mlp_free(net);
    lr_obsnorm_free(s);
}

static CU_TestInfo tests[] = {
    { "statistics by hand, the floor, apply", test_statistics_by_hand },
    { "a folded network on x computes the trained one on z",
      test_fold_keeps_the_function },
    { "errors", test_errors },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN("obsnorm", tests)
