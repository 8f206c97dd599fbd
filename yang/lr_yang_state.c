/*
 * lr_yang_state: what GET shows besides jobs — the resource state
 * (lightrail-state) and the compute inventory (lightrail-compute).  See
 * lr_yang_job.h.
 *
 * Both build a tree from plain structs, validate it, and print it.  The
 * inventory goes back from the planner's SI units to the module's; that
 * conversion is the inverse of lr_yang_cluster.c's, constant for
 * constant.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libyang/libyang.h>

#include "planner/lr_cluster.h"
#include "yang/lr_yang.h"
#include "yang/lr_yang_int.h"
#include "yang/lr_yang_job.h"

#define LR_TERA 1e12
#define LR_GIGA 1e9
#define LR_MICRO 1e-6
#define LR_MILLI 1e-3
#define LR_BITS_PER_BYTE 8.0


/* Builds the module's top container 'top' with 'build' (given 'arg')
 * and prints it (lr_yang_print_doc(), 'range' its index message). */
static int
lr_yang_state_print(struct ly_ctx *ctx, const char *module, const char *top,
                    LY_ERR (*build)(const struct lys_module *, const void *,
                                    struct lyd_node *),
                    const void *arg, const char *range, char **out,
                    char *err, size_t errlen)
{
    const struct lys_module *mod;
    struct lyd_node *root = NULL;
    LY_ERR rc;

    *out = NULL;
    if (!(mod = lr_yang_module(ctx, module, module, err, errlen)))
        return EINVAL;
    ly_err_clean(ctx, NULL);
    rc = lyd_new_inner(NULL, mod, top, 0, &root);
    if (!rc)
        rc = build(mod, arg, root);
    return lr_yang_print_doc(ctx, rc, root, module, range, out, err, errlen);
}

/* The container ppo-policy: the leaves with a value, in the module's
 * order. */
static LY_ERR
lr_yang_state_ppo(const struct lys_module *mod,
                  const struct lr_ctl_ppo_info *p, struct lyd_node *root)
{
    struct lyd_node *n;
    char ts[40];
    LY_ERR rc;

    if ((rc = lyd_new_inner(root, mod, "ppo-policy", 0, &n))
        || (rc = lr_yang_term_text(n, mod, "file", p->file, false))
        || (rc = lr_yang_term_bool(n, mod, "usable", p->usable, false))
        || (!p->usable && p->why
            && (rc = lr_yang_term_text(n, mod, "reason", p->why, false)))
        || (rc = lr_yang_term_bool(n, mod, "rollout", p->rollout, false)))
        return rc;
    /* A file that did not load (missing, corrupt) was never loaded: no
     * time, as no checksum. */
    if (p->loaded && p->loaded_ms > 0) {
        lr_yang_job_time(p->loaded_ms, ts, sizeof ts);
        if ((rc = lyd_new_term(n, mod, "loaded", ts, 0, NULL)))
            return rc;
    }
    /* uint32 in the module: a count past it shows its largest value. */
    unsigned long reloads = p->reloads > UINT32_MAX ? UINT32_MAX : p->reloads;
    if ((rc = lr_yang_termf(n, mod, "reloads", "%lu", reloads)))
        return rc;
    if (!p->loaded)
        return LY_SUCCESS;
    if ((rc = lr_yang_termf(n, mod, "checksum", "%016" PRIx64,
                            p->checksum))
        || (p->topology
            && (rc = lr_yang_term_text(n, mod, "topology", p->topology,
                                       false)))
        || (p->holding
            && (rc = lyd_new_term(n, mod, "holding", p->holding, 0, NULL)))
        || (rc = lr_yang_term_bool(n, mod, "refuse", p->refuse, false))
        || (rc = lr_yang_term_bool(n, mod, "known-work", p->known_work,
                                 false))
        || (rc = lr_yang_term_bool(n, mod, "held-work", p->held_work,
                                 false))
        || (rc = lr_yang_term_bool(n, mod, "triples", p->triples, false))
        || (rc = lr_yang_term_bool(n, mod, "quads", p->quads, false))
        || (rc = lr_yang_term_bool(n, mod, "observe-load", p->observe_load,
                                 false))
        || (p->teacher
            && (rc = lr_yang_term_text(n, mod, "teacher", p->teacher,
                                       false)))
        || (p->command
            && (rc = lr_yang_term_text(n, mod, "command", p->command,
                                       false))))
        return rc;
    return LY_SUCCESS;
}

