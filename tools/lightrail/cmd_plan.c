/*
 * lightrail plan: cut a model into pipeline stages across the data
 * centers of a cluster, with CDynP, the exact optimum or a baseline, and
 * report the plan with the v1 iteration-time model (planner/
 * lr_timemodel.h).
 *
 * Output: a table (text) or one JSON object (--format json) with the keys
 * the README lists; --plot draws one iteration as a Gantt chart from a
 * simulated GPipe schedule (forward = t/3, backward = 2t/3 per
 * microbatch, transfers c between stages, then each stage's gradient
 * sync), whose makespan is shown beside the model's T.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "planner/lr_baseline.h"
#include "planner/lr_cdynp.h"
#include "planner/lr_exact.h"
#include "planner/lr_util.h"
#include "tools/lightrail/lr_cli.h"
#include "tools/lightrail/lr_plot.h"
#include "tools/lightrail/lr_plot_title.h"
#include "yang/lr_yang.h"

#define CMD "plan"

/* --window's message names the layer limit. */
_Static_assert(LR_MODEL_MAX_LAYERS == 4096, "update --window's message");
/* --beam's message names the widest beam. */
_Static_assert(LR_CDYNP_MAX_BEAM == 64, "update --beam's message");

enum algo { A_CDYNP, A_EXACT, A_DP, A_PIPEDREAM, A_SPP, A_ZONE };
static const char *const algo_names[] = {
    "cdynp", "exact", "dp", "pipedream", "spp", "zone",
};

struct opts {
    const char *model, *model_file, *cluster, *plot, *order;
    enum algo algo;
    double batch, micro;
    int window;
    bool window_set;
    int device_step;          /* 0: automatic */
    bool device_step_set;     /* --device-step given, auto included */
    int beam;                 /* --beam: the width; 0: the greedy
                               * chain's prefixes only */
    bool beam_set;
    long max_nodes;
    double inter_gbps;        /* > 0: every inter-DC link at this rate */
    bool json;
    /* --distributed (cmd_plan_dist.c) */
    int distributed;
    const char *cert, *key, *ca, *crl, *record;
    double timeout;
    double budget;            /* --plan-timeout; 0: no bound */
};

