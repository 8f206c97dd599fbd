/*
 * lr-bench-linux: what the emulated data plane costs and how closely it
 * holds the rates it is given (root).  `make bench` runs it when root;
 * docs/benchmarks.md records results.
 *
 * 1. Set-up cost: three DC namespaces are made (timed), then N times a
 *    lightpath's veth pair with addresses and tbf is made and removed,
 *    each call timed alone; median and 99th percentile.  This is what the
 *    data plane adds to an admission and a release (per lightpath).
 * 2. Sampling cost: the counters of 2, 8 and 32 lightpaths read once
 *    (sb_linux_sample(), one netlink dump per end and per tbf), median of
 *    R reads: what lightraild's telemetry timer costs the event loop.
 * 3. Shaping accuracy: a TCP transfer of X bytes over one pair shaped at
 *    400 Gb/s x scale, timed by the probe, for X from 1 MB to 64 MB; the
 *    measured time against X / rate (>1: slower than the shaped rate),
 *    median of R runs per size.
 *
 * Timing is wall clock on a shared machine: read medians, not single
 * runs.  Namespaces are named "lrb<pid>-*" and removed at the end, also
 * when a step fails.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "southbound/sb_linux.h"
#include "tools/bench/bench_opt.h"
#include "tools/lightrail/lr_opt_once.h"

#define PROG "lr-bench-linux"

static double
now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static double
quantile(double *v, int n, double q)
{
    qsort(v, (size_t) n, sizeof *v, cmp_double);
    int i = (int) (q * (n - 1) + 0.5);
    return v[i < n ? i : n - 1];
}

static void
usage(FILE *f)
{
    fprintf(f, "usage: lr-bench-linux [--pairs N] [--runs R] [--scale S]\n"
            "  --pairs N   pairs made and removed for the set-up cost "
            "(default 200)\n"
            "  --runs R    runs per sampling and transfer figure "
            "(default 5)\n"
            "  --scale S   real Mb/s per emulated Gb/s (default 1)\n");
}

int
main(int argc, char **argv)
{
    static const struct option opts[] = {
        { "pairs", required_argument, NULL, 'n' },
        { "runs", required_argument, NULL, 'r' },
        { "scale", required_argument, NULL, 's' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int pairs = 200, runs = 5, c, rc = 1, bad = 0;
    double scale = 1;
    /* Each option that takes a value at most once (lr_opt_once.h). */
    struct lr_opt_once once = { 0 };
    while (!bad && (c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        int rc_once = lr_opt_once("lr-bench-linux", opts, c, optarg,
                                  &once);
        if (rc_once)
            return rc_once;
        switch (c) {
        case 'n':
            bad = bench_opt_int(PROG, "pairs", optarg, 1, INT_MAX, &pairs);
            break;
        case 'r':
            bad = bench_opt_int(PROG, "runs", optarg, 1, INT_MAX, &runs);
            break;
        case 's':
            bad = bench_opt_double(PROG, "scale", optarg, BENCH_OPT_POSITIVE,
                                   1e6, &scale);
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (bad)
        return bad;
    if (geteuid() != 0) {
        fprintf(stderr, "lr-bench-linux: needs root (network namespaces); "
                "skipped\n");
        return 77;
    }
    char prefix[16], err[512];
    snprintf(prefix, sizeof prefix, "lrb%d", (int) getpid() % 100000);
    static const char *const dcs[] = { "dc1", "dc2", "dc3" };
    struct sb_linux_config cfg = { prefix, scale, 3, dcs };
    struct sb_linux *lx = NULL;
    double *t = calloc((size_t) (pairs > 64 ? pairs : 64), sizeof *t);
    double *u = calloc((size_t) (pairs > 64 ? pairs : 64), sizeof *u);
    if (!t || !u)
        goto cleanup;

    double t0 = now_s();
    if (sb_linux_new(&cfg, &lx, err, sizeof err)) {
        fprintf(stderr, "lr-bench-linux: %s\n", err);
        goto cleanup;
    }
    printf("emulated data plane, scale %g Mb/s per Gb/s\n\n", scale);
    printf("3 DC namespaces made in %.2f ms\n\n", (now_s() - t0) * 1e3);

    /* 1. Set-up cost per pair. */
    for (int i = 0; i < pairs; i++) {
        double a = now_s();
        if (sb_linux_add(lx, "bench/lp1", 0, 1, 400, err, sizeof err)) {
            fprintf(stderr, "lr-bench-linux: %s\n", err);
            goto cleanup;
        }
        double b = now_s();
        if (sb_linux_remove(lx, "bench/lp1", err, sizeof err)) {
            fprintf(stderr, "lr-bench-linux: %s\n", err);
            goto cleanup;
        }
        t[i] = (b - a) * 1e3;
        u[i] = (now_s() - b) * 1e3;
    }
    printf("| operation | median | p99 | runs |\n|---|---:|---:|---:|\n");
    printf("| make a pair (veth, 2 addresses, up, tbf) | %.3f ms | %.3f ms "
           "| %d |\n", quantile(t, pairs, 0.5), quantile(t, pairs, 0.99),
           pairs);
    printf("| remove a pair | %.3f ms | %.3f ms | %d |\n\n",
           quantile(u, pairs, 0.5), quantile(u, pairs, 0.99), pairs);

    /* 2. Sampling cost. */
    printf("| lightpaths sampled | median | runs |\n|---:|---:|---:|\n");
    int made = 0;
    for (int want = 2; want <= 32; want *= 4) {
        for (; made < want; made++) {
            char name[32];
            snprintf(name, sizeof name, "s/lp%d", made + 1);
            if (sb_linux_add(lx, name, made % 3, (made + 1) % 3, 400, err,
                             sizeof err)) {
                fprintf(stderr, "lr-bench-linux: %s\n", err);
                goto cleanup;
            }
        }
        for (int r = 0; r < runs; r++) {
            double a = now_s();
            if (sb_linux_sample(lx, err, sizeof err)) {
                fprintf(stderr, "lr-bench-linux: %s\n", err);
                goto cleanup;
            }
            t[r] = (now_s() - a) * 1e3;
        }
        printf("| %d | %.3f ms | %d |\n", want, quantile(t, runs, 0.5),
               runs);
    }
    printf("\n");

    /* 3. Shaping accuracy. */
    struct sb_linux_link l;
    sb_linux_get(lx, "s/lp1", &l);
    printf("| bytes | shaped at | X / rate | measured (median) | ratio | "
           "goodput |\n|---:|---:|---:|---:|---:|---:|\n");
    for (double x = 1 << 20; x <= 64 << 20; x *= 4) {
        double gp[64];
        for (int r = 0; r < runs && r < 64; r++)
            if (sb_linux_probe(lx, "s/lp1", (uint64_t) x, NULL, &t[r],
                               &gp[r], err, sizeof err)) {
                fprintf(stderr, "lr-bench-linux: %s\n", err);
                goto cleanup;
            }
        int n = runs < 64 ? runs : 64;
        double ideal = x * 8 / l.rate_bps, med = quantile(t, n, 0.5);
        printf("| %.0f | %.0f Mb/s | %.4f s | %.4f s | %.3f | %.1f Mb/s |\n",
               x, l.rate_bps / 1e6, ideal, med, med / ideal,
               quantile(gp, n, 0.5) / 1e6);
    }
    rc = 0;

cleanup:
    sb_linux_free(lx);
    sb_linux_cleanup(prefix, NULL, err, sizeof err);
    free(t);
    free(u);
    return rc;
}
