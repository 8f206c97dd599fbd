/*
 * lr-bench-cdynp: how close to the optimum and how fast CDynP plans.
 * `make bench` runs it; docs/benchmarks.md records results.
 *
 * 1. Optimality: over the random small instances of planner/lr_instance.h
 *    (seeds 1..N, default 1000), CDynP's T against the exact optimum of
 *    lr_exact.c: the gap T_cdynp / T_exact - 1, its mean, median, 95th
 *    percentile and maximum.
 * 2. Speed: CDynP's search time for GPT-1.9B on examples/clusters/
 *    man3.json, and LLaMA-2 70B over 16 DCs of 64 A100 each (built here:
 *    every pair of DCs linked at 10-100 Gb/s), median of R runs.
 * 3. A curve of search time against layers and DCs: transformer models of
 *    L = 24 .. 192 layers (the GPT-1.9B block repeated) on K = 2 .. 16 DCs
 *    of 8 V100 each, linked at 10 Gb/s; a table, and a PNG with --plot.
 * 4. Large DCs: GPT-1.9B over 2 and 3 DCs of 128 .. 1,024 V100 each
 *    (the local DP is O(R^2 N^2) in a DC's N devices), median of 3.
 *
 * With --tight N, instead of 1-4: CDynP against exact over the
 * tight-memory instances of tests/unit/lr_test_tight.h (seeds S..S+N-1,
 * S from --first-seed, default 1), the source of docs/cdynp.md's
 * figures in "Where the assumption still misses": the instances with a
 * plan, those where CDynP found none, those above exact and more than
 * 5% above (seeds and ratios), the mean and worst gap, and the total
 * time of each planner.
 *
 * With --wide N, instead of 1-4: CDynP against exact over random
 * instances of 7 and 8 DCs (lr_instance_random_dcs(), seeds S..S+N-1),
 * beyond LR_CDYNP_ALL_ORDERS, where the coordinator does not try every
 * chain (docs/cdynp.md, "Which chains"): the instances with a plan, those
 * where CDynP found none, those above exact and more than 5% above, the
 * mean and worst gap, and the median search time of each planner.
 *
 * --beam B sets the beam width of the timed cases 2-4
 * (lr_cdynp_options.beam; -1 the search before the beam), so that one
 * build times both.
 *
 * Timing is wall clock on a shared machine: medians, not single runs.
 */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "planner/lr_cdynp.h"
#include "planner/lr_exact.h"
#include "planner/lr_instance.h"
#include "planner/lr_stats.h"
#include "tests/unit/lr_test_tight.h"
#include "tools/bench/bench_opt.h"
#include "tools/lightrail/lr_opt_once.h"
#include "tools/lightrail/lr_plot.h"
#include "yang/lr_yang.h"

static const char usage[] =
    "usage: lr-bench-cdynp [--man3 FILE] [--instances N] [--runs R] "
    "[--plot FILE.png]\n"
    "                      [--beam B]\n"
    "       lr-bench-cdynp --tight N [--first-seed S]\n"
    "       lr-bench-cdynp --wide N [--first-seed S]\n"
    "\n"
    "CDynP against the exact optimum, and CDynP's search time "
    "(docs/benchmarks.md).\n"
    "  --man3 FILE      cluster of the GPT-1.9B timing "
    "(examples/clusters/man3.json)\n"
    "  --instances N    random instances of planner/lr_instance.h planned "
    "by both\n"
    "                   (seeds 1..N, default 1000)\n"
    "  --runs R         timed runs of each case, median printed (21)\n"
    "  --plot FILE.png  search time against layers and DCs, as a PNG\n"
    "  --beam B         beam width of the timed cases beyond 6 DCs (default "
    "8;\n"
    "                   0, or -1: the greedy chain's prefixes only, the "
    "search\n"
    "                   before 2026-12-06, as lightrail plan --beam 0)\n"
    "  --tight N        instead of all the above: N random instances where "
    "memory\n"
    "                   binds (tests/unit/lr_test_tight.h) planned by "
    "both; prints\n"
    "                   the instances with a plan (exact's), those where "
    "CDynP\n"
    "                   found none and those it planned more than 5% above "
    "exact\n"
    "                   (seeds, ratios), how many above exact, the mean and "
    "worst\n"
    "                   gap, and each planner's total time "
    "(docs/cdynp.md)\n"
    "  --wide N         instead of all the above: N random instances of 7 "
    "and 8 DCs\n"
    "                   (planner/lr_instance.h) planned by both; prints "
    "the same\n"
    "                   counts and gaps as --tight, and each planner's "
    "median\n"
    "                   search time (docs/cdynp.md, \"Which chains\")\n"
    "  --first-seed S   first seed of --tight or --wide (default 1): seeds "
    "S..S+N-1\n";

