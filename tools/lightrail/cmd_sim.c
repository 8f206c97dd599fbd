/*
 * lightrail sim: the joint multi-job simulator (planner/lr_jenv.h) for
 * the baselines, and for a trained PPO policy, over a range of loads.
 *
 * Each (policy, load) cell runs seeds S..S+N-1; every metric is reported
 * as the mean over seeds with the half-width of its 95% confidence
 * interval (Student t, planner/lr_stats.h).  One JSON object per cell
 * with --format json; with --plot DIR, one PNG per metric against load.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cblas.h>

#include <json-c/json.h>

#include "planner/lr_jenv.h"
#include "planner/lr_ppo.h"
#include "planner/lr_stats.h"
#include "planner/lr_util.h"
#include "tools/lightrail/lr_cli.h"
#include "planner/lr_lossbound.h"
#include "tools/lightrail/lr_jenv_cli.h"
#include "tools/lightrail/lr_rollout_cli.h"
#include "tools/lightrail/lr_sim_trace.h"
#include "tools/lightrail/lr_plot.h"
#include "tools/lightrail/lr_plot_title.h"
#include "tools/lightrail/lr_policy_file.h"
#include "planner/lr_jenv_rollout.h"

#define CMD "sim"
#define MAX_LOADS 200
#define MAX_POLICIES 16
#define N_METRICS 7
/* Value iterations of the pooled bound's optimal admission: 0.7 s at
 * 1e5 E on the metro, where it has not converged yet. */
#define BOUND_MAX_ITER 200000

/* Each metric's JSON key, its PNG, the words of its plot's title and
 * its y axis' label, with the unit (a share is of 1, not per cent). */
static const struct {
    const char *key, *file, *words, *label;
} metrics[N_METRICS] = {
    { "blocking", "blocking.png", "blocking",
      "blocking probability (blocked / arrivals)" },
    { "mean_iteration_s", "iteration-time.png", "mean iteration time",
      "mean iteration time of admitted jobs (s)" },
    { "gpu_utilisation", "gpu-utilisation.png", "GPU utilisation",
      "GPU utilisation (share of GPUs busy, time average)" },
    { "dc_load_variance", "dc-load-variance.png",
      "variance of GPU use across DCs",
      "variance across DCs of the share of GPUs busy (time average)" },
    { "spectrum_utilisation", "spectrum-utilisation.png",
      "spectrum utilisation",
      "spectrum utilisation (share of slots in use, time average)" },
    { "mean_slowdown", "slowdown.png", "mean slowdown",
      "mean T / T_ref of admitted jobs (1 = best on an empty network)" },
    /* Refused on purpose / arrivals: part of blocking, not on top. */
    { "refused", "refused.png", "jobs refused on purpose",
      "jobs refused on purpose (share of arrivals, in blocking)" },
};

struct opts {
    struct lr_jenv_cli_opts env;
    const char *policies, *policy_file, *plot;
    bool json;
    int seeds, quiet;
    unsigned long long seed;
    long arrivals, warmup;
    double cap;                   /* greedy-cap's theta */
    double work_cap;              /* greedy-work's theta */
    bool cap_set, work_cap_set;   /* given: their policy must run */
    const char *rollout;          /* the rollout policy's base, or NULL */
    const char *paired;           /* --paired: the policy compared with */
    const char *trace;            /* --trace: the decisions' file */
    struct lr_jenv_rollout_config ro;
    double loads[MAX_LOADS];
    int n_loads;
};

static void
usage(FILE *f)
{
    fprintf(f,
"usage: lightrail sim --topology FILE --cluster FILE\n"
"                     (--policy NAME[,NAME...]|all | --policy-file FILE)\n"
"                     --loads E|FROM:TO:STEP [--seeds N] [--seed S]\n"
"                     [--arrivals N] [--warmup N] [--format text|json]\n"
"                     [--plot DIR] [--trace FILE] [--quiet]\n"
"                     [environment options]\n"
"\n"
"Simulates training jobs arriving at data centers on an optical network\n"
"(Poisson arrivals, exponential holding time of mean 1, stretched by the\n"
"job's slowdown with --holding work; load in Erlang = arrival rate x mean\n"
"holding time at the fastest placement).  Each job gets GPUs in one or two\n"
"DCs (or three, --triples; four, --quads), a CDynP stage partition and,\n"
"between two DCs of its chain, a lightpath each way (route, modulation,\n"
"slots, 100/200/400G); a job with no feasible choice is blocked.\n"
"Reports per policy and load, mean over seeds with a 95%% confidence\n"
"interval: blocking, mean iteration time of admitted jobs, GPU\n"
"utilisation, variance of load across DCs, spectrum utilisation; the\n"
"iteration time and the slowdown over the seeds whose run admitted a\n"
"job (n/a, null in JSON, when none did; seeds_admitting counts them).\n"
"The table shows the intervals of blocking and of the iteration time;\n"
"JSON (KEY_ci95) and the plots (error bars) give every metric's.\n"
"Results are printed when every run is done: stopped before (Ctrl-C,\n"
"SIGTERM), sim prints none and leaves the --trace file cut short, its\n"
"last line perhaps incomplete, and no plot.\n"
"\n"
"  --policy LIST       comma-separated baselines, or 'all'\n"
"  --policy-file FILE  a trained PPO policy (lightrail train); may be given\n"
"                      with --policy to compare; its job mix, batch, K,\n"
"                      block penalty and holding mode (unless --holding\n"
"                      is given) replace the environment options (--models,\n"
"                      --demands, --batch, --microbatch, --k and\n"
"                      --block-penalty, if given, must be the file's),\n"
"                      and so do its GPU shares (--splits, if given, must\n"
"                      be the file's); a policy trained with --refuse may\n"
"                      refuse jobs (counted as blocked and as refused)\n"
"  --loads A:B:S       loads A, A+S, ... up to B (Erlang), at most 200\n"
"                      loads, each to the decimals of A and S (3:3.3:0.1\n"
"                      runs 3.3); one number E: that load alone\n"
"  --seeds N           runs per (policy, load), seeds S..S+N-1 (default 5;\n"
"                      one seed gives no confidence interval: it reads 0)\n"
"  --seed S            first seed (default 1001, never used by train)\n"
"  --arrivals N        jobs per run, warm-up included (default 5000)\n"
"  --warmup N          jobs not counted at the start (default 500)\n"
"  --format FMT        text (a table) or json (one object per line: the\n"
"                      metrics, the environment, and what the row's\n"
"                      policy ran with: cap, work_cap, policy_file,\n"
"                      rollout_*)\n"
"  --plot DIR          one PNG per metric against load in DIR (gnuplot)\n"
"  --cap THETA         greedy-cap refuses a job whose least slowdown\n"
"                      T / T_ref exceeds THETA (>= 1; default 3); only\n"
"                      with greedy-cap run\n"
"  --work-cap THETA    greedy-work (with --known-work) refuses a job whose\n"
"                      GPUs x work x slowdown exceed THETA x the\n"
"                      cluster's GPUs (> 0; default 1); only with\n"
"                      greedy-work run\n"
"  --paired NAME       also the change of blocking and of the mean\n"
"                      iteration time of every other policy against\n"
"                      NAME (one of those run: a baseline, ppo or\n"
"                      rollout-BASE), seed by seed on the same arrivals:\n"
"                      mean, 95%% CI and the seeds where it is lower; a\n"
"                      seed where NAME's is 0 and the other's is not has\n"
"                      no ratio and is left out (and counted), as is one\n"
"                      where a run admitted no job (no iteration time)\n"
"  --trace FILE        every decision of every run, one JSON object per\n"
"                      line: the job, the free GPUs of each DC, and the\n"
"                      DCs, GPUs and lightpath chosen, or blocked, and\n"
"                      for a rollout policy whether it left its base\n"
"                      (keys: tools/lightrail/lr_sim_trace.h); one line\n"
"                      per decision: a job that fits no candidate is\n"
"                      blocked before any policy sees it and has none\n"
"  --quiet             no progress on stderr (else a line redrawn on a\n"
"                      terminal, or one every 30 s in a log:\n"
"                      LIGHTRAIL_PROGRESS_SECONDS sets the interval)\n"
"\n"
"The rollout policy of a base policy (planner/lr_jenv_rollout.h): at each\n"
"decision it simulates the base's choice and other candidates over the\n"
"same random futures, the base deciding later jobs, and leaves the base\n"
"only when another choice blocks fewer by a margin.  Slow: about\n"
"M x (N + 1) x H environment steps per job it deliberates on.\n"
"  --rollout BASE      add it, for a baseline BASE or 'ppo' (the agent of\n"
"                      --policy-file); named rollout-BASE in the output\n"
"%s"
"%s"
"\n"
"baselines:\n", lr_rollout_cli_help, lr_jenv_cli_help);
    for (int i = 0; lr_jenv_policies[i]; i++)
        fprintf(f, "  %-10s %s\n", lr_jenv_policies[i]->name,
                lr_jenv_policies[i]->summary);
    fprintf(f, "\nexit status: 0 done, 1 internal failure, 2 bad input\n");
}

