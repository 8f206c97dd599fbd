/*
 * lightrail plan --distributed: CDynP over parties, with the DCs that the
 * cluster file marks 'remote' planned by their agents across mutual TLS
 * (controller/lr_agent_party.h) and the others in this process.
 *
 * The coordinator learns T and its three parts, each DC's layer range and
 * its stage count; a remote DC's stages (devices per stage) stay with its
 * agent, so the output shows them for the local DCs only.  A remote DC's
 * inventory leaves in the cluster file are never read.
 *
 * No partial state: the first agent that cannot be reached or refuses a
 * request ends the planning with "no plan: agent DC unreachable: why"
 * (exit 3), and nothing is printed on stdout.  One refusal is not a
 * failure: an agent from before an objective the coordinator asks only
 * for its extra runs (lr_agent_plan()); the plan found without them is
 * printed with a note naming the agent ("note: ..." last, "note" in
 * JSON).
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "controller/lr_agent_party.h"
#include "planner/lr_cdynp.h"
#include "tools/lightrail/lr_cli.h"

#define CMD "plan"

static void
print_text(const struct lr_plan_dist *d, const struct lr_tm *tm,
           const struct lr_cluster *cl, const struct lr_cdynp_result *r,
           const struct lr_plan *plan, double search_s, const char *note)
{
    printf("# %s on %s: B=%g, b=%g (m=%d), cdynp-distributed, search "
           "%.3f ms\n", d->model, d->cluster_file, tm->train.batch,
           tm->train.micro, tm->m, search_s * 1e3);
    printf("%-12s %-11s %7s  %s\n", "dc", "layers", "stages", "planned by");
    for (int i = 0; i < r->n_dcs; i++) {
        const struct lr_dc *dc = &cl->dcs[r->dc[i]];
        char layers[32], by[128];
        snprintf(layers, sizeof layers, "%d-%d", r->first[i] + 1,
                 r->last[i] + 1);
        if (dc->remote_port > 0)
            snprintf(by, sizeof by, "agent %s port %d (stages private)",
                     dc->remote_address, dc->remote_port);
        else
            snprintf(by, sizeof by, "this process");
        printf("%-12s %-11s %7d  %s\n", dc->name, layers, r->n_stages[i], by);
        for (int s = 0; dc->remote_port == 0 && s < plan->n_stages; s++) {
            const struct lr_stage *st = &plan->stages[s];
            if (st->dc == r->dc[i])
                printf("    stage layers %d-%d on %d device(s)\n",
                       st->first + 1, st->last + 1, st->g);
        }
    }
    printf("iteration time T = %.4f s = sum %.4f + (m-1) x bottleneck "
           "%.4f + sync %.4f\n", r->T, r->cost.sum,
           (tm->m - 1) * r->cost.bottleneck, r->cost.sync);
    if (note[0])
        printf("note: %s\n", note);
}

static json_object *
result_json(const struct lr_plan_dist *d, const struct lr_tm *tm,
            const struct lr_cluster *cl, enum lr_tm_why why,
            const struct lr_cdynp_result *r, const struct lr_plan *plan,
            double search_s, const char *note)
{
    json_object *j = json_object_new_object();
    json_object_object_add(j, "algorithm",
                           json_object_new_string("cdynp-distributed"));
    json_object_object_add(j, "model", json_object_new_string(d->model));
    json_object_object_add(j, "batch", json_object_new_double(tm->train.batch));
    json_object_object_add(j, "microbatch",
                           json_object_new_double(tm->train.micro));
    json_object_object_add(j, "microbatches", json_object_new_int(tm->m));
    /* What the plan was made with, as plan's cdynp names it (its
     * plan_json_settings()): --inter-dc-gbps is refused here, so the
     * rate is always the cluster's (null), and the device step is each
     * DC's own (an agent's --device-step; auto for a DC planned in this
     * process), which the coordinator never learns (null). */
    json_object_object_add(j, "cluster",
                           json_object_new_string(d->cluster_file));
    json_object_object_add(j, "inter_dc_gbps", NULL);
    json_object_object_add(j, "window", json_object_new_int(d->window));
    json_object_object_add(j, "order", d->order_text
                           ? json_object_new_string(d->order_text) : NULL);
    json_object_object_add(j, "beam", d->order_text ? NULL
                           : json_object_new_int(d->beam));
    json_object_object_add(j, "device_step", NULL);
    json_object_object_add(j, "feasible",
                           json_object_new_boolean(why == LR_TM_OK));
    if (why != LR_TM_OK)
        json_object_object_add(j, "reason",
                               json_object_new_string(lr_tm_why_str(why)));
    json_object_object_add(j, "search_time_s",
                           json_object_new_double(search_s));
    if (note[0])
        json_object_object_add(j, "note", json_object_new_string(note));
    if (why != LR_TM_OK)
        return j;
    json_object_object_add(j, "iteration_time_s", json_object_new_double(r->T));
    json_object_object_add(j, "bottleneck_s",
                           json_object_new_double(r->cost.bottleneck));
    json_object_object_add(j, "sum_s", json_object_new_double(r->cost.sum));
    json_object_object_add(j, "sync_max_s",
                           json_object_new_double(r->cost.sync));
    json_object *dcs = json_object_new_array();
    for (int i = 0; i < r->n_dcs; i++) {
        const struct lr_dc *dc = &cl->dcs[r->dc[i]];
        json_object *o = json_object_new_object();
        json_object_object_add(o, "dc", json_object_new_string(dc->name));
        json_object_object_add(o, "first_layer",
                               json_object_new_int(r->first[i] + 1));
        json_object_object_add(o, "last_layer",
                               json_object_new_int(r->last[i] + 1));
        json_object_object_add(o, "stages",
                               json_object_new_int(r->n_stages[i]));
        json_object_object_add(o, "remote",
                               json_object_new_boolean(dc->remote_port > 0));
        if (dc->remote_port == 0) {
            json_object *st = json_object_new_array();
            for (int s = 0; s < plan->n_stages; s++) {
                const struct lr_stage *x = &plan->stages[s];
                if (x->dc != r->dc[i])
                    continue;
                json_object *o1 = json_object_new_object();
                json_object_object_add(o1, "first_layer",
                                       json_object_new_int(x->first + 1));
                json_object_object_add(o1, "last_layer",
                                       json_object_new_int(x->last + 1));
                json_object_object_add(o1, "devices",
                                       json_object_new_int(x->g));
                json_object_array_add(st, o1);
            }
            json_object_object_add(o, "stage_list", st);
        }
        json_object_array_add(dcs, o);
    }
    json_object_object_add(j, "dcs", dcs);
    return j;
}