/* One entry of the device list: the times and the reason only when
 * there are any. */
static LY_ERR
lr_yang_state_device(const struct lys_module *mod,
                     const struct lr_state_device *d, struct lyd_node *root)
{
    struct lyd_node *n;
    char ts[40];
    LY_ERR rc;

    if ((rc = lyd_new_list(root, mod, "device", 0, &n, d->name))
        || (d->driver
            && (rc = lr_yang_term_text(n, mod, "driver", d->driver, false)))
        || (d->address
            && (rc = lr_yang_term_text(n, mod, "address", d->address,
                                       false)))
        || (rc = lr_yang_term_bool(n, mod, "up", d->up, false)))
        return rc;
    if (d->ok_ms > 0) {
        lr_yang_job_time(d->ok_ms, ts, sizeof ts);
        if ((rc = lyd_new_term(n, mod, "last-success", ts, 0, NULL)))
            return rc;
    }
    if (d->fail_ms > 0) {
        lr_yang_job_time(d->fail_ms, ts, sizeof ts);
        if ((rc = lyd_new_term(n, mod, "last-failure", ts, 0, NULL)))
            return rc;
    }
    if (d->why && d->why[0]
        && (rc = lr_yang_term_text(n, mod, "reason", d->why, false)))
        return rc;
    if ((rc = lr_yang_termf(n, mod, "operations", "%" PRIu64, d->ops))
        || (rc = lr_yang_termf(n, mod, "failures", "%" PRIu64,
                               d->failures)))
        return rc;
    return lr_yang_termf(n, mod, "media-channels", "%d", d->channels);
}

/* 'arg' is the struct lr_state_view. */
static LY_ERR
lr_yang_state_build(const struct lys_module *mod, const void *arg,
                    struct lyd_node *root)
{
    const struct lr_state_view *v = arg;
    const struct lr_state_counters *c = &v->counters;
    struct lyd_node *cnt;
    LY_ERR rc;

