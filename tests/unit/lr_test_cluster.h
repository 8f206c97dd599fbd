/*
 * The toy instance of the time-model tests, small enough to check by
 * hand (every number below is used in a comment of test_timemodel.c).
 *
 * Model, 4 layers:   F = 1, 2, 3, 4 e12 FLOPs/sample
 *                    W = 1, 2, 3, 4 e6 parameters
 *                    A = 1, 1, 2, 1 e6 elements/sample
 * Training:          B = 8, b = 2 (m = 4), e = 2 bytes
 * dc0: 4 devices, P = 100e12, eta = 0.5, M = 1e9 B, beta = 10e9 B/s,
 *      alpha = 10 us
 * dc1: 2 devices, P = 50e12, eta = 0.4, M = 2e9 B, beta = 5e9 B/s,
 *      alpha = 20 us
 * dc0 - dc1: 1.25e9 B/s (10 Gb/s), 1 ms
 */
#ifndef LR_TEST_CLUSTER_H
#define LR_TEST_CLUSTER_H 1

#include "planner/lr_timemodel.h"

static inline struct lr_model *
lr_test_toy_model(void)
{
    struct lr_layer layers[4] = {
        { 1e12, 1e6, 1e6 }, { 2e12, 2e6, 1e6 },
        { 3e12, 3e6, 2e6 }, { 4e12, 4e6, 1e6 },
    };
    struct lr_model *m = NULL;
    lr_model_from_layers("toy", layers, 4, &m);
    return m;
}

static inline struct lr_cluster *
lr_test_toy_cluster(void)
{
    struct lr_cluster *c = lr_cluster_new();
    lr_cluster_add_type(c, "fast", 100e12, 0.5, 1e9);
    lr_cluster_add_type(c, "slow", 50e12, 0.4, 2e9);
    lr_cluster_add_dc(c, "dc0", "fast", 4, 10e9, 10e-6, NULL);
    lr_cluster_add_dc(c, "dc1", "slow", 2, 5e9, 20e-6, NULL);
    lr_cluster_add_link(c, "dc0", "dc1", 1.25e9, 1e-3);
    return c;
}

#endif
