/*
 * lr-bench-jenv: how long building the joint environment takes
 * (lr_jenv_new: candidates, K shortest paths and the T table, one CDynP
 * plan per job class and candidate; planner/lr_jenv.h).  `make bench`
 * runs it; docs/benchmarks.md ("Building the joint environment") records
 * results.
 *
 * Cases: the metro example (3 DCs, 57 candidates), NSFNET with six DCs
 * (276 candidates), NSFNET/6 with the shares 1/4,1/2 (546 candidates),
 * the metro and NSFNET/6 with triples (111 and 1,356 candidates), and
 * NSFNET/6 with triples and quadruples (4,596 candidates); the job mix
 * of `lightrail sim` and `train` by default
 * (bert-large, gpt-1.9b, llama2-7b on 4, 8, 16 GPUs, B = 32, b = 1,
 * K = 3): 9 classes.  For each, the median of R runs of this thread's
 * CPU time (CLOCK_THREAD_CPUTIME_ID: the machine is shared, and wall
 * time would count other processes' time slices) and of wall time, both
 * in ms, and the plans per second of CPU time.
 *
 * Then the cost of rollouts (planner/lr_jenv_rollout.h), NSFNET/6 in the
 * work mode at 2.75 E: after 500 arrivals decided by greedy, the
 * Q-values of greedy's choice and the 8 fastest others on M = 20 futures
 * of H = 40 arrivals, greedy deciding them (lr_jenv_qvalues), with
 * lr_jenv_greedy (an ordered scan, lr_jenv_by_time) and, side by side,
 * a reference greedy that scans every candidate for the least (T, slots,
 * index) as before 2026-12-01.  Median ms per call and environment steps
 * per second (CPU); both must give the same Q-values (checked).
 *
 * --dump FILE writes every case's T table, one line per class and
 * candidate with T in C99 hexadecimal (%a: every bit), for comparing the
 * tables of two builds byte for byte.
 */
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "planner/lr_jenv.h"
#include "planner/lr_jenv_advantage.h"
#include "planner/lr_rng.h"
#include "planner/lr_stats.h"
#include "tools/bench/bench_jenv_case.h"
#include "tools/bench/bench_opt.h"
#include "tools/lightrail/lr_opt_once.h"

#define PROG "lr-bench-jenv"
#include "yang/lr_yang.h"

static double
clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Times lr_jenv_new() 'runs' times on one case and prints its row; with
 * 'dump', writes the T table of the last run.  'chains' is the longest
 * chain of DCs in the action space: 2, 3 (triples) or 4 (triples and
 * quadruples).  Returns 0 or 1. */
