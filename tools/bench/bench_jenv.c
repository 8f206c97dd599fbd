/*
 * lr-bench-jenv: how long building the joint environment takes
 * (lr_jenv_new: candidates, K shortest paths and the T table, one CDynP
 * plan per job class and candidate; planner/lr_jenv.h).  `make bench`
 * runs it; docs/benchmarks.md ("Building the joint environment") records
 * results.
 *
 * Cases: the metro example (3 DCs, 57 candidates), NSFNET with six DCs
 * (276 candidates) and NSFNET/6 with the shares 1/4,1/2 (546
 * candidates); the job mix of `lightrail sim` and `train` by default
 * (bert-large, gpt-1.9b, llama2-7b on 4, 8, 16 GPUs, B = 32, b = 1,
 * K = 3): 9 classes.  For each, the median of R runs of this thread's
 * CPU time (CLOCK_THREAD_CPUTIME_ID: the machine is shared, and wall
 * time would count other processes' time slices) and of wall time, both
 * in ms, and the plans per second of CPU time.
 *
 * --dump FILE writes every case's T table, one line per class and
 * candidate with T in C99 hexadecimal (%a: every bit), for comparing the
 * tables of two builds byte for byte.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "planner/lr_jenv.h"
#include "planner/lr_stats.h"
#include "yang/lr_yang.h"

static double
clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#define N_MODELS 3

/* Times lr_jenv_new() 'runs' times on one case and prints its row; with
 * 'dump', writes the T table of the last run.  Returns 0 or 1. */
static int
bench_case(struct ly_ctx *ctx, const char *label, const char *topo_path,
           const char *cluster_path, const char *splits, int runs,
           FILE *dump)
{
    static const char *const names[N_MODELS] = { "bert-large", "gpt-1.9b",
                                                 "llama2-7b" };
    char err[1024];
    struct lr_topo *topo = NULL;
    struct lr_cluster *cl = NULL;
    struct lr_model *models[N_MODELS] = { NULL };
    int rc = 1;
    struct lr_jenv_config c = {
        .load = 1, .holding = 1, .k = 3, .guard = 1, .block_penalty = 2,
        .train = { .batch = 32, .micro = 1, .elem_bytes = 2 },
        .n_models = N_MODELS, .n_demands = 3, .demands = { 4, 8, 16 },
    };
    if (lr_yang_load_topo(ctx, topo_path, &topo, err, sizeof err)
        || lr_yang_load_cluster(ctx, cluster_path, &cl, err, sizeof err)) {
        fprintf(stderr, "lr-bench-jenv: %s\n", err);
        goto out;
    }
    for (int i = 0; i < N_MODELS; i++) {
        if (lr_model_preset(names[i], &models[i])) {
            fprintf(stderr, "lr-bench-jenv: no model preset '%s'\n",
                    names[i]);
            goto out;
        }
        c.models[i] = models[i];
    }
    if (splits) {
        c.n_splits = lr_jenv_splits_parse(splits, c.splits, err, sizeof err);
        if (c.n_splits < 0) {
            fprintf(stderr, "lr-bench-jenv: %s\n", err);
            goto out;
        }
    }
    double cpu[32], wall[32];
    int n_cands = 0;
    for (int r = 0; r < runs; r++) {
        struct lr_jenv *e = NULL;
        double w0 = clock_s(CLOCK_MONOTONIC);
        double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
        int erc = lr_jenv_new(topo, cl, &c, &e, err, sizeof err);
        cpu[r] = (clock_s(CLOCK_THREAD_CPUTIME_ID) - c0) * 1e3;
        wall[r] = (clock_s(CLOCK_MONOTONIC) - w0) * 1e3;
        if (erc) {
            fprintf(stderr, "lr-bench-jenv: %s: %s\n", label, err);
            goto out;
        }
        n_cands = lr_jenv_n_cands(e);
        if (dump && r == runs - 1)
            for (int mi = 0; mi < c.n_models; mi++)
                for (int di = 0; di < c.n_demands; di++) {
                    lr_jenv_present(e, mi, di);
                    for (int a = 0; a < n_cands; a++)
                        fprintf(dump, "%s %s %d %d %a\n", label, names[mi],
                                c.demands[di], a, lr_jenv_cand_time(e, a));
                }
        lr_jenv_free(e);
    }
    int plans = n_cands * c.n_models * c.n_demands;
    double mc = lr_stats_median(cpu, runs), mw = lr_stats_median(wall, runs);
    printf("| %s | %d | %d | %.1f | %.1f | %.0f |\n", label, n_cands, plans,
           mc, mw, plans / (mc / 1e3));
    fflush(stdout);
    rc = 0;
out:
    for (int i = 0; i < N_MODELS; i++)
        lr_model_free(models[i]);
    lr_cluster_free(cl);
    lr_topo_free(topo);
    return rc;
}

int
main(int argc, char **argv)
{
    const char *mt = NULL, *mc = NULL, *nt = NULL, *nc = NULL, *dpath = NULL;
    int runs = 5;
    static const struct option longopts[] = {
        { "metro", required_argument, NULL, 'm' },
        { "metro-cluster", required_argument, NULL, 'M' },
        { "nsfnet", required_argument, NULL, 'n' },
        { "nsfnet-cluster", required_argument, NULL, 'N' },
        { "runs", required_argument, NULL, 'r' },
        { "dump", required_argument, NULL, 'd' },
        { NULL, 0, NULL, 0 },
    };
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'm': mt = optarg; break;
        case 'M': mc = optarg; break;
        case 'n': nt = optarg; break;
        case 'N': nc = optarg; break;
        case 'r': runs = atoi(optarg); break;
        case 'd': dpath = optarg; break;
        default:
            fprintf(stderr, "usage: lr-bench-jenv --metro T --metro-cluster C "
                    "--nsfnet T --nsfnet-cluster C [--runs R] "
                    "[--dump FILE]\n");
            return 2;
        }
    }
    if (!mt || !mc || !nt || !nc || runs < 1 || runs > 32) {
        fprintf(stderr, "lr-bench-jenv: give --metro, --metro-cluster, "
                "--nsfnet, --nsfnet-cluster; 1 <= runs <= 32\n");
        return 2;
    }
    FILE *dump = NULL;
    if (dpath && !(dump = fopen(dpath, "w"))) {
        perror(dpath);
        return 1;
    }
    struct ly_ctx *ctx = NULL;
    char err[1024];
    if (lr_yang_ctx_new(&ctx, err, sizeof err)) {
        fprintf(stderr, "lr-bench-jenv: %s\n", err);
        if (dump)
            fclose(dump);
        return 1;
    }
    printf("# lr-bench-jenv: lr_jenv_new, median of %d runs; job mix "
           "bert-large, gpt-1.9b, llama2-7b on 4, 8, 16 GPUs, B 32, b 1, "
           "K 3; ms of this thread's CPU time and wall clock\n"
           "| case | candidates | plans | CPU ms | wall ms | plans/s (CPU) |\n"
           "|---|---:|---:|---:|---:|---:|\n", runs);
    int rc = bench_case(ctx, "metro", mt, mc, NULL, runs, dump)
             || bench_case(ctx, "nsfnet6", nt, nc, NULL, runs, dump)
             || bench_case(ctx, "nsfnet6-splits", nt, nc, "1/4,1/2", runs,
                           dump);
    lr_yang_ctx_free(ctx);
    if (dump && fclose(dump)) {
        perror(dpath);
        rc = 1;
    }
    return rc;
}