int
lr_plan_distributed(const struct lr_plan_dist *d, const struct lr_tm *tm,
                    const struct lr_cluster *cl)
{
    struct lr_cdynp_party *parties[LR_TM_MAX_DCS] = { NULL };
    struct lr_cdynp_result *res = calloc(1, sizeof *res);
    struct lr_plan *plan = calloc(1, sizeof *plan);
    FILE *record = NULL;
    char err[4096];
    int rc = LR_EXIT_FAIL, n_remote = 0;

    if (!res || !plan) {
        lr_cli_err(CMD, "out of memory");
        goto cleanup;
    }
    for (int k = 0; k < cl->n_dcs; k++)
        n_remote += cl->dcs[k].remote_port > 0;
    if (n_remote && (!d->cert || !d->key || !d->ca)) {
        lr_cli_err(CMD, "%s: %d data center(s) are planned by agents: give "
                   "the coordinator's --cert, --key and --ca",
                   d->cluster_file, n_remote);
        rc = LR_EXIT_USAGE;
        goto cleanup;
    }
    /* An agent that hangs up mid-write must give an error, not kill us. */
    signal(SIGPIPE, SIG_IGN);
    for (int k = 0; k < cl->n_dcs; k++) {
        const struct lr_dc *dc = &cl->dcs[k];
        if (dc->remote_port > 0) {
            parties[k] = lr_agent_party_new(dc->remote_address,
                                            dc->remote_port, dc->remote_name,
                                            d->cert, d->key, d->ca,
                                            d->crl, d->timeout, err, sizeof err);
            if (!parties[k]) {
                lr_cli_err(CMD, "%s", err);
                rc = LR_EXIT_USAGE;
                goto cleanup;
            }
            lr_agent_party_set_job(parties[k], tm);
            lr_agent_party_set_budget(parties[k], d->budget);
        } else if (!(parties[k] = lr_cdynp_local_party_new(tm, k))) {
            lr_cli_err(CMD, "out of memory");
            goto cleanup;
        }
    }
    /* Opened once every TLS file was accepted: bad input makes nothing. */
    if (d->record && !(record = fopen(d->record, "a"))) {
        lr_cli_err(CMD, "--record %s: %s", d->record, strerror(errno));
        rc = LR_EXIT_USAGE;
        goto cleanup;
    }
    for (int k = 0; k < cl->n_dcs; k++)
        if (lr_agent_party_is(parties[k]))
            lr_agent_party_set_record(parties[k], record);

    double t0 = lr_cli_now();
    struct lr_cdynp_options co = {
        .window = d->window, .order = d->order, .n_order = d->n_order,
        .beam = lr_cdynp_beam_option(d->beam),
    };
    struct lr_cdynp_view view = lr_cdynp_view_of(tm);
    enum lr_tm_why why = LR_TM_OK;
    int e = lr_agent_plan(cl, parties, &co, &view, res, plan, &why, err,
                          sizeof err);
    double search = lr_cli_now() - t0;
    /* EINVAL is the cluster file's fault when an agent serves another DC
     * than it says; an agent that failed with EINVAL (an ERROR answer)
     * has its reason recorded, and is a failure like any other. */
    bool agent_failed = false;
    for (int k = 0; k < cl->n_dcs; k++)
        if (lr_agent_party_is(parties[k]) && lr_agent_party_error(parties[k]))
            agent_failed = true;
    if (e == EINVAL && !agent_failed) {
        lr_cli_err(CMD, "%s: %s", d->cluster_file, err);
        rc = LR_EXIT_USAGE;
        goto cleanup;
    }
    if (e) {
        lr_cli_err(CMD, "no plan: %s", err);
        rc = LR_EXIT_INFEASIBLE;
        goto cleanup;
    }
    if (d->json) {
        json_object *j = result_json(d, tm, cl, why, res, plan, search,
                                     err);
        printf("%s\n", json_object_to_json_string_ext(
                           j, JSON_C_TO_STRING_PRETTY
                              | JSON_C_TO_STRING_SPACED));
        json_object_put(j);
    } else if (why == LR_TM_OK) {
        print_text(d, tm, cl, res, plan, search, err);
    }
    if (why != LR_TM_OK) {
        /* lr_tm_explain() would read the cluster's figures of remote DCs,
         * which are placeholders: the verdict alone. */
        lr_cli_err(CMD, "no plan: no chain of data centers can hold the "
                   "model (%s)", lr_tm_why_str(why));
        rc = LR_EXIT_INFEASIBLE;
        goto cleanup;
    }
    rc = LR_EXIT_OK;

cleanup:
    for (int k = 0; k < cl->n_dcs; k++)
        if (parties[k])
            parties[k]->cls->free(parties[k]);
    if (record)
        fclose(record);
    free(res);
    free(plan);
    return rc;
}
