/* lr_ctl_ppo: the trained policy in the controller; see lr_ctl_ppo.h. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/lr_ctl_ppo.h"
#include "planner/lr_jenv_rollout.h"
#include "planner/lr_ppo.h"
#include "planner/lr_rng.h"
#include "planner/lr_utf8.h"
#include "planner/lr_util.h"
#include "tools/lightrail/lr_policy_file.h"

struct lr_ctl_ppo {
    /* Owned, whole: a fixed char[1024] (until 2026-12-07) cut a longer
     * path unmarked in every reason that names it. */
    char *path;
    struct lr_policy_meta meta;
    struct lr_ppo *agent;             /* NULL: the file did not load */
    struct lr_model *models[LR_JENV_MAX_MODELS];
    struct lr_jenv_config cfg;
    struct lr_jenv *env;              /* NULL: not bound or unusable */
    float *obs;
    double mean_job_s;                /* ppo-mean-job-s, seconds */
    double load;                      /* lr_ctl_ppo_set_load's */
    bool mix_ok;                      /* the file's job mix parsed */
    char why[2048];                   /* empty: usable */
    /* ppo-rollout: set by lr_ctl_ppo_set_rollout, built by bind. */
    bool has_ro;
    struct lr_ctl_ppo_rollout ro_cfg;
    struct lr_jenv_rollout *ro;       /* NULL: the agent alone */
    struct lr_rng ro_rng;             /* the futures' seeds */
    const char *ro_note;              /* what the last decision's rollout
                                       * did; "" when it did not run */
    /* lr_ctl_ppo_set_base: a baseline deciding instead of the agent. */
    const struct lr_jenv_policy *base;
    void *base_arg;
};

/* The reason the policy is unusable, cut with a mark when it does not
 * fit (a path of more than some 1,700 bytes). */
static void
set_why(struct lr_ctl_ppo *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lr_utf8_vsetf(p->why, sizeof p->why, fmt, ap);
    va_end(ap);
}

/* The bytes of the policy loader's words around the path in its error,
 * the NUL included: its longest is lr_policy_parse()'s "PATH: " and the
 * decoder's line (its e2[256]); the others (a version of up to 63 bytes
 * in about 100 of words, a header key, strerror()) are shorter.  The
 * buffer is strlen(path) + this: a fixed 512 (until 2026-12-07) cut a
 * truncated file's "checksum mismatch: ..." off behind a long path. */
#define PPO_LOAD_WORDS 512

