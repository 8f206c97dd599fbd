/* lr_instance: see lr_instance.h for the generator. */
#include <errno.h>
#include <stdio.h>

#include "planner/lr_instance.h"
#include "planner/lr_rng.h"

static double
uniform(struct lr_rng *r, double lo, double hi)
{
    return lo + (hi - lo) * lr_rng_uniform(r);
}

int
lr_instance_random(uint64_t seed, struct lr_instance *out)
{
    return lr_instance_random_dcs(seed, 1, 3, out);
}

int
lr_instance_random_dcs(uint64_t seed, int min_dcs, int max_dcs,
                       struct lr_instance *out)
{
    static const double gbps[] = { 1, 2, 5, 10 };
    static const double micro[] = { 1, 2, 4, 8 };
    struct lr_rng r;
    struct lr_layer layers[10];
    out->model = NULL;
    out->cluster = NULL;
    if (min_dcs < 1 || max_dcs < min_dcs || max_dcs > LR_TM_MAX_DCS)
        return EINVAL;
    lr_rng_seed(&r, seed);

    int L = 4 + (int) lr_rng_below(&r, 7);
    for (int l = 0; l < L; l++)
        layers[l] = (struct lr_layer) {
            uniform(&r, 0.5, 2) * 1e12, uniform(&r, 0.2, 1) * 1e8,
            uniform(&r, 0.5, 2) * 1e6,
        };
    out->model = NULL;
    out->cluster = lr_cluster_new();
    if (!out->cluster || lr_model_from_layers("random", layers, L,
                                              &out->model)) {
        lr_instance_free(out);
        return ENOMEM;
    }
    struct lr_cluster *c = out->cluster;
    lr_cluster_add_type(c, "V100", 125e12, 0.40, 32e9);
    lr_cluster_add_type(c, "A100", 312e12, 0.45, 80e9);
    lr_cluster_add_type(c, "H100", 989e12, 0.40, 80e9);
    static const char *types[] = { "V100", "A100", "H100" };
    /* For 1..3 the draw lr_instance_random() has always made. */
    int K = min_dcs + (int) lr_rng_below(&r, (uint32_t) (max_dcs - min_dcs
                                                         + 1));
    for (int k = 0; k < K; k++) {
        char name[16];
        snprintf(name, sizeof name, "dc%d", k + 1);
        lr_cluster_add_dc(c, name, types[lr_rng_below(&r, 3)],
                          1 + (int) lr_rng_below(&r, 4),
                          uniform(&r, 10, 100) * 1e9, 5e-6, NULL);
    }
    for (int a = 0; a < K; a++)
        for (int b = a + 1; b < K; b++)
            lr_cluster_add_link(c, c->dcs[a].name, c->dcs[b].name,
                                gbps[lr_rng_below(&r, 4)] * 1e9 / 8,
                                uniform(&r, 1, 3) * 1e-3);
    out->train = (struct lr_train) { 32, micro[lr_rng_below(&r, 4)], 2 };
    return 0;
}

void
lr_instance_free(struct lr_instance *in)
{
    lr_model_free(in->model);
    lr_cluster_free(in->cluster);
    in->model = NULL;
    in->cluster = NULL;
}