static int
bench_case(struct ly_ctx *ctx, const char *label, const char *topo_path,
           const char *cluster_path, const char *splits, int chains,
           int runs, FILE *dump)
{
    char err[1024];
    struct bench_jenv_case b;
    struct lr_jenv_config c;
    int rc = 1;
    if (bench_jenv_case_load(ctx, "lr-bench-jenv", topo_path, cluster_path, &b))
        goto out;
    c = b.cfg;
    c.triples = chains >= 3;
    c.quads = chains >= 4;
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
        int erc = lr_jenv_new(b.topo, b.cl, &c, &e, err, sizeof err);
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
                        fprintf(dump, "%s %s %d %d %a\n", label, bench_jenv_models[mi],
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
    bench_jenv_case_free(&b);
    return rc;
}

/* greedy as it was: every candidate scanned for the least (T, slots,
 * index) among the feasible. */
static int
scan_greedy(void *arg, const struct lr_jenv *e, const uint8_t *mask,
            struct lr_rng *rng)
{
    (void) arg;
    (void) rng;
    int best = -1;
    double bt = 0;
    int bs = 0;
    for (int a = 0; a < lr_jenv_n_cands(e); a++) {
        if (!mask[a])
            continue;
        double t = lr_jenv_cand_time(e, a);
        int sl = lr_jenv_cand_slots(e, a);
        if (best < 0 || t < bt || (t == bt && sl < bs)) {
            best = a;
            bt = t;
            bs = sl;
        }
    }
    return best;
}

static const struct lr_jenv_policy scan_greedy_policy = {
    "scan-greedy", "greedy by a scan of every candidate", scan_greedy, NULL,
    false,
};

#define RO_SAMPLES 20
#define RO_HORIZON 40
#define RO_TOP 8

/* Rollout Q-values with both greedies; prints two rows.  0 or 1. */
static int
bench_rollout(struct ly_ctx *ctx, const char *topo_path,
              const char *cluster_path, int runs)
{
    char err[1024];
    struct bench_jenv_case b;
    struct lr_jenv *e = NULL, *w = NULL;
    int rc = 1;
    if (bench_jenv_case_load(ctx, "lr-bench-jenv", topo_path, cluster_path, &b))
        goto out;
    b.cfg.load = 2.75;
    b.cfg.holding_mode = LR_JENV_HOLD_WORK;
    if (lr_jenv_new(b.topo, b.cl, &b.cfg, &e, err, sizeof err)
        || lr_jenv_clone(e, &w)) {
        fprintf(stderr, "lr-bench-jenv: %s\n", e ? "out of memory" : err);
        goto out;
    }
    lr_jenv_reset(e, 1, 0);
    struct lr_rng r;
    lr_rng_seed(&r, 2);
    for (int i = 0; i < 500; i++)
        lr_jenv_step(e, lr_jenv_greedy.choose(NULL, e, lr_jenv_mask(e), &r));
    struct lr_jenv_q q[2][RO_TOP + 1];
    const struct lr_jenv_policy *pol[2] = { &scan_greedy_policy,
                                            &lr_jenv_greedy };
    int n = 0;
    for (int p = 0; p < 2; p++) {
        double cpu[32];
        n = lr_jenv_alternatives(e, lr_jenv_greedy.choose(NULL, e,
                                 lr_jenv_mask(e), &r), RO_TOP, false, q[p]);
        for (int k = 0; k < runs; k++) {
            double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
            if (lr_jenv_qvalues(e, &w, 1, pol[p], NULL, q[p], n, 0,
                                RO_SAMPLES, RO_HORIZON, 7,
                                LR_JENV_FORK_OBSERVABLE)) {
                fprintf(stderr, "lr-bench-jenv: lr_jenv_qvalues failed\n");
                goto out;
            }
            cpu[k] = (clock_s(CLOCK_THREAD_CPUTIME_ID) - c0) * 1e3;
        }
        double m = lr_stats_median(cpu, runs);
        double steps = (double) RO_SAMPLES * n * (RO_HORIZON + 1);
        printf("| %s | %d | %.1f | %.0f |\n", pol[p]->name, n, m,
               steps / (m / 1e3));
    }
    bool same = true;
    for (int i = 0; i < n; i++)
        same = same && q[0][i].action == q[1][i].action
               && q[0][i].blocked == q[1][i].blocked
               && q[0][i].diff == q[1][i].diff
               && q[0][i].diff_se == q[1][i].diff_se;
    if (!same) {
        fprintf(stderr, "lr-bench-jenv: the two greedies disagree\n");
        goto out;
    }
    printf("(the same Q-values with both)\n");
    fflush(stdout);
    rc = 0;
out:
    lr_jenv_free(w);
    lr_jenv_free(e);
    bench_jenv_case_free(&b);
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
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c, bad = 0;
    /* Each option that takes a value at most once (lr_opt_once.h). */
    struct lr_opt_once once = { 0 };
    while (!bad && (c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        int rc_once = lr_opt_once("lr-bench-jenv", longopts, c, optarg,
                                  &once);
        if (rc_once)
            return rc_once;
        switch (c) {
        case 'm': mt = optarg; break;
        case 'M': mc = optarg; break;
        case 'n': nt = optarg; break;
        case 'N': nc = optarg; break;
        case 'r':
            bad = bench_opt_int(PROG, "runs", optarg, 1, 32, &runs);
            break;
        case 'd': dpath = optarg; break;
        case 'h':
        default:
            fprintf(c == 'h' ? stdout : stderr,
                    "usage: lr-bench-jenv --metro T --metro-cluster C "
                    "--nsfnet T --nsfnet-cluster C [--runs R] "
                    "[--dump FILE]\n");
            return c == 'h' ? 0 : 2;
        }
    }
    if (bad)
        return bad;
    if (!mt || !mc || !nt || !nc) {
        fprintf(stderr, "lr-bench-jenv: give --metro, --metro-cluster, "
                "--nsfnet, --nsfnet-cluster\n");
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
    int rc = bench_case(ctx, "metro", mt, mc, NULL, 2, runs, dump)
             || bench_case(ctx, "nsfnet6", nt, nc, NULL, 2, runs, dump)
             || bench_case(ctx, "nsfnet6-splits", nt, nc, "1/4,1/2", 2,
                           runs, dump)
             || bench_case(ctx, "metro-triples", mt, mc, NULL, 3, runs,
                           dump)
             || bench_case(ctx, "nsfnet6-triples", nt, nc, NULL, 3, runs,
                           dump)
             || bench_case(ctx, "nsfnet6-quads", nt, nc, NULL, 4, runs,
                           dump);
    if (!rc) {
        printf("\n# rollouts: nsfnet6, work mode, 2.75 E, state after 500 "
               "arrivals; %d futures x %d arrivals per alternative; median "
               "of %d calls, CPU\n| base policy | alternatives | ms per "
               "call | env steps/s |\n|---|---:|---:|---:|\n", RO_SAMPLES,
               RO_HORIZON, runs);
        rc = bench_rollout(ctx, nt, nc, runs);
    }
    lr_yang_ctx_free(ctx);
    if (dump && fclose(dump)) {
        perror(dpath);
        rc = 1;
    }
    return rc;
}