static void
usage(FILE *f)
{
    fprintf(f,
"usage: lightrail plan (--model NAME | --model-file FILE) --cluster FILE\n"
"                      [--algo cdynp|exact|dp|pipedream|spp|zone]\n"
"                      [--batch B] [--microbatch b] [--window w]\n"
"                      [--order DC,DC,...] [--device-step S] [--beam B]\n"
"                      [--max-nodes N] [--inter-dc-gbps G]\n"
"                      [--format text|json] [--plot FILE.png]\n"
"       lightrail plan --distributed (--model NAME | --model-file FILE)\n"
"                      --cluster FILE [--cert F --key F --ca F]\n"
"                      [--crl F]\n"
"                      [--timeout S] [--plan-timeout S]\n"
"                      [--record FILE] [--batch B]\n"
"                      [--microbatch b] [--window w] [--order LIST]\n"
"                      [--beam B] [--format text|json]\n"
"\n"
"Cuts the model into pipeline stages over the data centers of the cluster\n"
"and predicts one training iteration with the v1 time model.\n"
"\n"
"  --model NAME        a preset:");
    for (int i = 0; lr_model_presets[i]; i++)
        fprintf(f, " %s", lr_model_presets[i]);
    fprintf(f, "\n"
"  --model-file FILE   a lightrail-model JSON file (examples/models)\n"
"  --cluster FILE      a lightrail-compute JSON file (examples/clusters)\n"
"  --algo NAME         cdynp (default): chain DP over the DCs; exact: the\n"
"                      true optimum, small instances only; dp: data\n"
"                      parallel only; pipedream; spp (our reading);\n"
"                      zone: the fewest DCs, then the least T (lightraild\n"
"                      ranks by the network as measured)\n"
"  --batch B           samples per iteration (default 32)\n"
"  --microbatch b      samples per microbatch, dividing B (default 1)\n"
"  --window w          CDynP's search window, +-w layers around the\n"
"                      pre-partition (default %d; -1 = whole range)\n"
"  --order LIST        CDynP's chain of DCs (default: every chain up to\n"
"                      %d DCs, beyond them a search: --beam)\n"
"  --device-step S     CDynP gives stages multiples of S devices (its DP\n"
"                      then costs what a DC of N/S devices would); 1 =\n"
"                      every count; default auto: 1 up to %d devices a\n"
"                      DC, else the least S keeping N/S within it; a DC\n"
"                      of fewer than S devices: all of them, one stage;\n"
"                      best: each DC's least cost over the grids of\n"
"                      auto, 2, 4 and 8 times auto and, above %d\n"
"                      devices, the finer steps over %d of them\n"
"                      (slower; docs/cdynp.md, \"Device step\")\n"
"  --beam B            beyond %d DCs without --order, CDynP's beam: the\n"
"                      B best chains of each length grow by a DC at\n"
"                      either end (default %d, at most %d, narrower on\n"
"                      many DCs); 0 = the greedy chain's prefixes only,\n"
"                      the search before 2026-12-06 (docs/cdynp.md)\n"
"  --max-nodes N       bound on exact's search (default 50000000)\n"
"  --inter-dc-gbps G   set every inter-DC link of the cluster to G Gb/s\n"
"                      (latencies kept), for bandwidth sweeps\n"
"  --format FMT        text (a table) or json; the plan names what it was\n"
"                      made with: cluster, inter_dc_gbps, and window,\n"
"                      order, beam (null with --order) and device_step\n"
"                      for cdynp (null with --distributed: each DC's\n"
"                      own), max_nodes for exact\n"
"  --plot FILE.png     Gantt chart of one iteration (gnuplot)\n"
"  --distributed       CDynP with the agents of the DCs that the cluster\n"
"                      marks 'remote' (docs/agent-protocol.md); their\n"
"                      stages stay private; an agent that closes its\n"
"                      connection mid-plan: the plan runs again from\n"
"                      its start, at most twice, with a note; an agent\n"
"                      at protocol revision 1 (older, or predecessors\n"
"                      false) is asked BACKTRACKs: a note names it\n"
"  --cert, --key F     the coordinator's certificate and key (PEM)\n"
"  --ca F              the CA that must have signed the agents'\n"
"  --crl F             CRLs of the CA (PEM; one per CA of the file --ca\n"
"                      gives): an agent whose certificate, or a CA\n"
"                      certificate of its chain, is revoked is refused;\n"
"                      a CRL that is stale (next update past), not the\n"
"                      CA's or not PEM is refused before any connection\n"
"                      (exit 2); default: no revocation check\n"
"  --timeout S         per connect and per request (default 5)\n"
"  --plan-timeout S    the whole plan's bound, on top of --timeout: an\n"
"                      agent's answer is waited for until either ends\n"
"                      (connecting keeps --timeout alone; default: no\n"
"                      bound)\n"
"  --record FILE       append every message the agents send (tests)\n"
"\n"
"exit status: 0 a plan, 3 no plan satisfies the request or an agent\n"
"cannot be reached (the reason is printed), 2 bad input, 1 internal\n"
"failure\n", LR_CDYNP_DEFAULT_WINDOW, LR_CDYNP_ALL_ORDERS,
        LR_CDYNP_AUTO_CELLS, LR_CDYNP_AUTO_CELLS, LR_CDYNP_AUTO_CELLS,
        LR_CDYNP_ALL_ORDERS, LR_CDYNP_BEAM, LR_CDYNP_MAX_BEAM);
}

