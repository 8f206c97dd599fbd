/*
 * lr-bench-replay: blocking in the controller itself (controller/lr_ctl.c,
 * what lightraild runs) under a stream of ppo intents, the policy alone
 * against its rollout (ppo-rollout), on the same arrivals.
 *
 * The stream is the joint environment's (planner/lr_jenv.c,
 * next_arrival), drawn here with the same laws: Poisson arrivals at LOAD
 * Erlang (mean gap ppo-mean-job-s / LOAD), model and GPU demand uniform
 * over the mix (bert-large, gpt-1.9b, llama2-7b; 4, 8, 16 GPUs), work X
 * exponential of mean 1.  Each arrival is an intent for ppo with
 * gpus min = max = its demand and iterations = X ppo-mean-job-s / T_ref
 * (T_ref the class's least iteration time on an empty network, from the
 * environment's own table), so that the controller shows the policy the
 * very X drawn.  An admitted job leaves (DELETE) when its iterations at
 * its predicted iteration time are done; time is simulated: the
 * controller's clock (lr_ctl_config.clock_ms) is the replay's.  Devices
 * are dummy ROADMs in a temporary directory.
 *
 * Blocked: an intent that ends blocked (refused by the policy, or no
 * plan; an intent the policy has no candidate for falls back to CDynP, as
 * in lightraild, which may still place it).  The first WARMUP arrivals
 * are not counted.
 *
 *   lr-bench-replay --topology F --cluster F --policy F --load L
 *       [--arrivals N] [--warmup W] [--seeds S] [--seed FIRST]
 *       [--mean-job-s M]
 *
 * prints per seed and mode the blocked fraction and the mean iteration
 * time of the admitted jobs, then the paired change of the rollout
 * against the policy alone (mean and 95% interval over seeds).  The
 * rollout's options are ppo-rollout's defaults (those the NSFNET/6 agent
 * was trained with) at the replay's load.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cblas.h>

#include "controller/lr_ctl.h"
#include "planner/lr_jenv.h"
#include "planner/lr_rng.h"
#include "planner/lr_stats.h"
#include "tools/bench/bench_jenv_case.h"
#include "yang/lr_yang.h"

#define PROG "lr-bench-replay"

struct opts {
    const char *topo, *cluster, *policy;
    double load, mean_s;
    long arrivals, warmup;
    int seeds;
    unsigned long long seed;
};

/* The replay's clock, milliseconds. */
static long long replay_ms;

static long long
replay_clock(void *arg)
{
    (void) arg;
    return replay_ms;
}

/* An admitted job's end. */
struct end {
    long long ms;
    char name[32];
};

static int
cmp_end(const void *a, const void *b)
{
    const struct end *x = a, *y = b;
    return x->ms < y->ms ? -1 : x->ms > y->ms;
}

struct result {
    double blocked, mean_t;
    long counted;
};

/* One run in directory 'dir' (its store and dummy ROADMs): the stream of
 * seed 'seed' through a new controller (with the rollout when 'ro'); 0
 * or 1 with the reason on stderr. */