    for (int i = 0; i < v->n_links; i++) {
        const struct lr_state_link *l = &v->links[i];
        struct lyd_node *ln;
        if ((rc = lyd_new_list(root, mod, "link", 0, &ln, l->id))
            || (rc = lr_yang_termf(ln, mod, "slots", "%d", l->slots))
            || (rc = lr_yang_termf(ln, mod, "used", "%d", l->used)))
            return rc;
        for (int k = 0; k < l->n_channels; k++) {
            const struct lr_state_channel *ch = &l->channels[k];
            struct lyd_node *cn;
            char first[16];
            snprintf(first, sizeof first, "%d", ch->first);
            if ((rc = lyd_new_list(ln, mod, "channel", 0, &cn, first))
                || (rc = lr_yang_termf(cn, mod, "slots", "%d", ch->m))
                || (rc = lyd_new_term(cn, mod, "job", ch->job, 0, NULL)))
                return rc;
        }
    }
    for (int i = 0; i < v->n_dcs; i++) {
        const struct lr_state_dc *d = &v->dcs[i];
        struct lyd_node *dn;
        struct lyd_node *an;
        if ((rc = lyd_new_list(root, mod, "dc", 0, &dn, d->name))
            || (rc = lr_yang_termf(dn, mod, "devices", "%d", d->devices))
            || (rc = lr_yang_termf(dn, mod, "in-use", "%d", d->in_use)))
            return rc;
        if (d->agent
            && ((rc = lyd_new_inner(dn, mod, "agent", 0, &an))
                || (rc = lyd_new_term(an, mod, "up",
                                      d->agent_up ? "true" : "false", 0,
                                      NULL))
                || (!d->agent_up && d->agent_why && d->agent_why[0]
                    && (rc = lr_yang_term_text(an, mod, "reason",
                                               d->agent_why, false)))))
            return rc;
    }
    for (int i = 0; i < v->n_devices; i++)
        if ((rc = lr_yang_state_device(mod, &v->devices[i], root)))
            return rc;
    for (int i = 0; i < v->n_emulated; i++) {
        const struct lr_state_emulated *e = &v->emulated[i];
        struct lyd_node *en;
        if ((rc = lyd_new_list(root, mod, "emulated-link", 0, &en,
                               e->lightpath))
            || (rc = lyd_new_term(en, mod, "from-dc", e->from, 0, NULL))
            || (rc = lyd_new_term(en, mod, "to-dc", e->to, 0, NULL))
            || (rc = lyd_new_term(en, mod, "namespace", e->ns, 0, NULL))
            || (rc = lyd_new_term(en, mod, "interface", e->ifname, 0, NULL))
            || (rc = lr_yang_termf(en, mod, "capacity-gbps", "%.1f",
                                   e->capacity_gbps))
            || (rc = lr_yang_termf(en, mod, "shaped-rate-bps",
                                   "%" PRIu64, e->shaped_bps))
            || (rc = lr_yang_termf(en, mod, "tx-bytes", "%" PRIu64,
                                   e->tx_bytes))
            || (rc = lr_yang_termf(en, mod, "tx-packets", "%" PRIu64,
                                   e->tx_packets))
            || (rc = lr_yang_termf(en, mod, "rx-bytes", "%" PRIu64,
                                   e->rx_bytes))
            || (rc = lr_yang_termf(en, mod, "rx-packets", "%" PRIu64,
                                   e->rx_packets))
            || (rc = lr_yang_termf(en, mod, "errors", "%" PRIu64,
                                   e->errors))
            || (rc = lr_yang_termf(en, mod, "drops", "%" PRIu64,
                                   e->drops))
            || (rc = lr_yang_termf(en, mod, "qdisc-drops", "%" PRIu64,
                                   e->qdisc_drops))
            || (rc = lr_yang_termf(en, mod, "delay-us", "%.3f",
                                   e->delay_us)))
            return rc;
        if (e->measured
            && ((rc = lr_yang_termf(en, mod, "throughput-bps",
                                    "%" PRIu64, e->throughput_bps))
                || (rc = lr_yang_termf(en, mod, "loss", "%.6f",
                                       e->loss))))
            return rc;
    }
    if (v->ppo && (rc = lr_yang_state_ppo(mod, v->ppo, root)))
        return rc;
    if ((rc = lyd_new_inner(root, mod, "counters", 0, &cnt))
        || (rc = lr_yang_termf(cnt, mod, "jobs-active", "%" PRIu64,
                               c->jobs_active))
        || (rc = lr_yang_termf(cnt, mod, "jobs-blocked", "%" PRIu64,
                               c->jobs_blocked))
        || (rc = lr_yang_termf(cnt, mod, "jobs-failed", "%" PRIu64,
                               c->jobs_failed))
        || (rc = lr_yang_termf(cnt, mod, "admissions", "%" PRIu64,
                               c->admissions))
        || (rc = lr_yang_termf(cnt, mod, "blocks", "%" PRIu64,
                               c->blocks))
        || (rc = lr_yang_termf(cnt, mod, "deletes", "%" PRIu64,
                               c->deletes)))
        return rc;
    return LY_SUCCESS;
}

int
lr_yang_state_to_json(struct ly_ctx *ctx, const struct lr_state_view *v,
                      char **out, char *err, size_t errlen)
{
    return lr_yang_state_print(ctx, LR_YANG_LRST, "state",
                               lr_yang_state_build, v, NULL, out, err,
                               errlen);
}

