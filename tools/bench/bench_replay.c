/*
 * lr-bench-replay: blocking in the controller itself (controller/lr_ctl*.c,
 * what lightraild runs) under a stream of ppo intents, decided by the
 * policy alone, by its rollout (ppo-rollout), and by the baselines
 * greedy and greedy-work (lr_ctl_config.ppo_base: the same path, mirror
 * and job classes, a planner baseline instead of the agent), on the
 * same arrivals.
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
 *       [--mean-job-s M] [--modes LIST] [--work-cap THETA]
 *
 * LIST: some of greedy, greedy-work, policy, rollout (default: all, in
 * that order); THETA: greedy-work's (default 1.5).  Prints per seed and
 * mode the blocked fraction and the mean iteration time of the admitted
 * jobs, then the paired changes of each later mode against each earlier
 * one (mean and 95% interval over seeds).  The rollout's options are
 * ppo-rollout's defaults (those the NSFNET/6 agent was trained with) at
 * the replay's load.
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
#include "tools/bench/bench_opt.h"
#include "tools/lightrail/lr_opt_once.h"
#include "yang/lr_yang.h"

#define PROG "lr-bench-replay"

struct opts {
    const char *topo, *cluster, *policy, *modes;
    double load, mean_s, work_cap;
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

/* Who decides the ppo intents. */
struct mode {
    const char *name;
    const struct lr_ctl_ppo_rollout *ro;     /* the rollout, or NULL */
    const struct lr_jenv_policy *base;       /* a baseline, or NULL */
    void *base_arg;
};

/* One run in directory 'dir' (its store and dummy ROADMs): the stream of
 * seed 'seed' through a new controller (with the rollout when 'ro'); 0
 * or 1 with the reason on stderr. */