static int
parse_args(int argc, char **argv, struct opts *o)
{
    enum { O_TOPO = 256, O_CLUSTER, O_POLICY, O_PFILE, O_LOADS, O_SEEDS,
           O_SEED, O_ARR, O_WARM, O_FORMAT, O_PLOT, O_QUIET, O_CAP, O_WCAP,
           O_RO, O_PAIRED, O_TRACE, O_HELP };
    static const struct option longopts[] = {
        { "topology", required_argument, NULL, O_TOPO },
        { "cluster", required_argument, NULL, O_CLUSTER },
        { "policy", required_argument, NULL, O_POLICY },
        { "policy-file", required_argument, NULL, O_PFILE },
        { "loads", required_argument, NULL, O_LOADS },
        { "seeds", required_argument, NULL, O_SEEDS },
        { "seed", required_argument, NULL, O_SEED },
        { "arrivals", required_argument, NULL, O_ARR },
        { "warmup", required_argument, NULL, O_WARM },
        { "format", required_argument, NULL, O_FORMAT },
        { "plot", required_argument, NULL, O_PLOT },
        { "quiet", no_argument, NULL, O_QUIET },
        { "cap", required_argument, NULL, O_CAP },
        { "work-cap", required_argument, NULL, O_WCAP },
        { "rollout", required_argument, NULL, O_RO },
        { "paired", required_argument, NULL, O_PAIRED },
        { "trace", required_argument, NULL, O_TRACE },
        LR_ROLLOUT_CLI_LONGOPTS,
        LR_JENV_CLI_LONGOPTS,
        { "help", no_argument, NULL, O_HELP },
        { NULL, 0, NULL, 0 },
    };
    long v;
    int c;
    /* The first rollout option given, which only --rollout uses. */
    const char *ro_opt = NULL;
    /* Each option that takes a value at most once (lr_cli_once()). */
    struct lr_cli_once once = { 0 };
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        int rc_once = lr_cli_once(CMD, longopts, c, optarg, &once);
        if (rc_once)
            return rc_once;
        const char *bad = NULL;
        switch (c) {
        case O_TOPO: o->env.topology = optarg; break;
        case O_CLUSTER: o->env.cluster = optarg; break;
        case O_POLICY: o->policies = optarg; break;
        case O_PFILE: o->policy_file = optarg; break;
        case O_LOADS:
            o->n_loads = lr_cli_parse_loads(optarg, o->loads, MAX_LOADS);
            if (o->n_loads < 1)
                bad = "--loads wants a load E > 0, or FROM:TO:STEP with "
                      "0 < FROM <= TO, STEP > 0, at most 200 loads";
            break;
        case O_SEEDS:
            if (lr_parse_long(optarg, 1, 10000, &v))
                bad = "--seeds wants an integer in 1..10000";
            o->seeds = (int) v;
            break;
        case O_SEED:
            if (lr_parse_long(optarg, 0, 2147483647L, &v))
                bad = "--seed wants a non-negative integer, up to 2147483647";
            o->seed = (unsigned long long) v;
            break;
        case O_ARR:
            if (lr_parse_long(optarg, 1, 1000000000L, &v))
                bad = "--arrivals wants a positive integer, up to 1000000000";
            o->arrivals = v;
            break;
        case O_WARM:
            if (lr_parse_long(optarg, 0, 1000000000L, &v))
                bad = "--warmup wants a non-negative integer, "
                    "up to 1000000000";
            o->warmup = v;
            break;
        case O_FORMAT:
            bad = lr_cli_parse_format(optarg, &o->json);
            break;
        case O_PLOT: o->plot = optarg; break;
        case O_QUIET: o->quiet = 1; break;
        case O_CAP:
            if (lr_parse_double(optarg, 1, 1e9, &o->cap))
                bad = "--cap wants a slowdown in [1, 1e9]";
            o->cap_set = true;
            break;
        case O_WCAP:
            if (lr_parse_double(optarg, 1e-9, 1e9, &o->work_cap))
                bad = "--work-cap wants a positive number, up to 1e9";
            o->work_cap_set = true;
            break;
        case O_RO: o->rollout = optarg; break;
        case O_PAIRED: o->paired = optarg; break;
        case O_TRACE: o->trace = optarg; break;
        case O_HELP:
            usage(stdout);
            return -1;
        default:
            if (!lr_rollout_cli_env_option(c, optarg, &o->ro, &o->env,
                                           &ro_opt, &bad))
                return lr_cli_bad_option(CMD, argv, optind);
        }
        if (bad)
            return lr_cli_bad_value(CMD, bad, optarg);
    }
    if (lr_cli_extra_args(CMD, argc, argv, optind))
        return LR_EXIT_USAGE;
    if (ro_opt && !o->rollout) {
        lr_cli_err(CMD, "--%s sets the rollout policy: add --rollout BASE",
                   ro_opt);
        return LR_EXIT_USAGE;
    }
    if (!o->policies && !o->policy_file && !o->rollout) {
        lr_cli_err(CMD, "give --policy NAME[,NAME...]|all, --policy-file "
                   "FILE or --rollout BASE (see --help for the baselines)");
        return LR_EXIT_USAGE;
    }
    if (o->n_loads == 0) {
        lr_cli_err(CMD, "--loads E|FROM:TO:STEP is required, e.g. --loads "
                   "2:10:2 or --loads 3");
        return LR_EXIT_USAGE;
    }
    if (o->warmup >= o->arrivals) {
        lr_cli_err(CMD, "--warmup (%ld) must be below --arrivals (%ld)",
                   o->warmup, o->arrivals);
        return LR_EXIT_USAGE;
    }
    return LR_EXIT_OK;
}