/* 'arg' of option 'opt' as a whole number within [lo, hi] into '*out':
 * 0, or 2 (the exit code of a usage error) with the reason on stderr,
 * as every benchmark reads its numbers (bench_opt.h). */
static int
parse_count(const char *opt, const char *arg, int lo, int hi, int *out)
{
    return bench_opt_int("lr-bench-cdynp", opt, arg, lo, hi, out);
}

static double
now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The beam width of the timed cases (--beam; lr_cdynp_options.beam):
 * 0 the default. */
static int beam_width;

/* Median search time of CDynP over 'runs' runs. */
static double
time_cdynp(const struct lr_tm *tm, int runs, double *T)
{
    const struct lr_cdynp_options opt = {
        .window = LR_CDYNP_DEFAULT_WINDOW, .beam = beam_width,
    };
    double *t = calloc((size_t) runs, sizeof *t);
    struct lr_plan *p = malloc(sizeof *p);
    struct lr_tm_eval *ev = malloc(sizeof *ev);
    *T = NAN;
    for (int r = 0; r < runs; r++) {
        double t0 = now_s();
        enum lr_tm_why why = lr_cdynp_plan(tm, &opt, p, ev);
        t[r] = now_s() - t0;
        if (why == LR_TM_OK)
            *T = ev->T;
    }
    double med = lr_stats_median(t, runs);
    free(t);
    free(p);
    free(ev);
    return med;
}

static struct lr_cluster *
uniform_cluster(int K, int N, const char *type, double peak, double eff,
                double mem, double gbps_lo, double gbps_hi)
{
    struct lr_cluster *c = lr_cluster_new();
    lr_cluster_add_type(c, type, peak, eff, mem);
    for (int k = 0; k < K; k++) {
        char name[16];
        snprintf(name, sizeof name, "dc%d", k + 1);
        lr_cluster_add_dc(c, name, type, N, 25e9, 5e-6, NULL);
    }
    for (int a = 0; a < K; a++)
        for (int b = a + 1; b < K; b++) {
            /* A fixed pattern of capacities in [lo, hi]. */
            double f = ((a * 7 + b * 13) % 10) / 9.0;
            lr_cluster_add_link(c, c->dcs[a].name, c->dcs[b].name,
                                (gbps_lo + f * (gbps_hi - gbps_lo)) * 1e9 / 8,
                                1e-3 + 2e-3 * f);
        }
    return c;
}

/* A seed and CDynP's T over exact's, for the list of plans more than 5%
 * above exact. */
struct far_plan {
    uint64_t seed;
    double ratio;
};

/* --tight: seeds first .. first + n - 1 of lr_test_tight_instance(),
 * each planned by CDynP and by exact.  "Above exact" allows a relative
 * 1e-9 (the two compute the same plan's T in a different order, as
 * test_cdynp allows).  0, or 1 when an instance cannot be built. */