static int
parse_args(int argc, char **argv, struct opts *o)
{
    enum { O_MODEL = 256, O_MFILE, O_CLUSTER, O_ALGO, O_BATCH, O_MICRO,
           O_WINDOW, O_ORDER, O_NODES, O_FORMAT, O_PLOT, O_GBPS, O_HELP,
           O_DIST, O_CERT, O_KEY, O_CA, O_CRL, O_TIMEOUT, O_RECORD, O_STEP,
           O_BUDGET, O_BEAM };
    static const struct option longopts[] = {
        { "model", required_argument, NULL, O_MODEL },
        { "model-file", required_argument, NULL, O_MFILE },
        { "cluster", required_argument, NULL, O_CLUSTER },
        { "algo", required_argument, NULL, O_ALGO },
        { "batch", required_argument, NULL, O_BATCH },
        { "microbatch", required_argument, NULL, O_MICRO },
        { "window", required_argument, NULL, O_WINDOW },
        { "order", required_argument, NULL, O_ORDER },
        { "device-step", required_argument, NULL, O_STEP },
        { "beam", required_argument, NULL, O_BEAM },
        { "max-nodes", required_argument, NULL, O_NODES },
        { "format", required_argument, NULL, O_FORMAT },
        { "plot", required_argument, NULL, O_PLOT },
        { "inter-dc-gbps", required_argument, NULL, O_GBPS },
        { "help", no_argument, NULL, O_HELP },
        { "distributed", no_argument, NULL, O_DIST },
        { "cert", required_argument, NULL, O_CERT },
        { "key", required_argument, NULL, O_KEY },
        { "ca", required_argument, NULL, O_CA },
        { "crl", required_argument, NULL, O_CRL },
        { "timeout", required_argument, NULL, O_TIMEOUT },
        { "plan-timeout", required_argument, NULL, O_BUDGET },
        { "record", required_argument, NULL, O_RECORD },
        { NULL, 0, NULL, 0 },
    };
    int c;
    long v;
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
        case O_MODEL: o->model = optarg; break;
        case O_MFILE: o->model_file = optarg; break;
        case O_CLUSTER: o->cluster = optarg; break;
        case O_ALGO:
            bad = "--algo wants cdynp, exact, dp, pipedream, spp or zone";
            for (int i = 0; i < 6; i++)
                if (!strcmp(optarg, algo_names[i])) {
                    o->algo = (enum algo) i;
                    bad = NULL;
                }
            break;
        case O_BATCH:
            if (lr_parse_double(optarg, 1, 1e9, &o->batch))
                bad = "--batch wants a number of samples from 1 to 1e9";
            break;
        case O_MICRO:
            if (lr_parse_double(optarg, 1e-9, 1e9, &o->micro))
                bad = "--microbatch wants a number of samples from 1e-9 to 1e9";
            break;
        case O_WINDOW:
            if (lr_parse_long(optarg, -1, LR_MODEL_MAX_LAYERS, &v))
                bad = "--window wants an integer from -1 to 4096 (-1: "
                      "the whole range)";
            o->window = (int) v;
            o->window_set = true;
            break;
        case O_ORDER: o->order = optarg; break;
        case O_STEP:
            o->device_step_set = true;
            if (!strcmp(optarg, "auto"))
                o->device_step = 0;
            else if (!strcmp(optarg, "best"))
                o->device_step = LR_CDYNP_STEP_BEST;
            else if (lr_parse_long(optarg, 1, 1000000, &v))
                bad = "--device-step wants a number of devices from 1 to "
                      "1000000, auto or best";
            else
                o->device_step = (int) v;
            break;
        case O_BEAM:
            if (lr_parse_long(optarg, 0, LR_CDYNP_MAX_BEAM, &v))
                bad = "--beam wants a width from 0 to 64 (0: the greedy "
                      "chain's prefixes only)";
            o->beam = (int) v;
            o->beam_set = true;
            break;
        case O_NODES:
            if (lr_parse_long(optarg, 1, 1L << 40, &v))
                bad = "--max-nodes wants a positive integer, "
                    "up to 1099511627776";
            o->max_nodes = v;
            break;
        case O_FORMAT:
            bad = lr_cli_parse_format(optarg, &o->json);
            break;
        case O_PLOT: o->plot = optarg; break;
        case O_GBPS:
            if (lr_parse_double(optarg, 1e-6, 1e6, &o->inter_gbps))
                bad = "--inter-dc-gbps wants a positive rate in Gb/s, "
                    "up to 1e6";
            break;
        case O_DIST: o->distributed = 1; break;
        case O_CERT: o->cert = optarg; break;
        case O_KEY: o->key = optarg; break;
        case O_CA: o->ca = optarg; break;
        case O_CRL:
            /* The parties take "" for no CRL (lightraild's absent
             * leaf): from the command line it is a mistake, which
             * would plan with no revocation check and say nothing. */
            if (!*optarg) {
                lr_cli_err(CMD, "--crl: an empty file name: give the "
                           "CAs' CRLs (PEM), or leave --crl out for no "
                           "revocation check");
                return LR_EXIT_USAGE;
            }
            o->crl = optarg;
            break;
        case O_RECORD: o->record = optarg; break;
        case O_TIMEOUT:
            if (lr_parse_double(optarg, 1e-3, 3600, &o->timeout))
                bad = "--timeout wants seconds in [0.001, 3600]";
            break;
        case O_BUDGET:
            if (lr_parse_double(optarg, 1e-3, 86400, &o->budget))
                bad = "--plan-timeout wants seconds in [0.001, 86400]";
            break;
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
    if (!!o->model == !!o->model_file) {
        lr_cli_err(CMD, "give one of --model NAME or --model-file FILE");
        return LR_EXIT_USAGE;
    }
    if (!o->cluster) {
        lr_cli_err(CMD, "--cluster FILE is required, e.g. "
                   "--cluster examples/clusters/man3.json");
        return LR_EXIT_USAGE;
    }
    if (o->distributed && (o->algo != A_CDYNP || o->plot || o->inter_gbps > 0
                           || o->max_nodes != 50000000
                           || o->device_step_set)) {
        lr_cli_err(CMD, "--distributed plans with CDynP only, each DC at "
                   "its own device step: --algo, --plot, --max-nodes, "
                   "--inter-dc-gbps and --device-step do not apply");
        return LR_EXIT_USAGE;
    }
    /* Options of one algorithm, which the others would ignore. */
    if ((o->order || o->window_set || o->device_step_set || o->beam_set)
        && o->algo != A_CDYNP) {
        lr_cli_err(CMD, "--order, --window, --device-step and --beam set "
                   "CDynP's search: --algo %s does not use them",
                   algo_names[o->algo]);
        return LR_EXIT_USAGE;
    }
    /* The beam searches for a chain; --order is the chain. */
    if (o->order && o->beam_set) {
        lr_cli_err(CMD, "--beam searches chains of DCs and --order gives "
                   "the one chain: give one of them");
        return LR_EXIT_USAGE;
    }
    if (o->plot && o->algo == A_DP) {
        lr_cli_err(CMD, "--plot draws a pipeline; a data-parallel plan "
                   "(--algo dp) has none");
        return LR_EXIT_USAGE;
    }
    if (o->max_nodes != 50000000 && o->algo != A_EXACT && !o->distributed) {
        lr_cli_err(CMD, "--max-nodes bounds --algo exact's search: --algo %s "
                   "does not use it", algo_names[o->algo]);
        return LR_EXIT_USAGE;
    }
    if (!o->distributed && (o->cert || o->key || o->ca || o->crl
                            || o->record || o->timeout > 0
                            || o->budget > 0)) {
        lr_cli_err(CMD, "--cert, --key, --ca, --crl, --timeout, "
                   "--plan-timeout and --record go with --distributed");
        return LR_EXIT_USAGE;
    }
    return lr_cli_check_microbatch(CMD, o->batch, o->micro);
}