static int
replay_in(const char *dir, const struct opts *o,
          const struct bench_jenv_case *bc, struct lr_jenv *env,
          const struct lr_ctl_ppo_rollout *ro, unsigned long long seed,
          struct result *out)
{
    char db[128], dev[128], err[1024];
    snprintf(db, sizeof db, "%s/db", dir);
    snprintf(dev, sizeof dev, "%s/devices", dir);
    if (mkdir(dev, 0700)) {
        fprintf(stderr, PROG ": %s: %s\n", dev, strerror(errno));
        return 1;
    }
    replay_ms = 1000000000000LL;       /* any start */
    struct lr_ctl_config cfg = {
        .db_path = db, .topo = bc->topo, .cluster = bc->cl,
        .default_driver = "dummy", .dummy_dir = dev,
        .ppo_policy = o->policy, .ppo_mean_job_s = o->mean_s,
        .ppo_rollout = ro, .clock_ms = replay_clock,
    };
    struct lr_ctl *c = NULL;
    char *report = NULL;
    if (lr_ctl_new(&cfg, &c, &report, err, sizeof err)) {
        fprintf(stderr, PROG ": %s\n", err);
        return 1;
    }
    free(report);
    bool usable;
    const char *why = lr_ctl_ppo_status(c, &usable);
    if (!usable) {
        fprintf(stderr, PROG ": the policy is unusable: %s\n",
                why ? why : "?");
        lr_ctl_free(c);
        return 1;
    }
    struct end *ends = calloc((size_t) o->arrivals + 1, sizeof *ends);
    if (!ends) {
        fprintf(stderr, PROG ": out of memory\n");
        lr_ctl_free(c);
        return 1;
    }
    int n_ends = 0;
    struct lr_rng rng;
    lr_rng_seed(&rng, seed);
    double t = 0, sum_t = 0;
    long blocked = 0, admitted = 0, counted = 0;
    for (long i = 0; i < o->arrivals; i++) {
        /* The laws of lr_jenv's next_arrival; the origin node is drawn
         * too, so the draws stay in step with it (unused here). */
        t += lr_rng_exp(&rng, o->mean_s / o->load);
        int mi = (int) lr_rng_below(&rng, BENCH_JENV_N_MODELS);
        int di = (int) lr_rng_below(&rng, 3);
        (void) lr_rng_below(&rng, (uint32_t) bc->topo->n_nodes);
        double x = lr_rng_exp(&rng, 1);
        long long now = 1000000000000LL + (long long) (t * 1000);
        /* Departures up to now, in order. */
        qsort(ends, (size_t) n_ends, sizeof *ends, cmp_end);
        int k = 0;
        while (k < n_ends && ends[k].ms <= now) {
            replay_ms = ends[k].ms;
            if (lr_ctl_delete(c, ends[k].name, err, sizeof err))
                fprintf(stderr, PROG ": delete %s: %s\n", ends[k].name,
                        err);
            k++;
        }
        memmove(ends, ends + k, (size_t) (n_ends - k) * sizeof *ends);
        n_ends -= k;
        replay_ms = now;
        if (lr_jenv_present(env, mi, di) < 0) {
            fprintf(stderr, PROG ": class %d/%d is not the environment's\n",
                    mi, di);
            lr_ctl_free(c);
            free(ends);
            return 1;
        }
        double tref = lr_jenv_job_tref(env);
        double iters = ceil(x * o->mean_s / tref);
        struct lr_intent in = { .batch = 32, .micro = 1,
                                .gpus_min = bc->cfg.demands[di],
                                .gpus_max = bc->cfg.demands[di],
                                .iterations = (uint64_t) iters };
        snprintf(in.name, sizeof in.name, "j%ld", i);
        snprintf(in.model, sizeof in.model, "%s", bench_jenv_models[mi]);
        snprintf(in.algorithm, sizeof in.algorithm, "ppo");
        struct lr_job job;
        if (lr_ctl_submit(c, &in, &job, err, sizeof err)) {
            fprintf(stderr, PROG ": submit %s: %s\n", in.name, err);
            lr_ctl_free(c);
            free(ends);
            return 1;
        }
        bool ok = job.phase == LR_JOB_ACTIVE;
        if (ok) {
            struct end *e = &ends[n_ends++];
            e->ms = now + (long long) ceil(iters * job.iteration_s * 1000);
            snprintf(e->name, sizeof e->name, "%s", in.name);
        }
        if (i >= o->warmup) {
            counted++;
            blocked += !ok;
            if (ok) {
                admitted++;
                sum_t += job.iteration_s;
            }
        }
        if ((i + 1) % 500 == 0 && isatty(STDERR_FILENO))
            fprintf(stderr, "\r" PROG ": seed %llu %s: %ld of %ld",
                    seed, ro ? "rollout" : "policy", i + 1, o->arrivals);
    }
    if (isatty(STDERR_FILENO))
        fprintf(stderr, "\n");
    out->blocked = counted ? (double) blocked / counted : 0;
    out->mean_t = admitted ? sum_t / admitted : 0;
    out->counted = counted;
    lr_ctl_free(c);
    free(ends);
    return 0;
}

/* replay_in() in a temporary directory, removed after, whatever the
 * outcome. */
