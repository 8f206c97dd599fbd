/*
 * Random instances where memory binds, for test_cdynp and for
 * `lr-bench-cdynp --tight`, which sweeps many more seeds than a unit test
 * can (docs/cdynp.md, "Where the assumption still misses").  Instance
 * 'seed' is lr_instance_random(seed) (planner/lr_instance.h) with its
 * model's activations 10..10^4 times heavier and every DC's device memory
 * x 0.05..1.05, both drawn from a generator seeded with seed x 7919.
 *
 * No CUnit here: the benchmark, which does not link it, includes this
 * too.  Header-only like the other lr_test_*.h; include it once per
 * program.
 */
#ifndef LR_TEST_TIGHT_H
#define LR_TEST_TIGHT_H 1

#include <errno.h>
#include <math.h>
#include <stdint.h>

#include "planner/lr_instance.h"
#include "planner/lr_rng.h"
#include "planner/lr_timemodel.h"

/* Most layers lr_test_heavy_model() copies: lr_instance.h's models have
 * at most 10. */
#define LR_TEST_HEAVY_MAX_LAYERS 16

/* The instance's model with every activation 'ascale' times heavier,
 * into '*m', which the caller frees with lr_model_free().  0; EINVAL for
 * a model of more than LR_TEST_HEAVY_MAX_LAYERS layers, or
 * lr_model_from_layers()'s error. */
static inline int
lr_test_heavy_model(const struct lr_instance *in, double ascale,
                    struct lr_model **m)
{
    struct lr_layer layers[LR_TEST_HEAVY_MAX_LAYERS];
    const int L = in->model->n_layers;
    if (L > LR_TEST_HEAVY_MAX_LAYERS)
        return EINVAL;
    for (int l = 0; l < L; l++) {
        layers[l] = in->model->layers[l];
        layers[l].act *= ascale;
    }
    *m = NULL;
    return lr_model_from_layers("heavy", layers, L, m);
}

/* Instance 'seed' (above) into 'in', '*m' and '*tm'.  The time model
 * points at '*m': the caller frees '*tm' (lr_tm_free()), then '*m'
 * (lr_model_free()), then 'in' (lr_instance_free()).  0, or the error of
 * the generator, lr_test_heavy_model() or lr_tm_new(), with nothing left
 * to free. */
static inline int
lr_test_tight_instance(uint64_t seed, struct lr_instance *in,
                       struct lr_model **m, struct lr_tm **tm)
{
    int err = lr_instance_random(seed, in);
    if (err)
        return err;
    struct lr_rng r;
    lr_rng_seed(&r, seed * 7919);
    err = lr_test_heavy_model(in, pow(10, 1 + 3 * lr_rng_uniform(&r)), m);
    if (err) {
        lr_instance_free(in);
        return err;
    }
    err = lr_tm_new(*m, in->cluster, &in->train, tm);
    if (err) {
        lr_model_free(*m);
        lr_instance_free(in);
        return err;
    }
    double mscale = 0.05 + lr_rng_uniform(&r);
    for (int k = 0; k < (*tm)->n_dcs; k++)
        (*tm)->dcs[k].mem *= mscale;
    return 0;
}

#endif
