/* lr_ctl: a ppo decision realised as a job (algorithm ppo,
 * docs/ppo.md): candidate 'a' of the policy becomes the job's stages
 * (CDynP over the candidate's chain and GPU split) and its lightpaths
 * (the candidate's routes, tier and slots, booked on the spectrum), and
 * the job's note says what was chosen.  lr_ctl.c decides (the policy's
 * choice, on the owner's thread or off it with lr_ctl_decide_begin),
 * calls lr_ctl_admit_ppo from its admission, and falls back to CDynP
 * when it returns -1; the policy itself is lr_ctl_ppo.c's, which knows
 * nothing of struct lr_ctl (lr_ctl_ppo.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/lr_ctl.h"
#include "controller/lr_ctl_int.h"
#include "controller/lr_ctl_ppo.h"
#include "planner/lr_cdynp.h"
#include "planner/lr_jenv.h"
#include "planner/lr_modulation.h"
#include "planner/lr_utf8.h"

/* Appends to job's note the work X a known-work policy was shown and
 * what its rollout did ('ro'). */
void
lr_ctl_ppo_note_work(struct lr_job *job, double work, const char *ro)
{
    if (work >= 0)
        lr_utf8_appendf(job->note, sizeof job->note, ", work %.2f x mean",
                        work);
    if (*ro)
        lr_utf8_appendf(job->note, sizeof job->note, "; %s", ro);
}

/* Realises candidate 'a' of the policy for 'job': the stages by CDynP
 * over the candidate's chain and GPU split (at the configuration's
 * cdynp-device-step), a lightpath each way on each hop of the chain
 * (one for a pair, two for a triple) on its route and tier, the slots
 * first fit gave on the mirror.  0: the job is
 * planned and holds them (in memory); -1: nothing is held and why[] says
 * why (the caller falls back); or a positive errno. */
