/*
 * lr-bench-ksp: what lightraild's start pays for the K shortest paths
 * (planner/lr_ksp.c), eager table and lazy table side by side in one run.
 *
 * Topology: the ring of tests/cli/gen_big.py (N ROADMs, 10 km fibres both
 * ways), every ROADM a DC's, so every one of the N (N - 1) ordered pairs
 * is an end pair, as in tests/cli/limits.sh's 64-DC start; K = 5 as
 * lightraild has it, ordered by km where lightraild orders by hops, then
 * km (LR_KSP_HOPS; on this ring of equal spans the two rank paths alike).  For N = 16, 32, 64 (or --max-n), R runs each:
 *   eager  lr_ksp_compute_ends() over every pair: what lr_rsa_new() ran
 *          before listening until 2026-12-07;
 *   new    lr_rsa_new() with KSP-FF (lightraild's engine) now: a lazy
 *          table, no pair computed;
 *   all    that engine, then one lr_rsa_decide() for every pair: the whole
 *          table paid request by request, to compare with eager.
 * We print the median over runs of each, in seconds, and eager / new.
 * Timing is wall clock on a shared machine: read medians, not single runs.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "planner/lr_ksp.h"
#include "planner/lr_rsa.h"
#include "planner/lr_stats.h"
#include "tools/bench/bench_opt.h"
#include "tools/lightrail/lr_opt_once.h"

#define PROG "lr-bench-ksp"
#define K 5

static double
now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static struct lr_topo *
ring(int n)
{
    struct lr_topo *t = lr_topo_new("ring");
    char name[LR_NAME_MAX];
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "r%d", i);
        lr_topo_add_node(t, name);
    }
    for (int i = 0; i < n; i++) {
        int j = (i + 1) % n;
        snprintf(name, sizeof name, "r%d-r%d", i, j);
        lr_topo_add_link(t, name, i, j, 10, 320, 0);
        snprintf(name, sizeof name, "r%d-r%d", j, i);
        lr_topo_add_link(t, name, j, i, 10, 320, 0);
    }
    return t;
}

int
main(int argc, char **argv)
{
    int runs = 5, max_n = 64;
    static const struct option longopts[] = {
        { "runs", required_argument, NULL, 'r' },
        { "max-n", required_argument, NULL, 'n' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c, bad = 0;
    /* Each option that takes a value at most once (lr_opt_once.h). */
    struct lr_opt_once once = { 0 };
    while (!bad && (c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        int rc_once = lr_opt_once(PROG, longopts, c, optarg, &once);
        if (rc_once)
            return rc_once;
        switch (c) {
        case 'r':
            bad = bench_opt_int(PROG, "runs", optarg, 1, 100, &runs);
            break;
        case 'n':
            bad = bench_opt_int(PROG, "max-n", optarg, 16, 128, &max_n);
            break;
        case 'h':
        default:
            fprintf(c == 'h' ? stdout : stderr,
                    "usage: " PROG " [--runs R] [--max-n N]\n"
                    "  --runs R    runs per ring (1 to 100, default 5)\n"
                    "  --max-n N   the largest ring, 16 to 128 (default "
                    "64): rings of 16,\n"
                    "              32, ... ROADMs, doubling up to N\n");
            return c == 'h' ? 0 : 2;
        }
    }
    if (bad)
        return bad;

    struct lr_modtable mods;
    lr_modtable_default(&mods);
    struct lr_rsa_config cfg = { .k = K, .order = LR_KSP_KM, .guard = 1 };
    printf("# " PROG ": ring of N ROADMs, 10 km spans, every ROADM an end, "
           "K = %d by km; median of %d runs, seconds\n", K, runs);
    printf("%6s %7s %10s %10s %10s %10s\n", "N", "pairs", "eager", "new",
           "all", "eager/new");
    double *e = calloc((size_t) runs, sizeof *e);
    double *nw = calloc((size_t) runs, sizeof *nw);
    double *al = calloc((size_t) runs, sizeof *al);
    if (!e || !nw || !al) {
        fprintf(stderr, PROG ": out of memory\n");
        return 1;
    }
    for (int n = 16; n <= max_n; n *= 2) {
        struct lr_topo *t = ring(n);
        for (int r = 0; r < runs; r++) {
            struct lr_ksp *ksp = NULL;
            double t0 = now_s();
            if (lr_ksp_compute_ends(t, K, LR_KSP_KM, NULL, &ksp)) {
                fprintf(stderr, PROG ": lr_ksp_compute_ends failed\n");
                return 1;
            }
            e[r] = now_s() - t0;
            lr_ksp_free(ksp);

            struct lr_rsa *rsa = NULL;
            t0 = now_s();
            if (lr_rsa_new(t, &cfg, &mods, &lr_rsa_ksp_ff, &rsa)) {
                fprintf(stderr, PROG ": lr_rsa_new failed\n");
                return 1;
            }
            nw[r] = now_s() - t0;
            for (int s = 0; s < n; s++)
                for (int d = 0; d < n; d++) {
                    struct lr_rsa_request req = { s, d, 100 };
                    struct lr_rsa_choice ch;
                    if (s != d && lr_rsa_decide(rsa, &req, &ch) != LR_RSA_OK) {
                        fprintf(stderr, PROG ": r%d to r%d blocked\n", s, d);
                        return 1;
                    }
                }
            al[r] = now_s() - t0;
            lr_rsa_free(rsa);
        }
        double me = lr_stats_median(e, runs), mn = lr_stats_median(nw, runs);
        printf("%6d %7d %10.4f %10.6f %10.4f %10.0f\n", n, n * (n - 1), me,
               mn, lr_stats_median(al, runs), mn > 0 ? me / mn : 0);
        lr_topo_free(t);
    }
    free(e);
    free(nw);
    free(al);
    return 0;
}
