/*
 * lightrail rsa-sim: the RMSA benchmark (../shared/reference/optical.md)
 * for one or more policies over a range of loads, several seeds each.
 *
 * Each (policy, load) cell runs seeds base..base+N-1 through
 * lr_rsa_sim_run() and reports the mean blocking over seeds with its 95%
 * confidence interval (Student t), the bit-rate blocking, the spectrum
 * utilisation, and the simulator's speed in requests per second (wall
 * clock, warm-up included).  With more than one load, the text output
 * also gives each policy's load at the target blocking (0.1% unless
 * --target says otherwise), interpolated log-linearly between the two
 * loads that bracket it.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "planner/lr_rsa_sim.h"
#include "planner/lr_stats.h"
#include "planner/lr_util.h"
#include "tools/lightrail/lr_cli.h"
#include "tools/lightrail/lr_plot.h"
#include "tools/lightrail/lr_plot_title.h"
#include "yang/lr_yang.h"

#define CMD "rsa-sim"
#define MAX_LOADS 1000

struct opts {
    const char *topology;
    const char *policies;
    const char *modulations;
    const char *plot;
    bool format_json;
    int k;
    enum lr_ksp_order order;
    int slots;                /* 0 = as the topology says */
    int guard;
    long requests, warmup;
    int seeds;
    unsigned long long seed;
    int rate_min, rate_max;
    int truncate;
    double target;
    int quiet;
    double loads[MAX_LOADS];
    int n_loads;
    int load_set, loads_set;  /* which of --load and --loads was given */
};

/* The defaults of --help, which the plot's title leaves unsaid. */
#define OPTS_DEFAULTS \
    .policies = "ksp-ff", .k = 5, .order = LR_KSP_KM, .guard = 1, \
    .requests = 13000, .warmup = 3000, .seeds = 10, .seed = 1, \
    .rate_min = 25, .rate_max = 100, .truncate = 1, .target = 1e-3

static void
usage(FILE *f)
{
    fprintf(f,
"usage: lightrail rsa-sim --topology FILE (--load E | --loads FROM:TO:STEP)\n"
"                         [--policy NAME[,NAME...]|all] [--k N]\n"
"                         [--path-order km|hops] [--slots N] [--guard N]\n"
"                         [--requests N] [--warmup N] [--seeds N] [--seed S]\n"
"                         [--rate MIN:MAX] [--no-truncate] [--target P]\n"
"                         [--modulations FILE.csv] [--format text|json]\n"
"                         [--plot FILE.png] [--quiet]\n"
"\n"
"Simulates dynamic lightpath requests (Poisson arrivals, exponential holding\n"
"time redrawn until < 2x its mean as DeepRMSA does, uniform node pairs, rates\n"
"uniform in MIN..MAX Gb/s) and reports the blocking probability per policy and\n"
"load: the mean over seeds with a 95%% confidence interval.\n"
"\n"
"  --topology FILE     lightrail-topology JSON (see examples/topologies)\n"
"  --load E            one load in Erlang (nominal: arrival rate x mean holding)\n"
"  --loads A:B:S       loads A, A+S, ... up to B, at most 1000 loads, each\n"
"                      to the decimals of A and S (0.1:0.3:0.1 runs 0.3);\n"
"                      one number: --load\n"
"  --policy LIST       comma-separated policies, or 'all' (default ksp-ff)\n"
"  --k N               candidate paths per node pair, 1 to 100 (default 5)\n"
"  --path-order ORDER  km: K shortest by length; hops: fewest hops, then\n"
"                      length (default km)\n"
"  --slots N           12.5 GHz slots on every link, 1 to 1024 (default:\n"
"                      the topology's)\n"
"  --guard N           guard slots per lightpath (default 1)\n"
"  --requests N        requests per run, warm-up included (default 13000)\n"
"  --warmup N          requests not counted at the start (default 3000)\n"
"  --seeds N           runs per (policy, load), seeds S..S+N-1 (default\n"
"                      10; one seed gives no confidence interval: it reads 0)\n"
"  --seed S            first seed (default 1)\n"
"  --rate MIN:MAX      request rates in Gb/s (default 25:100)\n"
"  --no-truncate       plain exponential holding times\n"
"  --target P          blocking at which to report each policy's load\n"
"                      (default 0.001)\n"
"  --modulations FILE  reach table as CSV name,maximum_length,\n"
"                      spectral_efficiency,..., at most 16 formats with\n"
"                      bare names of 1 to 15 bytes (no quotes, no\n"
"                      spaces around them; a UTF-8 byte order mark is\n"
"                      skipped) (default: the\n"
"                      DeepRMSA table); a minimum_osnr column, unused\n"
"                      here, must hold dB from 0 to 50 in hundredths\n"
"                      at most or be empty;\n"
"                      read as lightraild reads its modulation-table\n"
"                      (at most 64 KiB; a file it cannot read is named\n"
"                      with the reason)\n"
"  --format FMT        text (a table) or json (one object per line)\n"
"  --plot FILE.png     draw blocking against load, log scale (gnuplot)\n"
"  --quiet             no progress on stderr (else a line redrawn on a\n"
"                      terminal, or one every 30 s in a log:\n"
"                      LIGHTRAIL_PROGRESS_SECONDS sets the interval)\n"
"\n"
"policies:\n");
    for (int i = 0; lr_rsa_policies[i]; i++)
        fprintf(f, "  %-8s %s\n", lr_rsa_policies[i]->name,
                lr_rsa_policies[i]->summary);
    fprintf(f, "\nexit status: 0 done, 1 internal failure, 2 bad input, 3 "
            "--plot drew nothing:\nblocking was 0 at every load (the "
            "results are printed)\n");
}