static int
replay_in(const char *dir, const struct opts *o,
          const struct bench_jenv_case *bc, struct lr_jenv *env,
          const struct mode *md, unsigned long long seed,
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
        .ppo_rollout = md->ro, .ppo_base = md->base,
        .ppo_base_arg = md->base_arg, .clock_ms = replay_clock,
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
                    seed, md->name, i + 1, o->arrivals);
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
       struct lr_jenv *env, const struct mode *md,
       unsigned long long seed, struct result *out)
{
    char dir[] = "/tmp/lr-replay-XXXXXX", cmd[64];
    if (!mkdtemp(dir)) {
        fprintf(stderr, PROG ": mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    int rc = replay_in(dir, o, bc, env, md, seed, out);
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
            "FIRST] [--mean-job-s M] [--modes greedy,greedy-work,policy,"
            "rollout] [--work-cap THETA]\n");
}

int
main(int argc, char **argv)
{
    struct opts o = { .arrivals = 2000, .warmup = 200, .seeds = 3,
                      .seed = 2001, .mean_s = 3600, .work_cap = 1.5,
                      .modes = "greedy,greedy-work,policy,rollout" };
    static const struct option lo[] = {
        { "topology", 1, NULL, 't' }, { "cluster", 1, NULL, 'c' },
        { "policy", 1, NULL, 'p' }, { "load", 1, NULL, 'l' },
        { "arrivals", 1, NULL, 'n' }, { "warmup", 1, NULL, 'w' },
        { "seeds", 1, NULL, 's' }, { "seed", 1, NULL, 'S' },
        { "mean-job-s", 1, NULL, 'm' }, { "modes", 1, NULL, 'M' },
        { "work-cap", 1, NULL, 'W' }, { "help", 0, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int ch, bad = 0;
    long first_seed = (long) o.seed;
    /* Each option that takes a value at most once (lr_opt_once.h). */
    struct lr_opt_once once = { 0 };
    while (!bad && (ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        int rc_once = lr_opt_once("lr-bench-replay", lo, ch, optarg,
                                  &once);
        if (rc_once)
            return rc_once;
        switch (ch) {
        case 't': o.topo = optarg; break;
        case 'c': o.cluster = optarg; break;
        case 'p': o.policy = optarg; break;
        case 'l':
            bad = bench_opt_double(PROG, "load", optarg, BENCH_OPT_POSITIVE,
                                   1e9, &o.load);
            break;
        case 'n':
            bad = bench_opt_long(PROG, "arrivals", optarg, 1, 1000000000L,
                                 &o.arrivals);
            break;
        case 'w':
            bad = bench_opt_long(PROG, "warmup", optarg, 0, 1000000000L,
                                 &o.warmup);
            break;
        case 's':
            bad = bench_opt_int(PROG, "seeds", optarg, 1, 64, &o.seeds);
            break;
        case 'S':
            /* lightrail sim's bound, so that a seed means the same run. */
            bad = bench_opt_long(PROG, "seed", optarg, 0, 2147483647L,
                                 &first_seed);
            break;
        case 'm':
            bad = bench_opt_double(PROG, "mean-job-s", optarg,
                                   BENCH_OPT_POSITIVE, 1e9, &o.mean_s);
            break;
        case 'M': o.modes = optarg; break;
        case 'W':
            bad = bench_opt_double(PROG, "work-cap", optarg,
                                   BENCH_OPT_POSITIVE, 1e9, &o.work_cap);
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (bad)
        return bad;
    o.seed = (unsigned long long) first_seed;
    if (!o.topo || !o.cluster || !o.policy || !(o.load > 0)) {
        usage(stderr);
        return 2;
    }
    if (o.warmup >= o.arrivals) {
        fprintf(stderr, PROG ": --warmup %ld leaves nothing of --arrivals "
                "%ld to measure: give a warmup below the arrivals\n",
                o.warmup, o.arrivals);
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
    if (bench_jenv_case_load(ctx, PROG, o.topo, o.cluster, &bc))
        return 1;                     /* it said why */
    if (lr_jenv_new(bc.topo, bc.cl, &bc.cfg, &env, err, sizeof err)) {
        fprintf(stderr, PROG ": %s\n", err);
        return 1;
    }
    struct lr_ctl_ppo_rollout ro = {
        .load = o.load, .samples = 100, .screen = 25, .horizon = 40,
        .top = 8, .margin = 2, .min_gpus = 8, .refusal = true, .seed = 1,
    };
    const struct mode all[] = {
        { "greedy", NULL, &lr_jenv_greedy, NULL },
        { "greedy-work", NULL, &lr_jenv_greedy_work, &o.work_cap },
        { "policy", NULL, NULL, NULL },
        { "rollout", &ro, NULL, NULL },
    };
    enum { N_ALL = sizeof all / sizeof *all };
    struct mode md[N_ALL];
    int n_md = 0;
    char list[256];
    snprintf(list, sizeof list, "%s", o.modes);
    for (char *save = NULL, *t = strtok_r(list, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        int k = 0;
        while (k < N_ALL && strcmp(all[k].name, t))
            k++;
        if (k == N_ALL || n_md == N_ALL) {
            fprintf(stderr, PROG ": --modes: '%s' is not one of greedy, "
                    "greedy-work, policy, rollout (each once)\n", t);
            return 2;
        }
        md[n_md++] = all[k];
    }
    static struct result res[64][N_ALL];
    printf("| seed |");
    for (int m = 0; m < n_md; m++)
        printf(" %s blocked |", md[m].name);
    for (int m = 0; m < n_md; m++)
        printf(" %s mean T s |", md[m].name);
    printf("\n|---:|");
    for (int m = 0; m < 2 * n_md; m++)
        printf("---:|");
    printf("\n");
    for (int s = 0; s < o.seeds; s++) {
        unsigned long long seed = o.seed + (unsigned long long) s;
        ro.seed = seed;
        printf("| %llu |", seed);
        for (int m = 0; m < n_md; m++) {
            if (replay(&o, &bc, env, &md[m], seed, &res[s][m]))
                return 1;
        }
        for (int m = 0; m < n_md; m++)
            printf(" %.3f%% |", 100 * res[s][m].blocked);
        for (int m = 0; m < n_md; m++)
            printf(" %.3f |", res[s][m].mean_t);
        printf("\n");
        fflush(stdout);
    }
    printf("\nPaired over %d seeds (%ld arrivals, %ld warm-up, %.2f E), "
           "mean and 95%% interval of the change:\n\n", o.seeds,
           o.arrivals, o.warmup, o.load);
    for (int j = 1; j < n_md; j++)
        for (int i = 0; i < j; i++) {
            double d_block[64], d_t[64];
            int lower = 0;
            for (int s = 0; s < o.seeds; s++) {
                const struct result *a = &res[s][i], *b = &res[s][j];
                d_block[s] = a->blocked > 0
                             ? (b->blocked - a->blocked) / a->blocked : 0;
                d_t[s] = a->mean_t > 0 ? (b->mean_t - a->mean_t) / a->mean_t
                                       : 0;
                lower += b->blocked < a->blocked;
            }
            struct lr_stats sb, st;
            lr_stats_compute(d_block, o.seeds, &sb);
            lr_stats_compute(d_t, o.seeds, &st);
            printf("- %s against %s: blocked %+.1f%% +- %.1f (lower on %d "
                   "of %d seeds), mean iteration time %+.1f%% +- %.1f\n",
                   md[j].name, md[i].name, 100 * sb.mean, 100 * sb.ci95,
                   lower, o.seeds, 100 * st.mean, 100 * st.ci95);
        }
    lr_jenv_free(env);
    bench_jenv_case_free(&bc);
    lr_yang_ctx_free(ctx);
    return 0;
}