/* "dc1,dc3" -> DC indices; exit code on error. */
static int
parse_order(const char *list, const struct lr_cluster *c, int *order, int *n)
{
    char buf[1024], *items[LR_TM_MAX_DCS];
    int n_items = lr_cli_split_list(CMD, "--order", "data centers", list,
                                    buf, sizeof buf, items, LR_TM_MAX_DCS);
    if (n_items < 0)
        return LR_EXIT_USAGE;
    *n = 0;
    for (int j = 0; j < n_items; j++) {
        const char *t = items[j];
        int k = lr_cluster_find_dc(c, t);
        if (k < 0) {
            lr_cli_err(CMD, "--order: no data center '%s' in the cluster", t);
            return LR_EXIT_USAGE;
        }
        for (int i = 0; i < *n; i++)
            if (order[i] == k) {
                lr_cli_err(CMD, "--order: '%s' listed twice", t);
                return LR_EXIT_USAGE;
            }
        /* A chain's neighbours exchange activations over their link:
         * without one no plan over the chain exists, and the planner
         * would say only that "consecutive data centers" lack it. */
        if (*n > 0 && lr_cluster_link_between(c, order[*n - 1], k) < 0) {
            lr_cli_err(CMD, "--order: no inter-DC link joins %s and %s in "
                       "the cluster: give an order whose neighbours are "
                       "linked", c->dcs[order[*n - 1]].name, t);
            return LR_EXIT_USAGE;
        }
        order[(*n)++] = k;
    }
    return 0;
}

/* GPipe with flush, simulated: returns the makespan and draws the chart
 * when 'g' is not NULL.  Rows: stage s at 2s, its outgoing transfers at
 * 2s + 1. */