/* "A:B:S" -> loads A, A+S, ..., <= B (+ a little slack for rounding). */
static int
parse_rate(const char *s, struct opts *o)
{
    char buf[64], *colon;
    long lo, hi;
    if (strlen(s) >= sizeof buf || !(colon = strchr(strcpy(buf, s), ':')))
        return EINVAL;
    *colon = '\0';
    if (lr_parse_long(buf, 1, 100000, &lo) || lr_parse_long(colon + 1, lo, 100000,
                                                      &hi))
        return EINVAL;
    o->rate_min = (int) lo;
    o->rate_max = (int) hi;
    return 0;
}

struct cell {
    const struct lr_rsa_policy *policy;
    double load;
    struct lr_stats blocking, bit_blocking, util;
    double requests_per_s;
    long blocked_by[4];
};

static void
print_json(const struct opts *o, const char *topo_name, const struct cell *c)
{
    json_object *j = json_object_new_object();
    json_object_object_add(j, "policy",
                           json_object_new_string(c->policy->name));
    json_object_object_add(j, "load", lr_cli_json_number(c->load));
    json_object_object_add(j, "blocking",
                           json_object_new_double(c->blocking.mean));
    json_object_object_add(j, "ci95", json_object_new_double(c->blocking.ci95));
    json_object_object_add(j, "runs", json_object_new_int(c->blocking.n));
    json_object_object_add(j, "requests_per_s",
                           json_object_new_double(round(c->requests_per_s)));
    json_object_object_add(j, "bit_blocking",
                           json_object_new_double(c->bit_blocking.mean));
    json_object_object_add(j, "utilisation",
                           json_object_new_double(c->util.mean));
    json_object *by = json_object_new_object();
    json_object_object_add(by, "no_path",
                           json_object_new_int64(c->blocked_by[LR_RSA_NO_PATH]));
    json_object_object_add(by, "no_reach",
                           json_object_new_int64(c->blocked_by[LR_RSA_NO_REACH]));
    json_object_object_add(by, "no_spectrum",
                           json_object_new_int64(c->blocked_by[LR_RSA_NO_SPECTRUM]));
    json_object_object_add(j, "blocked_by", by);
    json_object_object_add(j, "topology", json_object_new_string(topo_name));
    json_object_object_add(j, "k", json_object_new_int(o->k));
    json_object_object_add(j, "path_order",
                           json_object_new_string(lr_ksp_order_name(o->order)));
    json_object_object_add(j, "requests", json_object_new_int64(o->requests));
    json_object_object_add(j, "warmup", json_object_new_int64(o->warmup));
    json_object_object_add(j, "first_seed",
                           json_object_new_int64((int64_t) o->seed));
    json_object_object_add(j, "truncated_holding",
                           json_object_new_boolean(o->truncate));
    /* The rest of the settings the text's first lines give, so that a
     * line read alone says what it measured. */
    json_object_object_add(j, "guard", json_object_new_int(o->guard));
    json_object_object_add(j, "rate_min_gbps",
                           json_object_new_int(o->rate_min));
    json_object_object_add(j, "rate_max_gbps",
                           json_object_new_int(o->rate_max));
    json_object_object_add(j, "slots", o->slots
                           ? json_object_new_int(o->slots) : NULL);
    json_object_object_add(j, "modulations", o->modulations
                           ? json_object_new_string(o->modulations) : NULL);
    printf("%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
    json_object_put(j);
}

/* Load at which blocking crosses 'target' for the cells of one policy
 * (in load order): log-linear interpolation.  Writes "<A", ">B" or the
 * value into buf. */
static void
load_at_target(const struct cell *cells, int n, double target, char *buf,
               size_t len)
{
    if (cells[0].blocking.mean >= target) {
        snprintf(buf, len, "<%g", cells[0].load);
        return;
    }
    for (int i = 1; i < n; i++) {
        double b0 = cells[i - 1].blocking.mean, b1 = cells[i].blocking.mean;
        if (b1 < target)
            continue;
        double x0 = cells[i - 1].load, x1 = cells[i].load, x;
        if (b0 > 0)
            x = x0 + (x1 - x0) * (log(target) - log(b0))
                     / (log(b1) - log(b0));
        else
            x = x0 + (x1 - x0) * target / b1;   /* linear from zero */
        snprintf(buf, len, "%.1f", x);
        return;
    }
    snprintf(buf, len, ">%g", cells[n - 1].load);
}

/* The width of the text's policy column: its longest name (mscl-link
 * has 9 characters), at least the 8 the column had. */
static int
policy_width(const struct lr_rsa_policy *const *policies, int n)
{
    int w = 8;
    for (int i = 0; i < n; i++)
        if ((int) strlen(policies[i]->name) > w)
            w = (int) strlen(policies[i]->name);
    return w;
}

static int
parse_args(int argc, char **argv, struct opts *o)
{
    enum { O_TOPO = 256, O_LOAD, O_LOADS, O_POLICY, O_K, O_ORDER, O_SLOTS,
           O_GUARD, O_REQ, O_WARM, O_SEEDS, O_SEED, O_RATE, O_NOTRUNC,
           O_TARGET, O_MODS, O_FORMAT, O_PLOT, O_QUIET, O_HELP };
    static const struct option longopts[] = {
        { "topology", required_argument, NULL, O_TOPO },
        { "load", required_argument, NULL, O_LOAD },
        { "loads", required_argument, NULL, O_LOADS },
        { "policy", required_argument, NULL, O_POLICY },
        { "k", required_argument, NULL, O_K },
        { "path-order", required_argument, NULL, O_ORDER },
        { "slots", required_argument, NULL, O_SLOTS },
        { "guard", required_argument, NULL, O_GUARD },
        { "requests", required_argument, NULL, O_REQ },
        { "warmup", required_argument, NULL, O_WARM },
        { "seeds", required_argument, NULL, O_SEEDS },
        { "seed", required_argument, NULL, O_SEED },
        { "rate", required_argument, NULL, O_RATE },
        { "no-truncate", no_argument, NULL, O_NOTRUNC },
        { "target", required_argument, NULL, O_TARGET },
        { "modulations", required_argument, NULL, O_MODS },
        { "format", required_argument, NULL, O_FORMAT },
        { "plot", required_argument, NULL, O_PLOT },
        { "quiet", no_argument, NULL, O_QUIET },
        { "help", no_argument, NULL, O_HELP },
        { NULL, 0, NULL, 0 },
    };
    long v;
    double d;
    int c;
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
        case O_TOPO: o->topology = optarg; break;
        case O_LOAD:
            if (lr_parse_double(optarg, 1e-9, 1e9, &d))
                bad = "--load wants a positive number of Erlang, up to 1e9";
            o->loads[0] = d;
            o->n_loads = 1;
            o->load_set = 1;
            break;
        case O_LOADS:
            if ((o->n_loads = lr_cli_parse_loads(optarg, o->loads,
                                                 MAX_LOADS)) < 1)
                bad = "--loads wants a load E > 0, or FROM:TO:STEP with "
                      "0 < FROM <= TO, STEP > 0, at most 1000 loads";
            o->loads_set = 1;
            break;
        case O_POLICY: o->policies = optarg; break;
        case O_K:
            if (lr_parse_long(optarg, 1, 100, &v))
                bad = "--k wants an integer in 1..100";
            o->k = (int) v;
            break;
        case O_ORDER:
            if (lr_ksp_order_parse(optarg, &o->order))
                bad = "--path-order wants 'km' or 'hops'";
            break;
        case O_SLOTS:
            if (lr_parse_long(optarg, 1, LR_BITS_MAX_WORDS * 64, &v))
                bad = "--slots wants an integer in 1..1024";
            o->slots = (int) v;
            break;
        case O_GUARD:
            if (lr_parse_long(optarg, 0, 16, &v))
                bad = "--guard wants an integer in 0..16";
            o->guard = (int) v;
            break;
        case O_REQ:
            if (lr_parse_long(optarg, 1, 1000000000L, &v))
                bad = "--requests wants a positive integer, up to 1000000000";
            o->requests = v;
            break;
        case O_WARM:
            if (lr_parse_long(optarg, 0, 1000000000L, &v))
                bad = "--warmup wants a non-negative integer, "
                    "up to 1000000000";
            o->warmup = v;
            break;
        case O_SEEDS:
            if (lr_parse_long(optarg, 1, 100000, &v))
                bad = "--seeds wants an integer in 1..100000";
            o->seeds = (int) v;
            break;
        case O_SEED:
            if (lr_parse_long(optarg, 0, 2147483647L, &v))
                bad = "--seed wants a non-negative integer, up to 2147483647";
            o->seed = (unsigned long long) v;
            break;
        case O_RATE:
            if (parse_rate(optarg, o))
                bad = "--rate wants MIN:MAX Gb/s with 1 <= MIN <= MAX";
            break;
        case O_NOTRUNC: o->truncate = 0; break;
        case O_TARGET:
            if (lr_parse_double(optarg, 1e-12, 0.999999, &o->target))
                bad = "--target wants a blocking probability in (0, 1)";
            break;
        case O_MODS: o->modulations = optarg; break;
        case O_FORMAT:
            bad = lr_cli_parse_format(optarg, &o->format_json);
            break;
        case O_PLOT: o->plot = optarg; break;
        case O_QUIET: o->quiet = 1; break;
        case O_HELP:
            usage(stdout);
            return -1;
        default:
            return lr_cli_bad_option(CMD, argv, optind);
        }
        if (bad)
            return lr_cli_bad_value(CMD, bad, optarg);
    }
    if (lr_cli_extra_args(CMD, argc, argv, optind))
        return LR_EXIT_USAGE;
    if (!o->topology) {
        lr_cli_err(CMD, "--topology FILE is required, e.g. "
                   "--topology examples/topologies/nsfnet.json");
        return LR_EXIT_USAGE;
    }
    if (o->n_loads == 0) {
        lr_cli_err(CMD, "give --load E or --loads FROM:TO:STEP");
        return LR_EXIT_USAGE;
    }
    /* The later would silently replace the earlier. */
    if (o->load_set && o->loads_set) {
        lr_cli_err(CMD, "give --load E or --loads FROM:TO:STEP, not both");
        return LR_EXIT_USAGE;
    }
    if (o->warmup >= o->requests) {
        lr_cli_err(CMD, "--warmup (%ld) must be below --requests (%ld)",
                   o->warmup, o->requests);
        return LR_EXIT_USAGE;
    }
    return LR_EXIT_OK;
}