static int
tight_sweep(uint64_t first, int n)
{
    double *gap = calloc((size_t) n, sizeof *gap);
    uint64_t *missed = calloc((size_t) n, sizeof *missed);
    struct far_plan *far = calloc((size_t) n, sizeof *far);
    struct lr_plan *pc = malloc(sizeof *pc), *pe = malloc(sizeof *pe);
    struct lr_tm_eval *ec = malloc(sizeof *ec), *ee = malloc(sizeof *ee);
    int rc = 1;
    if (!gap || !missed || !far || !pc || !pe || !ec || !ee) {
        fprintf(stderr, "lr-bench-cdynp: --tight %d: out of memory\n", n);
        goto cleanup;
    }
    long have = 0, both = 0, n_missed = 0, n_far = 0, above = 0;
    long incomplete = 0;
    uint64_t worst_seed = 0;
    double t_cdynp = 0, t_exact = 0, worst = -INFINITY;
    for (uint64_t seed = first; seed < first + (uint64_t) n; seed++) {
        struct lr_instance in;
        struct lr_model *m;
        struct lr_tm *tm;
        int err = lr_test_tight_instance(seed, &in, &m, &tm);
        if (err) {
            fprintf(stderr, "lr-bench-cdynp: tight instance %llu: %s\n",
                    (unsigned long long) seed, strerror(err));
            goto cleanup;
        }
        struct lr_exact_stats st;
        double t0 = now_s();
        enum lr_tm_why wc = lr_cdynp_plan(tm, NULL, pc, ec);
        double t1 = now_s();
        enum lr_tm_why we = lr_exact_plan(tm, 0, pe, ee, &st);
        t_exact += now_s() - t1;
        t_cdynp += t1 - t0;
        incomplete += !st.complete;
        if (we == LR_TM_OK) {
            have++;
            if (wc != LR_TM_OK) {
                missed[n_missed++] = seed;
            } else {
                double g = ec->T / ee->T - 1;
                gap[both++] = g;
                above += g > 1e-9;
                if (g > 0.05)
                    far[n_far++] = (struct far_plan) { seed, g + 1 };
                if (g > worst) {
                    worst = g;
                    worst_seed = seed;
                }
            }
        }
        lr_tm_free(tm);
        lr_model_free(m);
        lr_instance_free(&in);
    }
    struct lr_stats gs;
    lr_stats_compute(gap, (int) both, &gs);
    unsigned long long last = first + (uint64_t) n - 1;
    printf("## CDynP against the exact optimum, memory tight: %d instances "
           "(tests/unit/lr_test_tight.h, seeds %llu..%llu)\n\n", n,
           (unsigned long long) first, last);
    printf("| instances with a plan (exact) | CDynP found none | above exact "
           "| more than 5%% above | mean gap | worst |\n");
    printf("|---:|---:|---:|---:|---:|---:|\n");
    if (both == 0)
        printf("| %ld | %ld | 0 | 0 | - | - |\n\n", have, n_missed);
    else if (above == 0)
        printf("| %ld | %ld | 0 | 0 | %.4f%% | %.4f%% |\n\n", have,
               n_missed, 100 * gs.mean, 100 * worst);
    else
        printf("| %ld | %ld | %ld | %ld | %.4f%% | %.4f%% (seed %llu) |\n\n",
               have, n_missed, above, n_far, 100 * gs.mean, 100 * worst,
               (unsigned long long) worst_seed);
    printf("CDynP found none:%s", n_missed ? " seeds" : " none");
    for (long i = 0; i < n_missed; i++)
        printf("%s %llu", i ? "," : "", (unsigned long long) missed[i]);
    printf("\nMore than 5%% above exact (CDynP's T over exact's):%s",
           n_far ? " seeds" : " none");
    for (long i = 0; i < n_far; i++)
        printf("%s %llu (%.3f)", i ? "," : "",
               (unsigned long long) far[i].seed, far[i].ratio);
    printf("\n\n");
    printf("(%ld exact searches incomplete; CDynP %.1f s, exact %.1f s in "
           "all)\n", incomplete, t_cdynp, t_exact);
    rc = 0;
cleanup:
    free(gap);
    free(missed);
    free(far);
    free(pc);
    free(pe);
    free(ec);
    free(ee);
    return rc;
}

/* The fewest and most DCs of --wide's instances: beyond
 * LR_CDYNP_ALL_ORDERS, and few enough for exact to finish. */
#define WIDE_MIN_DCS 7
#define WIDE_MAX_DCS 8

/* What one planner did over --wide's instances. */
struct wide_tally {
    long missed, above, far, both;
    double *gap, *secs;           /* by instance with a plan; by instance */
    double worst;
    uint64_t worst_seed;
};

/* Adds instance 'seed''s outcome under one planner: 'why' and 'T' its
 * plan, 'T_exact' exact's (NAN when exact has none), 's' its search
 * time, 'i' the instance's index. */