/* One policy to run: a baseline, or the PPO policy with its state. */
struct entry {
    const struct lr_jenv_policy *p;
    void *arg;
    const char *name;             /* in the output, if not p->name */
};

static int
parse_policies(const char *list, struct entry *out, int max)
{
    const char *names[32];
    int idx[32], n_names = 0;
    while (n_names < 32 && lr_jenv_policies[n_names]) {
        names[n_names] = lr_jenv_policies[n_names]->name;
        n_names++;
    }
    int n = lr_cli_pick_names(CMD, list, names, n_names,
                              "; a trained policy comes with --policy-file",
                              idx, max < 32 ? max : 32);
    for (int i = 0; i < n; i++)
        out[i].p = lr_jenv_policies[idx[i]];
    return n;
}

struct cell {
    const char *policy;
    const struct lr_jenv_policy *p;   /* the row's policy */
    double load;
    struct lr_stats m[N_METRICS];
    /* Seeds whose run admitted a job after the warm-up: the mean
     * iteration time and slowdown (m[1], m[5]) are over these alone,
     * a run that admitted none having no such figure (m[i].n = 0: null
     * in JSON, n/a in the table). */
    int admitting;
    bool rollout;                 /* a rollout policy: 'deviated' is set */
    double deviated;              /* its choices not the base's, per job */
    double *block, *iter;         /* per seed (in the caller's arrays) */
    /* --paired: the change against the base's cell at this load. */
    bool paired;
    struct lr_stats d_block, d_iter;
    int lower;                    /* seeds where it blocks less */
    int block_undefined;          /* seeds where only the base's is 0 */
    int iter_undefined;           /* or only its own (no job admitted) */
};

/* Moves to the front of the mean iteration time's and the slowdown's
 * rows of x[N_METRICS][seeds] the seeds whose run admitted a job (their
 * iteration time in iter[] > 0; lr_jenv_metrics reads 0 for a run that
 * admitted none), and returns their count.  A 0 averaged in made the
 * mean over seeds a fraction of the admitting seeds' (and a slowdown
 * below its floor of 1). */
static int
keep_admitting(double *x, int seeds, const double *iter)
{
    int n = 0;
    for (int s = 0; s < seeds; s++)
        if (iter[s] > 0) {
            x[1 * seeds + n] = x[1 * seeds + s];
            x[5 * seeds + n] = x[5 * seeds + s];
            n++;
        }
    return n;
}

/* c's paired change against 'base' (the same seeds, the same arrivals):
 * per seed (x - x_base) / x_base; 0 where both are 0, and left out where
 * only the base's is 0 (no ratio; counted in 'undefined'), which once
 * counted as no change and flattered a policy that blocked where the
 * base blocked nothing.  With 'zero_is_none' (the mean iteration time,
 * 0 when a run admitted no job) a seed where only x is 0 has no figure
 * either: it is left out and counted, not a change of -100%, which
 * made a policy that admitted nothing the fastest. */
static void
pair_metric(const double *x, const double *base, int seeds, bool zero_is_none,
            double *d, struct lr_stats *out, int *undefined)
{
    int n = 0;
    *undefined = 0;
    for (int s = 0; s < seeds; s++) {
        if (base[s] > 0 && (x[s] > 0 || !zero_is_none))
            d[n++] = (x[s] - base[s]) / base[s];
        else if (x[s] > 0 || base[s] > 0)
            ++*undefined;
        else
            d[n++] = 0;
    }
    lr_stats_compute(d, n, out);
}

/* A paired change for the text table: mean and 95% CI in percent, the
 * mean 'width' wide; "n/a" when no seed gave a ratio (JSON's null),
 * which the mean of no seeds (0) would have shown as no change, and a
 * CI of "n/a" when one seed alone did (its CI would read 0, a certainty
 * one seed of several does not give). */
static void
change_text(const struct lr_stats *d, int width, char *buf, size_t len)
{
    if (d->n > 1)
        snprintf(buf, len, "%+*.1f%% +-%4.1f", width, 100 * d->mean,
                 100 * d->ci95);
    else if (d->n == 1)
        snprintf(buf, len, "%+*.1f%% +- n/a", width, 100 * d->mean);
    else
        snprintf(buf, len, "%*s", width + 8, "n/a");
}

static void
pair_cells(struct cell *c, const struct cell *base, int seeds, double *d)
{
    c->paired = true;
    c->lower = 0;
    for (int s = 0; s < seeds; s++)
        c->lower += c->block[s] < base->block[s];
    pair_metric(c->block, base->block, seeds, false, d, &c->d_block,
                &c->block_undefined);
    pair_metric(c->iter, base->iter, seeds, true, d, &c->d_iter,
                &c->iter_undefined);
}

/* A paired change into 'j': KEY (null when no seed gives a ratio),
 * KEY_ci95 (null unless two seeds or more give one) and KEY_undefined
 * (the seeds left out). */
static void
add_change(json_object *j, const char *key, const struct lr_stats *d,
           int undefined)
{
    char k[64];
    json_object_object_add(j, key, d->n ? json_object_new_double(d->mean)
                                        : NULL);
    snprintf(k, sizeof k, "%s_ci95", key);
    json_object_object_add(j, k, d->n > 1 ? json_object_new_double(d->ci95)
                                          : NULL);
    snprintf(k, sizeof k, "%s_undefined", key);
    json_object_object_add(j, k, json_object_new_int(undefined));
}

/* What a row's policy was run with: greedy-cap's and greedy-work's
 * thresholds, ppo's file, the rollout policy's search (and its base's).
 * Each changes the row's numbers and was said nowhere: two runs of
 * greedy-cap at --cap 1.5 and 3 printed the same settings. */
struct row_settings {
    bool cap, work_cap, policy_file, rollout;
};

static struct row_settings
row_settings(const struct opts *o, const struct lr_jenv_policy *p)
{
    bool ro = p == &lr_jenv_rollout_policy;
    const struct lr_jenv_policy *q = ro ? o->ro.base : p;
    return (struct row_settings) {
        .cap = q == &lr_jenv_greedy_cap,
        .work_cap = q == &lr_jenv_greedy_work,
        .policy_file = q == &lr_ppo_jenv_policy,
        .rollout = ro,
    };
}