/* The job mix of the file into p->cfg and p->models; 0 or EINVAL. */
static int
parse_mix(struct lr_ctl_ppo *p)
{
    char buf[512];
    struct lr_jenv_config *c = &p->cfg;
    *c = (struct lr_jenv_config) {
        /* load and holding only drive simulated arrivals, which the
         * controller never draws; guard as `lightrail train` builds it
         * (tools/lightrail/lr_jenv_cli.c). */
        .load = 1, .holding = 1, .k = p->meta.k, .guard = 1,
        .block_penalty = p->meta.block_penalty,
        .refuse = p->meta.refuse,
        .train = { p->meta.batch, p->meta.micro, 2 },
        /* How a future's jobs hold their GPUs (read by a rollout). */
        .holding_mode = p->meta.holding_mode,
        /* Its GPU shares: a candidate's GPU counts (lr_jenv_cand_gpus)
         * are those of its share, which admit_ppo realises. */
        .n_splits = p->meta.n_splits,
        /* One more observation: the pending job's work, which
         * lr_ctl_ppo_prepare() takes from the intent's iterations. */
        .known_work = p->meta.known_work,
        /* And the GPU-time the running jobs hold, which
         * lr_ctl_ppo_prepare() gives the mirror (lr_jenv_set_running). */
        .held_work = p->meta.held_work,
        /* Chains over three or four DCs: admit_ppo books every hop. */
        .triples = p->meta.triples,
        .quads = p->meta.quads,
        /* One more observation: the load, lr_ctl_ppo_set_load's. */
        .observe_load = p->meta.observe_load,
    };
    memcpy(c->splits, p->meta.splits, sizeof c->splits);
    /* strsep(), not strtok_r(), which skips empty elements: "4,,8" or
     * "4,8," (a hand-edited file: `lightrail train` writes no such
     * list) would load as 4,8, a job mix the agent was not trained
     * on. */
    snprintf(buf, sizeof buf, "%s", p->meta.models);
    char *rest = buf;
    for (char *t; (t = strsep(&rest, ","));) {
        if (!*t) {
            set_why(p, "%s: model %d of '%s' is empty: give model presets "
                    "separated by single commas, or train the policy "
                    "again", p->path, c->n_models + 1, p->meta.models);
            return EINVAL;
        }
        if (c->n_models == LR_JENV_MAX_MODELS
            || lr_model_preset(t, &p->models[c->n_models])) {
            set_why(p, "%s: model '%s' of the job mix is no preset this "
                    "controller knows: train the policy again with this "
                    "version", p->path, t);
            return EINVAL;
        }
        c->models[c->n_models] = p->models[c->n_models];
        c->n_models++;
    }
    snprintf(buf, sizeof buf, "%s", p->meta.demands);
    rest = buf;
    for (char *t; (t = strsep(&rest, ","));) {
        long v;
        if (!*t) {
            set_why(p, "%s: demand %d of '%s' is empty: give GPU counts "
                    "separated by single commas, or train the policy "
                    "again", p->path, c->n_demands + 1, p->meta.demands);
            return EINVAL;
        }
        if (c->n_demands == LR_JENV_MAX_DEMANDS
            || lr_parse_long(t, 1, 100000, &v)) {
            set_why(p, "%s: demand '%s' is no GPU count: train the policy "
                    "again", p->path, t);
            return EINVAL;
        }
        c->demands[c->n_demands++] = (int) v;
    }
    return 0;
}

struct lr_ctl_ppo *
lr_ctl_ppo_open(const char *path, double mean_job_s)
{
    struct lr_ctl_ppo *p = calloc(1, sizeof *p);
    if (!p || !(p->path = strdup(path))) {
        free(p);
        return NULL;
    }
    p->mean_job_s = lr_ctl_ppo_mean_job_or_default(mean_job_s);
    p->ro_note = "";
    size_t errlen = strlen(path) + PPO_LOAD_WORDS;
    char *err = malloc(errlen);
    if (!err) {
        set_why(p, "%s: out of memory to load the policy", path);
        return p;
    }
    if (lr_policy_load(path, &p->meta, &p->agent, err, errlen)) {
        p->agent = NULL;
        set_why(p, "%s; fix ppo-policy in the configuration or train the "
                "policy again (lightrail train)", err);
        free(err);
        return p;
    }
    free(err);
    if (!parse_mix(p)) {
        p->mix_ok = true;
        set_why(p, "%s: not bound to a network yet", path);
    }
    return p;
}

int
lr_ctl_ppo_set_rollout(struct lr_ctl_ppo *p, const struct lr_ctl_ppo_rollout *r,
                       char *err, size_t len)
{
    if (!(r->load > 0) || !isfinite(r->load) || r->samples < 2
        || r->horizon < 1 || r->top < 0 || !(r->margin >= 0)
        || !isfinite(r->margin) || r->min_gpus < 0 || r->screen < 0
        || r->screen == 1) {
        snprintf(err, len, "ppo-rollout: load %g, samples %d, screen %d, "
                 "horizon %ld, top %d, margin %g, min-gpus %d: give a "
                 "positive load, samples >= 2, screen 0 or >= 2, horizon >= "
                 "1 and no negative value", r->load, r->samples, r->screen,
                 r->horizon, r->top, r->margin, r->min_gpus);
        return EINVAL;
    }
    p->has_ro = true;
    p->ro_cfg = *r;
    lr_rng_seed(&p->ro_rng, r->seed);
    return 0;
}