/* A number of the module's unit, to its three fraction digits. */
static LY_ERR
lr_yang_cluster_dec(struct lyd_node *parent, const struct lys_module *mod,
                    const char *name, double v)
{
    return lr_yang_termf(parent, mod, name, "%.3f", v);
}

/* 'arg' is the struct lr_cluster.  LY_EINVAL without a libyang error
 * is an index out of range. */
static LY_ERR
lr_yang_cluster_build(const struct lys_module *mod, const void *arg,
                      struct lyd_node *root)
{
    const struct lr_cluster *c = arg;
    LY_ERR rc;

    for (int i = 0; i < c->n_types; i++) {
        const struct lr_device_type *t = &c->types[i];
        struct lyd_node *n;
        if ((rc = lyd_new_list(root, mod, "device-type", 0, &n, t->name))
            || (rc = lr_yang_cluster_dec(n, mod, "peak-tflops",
                                         t->peak_flops / LR_TERA))
            || (rc = lr_yang_cluster_dec(n, mod, "efficiency",
                                         t->efficiency))
            || (rc = lr_yang_cluster_dec(n, mod, "memory-gb",
                                         t->memory_bytes / LR_GIGA)))
            return rc;
    }
    for (int i = 0; i < c->n_dcs; i++) {
        const struct lr_dc *d = &c->dcs[i];
        struct lyd_node *n;
        if (d->device_type < 0 || d->device_type >= c->n_types)
            return LY_EINVAL;
        if ((rc = lyd_new_list(root, mod, "dc", 0, &n, d->name))
            || (rc = lyd_new_term(n, mod, "device-type",
                                  c->types[d->device_type].name, 0, NULL))
            || (rc = lr_yang_termf(n, mod, "device-count", "%d",
                                   d->n_devices))
            || (rc = lr_yang_cluster_dec(n, mod,
                                         "intra-dc-bandwidth-gbytes-per-s",
                                         d->intra_bw / LR_GIGA))
            || (rc = lr_yang_cluster_dec(n, mod, "intra-dc-latency-us",
                                         d->intra_latency / LR_MICRO)))
            return rc;
        if (d->attach_node[0]
            && (rc = lyd_new_term(n, mod, "attachment-node", d->attach_node,
                                  0, NULL)))
            return rc;
        struct lyd_node *r;
        if (d->remote_port > 0
            && ((rc = lyd_new_inner(n, mod, "remote", 0, &r))
                || (rc = lyd_new_term(r, mod, "address", d->remote_address,
                                      0, NULL))
                || (rc = lr_yang_termf(r, mod, "port", "%d",
                                       d->remote_port))
                || (rc = lyd_new_term(r, mod, "certificate-name",
                                      d->remote_name, 0, NULL))))
            return rc;
    }
    for (int i = 0; i < c->n_links; i++) {
        const struct lr_dc_link *l = &c->links[i];
        struct lyd_node *n;
        if (l->a < 0 || l->a >= c->n_dcs || l->b < 0 || l->b >= c->n_dcs)
            return LY_EINVAL;
        if ((rc = lyd_new_list(root, mod, "inter-dc-link", 0, &n,
                               c->dcs[l->a].name, c->dcs[l->b].name))
            || (rc = lr_yang_cluster_dec(n, mod, "bandwidth-gbps",
                                         l->bw * LR_BITS_PER_BYTE / LR_GIGA))
            || (rc = lr_yang_cluster_dec(n, mod, "latency-ms",
                                         l->latency / LR_MILLI)))
            return rc;
    }
    return LY_SUCCESS;
}

int
lr_yang_cluster_to_json(struct ly_ctx *ctx, const struct lr_cluster *c,
                        char **out, char *err, size_t errlen)
{
    return lr_yang_state_print(ctx, LR_YANG_LRC, "compute",
                               lr_yang_cluster_build, c,
                               "a DC or link refers to a device type or DC "
                               "index out of range", out, err, errlen);
}
