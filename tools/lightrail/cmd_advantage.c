/*
 * lightrail advantage: how much could any single decision beat a baseline
 * in the joint environment?  Runs the baseline (greedy by default) and,
 * at sampled decisions along its own run, estimates by rollouts the
 * blocking of every feasible first action against the baseline's choice
 * (planner/lr_jenv_advantage.h, which gives the model and the sources).
 *
 * Per sampled state s: gain(s) = max(0, -min_a A(s, a)), the blocked jobs
 * the best other first action saves (an upper estimate: the minimum of
 * noisy means).  A second figure is free of that bias: the futures are
 * split in two halves, the first picks the alternative (the base's own
 * choice unless one looks better), the second measures what the pick
 * saves: what the rollout policy, one step of policy improvement, would
 * gain.  The summary converts the mean gains per decision into shares of
 * the baseline's blocking: by the performance difference formula, a
 * policy that decided better in such states would block at most that
 * much less.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "planner/lr_jenv.h"
#include "planner/lr_jenv_advantage.h"
#include "planner/lr_stats.h"
#include "planner/lr_util.h"
#include "tools/lightrail/lr_cli.h"
#include "tools/lightrail/lr_jenv_cli.h"

#define CMD "advantage"
/* The examined run's bound: arrivals per decision it may need. */
#define ADV_ARRIVALS_PER_DECISION 1000

struct opts {
    struct lr_jenv_cli_opts env;
    const char *policy;
    int states, every, samples, top, quiet;
    long horizon, warmup, arrivals;
    bool refusal, json;
    unsigned long long seed;
};

static void
usage(FILE *f)
{
    fprintf(f,
"usage: lightrail advantage --topology FILE --cluster FILE --load E\n"
"                           [--policy NAME] [--states N] [--every K]\n"
"                           [--samples M] [--horizon H] [--top N]\n"
"                           [--refusal] [--known-work] [--seed S]\n"
"                           [--warmup N] [--arrivals N]\n"
"                           [--format text|json] [--quiet]\n"
"                           [environment options]\n"
"\n"
"Asks whether a baseline of `lightrail sim` leaves blocking on the table.\n"
"Runs the baseline at load E and, at every K-th decision after the\n"
"warm-up, tries each feasible candidate for the pending job instead of\n"
"the baseline's: M futures (the same M for every candidate: common random\n"
"numbers), each the next H arrivals with the baseline deciding, counting\n"
"the blocked jobs.  A state's gain is what the best other candidate saves\n"
"against the baseline's own choice (0 when none is better); the mean gain\n"
"per decision, as a share of the baseline's blocking, bounds what a policy\n"
"that decides better in such states can save (performance difference\n"
"formula; the gain is an upper estimate, a minimum of noisy means).\n"
"The held-out gain picks the alternative on half of the futures and\n"
"measures it on the other half: what one step of policy improvement\n"
"(the rollout policy) would save, without that bias.\n"
"\n"
"  --load E            offered load in Erlang (required)\n"
"  --policy NAME       the baseline (default greedy; see lightrail sim)\n"
"  --states N          decisions examined (default 200)\n"
"  --every K           one in K decisions is examined (default 20)\n"
"  --samples M         futures per candidate (default 1000)\n"
"  --horizon H         arrivals per future after the pending job (default\n"
"                      40; it must outlast one decision's effect)\n"
"  --top N             only the baseline's choice and the N fastest other\n"
"                      feasible candidates (default 0: every feasible one)\n"
"  --refusal           refusing the job is one of the alternatives\n"
"                      With --known-work (below) the futures know every\n"
"                      job's holding time (its work) as drawn; by default\n"
"                      they know only what a policy observes, and draw the\n"
"                      pending job's holding and what is left of the\n"
"                      running jobs' afresh\n"
"  --seed S            the baseline's run (default 1001)\n"
"  --warmup N          arrivals before the first examined decision, and\n"
"                      before the blocking run counts (default 500)\n"
"  --arrivals N        jobs of the run that measures the baseline's\n"
"                      blocking, seed S, warm-up included (default 100000)\n"
"  --format FMT        text (a summary) or json (the summary and every\n"
"                      state examined, one object)\n"
"  --quiet             no progress on stderr (else a line redrawn on a\n"
"                      terminal, or one every 30 s in a log:\n"
"                      LIGHTRAIL_PROGRESS_SECONDS sets the interval)\n"
"%s"
"\n"
"Cost: about N x (candidates) x M x (H + 1) environment steps.  The run\n"
"that finds the states stops after 1000 x N x K arrivals past the\n"
"warm-up (a load where nearly every job is blocked before any decision\n"
"finds fewer; that is said, and none is an error).\n"
"exit status: 0 done, 1 internal failure, 2 bad input\n",
            lr_jenv_cli_help);
}