int
lr_ctl_admit_ppo(struct lr_ctl *c, const struct lr_model *model,
                 const struct lr_train *tr, struct lr_job *job, int a,
                 double work, const char *ro, char *why, size_t len)
{
    struct lr_jenv *env = lr_ctl_ppo_env(c->ppo);
    const struct lr_jenv_cand *cd = lr_jenv_cand(env, a);
    struct lr_tm *tm = NULL;
    struct lr_tm_eval *ev = malloc(sizeof *ev);
    struct lr_plan *plan = &job->plan;
    int rc = -1;
    if (!ev || lr_tm_new(model, c->cluster, tr, &tm)) {
        free(ev);
        return ENOMEM;
    }
    /* A decider other than the policy's mask (lr_ctl_config.ppo_base,
     * tests and benchmarks) may name a route a DC pair does not have. */
    for (int h = 0; h + 1 < cd->n_dcs; h++)
        if (!lr_jenv_cand_hop_path(env, a, h, 0)
            || !lr_jenv_cand_hop_path(env, a, h, 1)) {
            snprintf(why, len, "candidate %d: hop %s-%s has no route %d "
                     "on this network", a, c->cluster->dcs[cd->dc[h]].name,
                     c->cluster->dcs[cd->dc[h + 1]].name, cd->route);
            goto cleanup;
        }
    for (int k = 0; k < tm->n_dcs; k++)
        tm->dcs[k].n_devices = 0;
    for (int i = 0; i < cd->n_dcs; i++)
        tm->dcs[cd->dc[i]].n_devices = lr_jenv_cand_gpus(env, a, i);
    int rate = cd->n_dcs > 1 ? lr_jenv_tier_gbps[cd->tier] : 0;
    for (int h = 0; h + 1 < cd->n_dcs; h++)
        /* As the environment tabulated it: the forward route's delay. */
        lr_tm_set_link(tm, cd->dc[h], cd->dc[h + 1], rate * 1e9 / 8,
                       lr_jenv_cand_hop_path(env, a, h, 0)->length_km
                       * LR_CTL_S_PER_KM);
    /* The policy chose on its table, planned at the automatic step as
     * in training; the chosen chain's stages are planned at the
     * operator's step, as every CDynP plan of this controller is. */
    struct lr_cdynp_options opt = {
        .window = LR_CDYNP_DEFAULT_WINDOW, .order = cd->dc,
        .n_order = cd->n_dcs, .device_step = c->cdynp_step,
    };
    /* The mask allows a candidate whose tabulated T is finite, at the
     * automatic step: at another the chain may have no plan (one stage
     * of all of a DC's devices, each holding every layer), and that T
     * may exceed what a job may take; a decider other than the mask
     * may take any candidate (tests/unit/test_ctl_ppo.c,
     * test_plan_failures). */
    enum lr_tm_why v = lr_cdynp_plan(tm, &opt, plan, ev);
    if (v != LR_TM_OK) {
        /* As lr_ctl.c's admission sizes it: a memory reason runs past
         * 160 bytes, which cut it mid-word. */
        char detail[LR_JOB_REASON_MAX];
        lr_tm_explain(tm, v, detail, sizeof detail);
        snprintf(why, len, "candidate %d has no plan over its chain: %s", a,
                 detail);
        goto cleanup;
    }
    if (!(ev->T <= LR_JOB_MAX_ITERATION_S)) {
        snprintf(why, len, "candidate %d: an iteration would take %.3g s",
                 a, ev->T);
        goto cleanup;
    }
    for (int h = 0; h + 1 < cd->n_dcs; h++) {
        const struct lr_path *p[2] = {
            lr_jenv_cand_hop_path(env, a, h, 0),
            lr_jenv_cand_hop_path(env, a, h, 1),
        };
        int m = lr_jenv_cand_hop_slots(env, a, h);
        if (p[0]->n_links > LR_JOB_MAX_HOPS
            || p[1]->n_links > LR_JOB_MAX_HOPS) {
            /* Refused, never cut short: a job records at most that
             * many hops per lightpath. */
            snprintf(why, len, "candidate %d: route %d of hop %s-%s has "
                     "more than the %d links a lightpath may cross", a,
                     cd->route, c->cluster->dcs[cd->dc[h]].name,
                     c->cluster->dcs[cd->dc[h + 1]].name, LR_JOB_MAX_HOPS);
            goto cleanup;
        }
        double km = fmax(p[0]->length_km, p[1]->length_km);
        int mod = lr_mod_choose(&c->rsa->mods, km);
        if (mod < 0) {
            /* Not the spectrum: no format carries a signal that far. */
            snprintf(why, len, "candidate %d: route %d of hop %s-%s is %.0f "
                     "km long, beyond the reach of every modulation", a,
                     cd->route, c->cluster->dcs[cd->dc[h]].name,
                     c->cluster->dcs[cd->dc[h + 1]].name, km);
            goto cleanup;
        }
        /* The policy sized the hop with its environment's table, the
         * default one it was trained on (lr_jenv); the controller's
         * (modulation-table) may give the same length another format
         * and slot count.  Booking the policy's slots under another
         * format would carry less than the rate, or hold spectrum the
         * format does not need: the candidate is not taken. */
        int need = lr_mod_slots(&c->rsa->mods.f[mod], rate,
                                c->rsa->cfg.guard);
        if (need != m) {
            snprintf(why, len, "candidate %d: hop %s-%s takes %s and %d "
                     "slots in the controller's modulation table, the "
                     "policy sized it at %d slots with the default table "
                     "it was trained on", a,
                     c->cluster->dcs[cd->dc[h]].name,
                     c->cluster->dcs[cd->dc[h + 1]].name,
                     c->rsa->mods.f[mod].name, need, m);
            goto cleanup;
        }
        for (int dir = 0; dir < 2; dir++) {
            int first = lr_jenv_cand_hop_first(env, a, h, dir);
            if (first < 0
                || lr_spectrum_alloc(c->rsa->sp, p[dir]->links,
                                     p[dir]->n_links, first, m)) {
                snprintf(why, len, "candidate %d: its slots are not free "
                         "on route %d of hop %s-%s", a, cd->route,
                         c->cluster->dcs[cd->dc[h]].name,
                         c->cluster->dcs[cd->dc[h + 1]].name);
                goto cleanup;
            }
            struct lr_lightpath *lp = &job->lp[job->n_lightpaths++];
            memset(lp, 0, sizeof *lp);
            lp->from_dc = cd->dc[h + dir];
            lp->to_dc = cd->dc[h + 1 - dir];
            lp->n_links = p[dir]->n_links;
            memcpy(lp->links, p[dir]->links,
                   (size_t) lp->n_links * sizeof(int));
            lp->length_km = p[dir]->length_km;
            snprintf(lp->modulation, sizeof lp->modulation, "%s",
                     c->rsa->mods.f[mod].name);
            lp->first = first;
            lp->m = m;
            int mm;
            lr_topo_block_nm(&c->topo->links[p[dir]->links[0]], first, m,
                             &lp->n, &mm);
            lp->capacity_gbps = rate;
        }
    }
    for (int s = 0; s < plan->n_stages; s++)
        job->gpus[plan->stages[s].dc] += plan->stages[s].g;
    job->iteration_s = ev->T;
    job->phase = LR_JOB_PLANNED;
    const struct lr_cluster *cl = c->cluster;
    if (cd->n_dcs == 1)
        lr_ctl_set_note(job, "ppo: candidate %d, %s with %d GPUs", a,
                        cl->dcs[cd->dc[0]].name, lr_jenv_cand_gpus(env, a, 0));
    else {
        /* "%s (%d GPUs) then ..." over the chain, then its route. */
        lr_ctl_set_note(job, "ppo: candidate %d, ", a);
        for (int i = 0; i < cd->n_dcs; i++)
            lr_utf8_appendf(job->note, sizeof job->note, "%s%s (%d GPUs)",
                            i ? " then " : "", cl->dcs[cd->dc[i]].name,
                            lr_jenv_cand_gpus(env, a, i));
        lr_utf8_appendf(job->note, sizeof job->note, ", route %d%s at %d "
                        "Gb/s", cd->route,
                        cd->n_dcs > 2 ? " of each hop" : "", rate);
    }
    lr_ctl_ppo_note_work(job, work, ro);
    rc = 0;
cleanup:
    if (rc) {
        /* Nothing is held: the lightpaths booked so far go back. */
        lr_ctl_unbook_lightpaths(c, job);
        job->n_lightpaths = 0;
        plan->n_stages = 0;
    }
    lr_tm_free(tm);
    free(ev);
    return rc;
}