void
lr_ctl_ppo_free(struct lr_ctl_ppo *p)
{
    if (!p)
        return;
    lr_jenv_rollout_free(p->ro);
    lr_jenv_free(p->env);
    lr_ppo_free(p->agent);
    for (int i = 0; i < LR_JENV_MAX_MODELS; i++)
        lr_model_free(p->models[i]);
    free(p->obs);
    free(p->path);
    free(p);
}

void
lr_ctl_ppo_bind(struct lr_ctl_ppo *p, const struct lr_topo *topo,
                const struct lr_cluster *cl)
{
    lr_jenv_rollout_free(p->ro);
    p->ro = NULL;
    lr_jenv_free(p->env);
    p->env = NULL;
    free(p->obs);
    p->obs = NULL;
    if (!p->agent || !p->mix_ok)
        return;                       /* why[] says it already */
    char here[sizeof p->meta.gpus], err[512];
    enum lr_policy_net diff = lr_policy_net_diff(&p->meta, topo, cl, here,
                                                 sizeof here);
    if (diff != LR_POLICY_NET_SAME) {
        char what[sizeof here + 512];
        lr_policy_net_why(&p->meta, diff, here, "this controller", what,
                          sizeof what);
        set_why(p, "%s: %s: train a policy for this network (lightrail "
                "train)", p->path, what);
        return;
    }
    struct lr_jenv *env = NULL;
    if (lr_jenv_new(topo, cl, &p->cfg, &env, err, sizeof err)) {
        set_why(p, "%s: cannot build the environment it was trained for "
                "on this network: %s", p->path, err);
        return;
    }
    if (p->meta.n_obs != lr_jenv_obs_size(env)
        || p->meta.n_act != lr_jenv_n_actions(env)) {
        set_why(p, "%s: the agent has %d observations and %d actions, this "
                "network gives %d and %d: train a policy for it", p->path,
                p->meta.n_obs, p->meta.n_act, lr_jenv_obs_size(env),
                lr_jenv_n_actions(env));
        lr_jenv_free(env);
        return;
    }
    p->obs = malloc((size_t) p->meta.n_obs * sizeof *p->obs);
    if (!p->obs) {
        set_why(p, "%s: out of memory", p->path);
        lr_jenv_free(env);
        return;
    }
    if (p->has_ro) {
        const struct lr_ctl_ppo_rollout *r = &p->ro_cfg;
        struct lr_jenv_rollout_config rc = {
            .base = &lr_ppo_jenv_policy, .base_arg = p->agent,
            .samples = r->samples, .horizon = r->horizon, .top = r->top,
            .margin = r->margin, .min_gpus = r->min_gpus,
            .refusal = r->refusal, .screen = r->screen,
        };
        int rc2 = lr_jenv_set_load(env, r->load);
        if (!rc2)
            rc2 = lr_jenv_rollout_new(env, &rc, &p->ro);
        if (rc2) {
            set_why(p, "%s: cannot build its rollout (ppo-rollout): %s",
                    p->path, strerror(rc2));
            free(p->obs);
            p->obs = NULL;
            lr_jenv_free(env);
            return;
        }
    }
    p->env = env;
    p->why[0] = '\0';
}

void
lr_ctl_ppo_set_base(struct lr_ctl_ppo *p, const struct lr_jenv_policy *base,
                    void *arg)
{
    p->base = base;
    p->base_arg = arg;
}

bool
lr_ctl_ppo_has_rollout(const struct lr_ctl_ppo *p)
{
    return p->ro != NULL;
}

bool
lr_ctl_ppo_reads_running(const struct lr_ctl_ppo *p)
{
    return p->ro != NULL || (p->env && p->meta.held_work);
}

