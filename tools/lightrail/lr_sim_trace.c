/*
 * lr_sim_trace: the decisions of `lightrail sim`, one JSON line each
 * (lr_sim_trace.h).
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include <json-c/json.h>

#include "tools/lightrail/lr_cli.h"
#include "tools/lightrail/lr_sim_trace.h"

/* The pending job and the free GPUs of every DC, before the decision. */
static json_object *
trace_job(const struct lr_sim_trace *t, const struct lr_jenv *e)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "policy", json_object_new_string(t->name));
    json_object_object_add(o, "load", lr_cli_json_number(t->load));
    json_object_object_add(o, "seed", json_object_new_uint64(t->seed));
    long job = lr_jenv_job_index(e);
    json_object_object_add(o, "job", json_object_new_int64(job));
    json_object_object_add(o, "counted",
                           json_object_new_boolean(job > t->warmup));
    json_object_object_add(o, "time", json_object_new_double(lr_jenv_now(e)));
    json_object_object_add(o, "model", json_object_new_string(
        t->j->models[lr_jenv_job_model(e)]->name));
    json_object_object_add(o, "gpus",
                           json_object_new_int(lr_jenv_job_gpus(e)));
    json_object *room = json_object_new_object();
    for (int d = 0; d < lr_jenv_n_dcs(e); d++)
        json_object_object_add(room, t->j->cl->dcs[d].name,
                               json_object_new_int(lr_jenv_dc_free(e, d)));
    json_object_object_add(o, "free", room);
    return o;
}

/* Candidate a's DCs and GPUs, lightpath and T into 'o'. */
static void
trace_placement(const struct lr_sim_trace *t, const struct lr_jenv *e,
                int a, json_object *o)
{
    const struct lr_jenv_cand *c = lr_jenv_cand(e, a);
    json_object *pl = json_object_new_array();
    for (int i = 0; i < c->n_dcs; i++) {
        json_object *p = json_object_new_object();
        json_object_object_add(p, "dc", json_object_new_string(
            t->j->cl->dcs[c->dc[i]].name));
        json_object_object_add(p, "gpus", json_object_new_int(
            lr_jenv_cand_gpus(e, a, i)));
        json_object_array_add(pl, p);
    }
    json_object_object_add(o, "placement", pl);
    if (c->n_dcs > 1) {
        json_object_object_add(o, "tier_gbps", json_object_new_int(
            lr_jenv_tier_gbps[c->tier]));
        json_object_object_add(o, "route", json_object_new_int(c->route));
    }
    json_object_object_add(o, "iteration_s",
                           json_object_new_double(lr_jenv_cand_time(e, a)));
}

static int
trace_choose(void *arg, const struct lr_jenv *e, const uint8_t *mask,
             struct lr_rng *rng)
{
    struct lr_sim_trace *t = arg;
    json_object *o = trace_job(t, e);
    struct lr_jenv_rollout_stats before, after;
    if (t->ro)
        lr_jenv_rollout_stats(t->ro, &before);
    int a = t->inner->choose(t->inner_arg, e, mask, rng);
    if (t->ro) {
        lr_jenv_rollout_stats(t->ro, &after);
        json_object_object_add(o, "deviated", json_object_new_boolean(
            after.deviated > before.deviated));
    }
    int n = lr_jenv_n_cands(e);
    /* lr_jenv_step() books exactly the feasible candidates; anything
     * else (-1, the refusal action) blocks the job. */
    bool placed = a >= 0 && a < n && (!mask || mask[a]);
    json_object_object_add(o, "blocked", json_object_new_boolean(!placed));
    if (placed) {
        trace_placement(t, e, a, o);
    } else {
        /* A lazy policy's mask is NULL (lr_jenv_policy.lazy_mask). */
        bool any = (mask ? lr_jenv_first_in_mask(e, mask)
                         : lr_jenv_first_feasible(e)) >= 0;
        json_object_object_add(o, "refused", json_object_new_boolean(any));
    }
    if (!t->err
        && (fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
                  t->f) == EOF
            || fputc('\n', t->f) == EOF))
        t->err = errno ? errno : EIO;
    json_object_put(o);
    return a;
}

void
lr_sim_trace_begin(struct lr_sim_trace *t, FILE *f,
                   const struct lr_jenv_cli *j,
                   const struct lr_jenv_policy *inner, void *inner_arg,
                   const struct lr_jenv_rollout *ro, const char *name,
                   double load, unsigned long long seed, long warmup)
{
    int err = t->err;
    *t = (struct lr_sim_trace) {
        .policy = { inner->name, inner->summary, trace_choose, NULL,
                    inner->lazy_mask },
        .f = f, .j = j, .inner = inner, .inner_arg = inner_arg, .ro = ro,
        .name = name, .load = load, .seed = seed, .warmup = warmup,
        .err = err,
    };
}
