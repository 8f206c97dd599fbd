/*
 * lr_instance: random small planning instances, for the optimality tests
 * and the CDynP-versus-exact benchmark.
 *
 * Generator (seeded, reproducible; lr_rng.h).  Given a seed:
 *   layers L uniform in 4..10; per layer F uniform in [0.5, 2] x 1e12
 *     FLOPs/sample, W uniform in [0.2, 1] x 1e8 parameters, A uniform in
 *     [0.5, 2] x 1e6 elements/sample;
 *   DCs K uniform in 1..3 (lr_instance_random_dcs(): in a range given);
 *     each DC draws its device type from V100
 *     (125 TFLOP/s, 0.40, 32 GB), A100 (312, 0.45, 80 GB) and H100 (989,
 *     0.40, 80 GB), N uniform in 1..4 devices, beta uniform in [10, 100]
 *     GB/s, alpha 5 us;
 *   every pair of DCs linked with a capacity drawn from 1, 2, 5, 10 Gb/s
 *     and a latency uniform in [1, 3] ms;
 *   B = 32 samples, b drawn from 1, 2, 4, 8, e = 2 bytes.
 * Ownership: the caller frees model and cluster (lr_model_free(),
 * lr_cluster_free()).
 */
#ifndef LR_INSTANCE_H
#define LR_INSTANCE_H 1

#include <stdint.h>

#include "planner/lr_timemodel.h"

struct lr_instance {
    struct lr_model *model;
    struct lr_cluster *cluster;
    struct lr_train train;
};

/* Returns 0 or ENOMEM. */
int lr_instance_random(uint64_t seed, struct lr_instance *out);
/* The same generator with K uniform in min_dcs..max_dcs: for 1..3 the
 * instance lr_instance_random() gives, bit for bit; wider, the draws
 * after K's differ.  For lr-bench-cdynp --wide (chains beyond
 * LR_CDYNP_ALL_ORDERS DCs, docs/cdynp.md) and test_cdynp.  0, EINVAL
 * for a range outside 1..LR_TM_MAX_DCS (nothing to free), or ENOMEM. */
int lr_instance_random_dcs(uint64_t seed, int min_dcs, int max_dcs,
                           struct lr_instance *out);
void lr_instance_free(struct lr_instance *);

#endif
