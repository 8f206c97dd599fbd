/*
 * bench_jenv_case: the benchmarks' joint-environment inputs (see the
 * header).
 */
#include <stdio.h>

#include "tools/bench/bench_jenv_case.h"
#include "yang/lr_yang.h"

const char *const bench_jenv_models[BENCH_JENV_N_MODELS] = {
    "bert-large", "gpt-1.9b", "llama2-7b",
};

int
bench_jenv_case_load(struct ly_ctx *ctx, const char *prog,
                     const char *topo_path, const char *cluster_path,
                     struct bench_jenv_case *b)
{
    char err[1024];
    *b = (struct bench_jenv_case) { .cfg = {
        .load = 1, .holding = 1, .k = 3, .guard = 1, .block_penalty = 2,
        .train = { .batch = 32, .micro = 1, .elem_bytes = 2 },
        .n_models = BENCH_JENV_N_MODELS, .n_demands = 3,
        .demands = { 4, 8, 16 },
    } };
    if (lr_yang_load_topo(ctx, topo_path, &b->topo, err, sizeof err)
        || lr_yang_load_cluster(ctx, cluster_path, &b->cl, err,
                                sizeof err)) {
        fprintf(stderr, "%s: %s\n", prog, err);
        return 1;
    }
    for (int i = 0; i < BENCH_JENV_N_MODELS; i++) {
        if (lr_model_preset(bench_jenv_models[i], &b->models[i])) {
            fprintf(stderr, "%s: no model preset '%s'\n", prog,
                    bench_jenv_models[i]);
            return 1;
        }
        b->cfg.models[i] = b->models[i];
    }
    return 0;
}

void
bench_jenv_case_free(struct bench_jenv_case *b)
{
    for (int i = 0; i < BENCH_JENV_N_MODELS; i++)
        lr_model_free(b->models[i]);
    lr_cluster_free(b->cl);
    lr_topo_free(b->topo);
}