/* Splits the --policy list into policies[]; returns their count or -1. */
static int
parse_policies(const char *list, const struct lr_rsa_policy **out, int max)
{
    const char *names[32];
    int idx[32], n_names = 0;
    while (n_names < 32 && lr_rsa_policies[n_names]) {
        names[n_names] = lr_rsa_policies[n_names]->name;
        n_names++;
    }
    int n = lr_cli_pick_names(CMD, list, names, n_names, NULL, idx,
                              max < 32 ? max : 32);
    for (int i = 0; i < n; i++)
        out[i] = lr_rsa_policies[idx[i]];
    return n;
}

int
lr_cmd_rsa_sim(int argc, char **argv)
{
    struct opts o = {
        OPTS_DEFAULTS,
    };
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc < 0 ? LR_EXIT_OK : rc;
    /* The plot is drawn after every run, minutes of MSCL later. */
    if (lr_cli_output_check(CMD, "--plot", o.plot))
        return LR_EXIT_USAGE;

    const struct lr_rsa_policy *policies[16];
    int n_pol = parse_policies(o.policies, policies, 16);
    if (n_pol < 0)
        return LR_EXIT_USAGE;

    struct lr_modtable mods;
    lr_modtable_default(&mods);
    if (o.modulations
        && (rc = lr_cli_load_modulations(CMD, o.modulations, &mods)))
        return rc;

    struct ly_ctx *ctx = NULL;
    struct lr_topo *topo = NULL;
    struct cell *cells = NULL;
    struct lr_plot *plot = NULL;
    char err[1024];
    if (lr_yang_ctx_new(&ctx, err, sizeof err)) {
        lr_cli_err(CMD, "%s", err);
        rc = LR_EXIT_FAIL;
        goto cleanup;
    }
    if (lr_yang_load_topo(ctx, o.topology, &topo, err, sizeof err)) {
        lr_cli_err(CMD, "%s", err);
        rc = LR_EXIT_USAGE;
        goto cleanup;
    }
    if (topo->n_nodes < 2 || topo->n_links < 1) {
        lr_cli_err(CMD, "%s: the topology needs at least two nodes and a "
                   "link to simulate traffic", o.topology);
        rc = LR_EXIT_USAGE;
        goto cleanup;
    }
    if (o.slots)
        for (int l = 0; l < topo->n_links; l++)
            topo->links[l].n_slots = o.slots;

    cells = calloc((size_t) n_pol * o.n_loads, sizeof *cells);
    double *samples[3];
    for (int i = 0; i < 3; i++)
        samples[i] = calloc((size_t) o.seeds, sizeof(double));
    if (!cells || !samples[0] || !samples[1] || !samples[2]) {
        lr_cli_err(CMD, "out of memory");
        rc = LR_EXIT_FAIL;
        goto cleanup_samples;
    }
    struct lr_cli_progress pg;
    lr_cli_progress_init(&pg, o.quiet);

    for (int pi = 0; pi < n_pol; pi++) {
        struct lr_rsa_config cfg = {
            .k = o.k, .order = o.order, .guard = o.guard,
        };
        lr_rsa_sim_demand_sizes(&mods, o.guard, o.rate_min, o.rate_max,
                                cfg.demand_sizes);
        struct lr_rsa *rsa = NULL;
        int err_no = lr_rsa_new(topo, &cfg, &mods, policies[pi], &rsa);
        if (err_no) {
            lr_cli_err(CMD, "%s: cannot build the RMSA engine: %s",
                       o.topology, strerror(err_no));
            rc = err_no == ENOMEM ? LR_EXIT_FAIL : LR_EXIT_USAGE;
            goto cleanup_samples;
        }
        /* The protocol draws every ordered pair: a pair without a path
         * would only measure the topology, so it is refused up front.
         * Every policy's engine walks them: most tables are lazy
         * (lr_ksp_lazy_ends), and this computes each pair's K paths
         * before the clock starts, not on its first request. */
        for (int s = 0; s < topo->n_nodes; s++)
            for (int d = 0; d < topo->n_nodes; d++) {
                int np;
                if (s == d)
                    continue;
                lr_ksp_paths(rsa->ksp, s, d, &np);
                if (np == 0) {
                    lr_cli_err(CMD, "%s: node '%s' has no path to node "
                               "'%s'; the benchmark draws every pair, so "
                               "the topology must be strongly connected",
                               o.topology, topo->nodes[s].name,
                               topo->nodes[d].name);
                    lr_rsa_free(rsa);
                    rc = LR_EXIT_USAGE;
                    goto cleanup_samples;
                }
            }
        for (int li = 0; li < o.n_loads; li++) {
            struct cell *c = &cells[pi * o.n_loads + li];
            c->policy = policies[pi];
            c->load = o.loads[li];
            double t0 = lr_cli_now();
            for (int s = 0; s < o.seeds; s++) {
                if (lr_cli_progress_due(&pg))
                    lr_cli_progress_show(&pg, "%s: %-7s %8.1f E  seed %d/%d ",
                                         CMD, c->policy->name, c->load,
                                         s + 1, o.seeds);
                struct lr_rsa_sim_config sc;
                lr_rsa_sim_defaults(&sc);
                sc.load = c->load;
                sc.n_requests = o.requests;
                sc.warmup = o.warmup;
                sc.seed = o.seed + (unsigned) s;
                sc.rate_min = o.rate_min;
                sc.rate_max = o.rate_max;
                sc.truncate = o.truncate;
                struct lr_rsa_sim_result res;
                err_no = lr_rsa_sim_run(rsa, &sc, &res);
                if (err_no) {
                    lr_cli_err(CMD, "simulation failed: %s",
                               strerror(err_no));
                    lr_rsa_free(rsa);
                    rc = LR_EXIT_FAIL;
                    goto cleanup_samples;
                }
                samples[0][s] = res.blocking;
                samples[1][s] = res.bit_blocking;
                samples[2][s] = res.utilisation;
                for (int b = 0; b < 4; b++)
                    c->blocked_by[b] += res.blocked_by[b];
            }
            double dt = lr_cli_now() - t0;
            c->requests_per_s = dt > 0 ? o.requests * (double) o.seeds / dt
                                       : 0;
            lr_stats_compute(samples[0], o.seeds, &c->blocking);
            lr_stats_compute(samples[1], o.seeds, &c->bit_blocking);
            lr_stats_compute(samples[2], o.seeds, &c->util);
            if (o.format_json)
                print_json(&o, topo->name, c);
        }
        lr_rsa_free(rsa);
    }
    lr_cli_progress_erase(&pg);

    if (!o.format_json) {
        printf("# %s: %d nodes, %d directed links; K=%d (%s order), guard "
               "%d, rates %d..%d Gb/s\n"
               "# %ld requests per run (%ld warm-up), %d seeds from %llu, "
               "holding time %s\n",
               topo->name, topo->n_nodes, topo->n_links, o.k,
               lr_ksp_order_name(o.order), o.guard, o.rate_min, o.rate_max,
               o.requests, o.warmup, o.seeds, o.seed,
               o.truncate ? "exponential redrawn until < 2x mean (DeepRMSA; "
                            "carried load about 0.687 x nominal)"
                          : "exponential");
        if (o.slots || o.modulations) {
            printf("#");
            if (o.slots)
                printf(" %d slots on every link (--slots)", o.slots);
            if (o.modulations)
                printf("%s modulations of %s", o.slots ? ";" : "",
                       o.modulations);
            printf("\n");
        }
        if (o.seeds < 2)
            printf("# one seed: no confidence interval (ci95 reads 0); "
                   "--seeds 2 or more gives one\n");
        int pw = policy_width(policies, n_pol);
        printf("%-*s %9s %10s %10s %10s %8s %12s\n", pw, "policy", "load(E)",
               "blocking", "ci95", "bit-block", "util", "requests/s");
        for (int i = 0; i < n_pol * o.n_loads; i++) {
            const struct cell *c = &cells[i];
            char ld[32];
            printf("%-*s %9s %9.4f%% %9.4f%% %9.4f%% %7.2f%% %12.0f\n",
                   pw, c->policy->name,
                   lr_cli_format_load(c->load, 1, ld, sizeof ld),
                   100 * c->blocking.mean,
                   100 * c->blocking.ci95, 100 * c->bit_blocking.mean,
                   100 * c->util.mean, c->requests_per_s);
        }
        if (o.n_loads > 1) {
            printf("\nload (E) at %g%% blocking:\n", 100 * o.target);
            for (int pi = 0; pi < n_pol; pi++) {
                char buf[32];
                load_at_target(&cells[pi * o.n_loads], o.n_loads, o.target,
                               buf, sizeof buf);
                printf("  %-*s %s\n", pw, policies[pi]->name, buf);
            }
        }
    }

    if (o.plot) {
        /* Every option that changes the curves and is on no axis is
         * named, as sim's titles name theirs: K and the path order
         * always, the others when off their defaults, so a default
         * run's title stays short.  --target changes no curve. */
        const struct opts d = { OPTS_DEFAULTS };
        char title[1024], setup[512] = "";
        lr_plot_words_add(setup, sizeof setup, "K=%d, %s order", o.k,
                          lr_ksp_order_name(o.order));
        if (o.slots)
            lr_plot_words_add(setup, sizeof setup, "%d slots", o.slots);
        if (o.guard != d.guard)
            lr_plot_words_add(setup, sizeof setup, "guard %d", o.guard);
        if (o.rate_min != d.rate_min || o.rate_max != d.rate_max)
            lr_plot_words_add(setup, sizeof setup, "rates %d-%d Gb/s",
                              o.rate_min, o.rate_max);
        if (o.requests != d.requests || o.warmup != d.warmup)
            lr_plot_words_add(setup, sizeof setup,
                              "%ld requests (%ld warm-up)", o.requests,
                              o.warmup);
        if (!o.truncate)
            lr_plot_words_add(setup, sizeof setup,
                              "plain exponential holding");
        if (o.modulations)
            lr_plot_words_add(setup, sizeof setup, "modulations %s",
                              lr_plot_file_name(o.modulations));
        lr_plot_load_title(topo->name, "blocking probability", setup, o.seed,
                           o.seeds, title, sizeof title);
        plot = lr_plot_new(title, "load (Erlang, nominal)",
                           "blocking probability (blocked / requests)",
                           true);
        int points = 0;
        for (int i = 0; plot && i < n_pol * o.n_loads; i++) {
            points += cells[i].blocking.mean > 0;
            if (lr_plot_add(plot, cells[i].policy->name, cells[i].load,
                            cells[i].blocking.mean, cells[i].blocking.ci95))
                break;
        }
        if (!plot) {
            lr_cli_err(CMD, "out of memory");
            rc = LR_EXIT_FAIL;
        } else if (points == 0) {
            /* Nothing failed: the results stand, the log axis has no
             * place for them, and only other loads can give it one. */
            lr_cli_err(CMD, "%s: not drawn: blocking was 0 at every load, "
                       "which a logarithmic axis cannot show; give higher "
                       "loads (--loads) or more --requests", o.plot);
            rc = LR_EXIT_INFEASIBLE;
        } else if (lr_plot_write_png(plot, o.plot, err, sizeof err)) {
            lr_cli_err(CMD, "%s", err);
            rc = LR_EXIT_FAIL;
        } else if (!o.quiet) {
            fprintf(stderr, "%s: wrote %s\n", CMD, o.plot);
        }
    }

cleanup_samples:
    for (int i = 0; i < 3; i++)
        free(samples[i]);
cleanup:
    lr_plot_free(plot);
    free(cells);
    lr_topo_free(topo);
    lr_yang_ctx_free(ctx);
    return rc;
}