static double
simulate(const struct lr_tm *tm, const struct lr_plan *p,
         const struct lr_tm_eval *ev, struct lr_gantt *g)
{
    const int S = p->n_stages, m = tm->m;
    double *fend = calloc((size_t) S * m, sizeof *fend);
    double *bend = calloc((size_t) S * m, sizeof *bend);
    double end = 0;
    if (!fend || !bend)
        goto out;
#define F(s, u) fend[(size_t) (s) * m + (u)]
#define B(s, u) bend[(size_t) (s) * m + (u)]
    for (int u = 0; u < m; u++)
        for (int s = 0; s < S; s++) {
            double ready = s ? F(s - 1, u) + ev->c[s - 1] : 0;
            double free_at = u ? F(s, u - 1) : 0;
            double start = fmax(ready, free_at);
            F(s, u) = start + ev->t[s] / 3;
            if (g) {
                lr_gantt_box(g, 2 * s, start, F(s, u), 0);
                if (s)
                    lr_gantt_box(g, 2 * s - 1, F(s - 1, u), ready, 2);
            }
        }
    for (int u = m - 1; u >= 0; u--)
        for (int s = S - 1; s >= 0; s--) {
            double ready = s < S - 1 ? B(s + 1, u) + ev->c[s] : F(S - 1, m - 1);
            double free_at = u < m - 1 ? B(s, u + 1) : F(s, m - 1);
            double start = fmax(ready, free_at);
            B(s, u) = start + 2 * ev->t[s] / 3;
            if (g) {
                lr_gantt_box(g, 2 * s, start, B(s, u), 1);
                if (s < S - 1)
                    lr_gantt_box(g, 2 * s + 1, B(s + 1, u), ready, 2);
            }
        }
    for (int s = 0; s < S; s++) {
        double done = B(s, 0) + ev->sync[s];
        if (g && ev->sync[s] > 0)
            lr_gantt_box(g, 2 * s, B(s, 0), done, 3);
        end = fmax(end, done);
    }
#undef F
#undef B
out:
    free(fend);
    free(bend);
    return end;
}

/* The settings that change the plan, into 'j', so that a JSON file read
 * alone says what it planned (a bandwidth sweep's files differ only in
 * inter_dc_gbps): the cluster, the inter-DC rate (null: the cluster's
 * links), and the options of the algorithm that ran (the others are
 * refused with it). */
static void
plan_json_settings(json_object *j, const struct opts *o)
{
    json_object_object_add(j, "cluster", json_object_new_string(o->cluster));
    json_object_object_add(j, "inter_dc_gbps", o->inter_gbps > 0
                           ? json_object_new_double(o->inter_gbps) : NULL);
    if (o->algo == A_CDYNP) {
        json_object_object_add(j, "window", json_object_new_int(o->window));
        json_object_object_add(j, "order", o->order
                               ? json_object_new_string(o->order) : NULL);
        /* The beam plays no part in a given chain. */
        json_object_object_add(j, "beam", o->order ? NULL
                               : json_object_new_int(o->beam));
        json_object_object_add(j, "device_step",
            o->device_step == 0 ? json_object_new_string("auto")
            : o->device_step == LR_CDYNP_STEP_BEST
            ? json_object_new_string("best")
            : json_object_new_int(o->device_step));
    }
    if (o->algo == A_EXACT)
        json_object_object_add(j, "max_nodes",
                               json_object_new_int64(o->max_nodes));
}