static void
json_settings(json_object *j, const struct opts *o,
              const struct lr_jenv_policy *p)
{
    struct row_settings r = row_settings(o, p);
    if (r.cap)
        json_object_object_add(j, "cap", json_object_new_double(o->cap));
    if (r.work_cap)
        json_object_object_add(j, "work_cap",
                               json_object_new_double(o->work_cap));
    if (r.policy_file)
        json_object_object_add(j, "policy_file",
                               json_object_new_string(o->policy_file));
    if (!r.rollout)
        return;
    const struct lr_jenv_rollout_config *c = &o->ro;
    json_object_object_add(j, "rollout_samples",
                           json_object_new_int(c->samples));
    json_object_object_add(j, "rollout_top", json_object_new_int(c->top));
    json_object_object_add(j, "rollout_horizon",
                           json_object_new_int64(c->horizon));
    json_object_object_add(j, "rollout_margin",
                           json_object_new_double(c->margin));
    json_object_object_add(j, "rollout_min_gpus",
                           json_object_new_int(c->min_gpus));
    json_object_object_add(j, "rollout_refusal",
                           json_object_new_boolean(c->refusal));
    json_object_object_add(j, "rollout_screen",
                           json_object_new_int(c->screen));
}

/* The same, a line each under the table's first lines, for the policies
 * run (pol[n]). */
static void
print_settings(const struct opts *o, const struct entry *pol, int n)
{
    struct row_settings any = { false, false, false, false };
    for (int i = 0; i < n; i++) {
        struct row_settings r = row_settings(o, pol[i].p);
        any.cap |= r.cap;
        any.work_cap |= r.work_cap;
        any.policy_file |= r.policy_file;
        any.rollout |= r.rollout;
    }
    if (any.cap)
        printf("# greedy-cap refuses a job whose least slowdown exceeds "
               "%g (--cap)\n", o->cap);
    if (any.work_cap)
        printf("# greedy-work refuses a job whose GPUs x work x slowdown "
               "exceed %g x the cluster's GPUs (--work-cap)\n", o->work_cap);
    if (any.policy_file)
        printf("# ppo: the policy of %s\n", o->policy_file);
    if (any.rollout)
        printf("# rollout-%s: %d futures per alternative, the base's "
               "choice and %d others, horizon %ld, margin %g, jobs of %d "
               "GPUs or more%s, screen %d\n", o->ro.base->name,
               o->ro.samples, o->ro.top, o->ro.horizon, o->ro.margin,
               o->ro.min_gpus, o->ro.refusal ? ", refusal tried" : "",
               o->ro.screen);
}

