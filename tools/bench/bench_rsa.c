/*
 * lr-bench-rsa: how fast the optical engine is, every policy side by side
 * in one run.  `make bench` runs it; docs/benchmarks.md records results.
 *
 * 1. Simulator throughput: simulated requests per second, one thread,
 *    NSFNET (directed, 100 slots), K=5 by km, 250 E nominal, the benchmark
 *    protocol's traffic.  R runs of N requests each (seeds 1..R); we report
 *    the median, min and max over runs of requests / wall-clock second.
 * 2. Decision latency: JPN48 with 320 slots and K=10.  The spectrum is
 *    first brought to a loaded steady state by simulating --jpn-load E with
 *    KSP-FF; then D random requests are decided (not booked) and each
 *    decision is timed alone with CLOCK_MONOTONIC (the ~20 ns of the clock
 *    read are included: the figure errs high).  We report the median and
 *    the 99th percentile per policy.
 *
 * Timing is wall clock on a shared machine: read medians, not single runs.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "planner/lr_rng.h"
#include "planner/lr_rsa_sim.h"
#include "planner/lr_stats.h"
#include "tools/bench/bench_opt.h"
#include "tools/lightrail/lr_opt_once.h"

#define PROG "lr-bench-rsa"
#include "yang/lr_yang.h"

static double
now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void
cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[256];
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
            snprintf(buf, len, "%s", strchr(line, ':') + 2);
            buf[strcspn(buf, "\n")] = '\0';
            break;
        }
    fclose(f);
}

static struct lr_topo *
load(struct ly_ctx *ctx, const char *path, int slots)
{
    char err[1024];
    struct lr_topo *t = NULL;
    if (lr_yang_load_topo(ctx, path, &t, err, sizeof err)) {
        fprintf(stderr, "lr-bench-rsa: %s\n", err);
        exit(2);
    }
    for (int l = 0; l < t->n_links; l++)
        t->links[l].n_slots = slots;
    return t;
}

static struct lr_rsa *
engine(const struct lr_topo *t, int k, const struct lr_rsa_policy *p)
{
    struct lr_modtable mods;
    lr_modtable_default(&mods);
    struct lr_rsa_config cfg = { .k = k, .order = LR_KSP_KM, .guard = 1 };
    lr_rsa_sim_demand_sizes(&mods, 1, 25, 100, cfg.demand_sizes);
    struct lr_rsa *rsa = NULL;
    if (lr_rsa_new(t, &cfg, &mods, p, &rsa)) {
        fprintf(stderr, "lr-bench-rsa: cannot build the engine\n");
        exit(1);
    }
    /* Every pair's K paths now, outside the timers: most policies' tables
     * are lazy (lr_ksp_lazy_ends), and a pair's first request would time
     * Yen, not the decision. */
    for (int s = 0; s < t->n_nodes; s++)
        for (int d = 0; d < t->n_nodes; d++) {
            int np;
            if (s != d)
                lr_ksp_paths(rsa->ksp, s, d, &np);
        }
    return rsa;
}

static void
usage(void)
{
    printf("usage: lr-bench-rsa [--nsfnet FILE] [--jpn48 FILE] [--runs R]\n"
           "                    [--requests N] [--decisions D]\n"
           "                    [--jpn-load E] [--policy NAME]\n");
}