static int
parse_args(int argc, char **argv, struct opts *o)
{
    enum { O_TOPO = 256, O_CLUSTER, O_LOAD, O_POLICY, O_STATES, O_EVERY,
           O_SAMPLES, O_HORIZON, O_TOP, O_REFUSAL, O_SEED, O_WARM, O_FORMAT,
           O_QUIET, O_ARR, O_HELP };
    static const struct option longopts[] = {
        { "topology", required_argument, NULL, O_TOPO },
        { "cluster", required_argument, NULL, O_CLUSTER },
        { "load", required_argument, NULL, O_LOAD },
        { "policy", required_argument, NULL, O_POLICY },
        { "states", required_argument, NULL, O_STATES },
        { "every", required_argument, NULL, O_EVERY },
        { "samples", required_argument, NULL, O_SAMPLES },
        { "horizon", required_argument, NULL, O_HORIZON },
        { "top", required_argument, NULL, O_TOP },
        { "refusal", no_argument, NULL, O_REFUSAL },
        { "seed", required_argument, NULL, O_SEED },
        { "warmup", required_argument, NULL, O_WARM },
        { "format", required_argument, NULL, O_FORMAT },
        { "quiet", no_argument, NULL, O_QUIET },
        { "arrivals", required_argument, NULL, O_ARR },
        LR_JENV_CLI_LONGOPTS,
        { "help", no_argument, NULL, O_HELP },
        { NULL, 0, NULL, 0 },
    };
    long v;
    int c;
    bool load_set = false;
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
        case O_LOAD:
            if (lr_parse_double(optarg, 1e-9, 1e9, &o->env.load))
                bad = "--load wants a positive number of Erlang, up to 1e9";
            load_set = true;
            break;
        case O_POLICY: o->policy = optarg; break;
        case O_STATES:
            if (lr_parse_long(optarg, 2, 1000000, &v))
                bad = "--states wants an integer in 2..1000000";
            o->states = (int) v;
            break;
        case O_EVERY:
            if (lr_parse_long(optarg, 1, 1000000, &v))
                bad = "--every wants a positive integer, up to 1000000";
            o->every = (int) v;
            break;
        case O_SAMPLES:
            if (lr_parse_long(optarg, 4, 100000000, &v))
                bad = "--samples wants an integer of at least 4 (two "
                      "halves of at least 2)";
            o->samples = (int) v;
            break;
        case O_HORIZON:
            if (lr_parse_long(optarg, 1, 1000000, &v))
                bad = "--horizon wants a positive integer, up to 1000000";
            o->horizon = v;
            break;
        case O_TOP:
            if (lr_parse_long(optarg, 0, 100000, &v))
                bad = "--top wants a non-negative integer, up to 100000";
            o->top = (int) v;
            break;
        case O_REFUSAL: o->refusal = true; break;
        case O_SEED:
            if (lr_parse_long(optarg, 0, 2147483647L, &v))
                bad = "--seed wants a non-negative integer, up to 2147483647";
            o->seed = (unsigned long long) v;
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
        case O_QUIET: o->quiet = 1; break;
        case O_ARR:
            if (lr_parse_long(optarg, 1, 1000000000L, &v))
                bad = "--arrivals wants a positive integer, up to 1000000000";
            o->arrivals = v;
            break;
        case O_HELP:
            usage(stdout);
            return -1;
        default:
            if (c < LR_JENV_O_FIRST || c >= LR_JENV_O_LAST)
                return lr_cli_bad_option(CMD, argv, optind);
            bad = lr_jenv_cli_option(c, optarg, &o->env);
        }
        if (bad)
            return lr_cli_bad_value(CMD, bad, optarg);
    }
    if (lr_cli_extra_args(CMD, argc, argv, optind))
        return LR_EXIT_USAGE;
    if (o->warmup >= o->arrivals) {
        lr_cli_err(CMD, "--warmup (%ld) must be below --arrivals (%ld)",
                   o->warmup, o->arrivals);
        return LR_EXIT_USAGE;
    }
    if (!load_set) {
        lr_cli_err(CMD, "--load E is required: the offered load in Erlang, "
                   "e.g. --load 1.0 (where the baseline blocks about 5%%: "
                   "see lightrail sim)");
        return LR_EXIT_USAGE;
    }
    return LR_EXIT_OK;
}

