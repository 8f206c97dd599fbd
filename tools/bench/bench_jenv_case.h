/*
 * bench_jenv_case: the joint environment's inputs as the benchmarks use
 * them (lr-bench-jenv, lr-bench-ppo): a topology and a cluster from
 * YANG JSON files, and the job mix of `lightrail sim` and `train` by
 * default (bert-large, gpt-1.9b, llama2-7b on 4, 8, 16 GPUs, B = 32,
 * b = 1, K = 3, load 1).
 *
 * Ownership: the case owns its topology, cluster and models; cfg points
 * at the models, so it is valid until bench_jenv_case_free().
 */
#ifndef BENCH_JENV_CASE_H
#define BENCH_JENV_CASE_H 1

#include <libyang/libyang.h>

#include "planner/lr_jenv.h"

#define BENCH_JENV_N_MODELS 3

struct bench_jenv_case {
    struct lr_topo *topo;
    struct lr_cluster *cl;
    struct lr_model *models[BENCH_JENV_N_MODELS];
    struct lr_jenv_config cfg;
};

/* The preset names of the job mix, in cfg.models' order. */
extern const char *const bench_jenv_models[BENCH_JENV_N_MODELS];

/* Loads the files and the job mix into 'b'.  0, or 1 with the reason on
 * stderr after 'prog'; 'b' is freeable either way. */
int bench_jenv_case_load(struct ly_ctx *ctx, const char *prog,
                         const char *topo_path, const char *cluster_path,
                         struct bench_jenv_case *b);
void bench_jenv_case_free(struct bench_jenv_case *b);

#endif