int
main(int argc, char **argv)
{
    const char *nsfnet = "examples/topologies/nsfnet.json";
    const char *jpn48 = "examples/topologies/jpn48.json";
    const char *only = NULL;
    int runs = 7;
    long requests = 1000000, decisions = 200000;
    double jpn_load = 600;
    static const struct option longopts[] = {
        { "nsfnet", required_argument, NULL, 'n' },
        { "jpn48", required_argument, NULL, 'j' },
        { "runs", required_argument, NULL, 'r' },
        { "requests", required_argument, NULL, 'q' },
        { "decisions", required_argument, NULL, 'd' },
        { "jpn-load", required_argument, NULL, 'l' },
        { "policy", required_argument, NULL, 'p' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c, bad = 0;
    /* Each option that takes a value at most once (lr_opt_once.h). */
    struct lr_opt_once once = { 0 };
    while (!bad && (c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        int rc_once = lr_opt_once("lr-bench-rsa", longopts, c, optarg,
                                  &once);
        if (rc_once)
            return rc_once;
        switch (c) {
        case 'n': nsfnet = optarg; break;
        case 'j': jpn48 = optarg; break;
        case 'r':
            bad = bench_opt_int(PROG, "runs", optarg, 1, INT_MAX, &runs);
            break;
        case 'q':
            bad = bench_opt_long(PROG, "requests", optarg, 1000, LONG_MAX,
                                 &requests);
            break;
        case 'd':
            bad = bench_opt_long(PROG, "decisions", optarg, 1, LONG_MAX,
                                 &decisions);
            break;
        case 'l':
            bad = bench_opt_double(PROG, "jpn-load", optarg,
                                   BENCH_OPT_POSITIVE, 1e9, &jpn_load);
            break;
        case 'p': only = optarg; break;
        case 'h': usage(); return 0;
        default: usage(); return 2;
        }
    }
    if (bad)
        return bad;

    struct ly_ctx *ctx;
    char err[1024], cpu[128];
    if (lr_yang_ctx_new(&ctx, err, sizeof err)) {
        fprintf(stderr, "lr-bench-rsa: %s\n", err);
        return 1;
    }
    struct lr_topo *ns = load(ctx, nsfnet, 100), *jp = load(ctx, jpn48, 320);
    struct utsname u;
    uname(&u);
    cpu_model(cpu, sizeof cpu);
    time_t now = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
    printf("date %s; %s %s %s; %s\n\n", date, u.sysname, u.release,
           u.machine, cpu);

    printf("## Simulator throughput: NSFNET, 100 slots, K=5 (km), 250 E, "
           "%d runs x %ld requests\n\n", runs, requests);
    printf("| policy | median req/s | min | max | requests per run | blocking (mean) |\n");
    printf("|---|---:|---:|---:|---:|---:|\n");
    double *rps = calloc((size_t) runs, sizeof *rps);
    for (int pi = 0; lr_rsa_policies[pi]; pi++) {
        const struct lr_rsa_policy *p = lr_rsa_policies[pi];
        if (only && strcmp(only, p->name))
            continue;
        struct lr_rsa *rsa = engine(ns, 5, p);
        double blocking = 0;
        /* Slow policies get fewer requests per run, about 2 s worth as
         * measured on a short calibration run, so that the whole bench
         * stays within minutes; the count is printed. */
        long n_req = requests;
        {
            struct lr_rsa_sim_config cfg;
            struct lr_rsa_sim_result res;
            lr_rsa_sim_defaults(&cfg);
            cfg.load = 250;
            cfg.n_requests = 20000;
            cfg.warmup = 2000;
            double t0 = now_s();
            lr_rsa_sim_run(rsa, &cfg, &res);
            double rate = 20000 / (now_s() - t0);
            if (rate * 2 < n_req)
                n_req = rate * 2 > 20000 ? (long) (rate * 2) : 20000;
        }
        for (int r = 0; r < runs; r++) {
            struct lr_rsa_sim_config cfg;
            struct lr_rsa_sim_result res;
            lr_rsa_sim_defaults(&cfg);
            cfg.load = 250;
            cfg.n_requests = n_req;
            cfg.warmup = n_req / 10;
            cfg.seed = (uint64_t) r + 1;
            double t0 = now_s();
            if (lr_rsa_sim_run(rsa, &cfg, &res)) {
                fprintf(stderr, "lr-bench-rsa: simulation failed\n");
                return 1;
            }
            rps[r] = n_req / (now_s() - t0);
            blocking += res.blocking / runs;
        }
        double lo = rps[0], hi = rps[0];
        for (int r = 1; r < runs; r++) {
            lo = rps[r] < lo ? rps[r] : lo;
            hi = rps[r] > hi ? rps[r] : hi;
        }
        printf("| %s | %.0f | %.0f | %.0f | %ld | %.3f%% |\n", p->name,
               lr_stats_median(rps, runs), lo, hi, n_req, 100 * blocking);
        fflush(stdout);
        lr_rsa_free(rsa);
    }
    free(rps);

    /* A loaded JPN48 spectrum, the same for every policy. */
    struct lr_rsa *warm = engine(jp, 10, &lr_rsa_ksp_ff);
    struct lr_rsa_sim_config cfg;
    struct lr_rsa_sim_result res;
    lr_rsa_sim_defaults(&cfg);
    cfg.load = jpn_load;
    cfg.n_requests = 30000;
    cfg.warmup = 10000;
    cfg.seed = 7;
    lr_rsa_sim_run(warm, &cfg, &res);
    long used, total;
    lr_spectrum_usage(warm->sp, &used, &total);
    printf("\n## One RSA decision: JPN48, 320 slots, K=10 (km), %ld "
           "decisions on a spectrum %.1f%% booked (KSP-FF at %.0f E, "
           "blocking %.2f%% there)\n\n", decisions, 100.0 * used / total,
           jpn_load, 100 * res.blocking);
    printf("| policy | median | p99 | decisions | blocked |\n");
    printf("|---|---:|---:|---:|---:|\n");
    double *lat = calloc((size_t) decisions, sizeof *lat);
    for (int pi = 0; lr_rsa_policies[pi]; pi++) {
        const struct lr_rsa_policy *p = lr_rsa_policies[pi];
        if (only && strcmp(only, p->name))
            continue;
        struct lr_rsa *rsa = engine(jp, 10, p);
        memcpy(rsa->sp->occ, warm->sp->occ,
               (size_t) warm->sp->n_links * warm->sp->nw
               * sizeof *warm->sp->occ);
        struct lr_rng rng;
        lr_rng_seed(&rng, 99);
        long blocked = 0, n_dec = decisions;
        int n = jp->n_nodes;
        /* As above: slow policies decide fewer times (about 2 s worth). */
        {
            struct lr_rsa_choice ch;
            struct lr_rsa_request req = { 0, n - 1, 100 };
            double t0 = now_s();
            for (int i = 0; i < 5; i++)
                lr_rsa_decide(rsa, &req, &ch);
            double per = (now_s() - t0) / 5;
            if (per * n_dec > 2)
                n_dec = (long) (2 / per) > 20 ? (long) (2 / per) : 20;
        }
        for (long i = 0; i < n_dec; i++) {
            struct lr_rsa_request req;
            req.src = (int) lr_rng_below(&rng, (uint32_t) n);
            req.dst = (int) lr_rng_below(&rng, (uint32_t) n - 1);
            req.dst += req.dst >= req.src;
            req.rate_gbps = 25 + lr_rng_below(&rng, 76);
            struct lr_rsa_choice ch;
            double t0 = now_s();
            enum lr_rsa_block b = lr_rsa_decide(rsa, &req, &ch);
            lat[i] = now_s() - t0;
            blocked += b != LR_RSA_OK;
        }
        double med = lr_stats_median(lat, (int) n_dec);
        double p99 = lat[(long) (0.99 * (n_dec - 1))];
        printf("| %s | %.2f us | %.2f us | %ld | %.1f%% |\n", p->name,
               med * 1e6, p99 * 1e6, n_dec, 100.0 * blocked / n_dec);
        fflush(stdout);
        lr_rsa_free(rsa);
    }
    free(lat);
    lr_rsa_free(warm);
    lr_topo_free(ns);
    lr_topo_free(jp);
    lr_yang_ctx_free(ctx);
    return 0;
}