static void
wide_add(struct wide_tally *w, uint64_t seed, int i, enum lr_tm_why why,
         double T, double T_exact, double s)
{
    w->secs[i] = s;
    if (isnan(T_exact))
        return;
    if (why != LR_TM_OK) {
        w->missed++;
        return;
    }
    double g = T / T_exact - 1;
    w->gap[w->both++] = g;
    w->above += g > 1e-9;
    w->far += g > 0.05;
    if (w->both == 1 || g > w->worst) {
        w->worst = g;
        w->worst_seed = seed;
    }
}

/* The beam widths --wide compares (lr_cdynp_options.beam): -1 the
 * greedy chain's prefixes alone, as before the beam search. */
static const int wide_beams[] = { -1, 1, 2, 4, LR_CDYNP_BEAM, 16 };
#define N_WIDE_BEAMS (int) (sizeof wide_beams / sizeof *wide_beams)

/* --wide: seeds first .. first + n - 1 of lr_instance_random_dcs() with
 * WIDE_MIN_DCS..WIDE_MAX_DCS DCs, each planned by exact (whose first
 * incumbent is CDynP's plan, so its time includes one CDynP search)
 * and by CDynP under each of wide_beams[], one row each.  "Above exact"
 * allows a relative 1e-9 as --tight does.  0, or 1 when an instance
 * cannot be built or memory runs out. */
static int
wide_sweep(uint64_t first, int n)
{
    struct wide_tally cd[N_WIDE_BEAMS] = { { 0 } };
    double *t_exact = calloc((size_t) n, sizeof *t_exact);
    bool oom = !t_exact;
    for (int b = 0; b < N_WIDE_BEAMS; b++) {
        cd[b].gap = calloc((size_t) n, sizeof *cd[b].gap);
        cd[b].secs = calloc((size_t) n, sizeof *cd[b].secs);
        oom |= !cd[b].gap || !cd[b].secs;
    }
    struct lr_plan *pc = malloc(sizeof *pc), *pe = malloc(sizeof *pe);
    struct lr_tm_eval *ec = malloc(sizeof *ec), *ee = malloc(sizeof *ee);
    int rc = 1;
    long have = 0, incomplete = 0, dcs[WIDE_MAX_DCS + 1] = { 0 };
    if (oom || !pc || !pe || !ec || !ee) {
        fprintf(stderr, "lr-bench-cdynp: --wide %d: out of memory\n", n);
        goto cleanup;
    }
    for (int i = 0; i < n; i++) {
        uint64_t seed = first + (uint64_t) i;
        struct lr_instance in;
        struct lr_tm *tm;
        int err = lr_instance_random_dcs(seed, WIDE_MIN_DCS, WIDE_MAX_DCS,
                                         &in);
        if (!err)
            err = lr_tm_new(in.model, in.cluster, &in.train, &tm);
        if (err) {
            fprintf(stderr, "lr-bench-cdynp: wide instance %llu: %s\n",
                    (unsigned long long) seed, strerror(err));
            lr_instance_free(&in);
            goto cleanup;
        }
        dcs[tm->n_dcs]++;
        struct lr_exact_stats st;
        double t0 = now_s();
        enum lr_tm_why we = lr_exact_plan(tm, 0, pe, ee, &st);
        t_exact[i] = now_s() - t0;
        incomplete += !st.complete;
        have += we == LR_TM_OK;
        double T_exact = we == LR_TM_OK ? ee->T : NAN;
        for (int b = 0; b < N_WIDE_BEAMS; b++) {
            struct lr_cdynp_options opt = {
                .window = LR_CDYNP_DEFAULT_WINDOW, .beam = wide_beams[b],
            };
            double t1 = now_s();
            enum lr_tm_why wc = lr_cdynp_plan(tm, &opt, pc, ec);
            wide_add(&cd[b], seed, i, wc, ec->T, T_exact, now_s() - t1);
        }
        lr_tm_free(tm);
        lr_instance_free(&in);
    }
    printf("## CDynP against the exact optimum beyond %d DCs: %d instances "
           "(planner/lr_instance.h, %d-%d DCs: %ld of 7, %ld of 8; seeds "
           "%llu..%llu)\n\n", LR_CDYNP_ALL_ORDERS, n, WIDE_MIN_DCS,
           WIDE_MAX_DCS, dcs[7], dcs[8], (unsigned long long) first,
           (unsigned long long) (first + (uint64_t) n - 1));
    printf("| chains beyond %d DCs | instances with a plan (exact) | "
           "CDynP found none | above exact | more than 5%% above | mean gap "
           "| worst | median search |\n", LR_CDYNP_ALL_ORDERS);
    printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int b = 0; b < N_WIDE_BEAMS; b++) {
        const struct wide_tally *w = &cd[b];
        struct lr_stats gs;
        lr_stats_compute(w->gap, (int) w->both, &gs);
        if (wide_beams[b] < 0)
            printf("| greedy prefixes |");
        else
            printf("| beam %d%s |", wide_beams[b],
                   wide_beams[b] == LR_CDYNP_BEAM ? " (default)" : "");
        printf(" %ld | %ld | %ld | %ld | %.4f%% | ", have, w->missed,
               w->above, w->far, 100 * gs.mean);
        if (w->both)
            printf("%.4f%% (seed %llu) |", 100 * w->worst,
                   (unsigned long long) w->worst_seed);
        else
            printf("- |");
        printf(" %.3f ms |\n", 1e3 * lr_stats_median(w->secs, n));
    }
    printf("\n(exact: median search %.3f ms, %ld searches incomplete)\n",
           1e3 * lr_stats_median(t_exact, n), incomplete);
    rc = 0;