static void
print_json(const struct opts *o, const struct cell *c)
{
    json_object *j = json_object_new_object();
    json_object_object_add(j, "policy", json_object_new_string(c->policy));
    json_object_object_add(j, "load", lr_cli_json_number(c->load));
    for (int i = 0; i < N_METRICS; i++) {
        char key[64];
        bool none = c->m[i].n == 0;   /* no seed admitted a job */
        json_object_object_add(j, metrics[i].key, none ? NULL
                               : json_object_new_double(c->m[i].mean));
        snprintf(key, sizeof key, "%s_ci95", i == 0 ? "blocking"
                 : metrics[i].key);
        json_object_object_add(j, key, none ? NULL
                               : json_object_new_double(c->m[i].ci95));
    }
    json_object_object_add(j, "seeds_admitting",
                           json_object_new_int(c->admitting));
    if (c->rollout)
        json_object_object_add(j, "deviated",
                               json_object_new_double(c->deviated));
    /* Per seed, for paired comparisons (the same seed gives every policy
     * the same arrivals). */
    json_object *ps = json_object_new_array();
    for (int s = 0; s < o->seeds; s++)
        json_object_array_add(ps, json_object_new_double(c->block[s]));
    json_object_object_add(j, "blocking_per_seed", ps);
    if (c->paired) {
        json_object_object_add(j, "paired_with",
                               json_object_new_string(o->paired));
        add_change(j, "blocking_change", &c->d_block, c->block_undefined);
        json_object_object_add(j, "seeds_lower",
                               json_object_new_int(c->lower));
        add_change(j, "mean_iteration_change", &c->d_iter,
                   c->iter_undefined);
    }
    json_object_object_add(j, "seeds", json_object_new_int(o->seeds));
    json_object_object_add(j, "first_seed",
                           json_object_new_int64((int64_t) o->seed));
    json_object_object_add(j, "arrivals", json_object_new_int64(o->arrivals));
    json_object_object_add(j, "warmup", json_object_new_int64(o->warmup));
    json_object_object_add(j, "holding", json_object_new_string(
                               lr_jenv_holding_name(o->env.holding_mode)));
    /* The environment the text's first line names, so that a line read
     * alone says what it measured (a --policy-file's mix included). */
    json_object_object_add(j, "topology",
                           json_object_new_string(o->env.topology));
    json_object_object_add(j, "cluster",
                           json_object_new_string(o->env.cluster));
    json_object_object_add(j, "models", json_object_new_string(o->env.models));
    json_object_object_add(j, "demands",
                           json_object_new_string(o->env.demands));
    json_object_object_add(j, "batch", json_object_new_double(o->env.batch));
    json_object_object_add(j, "microbatch",
                           json_object_new_double(o->env.micro));
    json_object_object_add(j, "k", json_object_new_int(o->env.k));
    if (!lr_jenv_splits_default(o->env.splits, o->env.n_splits)) {
        char v[96];
        lr_jenv_splits_format(o->env.splits, o->env.n_splits, v, sizeof v);
        json_object_object_add(j, "splits", json_object_new_string(v));
    }
    if (o->env.known_work)
        json_object_object_add(j, "known_work", json_object_new_boolean(1));
    if (o->env.held_work)
        json_object_object_add(j, "held_work", json_object_new_boolean(1));
    if (o->env.triples)
        json_object_object_add(j, "triples", json_object_new_boolean(1));
    if (o->env.quads)
        json_object_object_add(j, "quads", json_object_new_boolean(1));
    json_settings(j, o, c->p);
    printf("%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
    json_object_put(j);
}

/* The width of the text table's policy column: its longest name, so
 * that a long one (rollout-greedy-cap) leaves the row's figures under
 * their header; at least that of the header "policy" and of the 14
 * columns the table had, so that the usual rows read as before. */
static int
policy_width(const struct cell *cells, int n)
{
    int w = 14;
    for (int i = 0; i < n; i++)
        if ((int) strlen(cells[i].policy) > w)
            w = (int) strlen(cells[i].policy);
    return w;
}

/* The pooled bound (planner/lr_lossbound.h) under the table: the least
 * blocking any policy could reach if every GPU were in one DC.  Only a
 * bound when holding times do not depend on the placement. */
static void
print_bound(const struct opts *o, const struct lr_jenv_cli *j)
{
    if (o->env.holding_mode != LR_JENV_HOLD_EXP) {
        printf("# pooled bound: not shown with --holding work (the "
               "placement changes the holding time)\n");
        return;
    }
    int gpus = 0;
    for (int d = 0; d < j->cl->n_dcs; d++)
        gpus += lr_jenv_dc_gpus(j->env, d);
    for (int l = 0; l < o->n_loads; l++) {
        struct lr_lossbound_class cl[LR_JENV_MAX_DEMANDS];
        int n = 0;
        for (int i = 0; i < j->cfg.n_demands; i++) {
            int k = 0;
            while (k < n && cl[k].demand != j->cfg.demands[i])
                k++;
            if (k == n)
                cl[n++] = (struct lr_lossbound_class) {
                    j->cfg.demands[i], 0 };
            cl[k].load += o->loads[l] / j->cfg.n_demands;
        }
        struct lr_lossbound cs, opt;
        char ld[32];
        lr_cli_format_load(o->loads[l], 2, ld, sizeof ld);
        int rc = lr_lossbound_cs(gpus, cl, n, &cs);
        if (!rc)
            rc = lr_lossbound_optimal(gpus, cl, n, 1e-12, BOUND_MAX_ITER,
                                      &opt);
        if (rc) {
            /* ETIMEDOUT is lr_lossbound's "out of iterations", whose
             * strerror() ("Connection timed out") says nothing here. */
            char why[128];
            if (rc == ETIMEDOUT)
                snprintf(why, sizeof why, "the optimal admission did not "
                         "converge in %d iterations of value iteration",
                         BOUND_MAX_ITER);
            else
                snprintf(why, sizeof why, "%s", rc == E2BIG
                         ? "too many states" : strerror(rc));
            printf("# pooled bound at %s E: not computed: %s\n", ld, why);
            continue;
        }
        printf("# pooled bound at %s E: no policy blocks less than "
               "%.3f%% (all %d GPUs in one pool; %s)\n", ld,
               100 * opt.blocking, gpus, opt.refusing_states
               ? "refusing some jobs on purpose" : "admitting whenever "
               "they fit is optimal");
    }
}

/* 0 if write_plots() can make or fill the folder 'dir', else an errno:
 * checked before the runs, which may take hours, and without creating
 * it, so that a run refused later leaves nothing behind. */
static int
plot_dir_usable(const char *dir)
{
    struct stat st;
    if (!stat(dir, &st))
        return !S_ISDIR(st.st_mode) ? ENOTDIR
               : access(dir, W_OK | X_OK) ? errno : 0;
    if (errno != ENOENT)
        return errno;
    /* write_plots() makes it: its parent must take a new entry. */
    char path[4096];
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    snprintf(path, sizeof path, "%.*s", (int) n, dir);
    return lr_cli_file_writable(path);
}

static int
write_plots(const struct opts *o, const char *topo, const struct cell *cells,
            int n)
{
    char err[512], path[4096], title[1024];
    if (mkdir(o->plot, 0777) && errno != EEXIST) {
        lr_cli_err(CMD, "--plot %s: cannot create the directory: %s",
                   o->plot, strerror(errno));
        return LR_EXIT_FAIL;
    }
    /* Every environment option off its default changes every figure
     * (--holding work: a faster placement lowers the load; --triples,
     * --demands, --known-work: other jobs or choices), so the titles
     * name each; a default run's title stays short. */
    char setup[512];
    lr_plot_env_words(&o->env, setup, sizeof setup);
    const char *extra = setup[0] ? setup : NULL;
    for (int mi = 0; mi < N_METRICS; mi++) {
        lr_plot_load_title(topo, metrics[mi].words, extra, o->seed, o->seeds,
                           title, sizeof title);
        struct lr_plot *p = lr_plot_new(title, "load (Erlang)",
                                        metrics[mi].label, false);
        int rc = p ? 0 : ENOMEM;
        for (int i = 0; !rc && i < n; i++)
            if (cells[i].m[mi].n > 0)   /* else no job admitted: no point */
                rc = lr_plot_add(p, cells[i].policy, cells[i].load,
                                 cells[i].m[mi].mean, cells[i].m[mi].ci95);
        snprintf(path, sizeof path, "%s/%s", o->plot, metrics[mi].file);
        if (rc) {
            lr_cli_err(CMD, "out of memory");
        } else if ((rc = lr_plot_write_png(p, path, err, sizeof err))) {
            lr_cli_err(CMD, "%s", err);
        }
        lr_plot_free(p);
        if (rc)
            return LR_EXIT_FAIL;
        if (!o->quiet)
            fprintf(stderr, "%s: wrote %s\n", CMD, path);
    }
    return LR_EXIT_OK;
}

/* qsort()'s order of two item strings (const char **). */
static int
item_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* Whether the comma-separated lists a and b hold the same items as
 * many times each, in any order: the job mix draws uniformly from the
 * list, so its order says nothing.  With 'numbers', items are compared
 * as the integers they spell ("08" is 8), as --demands reads them.
 * Lists of more than LR_JENV_MAX_MODELS or LR_JENV_MAX_DEMANDS items
 * (refused when read) or with an item that is no integer are not the
 * same. */
static bool
same_mix(const char *a, const char *b, bool numbers)
{
    enum { MAX = LR_JENV_MAX_MODELS > LR_JENV_MAX_DEMANDS
                 ? LR_JENV_MAX_MODELS : LR_JENV_MAX_DEMANDS };
    char buf[2][512], num[2][MAX][24];
    const char *items[2][MAX];
    int n[2] = { 0, 0 };
    const char *lists[2] = { a, b };

    for (int l = 0; l < 2; l++) {
        if (strlen(lists[l]) >= sizeof buf[l])
            return false;
        strcpy(buf[l], lists[l]);
        for (char *p = buf[l], *t; (t = strsep(&p, ","));) {
            if (n[l] == MAX)
                return false;
            if (numbers) {
                long v;
                if (lr_parse_long(t, 0, 1000000000L, &v))
                    return false;
                snprintf(num[l][n[l]], sizeof num[l][n[l]], "%ld", v);
                t = num[l][n[l]];
            }
            items[l][n[l]++] = t;
        }
        qsort(items[l], (size_t) n[l], sizeof items[l][0], item_cmp);
    }
    if (n[0] != n[1])
        return false;
    for (int i = 0; i < n[0]; i++)
        if (strcmp(items[0][i], items[1][i]))
            return false;
    return true;
}

/* 'v' into buf[size] with the fewest significant digits that read back
 * as v: %g's six would print a value given near the file's (2.0000001)
 * as the file's own (2), and the refusal would contradict itself. */
static void
exact_number(double v, char *buf, size_t size)
{
    for (int digits = 6; digits <= 17; digits++) {
        snprintf(buf, size, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

/* True, with the reason on stderr, when an option of the job mix or
 * shape was given with a value other than the policy file's: the file's
 * would replace it, and the run would not be the one asked for. */
static bool
file_env_conflict(const struct opts *o, const struct lr_policy_meta *meta)
{
    const struct lr_jenv_cli_opts *e = &o->env;
    char mine[2][64];
    snprintf(mine[0], sizeof mine[0], "%d", meta->k);
    snprintf(mine[1], sizeof mine[1], "%d", e->k);
    char num[6][32];
    exact_number(meta->batch, num[0], sizeof num[0]);
    exact_number(e->batch, num[1], sizeof num[1]);
    exact_number(meta->micro, num[2], sizeof num[2]);
    exact_number(e->micro, num[3], sizeof num[3]);
    exact_number(meta->block_penalty, num[4], sizeof num[4]);
    exact_number(e->block_penalty, num[5], sizeof num[5]);
    const struct {
        unsigned bit;
        const char *opt, *file, *given;
        bool differs;
    } rows[] = {
        { LR_JENV_GIVEN_MODELS, "--models", meta->models,
          e->models ? e->models : "", !e->models
          || !same_mix(e->models, meta->models, false) },
        { LR_JENV_GIVEN_DEMANDS, "--demands", meta->demands,
          e->demands ? e->demands : "", !e->demands
          || !same_mix(e->demands, meta->demands, true) },
        { LR_JENV_GIVEN_BATCH, "--batch", num[0], num[1],
          e->batch != meta->batch },
        { LR_JENV_GIVEN_MICRO, "--microbatch", num[2], num[3],
          e->micro != meta->micro },
        { LR_JENV_GIVEN_K, "--k", mine[0], mine[1], e->k != meta->k },
        { LR_JENV_GIVEN_PENALTY, "--block-penalty", num[4], num[5],
          e->block_penalty != meta->block_penalty },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        if (!(e->given & rows[i].bit) || !rows[i].differs)
            continue;
        lr_cli_err(CMD, "%s: trained with %s %s, not %s: drop %s (the "
                   "file's is used) or give %s", o->policy_file, rows[i].opt,
                   rows[i].file, rows[i].given, rows[i].opt, rows[i].file);
        return true;
    }
    return false;
}

int
lr_cmd_sim(int argc, char **argv)
{
    struct opts o = {
        .env = { LR_JENV_CLI_DEFAULTS }, .seeds = 5, .seed = 1001,
        .arrivals = 5000, .warmup = 500, .cap = LR_JENV_CAP_DEFAULT,
        .work_cap = LR_JENV_WORK_CAP_DEFAULT,
        .ro = { LR_JENV_ROLLOUT_DEFAULTS },
    };
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc < 0 ? LR_EXIT_OK : rc;
    int e = o.plot ? plot_dir_usable(o.plot) : 0;
    if (e) {
        lr_cli_err(CMD, "--plot %s: cannot write the plots there: %s",
                   o.plot, strerror(e));
        return LR_EXIT_USAGE;
    }
    /* One BLAS thread: one core, and bit-for-bit repeatable runs. */
    openblas_set_num_threads(1);
    struct entry pol[MAX_POLICIES] = { { NULL, NULL, NULL } };
    int n_pol = 0;
    if (o.policies && (n_pol = parse_policies(o.policies, pol,
                                              MAX_POLICIES - 1
                                              - (o.rollout != NULL))) < 0)
        return LR_EXIT_USAGE;
    for (int i = 0; i < n_pol; i++) {
        if (pol[i].p == &lr_jenv_greedy_cap)
            pol[i].arg = &o.cap;
        if (pol[i].p == &lr_jenv_greedy_work)
            pol[i].arg = &o.work_cap;
    }
    struct lr_ppo *ppo = NULL;
    struct lr_jenv_rollout *ro = NULL;
    char ro_name[64] = "";
    struct lr_policy_meta meta;
    char err[1024];
    if (o.policy_file) {
        if (lr_policy_load(o.policy_file, &meta, &ppo, err, sizeof err)) {
            lr_cli_err(CMD, "%s", err);
            return LR_EXIT_USAGE;
        }
        /* Every policy runs in the environment the agent was trained
         * for: its job mix and shape replace the defaults, and an
         * option that asks for another is refused. */
        if (file_env_conflict(&o, &meta)) {
            lr_ppo_free(ppo);
            return LR_EXIT_USAGE;
        }
        o.env.models = meta.models;
        o.env.demands = meta.demands;
        o.env.batch = meta.batch;
        o.env.micro = meta.micro;
        o.env.k = meta.k;
        o.env.block_penalty = meta.block_penalty;
        if (!o.env.holding_set)
            o.env.holding_mode = meta.holding_mode;
        o.env.refuse = meta.refuse;
        /* The shares define the action space: another list would give
         * the agent's outputs other meanings, even at the same count. */
        char want[96], got[96];
        lr_jenv_splits_format(meta.splits, meta.n_splits, want, sizeof want);
        lr_jenv_splits_format(o.env.splits, o.env.n_splits, got, sizeof got);
        if (o.env.splits_set && strcmp(want, got)) {
            lr_cli_err(CMD, "%s: trained with --splits %s, not %s: drop "
                       "--splits (the file's shares are used) or give %s",
                       o.policy_file, want, got, want);
            lr_ppo_free(ppo);
            return LR_EXIT_USAGE;
        }
        o.env.n_splits = meta.n_splits;
        memcpy(o.env.splits, meta.splits, sizeof o.env.splits);
        /* An agent that observed each job's length needs it here too. */
        o.env.known_work |= meta.known_work;
        o.env.held_work |= meta.held_work;
        /* Chains over three and four DCs are actions: the file's
         * settings are the ones. */
        const struct { const char *opt; bool *given, file; } chains[] = {
            { "--triples", &o.env.triples, meta.triples },
            { "--quads", &o.env.quads, meta.quads },
        };
        for (size_t i = 0; i < sizeof chains / sizeof chains[0]; i++) {
            if (*chains[i].given && !chains[i].file) {
                lr_cli_err(CMD, "%s: trained without %s: drop %s (the "
                           "file's action space is used)", o.policy_file,
                           chains[i].opt, chains[i].opt);
                lr_ppo_free(ppo);
                return LR_EXIT_USAGE;
            }
            *chains[i].given = chains[i].file;
        }
        /* An agent that observed the load estimate needs it here too. */
        o.env.observe_load |= meta.observe_load;
        pol[n_pol].p = &lr_ppo_jenv_policy;
        pol[n_pol++].arg = ppo;
    }
    /* greedy-work reads what only --known-work tells: 'all' runs it
     * only then, a name asks for it. */
    for (int i = 0; i < n_pol; i++) {
        if (pol[i].p != &lr_jenv_greedy_work || o.env.known_work)
            continue;
        if (strcmp(o.policies, "all")) {
            lr_cli_err(CMD, "greedy-work reads each job's length: add "
                       "--known-work");
            lr_ppo_free(ppo);
            return LR_EXIT_USAGE;
        }
        memmove(&pol[i], &pol[i + 1], (size_t) (n_pol - i - 1) * sizeof *pol);
        n_pol--;
        i--;
    }
    if (o.rollout && !strcasecmp(o.rollout, "greedy-work")
        && !o.env.known_work) {
        lr_cli_err(CMD, "--rollout greedy-work reads each job's length: "
                   "add --known-work");
        lr_ppo_free(ppo);
        return LR_EXIT_USAGE;
    }
    /* --cap and --work-cap tune one policy each: given without it, they
     * would change nothing, silently.  Asked after the policy file (whose
     * known-work=1 counts) and after 'all' lost greedy-work. */
    const struct lr_jenv_policy *ro_base = o.rollout
                                           ? lr_jenv_policy_find(o.rollout)
                                           : NULL;
    bool cap_used = ro_base == &lr_jenv_greedy_cap;
    bool work_cap_used = ro_base == &lr_jenv_greedy_work;
    for (int i = 0; i < n_pol; i++) {
        cap_used |= pol[i].p == &lr_jenv_greedy_cap;
        work_cap_used |= pol[i].p == &lr_jenv_greedy_work;
    }
    if (o.work_cap_set && !work_cap_used && o.policies
        && !strcmp(o.policies, "all") && !o.env.known_work) {
        lr_cli_err(CMD, "--work-cap is greedy-work's threshold, and --policy "
                   "all runs greedy-work only with --known-work: add it, or "
                   "leave --work-cap out");
        lr_ppo_free(ppo);
        return LR_EXIT_USAGE;
    }
    if ((o.cap_set && !cap_used) || (o.work_cap_set && !work_cap_used)) {
        bool cap = o.cap_set && !cap_used;
        lr_cli_err(CMD, "%s is %s's threshold, and no %s runs: name it in "
                   "--policy (or --rollout), or leave %s out",
                   cap ? "--cap" : "--work-cap",
                   cap ? "greedy-cap" : "greedy-work",
                   cap ? "greedy-cap" : "greedy-work",
                   cap ? "--cap" : "--work-cap");
        lr_ppo_free(ppo);
        return LR_EXIT_USAGE;
    }
    struct lr_jenv_cli j;
    o.env.load = o.loads[0];
    if ((rc = lr_jenv_cli_open(CMD, &o.env, &j))) {
        lr_ppo_free(ppo);
        return rc;
    }
    if (ppo) {
        char here[sizeof meta.gpus], what[sizeof here + 512];
        enum lr_policy_net diff = lr_policy_net_diff(&meta, j.topo, j.cl,
                                                     here, sizeof here);
        bool shape = diff == LR_POLICY_NET_SAME
                     && (meta.n_obs != lr_jenv_obs_size(j.env)
                         || meta.n_act != lr_jenv_n_actions(j.env));
        lr_policy_net_why(&meta, diff, here, "this network", what,
                          sizeof what);
        if (diff != LR_POLICY_NET_SAME)
            lr_cli_err(CMD, "%s: %s: give the files it was trained on (%s)",
                       o.policy_file, what, meta.command);
        else if (shape)
            lr_cli_err(CMD, "%s: the agent has %d observations and %d "
                       "actions, this environment gives %d and %d: give the "
                       "files and options it was trained with (%s)",
                       o.policy_file, meta.n_obs, meta.n_act,
                       lr_jenv_obs_size(j.env), lr_jenv_n_actions(j.env),
                       meta.command);
        if (diff != LR_POLICY_NET_SAME || shape) {
            lr_ppo_free(ppo);
            lr_jenv_cli_close(&j);
            return LR_EXIT_USAGE;
        }
    }
    struct cell *cells = NULL;
    double *x = NULL, *per_seed = NULL;
    FILE *trace_f = NULL;
    struct lr_sim_trace tr = { .err = 0 };
    if (o.rollout) {
        if (!strcasecmp(o.rollout, "ppo")) {
            if (!ppo) {
                lr_cli_err(CMD, "--rollout ppo needs the agent's "
                           "--policy-file");
                rc = LR_EXIT_USAGE;
                goto cleanup;
            }
            o.ro.base = &lr_ppo_jenv_policy;
            o.ro.base_arg = ppo;
        } else if (!(o.ro.base = lr_jenv_policy_find(o.rollout))) {
            lr_cli_err(CMD, "--rollout %s: no such baseline (see --help), "
                       "or 'ppo' for the agent of --policy-file",
                       o.rollout);
            rc = LR_EXIT_USAGE;
            goto cleanup;
        } else if (o.ro.base == &lr_jenv_greedy_cap) {
            o.ro.base_arg = &o.cap;
        } else if (o.ro.base == &lr_jenv_greedy_work) {
            o.ro.base_arg = &o.work_cap;
        }
        if (lr_jenv_rollout_new(j.env, &o.ro, &ro)) {
            lr_cli_err(CMD, "out of memory");
            rc = LR_EXIT_FAIL;
            goto cleanup;
        }
        snprintf(ro_name, sizeof ro_name, "rollout-%s", o.ro.base->name);
        pol[n_pol++] = (struct entry) { &lr_jenv_rollout_policy, ro,
                                        ro_name };
    }
    int pb = -1;
    for (int i = 0; o.paired && i < n_pol; i++)
        if (!strcmp(o.paired, pol[i].name ? pol[i].name : pol[i].p->name))
            pb = i;
    if (o.paired && pb < 0) {
        lr_cli_err(CMD, "--paired %s: not one of the policies run (a name "
                   "of --policy, ppo for --policy-file, rollout-BASE for "
                   "--rollout BASE)", o.paired);
        rc = LR_EXIT_USAGE;
        goto cleanup;
    }
    cells = calloc((size_t) n_pol * o.n_loads, sizeof *cells);
    x = calloc((size_t) N_METRICS * o.seeds, sizeof *x);
    per_seed = calloc((size_t) n_pol * o.n_loads * 2 * o.seeds,
                      sizeof *per_seed);
    if (!cells || !x || !per_seed) {
        lr_cli_err(CMD, "out of memory");
        rc = LR_EXIT_FAIL;
        goto cleanup;
    }
    if (o.trace && !(trace_f = fopen(o.trace, "w"))) {
        lr_cli_err(CMD, "--trace %s: %s", o.trace, strerror(errno));
        rc = LR_EXIT_USAGE;
        goto cleanup;
    }
    struct lr_cli_progress pg;
    lr_cli_progress_init(&pg, o.quiet);
    for (int pi = 0; pi < n_pol; pi++)
        for (int li = 0; li < o.n_loads; li++) {
            struct cell *c = &cells[pi * o.n_loads + li];
            c->policy = pol[pi].name ? pol[pi].name : pol[pi].p->name;
            c->p = pol[pi].p;
            c->load = o.loads[li];
            lr_jenv_set_load(j.env, c->load);
            for (int s = 0; s < o.seeds; s++) {
                if (lr_cli_progress_due(&pg))
                    lr_cli_progress_show(&pg, "%s: %-10s %7.2f E  seed %d/%d ",
                                         CMD, c->policy, c->load, s + 1,
                                         o.seeds);
                struct lr_jenv_metrics m;
                if (ro && pol[pi].arg == ro)
                    lr_jenv_rollout_reset_stats(ro);
                const struct lr_jenv_policy *run_p = pol[pi].p;
                void *run_arg = pol[pi].arg;
                if (trace_f) {
                    lr_sim_trace_begin(&tr, trace_f, &j, run_p, run_arg,
                                       pol[pi].arg == ro ? ro : NULL,
                                       c->policy, c->load, o.seed + s,
                                       o.warmup);
                    run_p = &tr.policy;
                    run_arg = &tr;
                }
                lr_jenv_run(j.env, run_p, run_arg, o.seed + s,
                            o.arrivals, o.warmup, &m);
                if (ro && pol[pi].arg == ro) {
                    struct lr_jenv_rollout_stats rs;
                    lr_jenv_rollout_stats(ro, &rs);
                    c->rollout = true;
                    c->deviated += (double) rs.deviated
                                   / (rs.decisions ? rs.decisions : 1)
                                   / o.seeds;
                }
                x[0 * o.seeds + s] = m.blocking;
                x[1 * o.seeds + s] = m.mean_iteration_s;
                x[2 * o.seeds + s] = m.gpu_utilisation;
                x[3 * o.seeds + s] = m.dc_load_variance;
                x[4 * o.seeds + s] = m.spectrum_utilisation;
                x[5 * o.seeds + s] = m.mean_slowdown;
                x[6 * o.seeds + s] = m.refusing;
            }
            c->block = per_seed + (size_t) (pi * o.n_loads + li) * 2
                                  * o.seeds;
            c->iter = c->block + o.seeds;
            memcpy(c->block, x, (size_t) o.seeds * sizeof *x);
            memcpy(c->iter, x + o.seeds, (size_t) o.seeds * sizeof *x);
            c->admitting = keep_admitting(x, o.seeds, c->iter);
            for (int mi = 0; mi < N_METRICS; mi++)
                lr_stats_compute(x + mi * o.seeds,
                                 mi == 1 || mi == 5 ? c->admitting : o.seeds,
                                 &c->m[mi]);
        }
    if (trace_f) {
        int bad = fclose(trace_f) ? errno : tr.err;
        trace_f = NULL;
        if (bad) {
            lr_cli_progress_erase(&pg);
            lr_cli_err(CMD, "--trace %s: %s (the trace is incomplete)",
                       o.trace, strerror(bad));
            rc = LR_EXIT_FAIL;
            goto cleanup;
        }
    }
    for (int pi = 0; pb >= 0 && pi < n_pol; pi++)
        for (int li = 0; pi != pb && li < o.n_loads; li++)
            pair_cells(&cells[pi * o.n_loads + li],
                       &cells[pb * o.n_loads + li], o.seeds, x);
    for (int i = 0; o.json && i < n_pol * o.n_loads; i++)
        print_json(&o, &cells[i]);
    lr_cli_progress_erase(&pg);
    if (!o.json) {
        char sv[96];
        lr_jenv_splits_format(o.env.splits, o.env.n_splits, sv, sizeof sv);
        printf("# %s + %s: %d DCs, %d candidates per job; models %s; GPUs "
               "%s; B=%g b=%g; holding %s; %ld jobs per run (%ld warm-up), "
               "%d seeds from %llu; 95%% CI\n", o.env.topology,
               o.env.cluster, j.cl->n_dcs, lr_jenv_n_cands(j.env),
               o.env.models, o.env.demands, o.env.batch, o.env.micro,
               lr_jenv_holding_name(o.env.holding_mode), o.arrivals,
               o.warmup, o.seeds, o.seed);
        if (o.seeds < 2)
            printf("# one seed: no confidence interval (its columns read "
                   "0); --seeds 2 or more gives one\n");
        if (!lr_jenv_splits_default(o.env.splits, o.env.n_splits))
            printf("# GPU shares of a two-DC job in its first DC: %s\n", sv);
        if (o.env.triples)
            printf("# pipelines over three DCs are candidates too\n");
        if (o.env.quads)
            printf("# pipelines over four DCs are candidates too\n");
        if (o.env.known_work)
            printf("# each job's length is known when it arrives%s\n",
                   o.env.held_work ? "; PPO observes the GPU-time the "
                   "running jobs hold per DC" : "");
        print_settings(&o, pol, n_pol);
        int pw = policy_width(cells, n_pol * o.n_loads);
        printf("%-*s %7s %17s %17s %8s %10s %8s %8s %8s\n", pw, "policy",
               "load(E)", "blocking", "iteration(s)", "gpu", "dc-var",
               "spectrum", "slowdown", "refused");
        bool some_left_out = false;
        for (int i = 0; i < n_pol * o.n_loads; i++) {
            const struct cell *c = &cells[i];
            char it[32], sl[16];
            if (c->admitting) {
                snprintf(it, sizeof it, "%8.4f +-%6.4f", c->m[1].mean,
                         c->m[1].ci95);
                snprintf(sl, sizeof sl, "%8.4f", c->m[5].mean);
            } else {
                snprintf(it, sizeof it, "%17s", "n/a");
                snprintf(sl, sizeof sl, "%8s", "n/a");
            }
            some_left_out |= c->admitting < o.seeds;
            char ld[32];
            printf("%-*s %7s %7.3f%% +-%5.3f%% %s %7.2f%% "
                   "%10.5f %7.2f%% %s %7.3f%%\n", pw, c->policy,
                   lr_cli_format_load(c->load, 2, ld, sizeof ld),
                   100 * c->m[0].mean, 100 * c->m[0].ci95, it,
                   100 * c->m[2].mean, c->m[3].mean,
                   100 * c->m[4].mean, sl, 100 * c->m[6].mean);
        }
        for (int i = 0; some_left_out && i < n_pol * o.n_loads; i++) {
            char ld[32];
            if (cells[i].admitting < o.seeds)
                printf("# %s at %s E: iteration and slowdown over the %d "
                       "of %d seeds that admitted a job\n", cells[i].policy,
                       lr_cli_format_load(cells[i].load, 2, ld, sizeof ld),
                       cells[i].admitting, o.seeds);
        }
        if (pb >= 0)
            printf("# paired against %s, seed by seed on the same "
                   "arrivals: mean change, 95%% CI, seeds lower\n",
                   o.paired);
        for (int i = 0; pb >= 0 && i < n_pol * o.n_loads; i++) {
            const struct cell *c = &cells[i];
            if (!c->paired)
                continue;
            char db[32], di[32], ld[32];
            change_text(&c->d_block, 6, db, sizeof db);
            change_text(&c->d_iter, 5, di, sizeof di);
            lr_cli_format_load(c->load, 2, ld, sizeof ld);
            printf("%-*s %7s blocking %s (%d of %d lower), iteration "
                   "%s\n", pw, c->policy, ld, db, c->lower, o.seeds, di);
            if (c->block_undefined || c->iter_undefined)
                printf("%-*s %7s   left out, no ratio (%s's 0 and "
                       "this one's not; iteration: either admitted no job): "
                       "blocking %d seed(s), iteration %d\n", pw, c->policy,
                       ld, o.paired, c->block_undefined,
                       c->iter_undefined);
        }
        print_bound(&o, &j);
    }
    if (o.plot)
        rc = write_plots(&o, j.topo->name, cells, n_pol * o.n_loads);
cleanup:
    if (trace_f)
        fclose(trace_f);
    free(x);
    free(per_seed);
    free(cells);
    lr_jenv_rollout_free(ro);
    lr_ppo_free(ppo);
    lr_jenv_cli_close(&j);
    return rc;
}