/* One examined state. */
struct state {
    long decision;
    int model, gpus, n_actions;
    int base, best;               /* candidates (best: -1 = refuse) */
    double base_slow, best_slow;  /* T / T_ref; the refusal: 0 */
    double q_base, gain, gain_se;
    /* The alternative the first half of the futures picks (the base's
     * own choice unless one looks better) and what the second half says
     * it saves: unbiased for that pick, may be negative. */
    int picked;
    double heldout;
    bool significant;             /* best beats base by 1.96 SE */
};

/* A gain per decision as a share of the baseline's blocking: times the
 * decisions per counted arrival, over the blocked per arrival. */
static double
share(const struct lr_jenv_metrics *m, double per_dec, double gain)
{
    return m->blocking > 0 ? gain * per_dec / m->blocking : 0;
}

static void
print_text(const struct opts *o, const struct state *st,
           const struct lr_jenv_metrics *m, double per_dec,
           const struct lr_stats *g)
{
    int sig = 0, better = 0, moved = 0;
    for (int i = 0; i < o->states; i++) {
        sig += st[i].significant;
        better += st[i].gain > 0;
        moved += st[i].picked != st[i].base;
    }
    printf("# %s + %s, holding %s, %g E; baseline %s, seed %llu; %d states "
           "(one decision in %d after %ld arrivals), %d futures of %ld "
           "arrivals per candidate%s%s%s%s%s\n", o->env.topology,
           o->env.cluster, lr_jenv_holding_name(o->env.holding_mode),
           o->env.load, o->policy, o->seed, o->states, o->every, o->warmup,
           o->samples, o->horizon,
           o->top ? ", the fastest candidates only" : "",
           o->refusal ? ", refusal included" : "",
           o->env.known_work ? "; every job's work known" : "",
           o->env.triples ? "; pipelines over three DCs too" : "",
           o->env.quads ? "; pipelines over four DCs too" : "");
    printf("baseline blocking:      %.3f%% (%ld of %ld arrivals after %ld, "
           "seed %llu)\n", 100 * m->blocking, m->blocked, m->arrivals,
           o->warmup, o->seed);
    printf("blocked in the %ld arrivals after the baseline's choice: %.3f\n",
           o->horizon, g[1].mean);
    printf("states where another candidate looks better: %d of %d; by more "
           "than 1.96 SE: %d\n", better, o->states, sig);
    printf("best gain per decision: %.5f +- %.5f blocked jobs, %.1f%% +- "
           "%.1f%% of the baseline's blocking (upper estimate)\n",
           g[0].mean, g[0].ci95, 100 * share(m, per_dec, g[0].mean),
           100 * share(m, per_dec, g[0].ci95));
    printf("held-out gain:          %.5f +- %.5f blocked jobs, %.1f%% +- "
           "%.1f%% (picked on half the futures, %d states moved, measured "
           "on the other half)\n", g[2].mean, g[2].ci95,
           100 * share(m, per_dec, g[2].mean),
           100 * share(m, per_dec, g[2].ci95), moved);
}

static void
print_json(const struct opts *o, const struct state *st,
           const struct lr_jenv_metrics *m, double per_dec,
           const struct lr_stats *g)
{
    json_object *r = json_object_new_object();
#define ADD(key, v) json_object_object_add(r, key, v)
    ADD("policy", json_object_new_string(o->policy));
    ADD("load", lr_cli_json_number(o->env.load));
    ADD("holding", json_object_new_string(
        lr_jenv_holding_name(o->env.holding_mode)));
    ADD("seed", json_object_new_int64((int64_t) o->seed));
    ADD("samples", json_object_new_int(o->samples));
    ADD("horizon", json_object_new_int64(o->horizon));
    ADD("known_work", json_object_new_boolean(o->env.known_work));
    ADD("triples", json_object_new_boolean(o->env.triples));
    ADD("quads", json_object_new_boolean(o->env.quads));
    ADD("refusal", json_object_new_boolean(o->refusal));
    ADD("blocking", json_object_new_double(m->blocking));
    ADD("decisions_per_arrival", json_object_new_double(per_dec));
    ADD("gain_per_decision", json_object_new_double(g[0].mean));
    ADD("gain_per_decision_ci95", json_object_new_double(g[0].ci95));
    ADD("gain_share_of_blocking",
        json_object_new_double(share(m, per_dec, g[0].mean)));
    ADD("heldout_gain_per_decision", json_object_new_double(g[2].mean));
    ADD("heldout_gain_per_decision_ci95", json_object_new_double(g[2].ci95));
    ADD("heldout_share_of_blocking",
        json_object_new_double(share(m, per_dec, g[2].mean)));
#undef ADD
    json_object *a = json_object_new_array();
    for (int i = 0; i < o->states; i++) {
        const struct state *s = &st[i];
        json_object *x = json_object_new_object();
#define ADD(key, v) json_object_object_add(x, key, v)
        ADD("decision", json_object_new_int64(s->decision));
        ADD("model", json_object_new_int(s->model));
        ADD("gpus", json_object_new_int(s->gpus));
        ADD("actions", json_object_new_int(s->n_actions));
        ADD("base", json_object_new_int(s->base));
        ADD("best", json_object_new_int(s->best));
        ADD("base_slowdown", json_object_new_double(s->base_slow));
        ADD("best_slowdown", json_object_new_double(s->best_slow));
        ADD("blocked_after_base", json_object_new_double(s->q_base));
        ADD("gain", json_object_new_double(s->gain));
        ADD("gain_se", json_object_new_double(s->gain_se));
        ADD("picked", json_object_new_int(s->picked));
        ADD("heldout_gain", json_object_new_double(s->heldout));
#undef ADD
        json_object_array_add(a, x);
    }
    json_object_object_add(r, "states", a);
    printf("%s\n", json_object_to_json_string_ext(r, JSON_C_TO_STRING_PLAIN));
    json_object_put(r);
}