cleanup:
    free(t_exact);
    for (int b = 0; b < N_WIDE_BEAMS; b++) {
        free(cd[b].gap);
        free(cd[b].secs);
    }
    free(pc);
    free(pe);
    free(ec);
    free(ee);
    return rc;
}

int
main(int argc, char **argv)
{
    const char *man3 = "examples/clusters/man3.json";
    const char *plot = NULL;
    int instances = 1000, runs = 21, tight = 0, wide = 0, first_seed = 1;
    bool other = false, first_given = false;
    static const struct option longopts[] = {
        { "man3", required_argument, NULL, 'm' },
        { "instances", required_argument, NULL, 'i' },
        { "runs", required_argument, NULL, 'r' },
        { "plot", required_argument, NULL, 'p' },
        { "tight", required_argument, NULL, 't' },
        { "first-seed", required_argument, NULL, 's' },
        { "wide", required_argument, NULL, 'w' },
        { "beam", required_argument, NULL, 'b' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c, bad = 0;
    /* Each option that takes a value at most once (lr_opt_once.h). */
    struct lr_opt_once once = { 0 };
    while (!bad && (c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        int rc_once = lr_opt_once("lr-bench-cdynp", longopts, c, optarg,
                                  &once);
        if (rc_once)
            return rc_once;
        other |= c == 'm' || c == 'i' || c == 'r' || c == 'p' || c == 'b';
        switch (c) {
        case 'm': man3 = optarg; break;
        case 'i':
            bad = parse_count("instances", optarg, 1, INT_MAX, &instances);
            break;
        case 'r': bad = parse_count("runs", optarg, 1, INT_MAX, &runs); break;
        case 'p': plot = optarg; break;
        case 't':
            bad = parse_count("tight", optarg, 1, 100000000, &tight);
            break;
        case 'b':
            /* As lightrail plan --beam and cdynp-beam read it: 0 the
             * greedy prefixes (-1, this option's older spelling, too),
             * not the default width it was here. */
            bad = parse_count("beam", optarg, -1, LR_CDYNP_MAX_BEAM,
                              &beam_width);
            if (!bad)
                beam_width = lr_cdynp_beam_option(beam_width);
            break;
        case 'w':
            bad = parse_count("wide", optarg, 1, 100000000, &wide);
            break;
        case 's':
            bad = parse_count("first-seed", optarg, 0, INT_MAX, &first_seed);
            first_given = true;
            break;
        case 'h': fputs(usage, stdout); return 0;
        default: fputs(usage, stderr); return 2;
        }
    }
    if (bad)
        return bad;
    if (optind < argc) {
        fprintf(stderr, "lr-bench-cdynp: unexpected argument '%s'\n%s",
                argv[optind], usage);
        return 2;
    }
    if (first_given && !tight && !wide) {
        fprintf(stderr, "lr-bench-cdynp: --first-seed is the first seed of "
                "--tight or --wide: give --tight N or --wide N too\n");
        return 2;
    }
    if (tight && wide) {
        fprintf(stderr, "lr-bench-cdynp: --tight and --wide are two sweeps: "
                "give one of them\n");
        return 2;
    }
    if ((tight || wide) && other) {
        fprintf(stderr, "lr-bench-cdynp: --%s runs instead of the other "
                "measurements: leave out --man3, --instances, --runs, "
                "--plot and --beam\n", tight ? "tight" : "wide");
        return 2;
    }
    if (tight)
        return tight_sweep((uint64_t) first_seed, tight);
    if (wide)
        return wide_sweep((uint64_t) first_seed, wide);

    /* The search the timed cases of section 2 make, said first; and
     * their cluster read before section 1's minutes, so that a bad
     * --man3 is said at once. */
    if (beam_width < 0)
        printf("Beyond %d DCs: the greedy chain's prefixes only "
               "(--beam 0).\n\n", LR_CDYNP_ALL_ORDERS);
    else
        printf("Beyond %d DCs: beam width %d (narrower where it would run "
               "more than %d chains).\n\n", LR_CDYNP_ALL_ORDERS,
               beam_width ? beam_width : LR_CDYNP_BEAM, LR_CDYNP_BEAM_CHAINS);
    fflush(stdout);
    struct ly_ctx *ctx;
    char err[1024];
    struct lr_cluster *cl = NULL;
    struct lr_model *gpt = NULL, *llama = NULL;
    if (lr_yang_ctx_new(&ctx, err, sizeof err)
        || lr_yang_load_cluster(ctx, man3, &cl, err, sizeof err)) {
        fprintf(stderr, "lr-bench-cdynp: %s\n", err);
        return 2;
    }

    /* 1. Optimality. */
    double *gap = calloc((size_t) instances, sizeof *gap);
    int n = 0, cdynp_fail = 0, both_fail = 0, incomplete = 0;
    long nodes = 0;
    struct lr_plan *pc = malloc(sizeof *pc), *pe = malloc(sizeof *pe);
    struct lr_tm_eval *ec = malloc(sizeof *ec), *ee = malloc(sizeof *ee);
    double t0 = now_s();
    for (int s = 1; s <= instances; s++) {
        struct lr_instance in;
        struct lr_tm *tm;
        struct lr_exact_stats st;
        if (lr_instance_random((uint64_t) s, &in)
            || lr_tm_new(in.model, in.cluster, &in.train, &tm))
            return 1;
        enum lr_tm_why wc = lr_cdynp_plan(tm, NULL, pc, ec);
        enum lr_tm_why we = lr_exact_plan(tm, 0, pe, ee, &st);
        nodes += st.nodes;
        incomplete += !st.complete;
        if (we != LR_TM_OK)
            both_fail += wc != LR_TM_OK;
        else if (wc != LR_TM_OK)
            cdynp_fail++;
        else
            gap[n++] = ec->T / ee->T - 1;
        lr_tm_free(tm);
        lr_instance_free(&in);
    }
    double elapsed = now_s() - t0;
    struct lr_stats gs;
    lr_stats_compute(gap, n, &gs);
    double med = lr_stats_median(gap, n);   /* sorts gap */
    printf("## CDynP against the exact optimum: %d random instances "
           "(planner/lr_instance.h, seeds 1..%d)\n\n", instances, instances);
    printf("| instances with a plan | CDynP found none | neither | mean gap "
           "| median | p95 | max | exact nodes per instance |\n");
    printf("|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    printf("| %d | %d | %d | %.4f%% | %.4f%% | %.4f%% | %.4f%% | %.0f |\n\n",
           n, cdynp_fail, both_fail, 100 * gs.mean, 100 * med,
           100 * gap[(int) (0.95 * (n - 1))], 100 * gap[n - 1],
           (double) nodes / instances);
    printf("(%d exact searches incomplete; %.1f s in all)\n\n", incomplete,
           elapsed);
    free(gap);

    /* 2. Search time on the two named cases. */
    lr_model_preset("gpt-1.9b", &gpt);
    lr_model_preset("llama2-70b", &llama);
    struct lr_train tr = { 32, 1, 2 };
    struct lr_tm *tm;
    double T;
    printf("## CDynP search time (median of %d runs; LLaMA %d)\n\n", runs,
           runs < 5 ? runs : 5);
    printf("| case | search time | T |\n|---|---:|---:|\n");
    lr_tm_new(gpt, cl, &tr, &tm);
    double s1 = time_cdynp(tm, runs, &T);
    printf("| GPT-1.9B on man3 (B=32, b=1) | %.2f ms | %.4f s |\n", s1 * 1e3,
           T);
    lr_tm_free(tm);
    struct lr_cluster *big = uniform_cluster(16, 64, "A100-80GB", 312e12,
                                             0.45, 80e9, 10, 100);
    struct lr_train tr70 = { 256, 1, 2 };
    lr_tm_new(llama, big, &tr70, &tm);
    double s2 = time_cdynp(tm, runs < 5 ? runs : 5, &T);
    printf("| LLaMA-2 70B on 16 DCs x 64 A100 (B=256, b=1) | %.2f ms | "
           "%.4f s |\n\n", s2 * 1e3, T);
    lr_tm_free(tm);
    lr_cluster_free(big);

    /* 3. Search time against layers and DCs. */
    static const int Ls[] = { 24, 48, 96, 192 };
    static const int Ks[] = { 2, 4, 8, 16 };
    struct lr_plot *pl = plot ? lr_plot_new("CDynP search time (8 V100 per "
                                            "DC, GPT-1.9B blocks)",
                                            "layers", "search time (ms)",
                                            true) : NULL;
    printf("## Search time against layers and DCs (8 V100 per DC, "
           "GPT-1.9B blocks, B=32, b=1; median of %d)\n\n| layers |",
           runs < 5 ? runs : 5);
    for (int k = 0; k < 4; k++)
        printf(" %d DCs |", Ks[k]);
    printf("\n|---:|---:|---:|---:|---:|\n");
    struct lr_transformer shape;
    lr_model_preset_shape("gpt-1.9b", &shape);
    for (int l = 0; l < 4; l++) {
        shape.layers = Ls[l];
        struct lr_model *m;
        lr_model_from_transformer("gpt-blocks", &shape, &m);
        printf("| %d |", Ls[l]);
        for (int k = 0; k < 4; k++) {
            struct lr_cluster *cc = uniform_cluster(Ks[k], 8, "V100-32GB",
                                                    125e12, 0.40, 32e9, 10,
                                                    10);
            lr_tm_new(m, cc, &tr, &tm);
            double s = time_cdynp(tm, runs < 5 ? runs : 5, &T);
            printf(" %.2f ms%s |", s * 1e3, isnan(T) ? " (no plan)" : "");
            fflush(stdout);
            if (pl) {
                char series[32];
                snprintf(series, sizeof series, "%d DCs", Ks[k]);
                lr_plot_add(pl, series, Ls[l], s * 1e3, 0);
            }
            lr_tm_free(tm);
            lr_cluster_free(cc);
        }
        printf("\n");
        lr_model_free(m);
    }

    /* 4. Large DCs. */
    static const int Ns[] = { 128, 256, 512, 1024 };
    printf("\n## Large DCs (GPT-1.9B, V100, B=32, b=1; median of 3)\n\n"
           "| devices per DC | 2 DCs | T | 3 DCs | T |\n"
           "|---:|---:|---:|---:|---:|\n");
    for (int q = 0; q < 4; q++) {
        printf("| %d |", Ns[q]);
        for (int K = 2; K <= 3; K++) {
            struct lr_cluster *cc = uniform_cluster(K, Ns[q], "V100-32GB",
                                                    125e12, 0.40, 32e9, 10,
                                                    100);
            lr_tm_new(gpt, cc, &tr, &tm);
            double s = time_cdynp(tm, 3, &T);
            printf(" %.3f s | %.4f s |", s, T);
            fflush(stdout);
            lr_tm_free(tm);
            lr_cluster_free(cc);
        }
        printf("\n");
    }
    if (pl && lr_plot_write_png(pl, plot, err, sizeof err))
        fprintf(stderr, "lr-bench-cdynp: %s\n", err);
    lr_plot_free(pl);
    lr_model_free(gpt);
    lr_model_free(llama);
    lr_cluster_free(cl);
    lr_yang_ctx_free(ctx);
    free(pc);
    free(pe);
    free(ec);
    free(ee);
    return 0;
}