double
lr_ctl_ppo_mean_job_or_default(double mean_job_s)
{
    return mean_job_s > 0 && isfinite(mean_job_s) ? mean_job_s
                                                  : LR_CTL_PPO_MEAN_JOB_S;
}

double
lr_ctl_ppo_mean_job_s(const struct lr_ctl_ppo *p)
{
    return p->mean_job_s;
}

void
lr_ctl_ppo_set_load(struct lr_ctl_ppo *p, double load)
{
    p->load = load >= 0 && isfinite(load) ? load : 0;
}

const char *
lr_ctl_ppo_rollout_note(const struct lr_ctl_ppo *p)
{
    return p->ro_note;
}

const char *
lr_ctl_ppo_why(const struct lr_ctl_ppo *p)
{
    return p->why[0] ? p->why : NULL;
}

const struct lr_policy_meta *
lr_ctl_ppo_meta(const struct lr_ctl_ppo *p)
{
    return p->agent ? &p->meta : NULL;
}

struct lr_jenv *
lr_ctl_ppo_env(struct lr_ctl_ppo *p)
{
    return p->env;
}

int
lr_ctl_ppo_class(const struct lr_ctl_ppo *p, const struct lr_intent *in,
                 int *model, int *demand, char *why, size_t len)
{
    *model = *demand = -1;
    if (in->custom) {
        /* Its name may be a preset's (lightrail-job.yang): the shape is
         * still not the preset the policy was trained on. */
        snprintf(why, len, "model '%s' is a shape of the intent's own "
                 "(transformer), and the policy was trained for its presets "
                 "(%s) only", in->model, p->meta.models);
        return ENOENT;
    }
    for (int i = 0; i < p->cfg.n_models; i++)
        if (!strcmp(p->cfg.models[i]->name, in->model))
            *model = i;
    if (*model < 0) {
        snprintf(why, len, "model '%s' is not in the policy's job mix (%s)",
                 in->model, p->meta.models);
        return ENOENT;
    }
    if (in->batch != p->meta.batch || in->micro != p->meta.micro) {
        snprintf(why, len, "batch %g / microbatch %g, the policy was "
                 "trained for %g / %g", in->batch, in->micro, p->meta.batch,
                 p->meta.micro);
        return ENOENT;
    }
    for (int i = 0; i < p->cfg.n_demands; i++) {
        int g = p->cfg.demands[i];
        if (g >= in->gpus_min && g <= in->gpus_max
            && (*demand < 0 || g > p->cfg.demands[*demand]))
            *demand = i;
    }
    if (*demand < 0) {
        snprintf(why, len, "no GPU demand of the policy (%s) lies in "
                 "[%d, %d]", p->meta.demands, in->gpus_min, in->gpus_max);
        return ENOENT;
    }
    return 0;
}

int
lr_ctl_ppo_prepare(struct lr_ctl_ppo *p, const int *used, const uint64_t *occ,
                   int nw, const struct lr_jenv_running *running,
                   int n_running, int model, int demand, uint64_t iterations,
                   double *work, char *why, size_t len)
{
    *work = -1;
    p->ro_note = "";
    if (!p->env) {
        snprintf(why, len, "%s", p->why);
        return -1;
    }
    if (p->meta.known_work && iterations == 0) {
        snprintf(why, len, "the ppo policy reads each job's length: give "
                 "iterations in the intent");
        return -1;
    }
    if (lr_jenv_set_state(p->env, used, occ, nw, why, len))
        return -1;
    if (lr_ctl_ppo_reads_running(p)
        && lr_jenv_set_running(p->env, running, n_running, why, len))
        return -1;
    int n = lr_jenv_present(p->env, model, demand);
    if (n > 0 && p->meta.observe_load
        && lr_jenv_set_load_estimate(p->env, p->load))
        n = -1;
    if (n > 0 && p->meta.known_work) {
        /* T_ref is the class's, read once the class is pending; then
         * the pending job gets its work.  X is positive and finite:
         * iterations >= 1, T_ref finite and positive (a class that fits
         * nowhere fails lr_jenv_new), mean_job_s > 0; even 2^64
         * iterations stay far within a double. */
        double x = (double) iterations * lr_jenv_job_tref(p->env)
                   / p->mean_job_s;
        if (lr_jenv_set_job_work(p->env, x))
            n = -1;
        *work = x;
    }
    if (n <= 0) {
        snprintf(why, len, "no candidate of the policy is feasible now "
                 "(GPUs or spectrum)");
        return -1;
    }
    return n;
}