static int
replay(const struct opts *o, const struct bench_jenv_case *bc,
       struct lr_jenv *env, const struct lr_ctl_ppo_rollout *ro,
       unsigned long long seed, struct result *out)
{
    char dir[] = "/tmp/lr-replay-XXXXXX", cmd[64];
    if (!mkdtemp(dir)) {
        fprintf(stderr, PROG ": mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    int rc = replay_in(dir, o, bc, env, ro, seed, out);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, PROG ": could not remove %s\n", dir);
    return rc;
}

static void
usage(FILE *f)
{
    fprintf(f, "usage: " PROG " --topology F --cluster F --policy F "
            "--load L [--arrivals N] [--warmup W] [--seeds S] [--seed "
            "FIRST] [--mean-job-s M]\n");
}

int
main(int argc, char **argv)
{
    struct opts o = { .arrivals = 2000, .warmup = 200, .seeds = 3,
                      .seed = 2001, .mean_s = 3600 };
    static const struct option lo[] = {
        { "topology", 1, NULL, 't' }, { "cluster", 1, NULL, 'c' },
        { "policy", 1, NULL, 'p' }, { "load", 1, NULL, 'l' },
        { "arrivals", 1, NULL, 'n' }, { "warmup", 1, NULL, 'w' },
        { "seeds", 1, NULL, 's' }, { "seed", 1, NULL, 'S' },
        { "mean-job-s", 1, NULL, 'm' }, { "help", 0, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int ch;
    while ((ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (ch) {
        case 't': o.topo = optarg; break;
        case 'c': o.cluster = optarg; break;
        case 'p': o.policy = optarg; break;
        case 'l': o.load = strtod(optarg, NULL); break;
        case 'n': o.arrivals = atol(optarg); break;
        case 'w': o.warmup = atol(optarg); break;
        case 's': o.seeds = atoi(optarg); break;
        case 'S': o.seed = strtoull(optarg, NULL, 10); break;
        case 'm': o.mean_s = strtod(optarg, NULL); break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (!o.topo || !o.cluster || !o.policy || !(o.load > 0)
        || o.arrivals < 1 || o.warmup < 0 || o.warmup >= o.arrivals
        || o.seeds < 1 || o.seeds > 64 || !(o.mean_s > 0)) {
        usage(stderr);
        return 2;
    }
    openblas_set_num_threads(1);
    struct ly_ctx *ctx = NULL;
    char err[512];
    if (lr_yang_ctx_new(&ctx, err, sizeof err)) {
        fprintf(stderr, PROG ": %s\n", err);
        return 1;
    }
    struct bench_jenv_case bc;
    struct lr_jenv *env = NULL;
    if (bench_jenv_case_load(ctx, PROG, o.topo, o.cluster, &bc)
        || lr_jenv_new(bc.topo, bc.cl, &bc.cfg, &env, err, sizeof err)) {
        fprintf(stderr, PROG ": %s\n", err);
        return 1;
    }
    struct lr_ctl_ppo_rollout ro = {
        .load = o.load, .samples = 100, .screen = 25, .horizon = 40,
        .top = 8, .margin = 2, .min_gpus = 8, .refusal = true, .seed = 1,
    };
    double d_block[64], d_t[64];
    printf("| seed | policy blocked | rollout blocked | change | policy "
           "mean T s | rollout mean T s |\n|---:|---:|---:|---:|---:|---:|\n");
    for (int s = 0; s < o.seeds; s++) {
        struct result a, b;
        unsigned long long seed = o.seed + (unsigned long long) s;
        ro.seed = seed;
        if (replay(&o, &bc, env, NULL, seed, &a)
            || replay(&o, &bc, env, &ro, seed, &b))
            return 1;
        d_block[s] = a.blocked > 0 ? (b.blocked - a.blocked) / a.blocked : 0;
        d_t[s] = a.mean_t > 0 ? (b.mean_t - a.mean_t) / a.mean_t : 0;
        printf("| %llu | %.3f%% | %.3f%% | %+.1f%% | %.3f | %.3f |\n", seed,
               100 * a.blocked, 100 * b.blocked, 100 * d_block[s], a.mean_t,
               b.mean_t);
        fflush(stdout);
    }
    struct lr_stats sb, st;
    lr_stats_compute(d_block, o.seeds, &sb);
    lr_stats_compute(d_t, o.seeds, &st);
    printf("\nrollout against the policy alone, paired over %d seeds: "
           "blocked %+.1f%% +- %.1f, mean iteration time %+.1f%% +- %.1f "
           "(%ld arrivals, %ld warm-up, %.2f E)\n", o.seeds,
           100 * sb.mean, 100 * sb.ci95, 100 * st.mean, 100 * st.ci95,
           o.arrivals, o.warmup, o.load);
    lr_jenv_free(env);
    bench_jenv_case_free(&bc);
    lr_yang_ctx_free(ctx);
    return 0;
}