static json_object *
plan_json(const struct opts *o, const struct lr_tm *tm, const char *model,
          enum lr_tm_why why, const char *reason, const struct lr_plan *p,
          const struct lr_tm_eval *ev, double search_s,
          const struct lr_exact_stats *xs)
{
    json_object *j = json_object_new_object();
    json_object_object_add(j, "algorithm",
                           json_object_new_string(algo_names[o->algo]));
    json_object_object_add(j, "model", json_object_new_string(model));
    json_object_object_add(j, "batch", json_object_new_double(o->batch));
    json_object_object_add(j, "microbatch", json_object_new_double(o->micro));
    json_object_object_add(j, "microbatches", json_object_new_int(tm->m));
    plan_json_settings(j, o);
    json_object_object_add(j, "feasible",
                           json_object_new_boolean(why == LR_TM_OK));
    if (why != LR_TM_OK)
        json_object_object_add(j, "reason", json_object_new_string(reason));
    json_object_object_add(j, "search_time_s",
                           json_object_new_double(search_s));
    if (xs) {
        json_object_object_add(j, "exact_nodes",
                               json_object_new_int64(xs->nodes));
        json_object_object_add(j, "exact_complete",
                               json_object_new_boolean(xs->complete));
    }
    if (why != LR_TM_OK)
        return j;
    json_object_object_add(j, "iteration_time_s", json_object_new_double(ev->T));
    json_object_object_add(j, "bottleneck_s",
                           json_object_new_double(ev->bottleneck));
    /* sum_s as --distributed gives it (its agents tell no finer), then
     * its two parts. */
    json_object_object_add(j, "sum_s", json_object_new_double(
                               ev->compute_sum + ev->comm_sum));
    json_object_object_add(j, "compute_sum_s",
                           json_object_new_double(ev->compute_sum));
    json_object_object_add(j, "comm_sum_s", json_object_new_double(ev->comm_sum));
    json_object_object_add(j, "sync_max_s", json_object_new_double(ev->sync_max));
    json_object *st = json_object_new_array();
    for (int s = 0; s < p->n_stages; s++) {
        const struct lr_stage *x = &p->stages[s];
        json_object *o1 = json_object_new_object();
        json_object_object_add(o1, "first_layer", json_object_new_int(x->first + 1));
        json_object_object_add(o1, "last_layer", json_object_new_int(x->last + 1));
        json_object_object_add(o1, "dc", json_object_new_string(tm->dcs[x->dc].name));
        json_object_object_add(o1, "devices", json_object_new_int(x->g));
        json_object_object_add(o1, "time_s", json_object_new_double(ev->t[s]));
        json_object_object_add(o1, "sync_s", json_object_new_double(ev->sync[s]));
        json_object_object_add(o1, "memory_bytes", json_object_new_double(ev->mem[s]));
        json_object_array_add(st, o1);
    }
    json_object_object_add(j, "stages", st);
    json_object *bd = json_object_new_array();
    for (int s = 0; o->algo != A_DP && s + 1 < p->n_stages; s++) {
        json_object *o1 = json_object_new_object();
        json_object_object_add(o1, "after_layer",
                               json_object_new_int(p->stages[s].last + 1));
        json_object_object_add(o1, "from_dc",
                               json_object_new_string(tm->dcs[p->stages[s].dc].name));
        json_object_object_add(o1, "to_dc",
                               json_object_new_string(tm->dcs[p->stages[s + 1].dc].name));
        json_object_object_add(o1, "bytes", json_object_new_double(ev->bytes[s]));
        json_object_object_add(o1, "time_s", json_object_new_double(ev->c[s]));
        json_object_array_add(bd, o1);
    }
    json_object_object_add(j, "boundaries", bd);
    return j;
}

static void
print_text(const struct opts *o, const struct lr_tm *tm, const char *model,
           const struct lr_plan *p, const struct lr_tm_eval *ev,
           double search_s)
{
    printf("# %s on %s: B=%g, b=%g (m=%d), %s, search %.3f ms", model,
           o->cluster, o->batch, o->micro, tm->m, algo_names[o->algo],
           search_s * 1e3);
    if (o->inter_gbps > 0)
        printf("; inter-DC links at %g Gb/s (--inter-dc-gbps)",
               o->inter_gbps);
    putchar('\n');
    if (o->algo == A_DP) {
        printf("data parallel over %d data center(s), a full replica on "
               "every device:\n", p->n_stages);
        for (int s = 0; s < p->n_stages; s++)
            printf("  %-12s %4d devices   memory %.2f GB per device\n",
                   tm->dcs[p->stages[s].dc].name, p->stages[s].g,
                   ev->mem[s] / 1e9);
        printf("iteration time T = %.4f s (compute %.4f s, all-reduce "
               "%.4f s)\n", ev->T, ev->compute_sum, ev->sync_max);
        return;
    }
    printf("%-6s %-11s %-12s %7s %11s %10s %10s\n", "stage", "layers", "dc",
           "devices", "time (s)", "sync (s)", "mem (GB)");
    for (int s = 0; s < p->n_stages; s++) {
        const struct lr_stage *x = &p->stages[s];
        char layers[32];
        snprintf(layers, sizeof layers, "%d-%d", x->first + 1, x->last + 1);
        printf("%-6d %-11s %-12s %7d %11.5f %10.5f %10.2f\n", s + 1, layers,
               tm->dcs[x->dc].name, x->g, ev->t[s], ev->sync[s],
               ev->mem[s] / 1e9);
        if (s + 1 < p->n_stages && p->stages[s + 1].dc == x->dc)
            printf("  -> after layer %d: inside %s, %.2f MB per microbatch, "
                   "%.3f ms\n", x->last + 1, tm->dcs[x->dc].name,
                   ev->bytes[s] / 1e6, ev->c[s] * 1e3);
        else if (s + 1 < p->n_stages)
            printf("  -> after layer %d: %s -> %s, %.2f MB per microbatch, "
                   "%.3f ms\n", x->last + 1, tm->dcs[x->dc].name,
                   tm->dcs[p->stages[s + 1].dc].name, ev->bytes[s] / 1e6,
                   ev->c[s] * 1e3);
    }
    printf("iteration time T = %.4f s = compute %.4f + transfers %.4f + "
           "(m-1) x bottleneck %.4f + sync %.4f\n", ev->T, ev->compute_sum,
           ev->comm_sum, (tm->m - 1) * ev->bottleneck, ev->sync_max);
}