bool
lr_ctl_ppo_allowed(const struct lr_ctl_ppo *p, int a)
{
    return p->env && a >= 0 && a < lr_jenv_n_actions(p->env)
           && lr_jenv_mask(p->env)[a];
}

/* The refusal reason's clause on the job's length, for a policy that
 * reads it: a long job may be refused on an empty network, where "1.00
 * times slower" alone would send the user to submit it again later, to
 * be refused again.  Empty without known work.  The reason, behind
 * "refused by the ppo policy: ", fits LR_JOB_REASON_MAX. */
static void
work_clause(const struct lr_ctl_ppo *p, char *out, size_t len)
{
    out[0] = '\0';
    if (p->meta.known_work)
        snprintf(out, len, ", and its work is %.2f x mean (ppo-mean-job-s "
                 "%g s)", lr_jenv_job_work(p->env), p->mean_job_s);
}

int
lr_ctl_ppo_choose(struct lr_ctl_ppo *p, bool rollout, char *why, size_t len)
{
    int a;
    if (rollout && p->ro) {
        struct lr_jenv_rollout_stats s0, s1;
        lr_jenv_rollout_stats(p->ro, &s0);
        a = lr_jenv_rollout_policy.choose(p->ro, p->env,
                                          lr_jenv_mask(p->env), &p->ro_rng);
        lr_jenv_rollout_stats(p->ro, &s1);
        p->ro_note = s1.deviated > s0.deviated
                     ? "the rollout left the policy's choice"
                     : s1.deliberated > s0.deliberated
                     ? "the rollout kept the policy's choice" : "";
        if (a < 0 && s1.refused > s0.refused) {
            char wk[160];
            work_clause(p, wk, sizeof wk);
            snprintf(why, len, "its rollout found that admitting it blocks "
                     "more of the next %ld jobs than refusing it%s; submit "
                     "it again later%s or with another algorithm",
                     p->ro_cfg.horizon, wk, p->meta.known_work
                     ? ", shorter" : "");
            return LR_CTL_PPO_REFUSED;
        }
    } else if (p->base) {
        a = p->base->choose(p->base_arg, p->env, lr_jenv_mask(p->env),
                            &p->ro_rng);
        if (a < 0) {
            snprintf(why, len, "the %s baseline refused it", p->base->name);
            return LR_CTL_PPO_REFUSED;
        }
    } else {
        lr_jenv_observe(p->env, p->obs);
        a = lr_ppo_act(p->agent, p->obs, lr_jenv_mask(p->env), false, NULL,
                       NULL);
    }
    if (a < 0) {
        snprintf(why, len, "the actor chose no candidate");
    } else if (a == lr_jenv_refuse_action(p->env)) {
        /* Greedy's candidate is the fastest one feasible now (it reads
         * no random draw). */
        int g = lr_jenv_greedy.choose(NULL, p->env, lr_jenv_mask(p->env),
                                      NULL);
        char wk[160];
        work_clause(p, wk, sizeof wk);
        snprintf(why, len, "its fastest feasible placement now would run "
                 "%.2f times slower than on an empty network%s; submit it "
                 "again later%s or with another algorithm",
                 lr_jenv_cand_time(p->env, g) / lr_jenv_job_tref(p->env), wk,
                 p->meta.known_work ? ", shorter" : "");
        return LR_CTL_PPO_REFUSED;
    }
    return a;
}