int
lr_cmd_advantage(int argc, char **argv)
{
    struct opts o = {
        .env = { LR_JENV_CLI_DEFAULTS },
        .policy = "greedy", .states = 200, .every = 20, .samples = 1000,
        .horizon = 40, .seed = 1001, .warmup = 500,
        .arrivals = 100000,
    };
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc < 0 ? LR_EXIT_OK : rc;
    const struct lr_jenv_policy *base = lr_jenv_policy_find(o.policy);
    if (!base) {
        char known[256] = "";
        for (int i = 0; lr_jenv_policies[i]; i++)
            snprintf(known + strlen(known), sizeof known - strlen(known),
                     "%s%s", i ? ", " : "", lr_jenv_policies[i]->name);
        lr_cli_err(CMD, "unknown policy '%s': give one of %s", o.policy,
                   known);
        return LR_EXIT_USAGE;
    }
    o.policy = base->name;
    /* As sim: without --known-work greedy-work would read no length and
     * run as greedy under its own name. */
    if (base == &lr_jenv_greedy_work && !o.env.known_work) {
        lr_cli_err(CMD, "greedy-work reads each job's length: add "
                   "--known-work");
        return LR_EXIT_USAGE;
    }
    struct lr_jenv_cli j;
    if ((rc = lr_jenv_cli_open(CMD, &o.env, &j)))
        return rc;
    struct lr_jenv *work = NULL;
    int na = lr_jenv_n_cands(j.env) + 2;
    struct lr_jenv_q *q = calloc((size_t) na, sizeof *q);
    struct lr_jenv_q *qb = calloc((size_t) na, sizeof *qb);
    struct state *st = calloc((size_t) o.states, sizeof *st);
    /* Per state: gain, blocked after the base's choice, held-out gain. */
    int stride = o.states;
    double *x = calloc(3 * (size_t) stride, sizeof *x);
    if (!q || !qb || !st || !x || lr_jenv_clone(j.env, &work)) {
        lr_cli_err(CMD, "out of memory");
        rc = LR_EXIT_FAIL;
        goto out;
    }
    struct lr_jenv *e = j.env;
    /* At most ADV_ARRIVALS_PER_DECISION arrivals per decision sought:
     * where nearly every job is blocked before any decision (a load far
     * past the network's), the examined run would otherwise take hours
     * to find its states. */
    const long limit = o.warmup + ADV_ARRIVALS_PER_DECISION
                                  * (long) o.states * o.every;
    lr_jenv_reset_limit(e, o.seed, o.warmup, limit);
    struct lr_rng r;
    lr_rng_seed(&r, o.seed + 1000003);
    struct lr_cli_progress pg;
    lr_cli_progress_init(&pg, o.quiet);
    int n = 0;
    long decisions = 0, counted = 0;
    double t0 = lr_cli_now();
    while (n < o.states && !lr_jenv_done(e)) {
        int a = base->choose(NULL, e, lr_jenv_mask(e), &r);
        struct lr_jenv_metrics m;
        lr_jenv_metrics(e, &m);
        bool counting = m.elapsed > 0 || m.arrivals > 0;
        decisions++;
        counted += counting;
        if (counting && a >= 0 && counted % o.every == 0) {
            int k = lr_jenv_alternatives(e, a, o.top, o.refusal, q);
            uint64_t seed = (uint64_t) o.seed * 1000003 + (uint64_t) decisions;
            /* Two halves of the futures (together the same M futures as
             * one call): the first picks an alternative, the second
             * says what it saves, free of the pick's selection bias. */
            int ma = o.samples / 2, mb = o.samples - ma;
            enum lr_jenv_fork_mode mode = o.env.known_work
                                              ? LR_JENV_FORK_KNOWN_WORK
                                              : LR_JENV_FORK_OBSERVABLE;
            memcpy(qb, q, (size_t) k * sizeof *q);
            if (lr_jenv_qvalues(e, &work, 1, base, NULL, q, k, 0, ma,
                                o.horizon, seed, mode)
                || lr_jenv_qvalues(e, &work, 1, base, NULL, qb, k, 0, mb,
                                   o.horizon, seed + (uint64_t) ma, mode)) {
                lr_cli_err(CMD, "out of memory");
                rc = LR_EXIT_FAIL;
                goto out;
            }
            int pick = 0;
            for (int i = 1; i < k; i++)
                if (q[i].diff < q[pick].diff)
                    pick = i;
            /* 0.0 - d, not -d: no "-0" in the output. */
            double held = pick ? 0.0 - qb[pick].diff : 0;
            /* All M futures: the means weighted by the halves' sizes. */
            for (int i = 0; i < k; i++) {
                q[i].blocked = (ma * q[i].blocked + mb * qb[i].blocked)
                               / o.samples;
                q[i].diff = (ma * q[i].diff + mb * qb[i].diff) / o.samples;
                q[i].diff_se = sqrt(ma * ma * q[i].diff_se * q[i].diff_se
                                    + mb * mb * qb[i].diff_se
                                          * qb[i].diff_se) / o.samples;
            }
            struct state *s = &st[n];
            int bi = 0;
            for (int i = 1; i < k; i++)
                if (q[i].diff < q[bi].diff)
                    bi = i;
            double tref = lr_jenv_job_tref(e);
            *s = (struct state) {
                .decision = decisions, .model = lr_jenv_job_model(e),
                .gpus = lr_jenv_job_gpus(e), .n_actions = k, .base = a,
                .best = q[bi].action,
                .base_slow = lr_jenv_cand_time(e, a) / tref,
                .best_slow = q[bi].action >= 0
                    ? lr_jenv_cand_time(e, q[bi].action) / tref : 0,
                .q_base = q[0].blocked, .gain = 0.0 - q[bi].diff,
                .gain_se = q[bi].diff_se, .picked = q[pick].action,
                .heldout = held,
            };
            s->significant = s->gain > 1.96 * s->gain_se && s->gain > 0;
            x[n] = s->gain;
            x[stride + n] = s->q_base;
            x[2 * stride + n] = s->heldout;
            n++;
            if (lr_cli_progress_due(&pg)) {
                double el = lr_cli_now() - t0;
                lr_cli_progress_show(&pg, "%s: state %d/%d, %.0f s, about "
                                     "%.0f s left ", CMD, n, o.states, el,
                                     el / n * (o.states - n));
            }
        }
        lr_jenv_step(e, a);
    }
    lr_cli_progress_erase(&pg);
    if (n < o.states) {
        struct lr_jenv_metrics m;
        lr_jenv_metrics(e, &m);
        if (n == 0) {
            lr_cli_err(CMD, "no decision to examine in %ld arrivals at %g E: "
                       "%.1f%% of the jobs were blocked before any decision; "
                       "lower --load", limit, o.env.load, 100 * m.blocking);
            rc = LR_EXIT_USAGE;
            goto out;
        }
        fprintf(stderr, "lightrail %s: %d of the %d states asked for in %ld "
                "arrivals at %g E (%.1f%% blocked before any decision); the "
                "figures are over those %d\n", CMD, n, o.states, limit,
                o.env.load, 100 * m.blocking, n);
    }
    o.states = n;
    /* The blocking the gain is measured against: a run of its own, long
     * enough for a tight estimate (the examined run is short). */
    struct lr_jenv_metrics m;
    lr_jenv_run(e, base, NULL, o.seed, o.arrivals, o.warmup, &m);
    struct lr_stats g[3];
    for (int i = 0; i < 3; i++)
        lr_stats_compute(x + (size_t) i * stride, n, &g[i]);
    /* Gain per decision to per arrival: decisions per counted arrival. */
    long made = m.admitted + m.refused;
    long arrived = m.arrivals;
    double per_dec = arrived ? (double) made / arrived : 0;
    if (o.json)
        print_json(&o, st, &m, per_dec, g);
    else
        print_text(&o, st, &m, per_dec, g);
out:
    free(x);
    free(st);
    free(q);
    free(qb);
    lr_jenv_free(work);
    lr_jenv_cli_close(&j);
    return rc;
}