int
lr_cmd_plan(int argc, char **argv)
{
    struct opts o = {
        .algo = A_CDYNP, .batch = 32, .micro = 1,
        .window = LR_CDYNP_DEFAULT_WINDOW, .max_nodes = 50000000,
        .beam = LR_CDYNP_BEAM,
    };
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc < 0 ? LR_EXIT_OK : rc;
    /* The chart is drawn after the plan, which --algo exact or a large
     * cluster can take minutes to find. */
    if (lr_cli_output_check(CMD, "--plot", o.plot))
        return LR_EXIT_USAGE;

    struct ly_ctx *ctx = NULL;
    struct lr_model *model = NULL;
    struct lr_cluster *cluster = NULL;
    struct lr_tm *tm = NULL;
    struct lr_plan *plan = calloc(1, sizeof *plan);
    struct lr_tm_eval *ev = calloc(1, sizeof *ev);
    struct lr_gantt *g = NULL;
    char err[1024], reason[512] = "";
    if (!plan || !ev) {
        rc = LR_EXIT_FAIL;
        goto cleanup;
    }
    if (lr_yang_ctx_new(&ctx, err, sizeof err)) {
        lr_cli_err(CMD, "%s", err);
        rc = LR_EXIT_FAIL;
        goto cleanup;
    }
    if (o.model) {
        if (lr_model_preset(o.model, &model)) {
            char known[256] = "";
            for (int i = 0; lr_model_presets[i]; i++)
                snprintf(known + strlen(known), sizeof known - strlen(known),
                         "%s%s", i ? ", " : "", lr_model_presets[i]);
            lr_cli_err(CMD, "unknown model preset '%s' (known: %s; or "
                       "--model-file FILE)", o.model, known);
            rc = LR_EXIT_USAGE;
            goto cleanup;
        }
    } else if (lr_yang_load_model(ctx, o.model_file, &model, err,
                                  sizeof err)) {
        lr_cli_err(CMD, "%s", err);
        rc = LR_EXIT_USAGE;
        goto cleanup;
    }
    if (lr_yang_load_cluster(ctx, o.cluster, &cluster, err, sizeof err)) {
        lr_cli_err(CMD, "%s", err);
        rc = LR_EXIT_USAGE;
        goto cleanup;
    }
    struct lr_train tr = { o.batch, o.micro, 2 };
    if (lr_tm_new(model, cluster, &tr, &tm)) {
        lr_cli_err(CMD, "%s: the cluster has no data center, or more than %d",
                   o.cluster, LR_TM_MAX_DCS);
        rc = LR_EXIT_USAGE;
        goto cleanup;
    }
    if (o.inter_gbps > 0)
        for (int a = 0; a < tm->n_dcs; a++)
            for (int b = a + 1; b < tm->n_dcs; b++)
                if (tm->link[a][b].bw > 0)
                    lr_tm_set_link(tm, a, b, o.inter_gbps * 1e9 / 8,
                                   tm->link[a][b].lat);
    int order[LR_TM_MAX_DCS], n_order = 0;
    if (o.order && (rc = parse_order(o.order, cluster, order, &n_order)))
        goto cleanup;

    if (o.distributed) {
        struct lr_plan_dist d = {
            .cluster_file = o.cluster,
            .model = o.model ? o.model : model->name,
            .cert = o.cert, .key = o.key, .ca = o.ca, .crl = o.crl,
            .record = o.record,
            .timeout = o.timeout > 0 ? o.timeout : 5, .budget = o.budget,
            .json = o.json,
            .window = o.window, .order = n_order ? order : NULL,
            .n_order = n_order, .order_text = o.order, .beam = o.beam,
        };
        rc = lr_plan_distributed(&d, tm, cluster);
        goto cleanup;
    }

    struct lr_exact_stats xs;
    double t0 = lr_cli_now();
    enum lr_tm_why why = LR_TM_OK;
    switch (o.algo) {
    case A_CDYNP: {
        struct lr_cdynp_options co = {
            .window = o.window, .order = n_order ? order : NULL,
            .n_order = n_order, .device_step = o.device_step,
            .beam = lr_cdynp_beam_option(o.beam),
        };
        why = lr_cdynp_plan(tm, &co, plan, ev);
        break;
    }
    case A_EXACT:
        why = lr_exact_plan(tm, o.max_nodes, plan, ev, &xs);
        break;
    case A_DP:
        why = lr_baseline_dp(tm, plan, ev);
        break;
    case A_PIPEDREAM:
        why = lr_baseline_pipedream(tm, plan, ev);
        break;
    case A_SPP:
        why = lr_baseline_spp(tm, plan, ev);
        break;
    case A_ZONE:
        /* Offline: no measurement, the cluster's links as they are. */
        why = lr_baseline_zone(tm, NULL, plan, ev);
        break;
    }
    double search = lr_cli_now() - t0;
    if (why != LR_TM_OK)
        lr_tm_explain(tm, why, reason, sizeof reason);
    if (o.algo == A_EXACT && !xs.complete)
        fprintf(stderr, "lightrail plan: exact search stopped after %ld "
                "nodes (--max-nodes): the plan is the best found, not a "
                "proven optimum\n", xs.nodes);

    const char *mname = o.model ? o.model : model->name;
    if (o.json) {
        json_object *j = plan_json(&o, tm, mname, why, reason, plan, ev,
                                   search, o.algo == A_EXACT ? &xs : NULL);
        printf("%s\n", json_object_to_json_string_ext(j,
                                                      JSON_C_TO_STRING_PRETTY
                                                      | JSON_C_TO_STRING_SPACED));
        json_object_put(j);
    } else if (why == LR_TM_OK) {
        print_text(&o, tm, mname, plan, ev, search);
    }
    if (why == LR_TM_NOMEM) {
        /* No verdict on the request: an internal failure, not "no plan". */
        lr_cli_err(CMD, "%s", reason);
        rc = LR_EXIT_FAIL;
        goto cleanup;
    }
    if (why != LR_TM_OK) {
        lr_cli_err(CMD, "no plan: %s", reason);
        rc = LR_EXIT_INFEASIBLE;
        goto cleanup;
    }

    if (o.plot) {
        char title[256], xlabel[32];
        double span = simulate(tm, plan, ev, NULL), scale;
        lr_plot_plan_title(mname, o.cluster, algo_names[o.algo], span,
                           ev->T, title, sizeof title);
        /* The axis in the makespan's unit: a toy model's 2.4 ms read
         * 0.0024 on an axis in seconds. */
        snprintf(xlabel, sizeof xlabel, "time (%s)",
                 lr_plot_time_unit(span, &scale));
        g = lr_gantt_new(title, xlabel);
        if (g)
            lr_gantt_x_scale(g, scale);
        for (int s = 0; g && s < plan->n_stages; s++) {
            char label[160];   /* the stage and two DC names: never cut */
            snprintf(label, sizeof label, "stage %d (%s x%d)", s + 1,
                     tm->dcs[plan->stages[s].dc].name, plan->stages[s].g);
            lr_gantt_row(g, 2 * s, label);
            if (s + 1 < plan->n_stages) {
                snprintf(label, sizeof label, "%s->%s",
                         tm->dcs[plan->stages[s].dc].name,
                         tm->dcs[plan->stages[s + 1].dc].name);
                lr_gantt_row(g, 2 * s + 1, label);
            }
        }
        if (g)
            simulate(tm, plan, ev, g);
        static const char *const classes[] = {
            "forward", "backward", "transfer", "gradient sync",
        };
        if (!g || lr_gantt_write_png(g, o.plot, classes, 4, err,
                                     sizeof err)) {
            lr_cli_err(CMD, "%s", g ? err : "out of memory");
            rc = LR_EXIT_FAIL;
            goto cleanup;
        }
    }
    rc = LR_EXIT_OK;

cleanup:
    lr_gantt_free(g);
    free(plan);
    free(ev);
    lr_tm_free(tm);
    lr_cluster_free(cluster);
    lr_model_free(model);
    lr_yang_ctx_free(ctx);
    return rc;
}
