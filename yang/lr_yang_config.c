/*
 * lr_yang_config: lightraild's configuration file (lightrail-config) ->
 * struct lr_config.  See lr_yang_job.h.
 *
 * libyang checks the schema (types, lengths, mandatory paths, TLS with a
 * certificate and a key) and applies its defaults; this file resolves
 * relative paths against the file's own directory (why: a configuration
 * and the files it names move together, whatever directory the daemon
 * starts in), applies the one default YANG cannot state (dummy-dir under
 * state-dir), and refuses data of other modules in the file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libyang/libyang.h>

#include "planner/lr_cdynp.h"
#include "yang/lr_yang.h"
#include "yang/lr_yang_int.h"
#include "yang/lr_yang_job.h"

/* Copies the leaf 'name' of 'parent' into dst[size] ("" when absent).
 * The schema's lengths keep every value within its field. */
static void
lr_yang_config_str(const struct lyd_node *parent, const char *name,
                   char *dst, size_t size)
{
    const char *v = lr_yang_leaf(parent, LR_YANG_LRCFG, name);
    snprintf(dst, size, "%s", v ? v : "");
}

static int
lr_yang_config_bool(const struct lyd_node *parent, const char *name)
{
    const char *v = lr_yang_leaf(parent, LR_YANG_LRCFG, name);
    return v && !strcmp(v, "true");
}

/* Reads path leaf 'name' of 'parent' and resolves it; leaves dst ""
 * when absent. */
static int
lr_yang_config_path(const struct lyd_node *parent, const char *name,
                    const char *dir, char *dst, size_t size,
                    const char *file, char *err, size_t errlen)
{
    const struct lyd_node *n = parent ? lr_yang_child(parent, LR_YANG_LRCFG,
                                                      name)
                                      : NULL;
    dst[0] = '\0';
    if (!n)
        return 0;
    return lr_yang_resolve(dir, lyd_get_value(n), dst, size, file, n,
                                  err, errlen);
}

/* The netconf TLS files of 'parent' (netconf or a device) over 'd':
 * those present replace d's. */
static int
lr_yang_config_tls(const struct lyd_node *parent, const char *dir,
                   const char *file, struct sb_device_config *d, char *err,
                   size_t errlen)
{
    const struct lyd_node *tls = parent ? lr_yang_child(parent,
                                                        LR_YANG_LRCFG, "tls")
                                        : NULL;
    char cert[sizeof d->tls_cert], key[sizeof d->tls_key];
    char ca[sizeof d->tls_ca];
    int ret;

    if ((ret = lr_yang_config_path(tls, "certificate", dir, cert,
                                   sizeof cert, file, err, errlen))
        || (ret = lr_yang_config_path(tls, "key", dir, key, sizeof key, file,
                                      err, errlen))
        || (ret = lr_yang_config_path(tls, "ca", dir, ca, sizeof ca, file,
                                      err, errlen)))
        return ret;
    if (cert[0])
        memcpy(d->tls_cert, cert, sizeof cert);
    if (key[0])
        memcpy(d->tls_key, key, sizeof key);
    if (ca[0])
        memcpy(d->tls_ca, ca, sizeof ca);
    const char *t = parent ? lr_yang_leaf(parent, LR_YANG_LRCFG, "transport")
                           : NULL;
    if (t)
        snprintf(d->transport, sizeof d->transport, "%s", t);
    return 0;
}

static int
lr_yang_config_fill(const struct lyd_node *top, const char *dir,
                    const char *file, struct lr_config *c, char *err,
                    size_t errlen)
{
    const struct lyd_node *listen = lr_yang_child(top, LR_YANG_LRCFG,
                                                  "listen");
    const struct lyd_node *sb = lr_yang_child(top, LR_YANG_LRCFG,
                                              "southbound");
    const struct lyd_node *n;
    const char *log;
    int ret;

    /* Validation has created both non-presence containers with their
     * defaults; they are there even when the file leaves them out. */
    /* inet:host bounds a domain name but not an IPv6 zone, and a union
     * cannot be given a length: the one field checked here. */
    const struct lyd_node *addr = lr_yang_child(listen, LR_YANG_LRCFG,
                                                "address");
    if (addr && strlen(lyd_get_value(addr)) >= sizeof c->address)
        return lr_yang_node_err(err, errlen, file, addr,
                                "longer than %zu characters",
                                sizeof c->address - 1);
    lr_yang_config_str(listen, "address", c->address, sizeof c->address);
    const char *port = lr_yang_leaf(listen, LR_YANG_LRCFG, "port");
    c->port = port ? (int) strtol(port, NULL, 10) : 0;
    c->tls = lr_yang_config_bool(listen, "tls");
    if ((ret = lr_yang_config_path(listen, "certificate", dir, c->cert,
                                   sizeof c->cert, file, err, errlen))
        || (ret = lr_yang_config_path(listen, "key", dir, c->key,
                                      sizeof c->key, file, err, errlen))
        || (ret = lr_yang_config_path(listen, "client-ca", dir, c->client_ca,
                                      sizeof c->client_ca, file, err,
                                      errlen)))
        return ret;

    /* max-elements keeps the count within the array. */
    n = lr_yang_child(top, LR_YANG_LRCFG, "token");
    for (; n && c->n_tokens < LR_CONFIG_MAX_TOKENS; n = lr_yang_next_same(n)) {
        struct lr_config_token *t = &c->tokens[c->n_tokens++];
        lr_yang_config_str(n, "name", t->name, sizeof t->name);
        lr_yang_config_str(n, "secret", t->secret, sizeof t->secret);
    }
    c->metrics_public = lr_yang_config_bool(top, "metrics-public");
    if ((ret = lr_yang_config_path(top, "state-dir", dir, c->state_dir,
                                   sizeof c->state_dir, file, err, errlen))
        || (ret = lr_yang_config_path(top, "topology-file", dir,
                                      c->topology_file,
                                      sizeof c->topology_file, file, err,
                                      errlen))
        || (ret = lr_yang_config_path(top, "cluster-file", dir,
                                      c->cluster_file,
                                      sizeof c->cluster_file, file, err,
                                      errlen))
        || (ret = lr_yang_config_path(top, "ppo-policy", dir,
                                      c->ppo_policy,
                                      sizeof c->ppo_policy, file, err,
                                      errlen))
        || (ret = lr_yang_config_path(top, "modulation-table", dir,
                                      c->modulation_table,
                                      sizeof c->modulation_table, file,
                                      err, errlen)))
        return ret;
    /* It has a default: validation has created it. */
    const char *mean = lr_yang_leaf(top, LR_YANG_LRCFG, "ppo-mean-job-s");
    c->ppo_mean_job_s = mean ? strtod(mean, NULL) : 3600;
    const char *step = lr_yang_leaf(top, LR_YANG_LRCFG, "cdynp-device-step");
    c->cdynp_step = !step || !strcmp(step, "auto") ? 0
                    : !strcmp(step, "best") ? LR_CDYNP_STEP_BEST
                    : (int) strtol(step, NULL, 10);
    /* It has a default: validation has created it. */
    const char *beam = lr_yang_leaf(top, LR_YANG_LRCFG, "cdynp-beam");
    c->cdynp_beam = lr_cdynp_beam_option(beam ? (int) strtol(beam, NULL, 10)
                                         : LR_CDYNP_BEAM);
    const char *every = lr_yang_leaf(top, LR_YANG_LRCFG,
                                     "reconcile-interval");
    c->reconcile_s = every ? (int) strtol(every, NULL, 10) : 300;
    /* It has a default: validation has created it. */
    const char *budget = lr_yang_leaf(top, LR_YANG_LRCFG, "where-budget");
    c->where_budget_s = budget ? strtod(budget, NULL) : 2;
    /* ppo-rollout: the schema's defaults, should validation not have
     * made them. */
    const struct lyd_node *ro = lr_yang_child(top, LR_YANG_LRCFG,
                                              "ppo-rollout");
    c->ppo_rollout = ro != NULL;
    c->ppo_ro = (struct lr_ctl_ppo_rollout) {
        .load = 0, .samples = 100, .screen = 25, .horizon = 40, .top = 8,
        .margin = 2, .min_gpus = 8, .refusal = true, .seed = 1,
    };
    if (ro) {
        const char *v;
        struct lr_ctl_ppo_rollout *r = &c->ppo_ro;
        if ((v = lr_yang_leaf(ro, LR_YANG_LRCFG, "load")))
            r->load = strtod(v, NULL);
        if ((v = lr_yang_leaf(ro, LR_YANG_LRCFG, "samples")))
            r->samples = atoi(v);
        if ((v = lr_yang_leaf(ro, LR_YANG_LRCFG, "screen")))
            r->screen = atoi(v);
        if ((v = lr_yang_leaf(ro, LR_YANG_LRCFG, "horizon")))
            r->horizon = atol(v);
        if ((v = lr_yang_leaf(ro, LR_YANG_LRCFG, "top")))
            r->top = atoi(v);
        if ((v = lr_yang_leaf(ro, LR_YANG_LRCFG, "margin")))
            r->margin = strtod(v, NULL);
        if ((v = lr_yang_leaf(ro, LR_YANG_LRCFG, "min-gpus")))
            r->min_gpus = atoi(v);
        if ((v = lr_yang_leaf(ro, LR_YANG_LRCFG, "refusal")))
            r->refusal = !strcmp(v, "true");
        if ((v = lr_yang_leaf(ro, LR_YANG_LRCFG, "seed")))
            r->seed = strtoull(v, NULL, 10);
    }

    lr_yang_config_str(sb, "default-driver", c->default_driver,
                       sizeof c->default_driver);
    if ((ret = lr_yang_config_path(sb, "dummy-dir", dir, c->dummy_dir,
                                   sizeof c->dummy_dir, file, err, errlen)))
        return ret;
    if (!c->dummy_dir[0]
        && (ret = lr_yang_resolve(c->state_dir, "devices",
                                         c->dummy_dir, sizeof c->dummy_dir,
                                         file,
                                         lr_yang_child(top, LR_YANG_LRCFG,
                                                       "state-dir"),
                                         err, errlen)))
        return ret;
    /* The netconf and restconf settings every listed device starts
     * from. */
    struct sb_device_config nc;
    memset(&nc, 0, sizeof nc);
    const struct lyd_node *ncn = lr_yang_child(sb, LR_YANG_LRCFG, "netconf");
    if ((ret = lr_yang_config_path(ncn, "ssh-key", dir, nc.ssh_key,
                                   sizeof nc.ssh_key, file, err, errlen))
        || (ret = lr_yang_config_path(ncn, "known-hosts", dir,
                                      nc.known_hosts, sizeof nc.known_hosts,
                                      file, err, errlen)))
        return ret;
    if ((ret = lr_yang_config_tls(ncn, dir, file, &nc, err, errlen)))
        return ret;
    lr_yang_config_str(ncn, "schema-path", nc.schema_path,
                       sizeof nc.schema_path);
    const char *tmo = lr_yang_leaf(ncn, LR_YANG_LRCFG, "timeout-ms");
    nc.timeout_ms = tmo ? (int) strtol(tmo, NULL, 10) : 0;
    /* ... and the restconf ones. */
    const struct lyd_node *rcn = lr_yang_child(sb, LR_YANG_LRCFG,
                                               "restconf");
    if ((ret = lr_yang_config_path(rcn, "ca-file", dir, nc.ca_file,
                                   sizeof nc.ca_file, file, err, errlen)))
        return ret;
    const char *rtmo = lr_yang_leaf(rcn, LR_YANG_LRCFG, "timeout-ms");
    int rc_timeout = rtmo ? (int) strtol(rtmo, NULL, 10) : 0;
    /* ... and the mnoptical one. */
    const char *mtmo = lr_yang_leaf(lr_yang_child(sb, LR_YANG_LRCFG,
                                                  "mnoptical"),
                                    LR_YANG_LRCFG, "timeout-ms");
    int mno_timeout = mtmo ? (int) strtol(mtmo, NULL, 10) : 0;
    n = lr_yang_child(sb, LR_YANG_LRCFG, "device");
    for (; n && c->n_devices < LR_CONFIG_MAX_DEVICES;
         n = lr_yang_next_same(n)) {
        struct sb_device_config *d = &c->devices[c->n_devices++];
        *d = nc;
        lr_yang_config_str(n, "name", d->name, sizeof d->name);
        lr_yang_config_str(n, "driver", d->driver, sizeof d->driver);
        if (!d->driver[0])
            snprintf(d->driver, sizeof d->driver, "%s", c->default_driver);
        lr_yang_config_str(n, "address", d->address, sizeof d->address);
        char key[sizeof d->ssh_key], known[sizeof d->known_hosts];
        char ca[sizeof d->ca_file];
        if ((ret = lr_yang_config_path(n, "ssh-key", dir, key, sizeof key,
                                       file, err, errlen))
            || (ret = lr_yang_config_path(n, "known-hosts", dir, known,
                                          sizeof known, file, err, errlen))
            || (ret = lr_yang_config_path(n, "ca-file", dir, ca, sizeof ca,
                                          file, err, errlen))
            || (ret = lr_yang_config_tls(n, dir, file, d, err, errlen)))
            return ret;
        if (key[0])
            memcpy(d->ssh_key, key, sizeof key);
        if (known[0])
            memcpy(d->known_hosts, known, sizeof known);
        if (ca[0])
            memcpy(d->ca_file, ca, sizeof ca);
        if (!strcmp(d->driver, "restconf"))
            d->timeout_ms = rc_timeout;
        if (!strcmp(d->driver, "mnoptical"))
            d->timeout_ms = mno_timeout;
    }

    n = lr_yang_child(sb, LR_YANG_LRCFG, "terminal");
    for (; n && c->n_terminals < LR_CONFIG_MAX_TERMINALS;
         n = lr_yang_next_same(n)) {
        struct sb_terminal *t = &c->terminals[c->n_terminals++];
        lr_yang_config_str(n, "dc", t->dc, sizeof t->dc);
        lr_yang_config_str(n, "node", t->node, sizeof t->node);
        lr_yang_config_str(n, "monitor", t->monitor, sizeof t->monitor);
        const char *e = lr_yang_leaf(n, LR_YANG_LRCFG, "eth-port");
        t->eth_port = e ? atoi(e) : 0;
    }

    const struct lyd_node *co = lr_yang_child(top, LR_YANG_LRCFG,
                                              "coordinator");
    if (co) {
        if ((ret = lr_yang_config_path(co, "certificate", dir, c->coord_cert,
                                       sizeof c->coord_cert, file, err,
                                       errlen))
            || (ret = lr_yang_config_path(co, "key", dir, c->coord_key,
                                          sizeof c->coord_key, file, err,
                                          errlen))
            || (ret = lr_yang_config_path(co, "ca", dir, c->coord_ca,
                                          sizeof c->coord_ca, file, err,
                                          errlen))
            || (ret = lr_yang_config_path(co, "crl", dir, c->coord_crl,
                                          sizeof c->coord_crl, file, err,
                                          errlen)))
            return ret;
        const char *t = lr_yang_leaf(co, LR_YANG_LRCFG, "timeout");
        c->coord_timeout = t ? strtod(t, NULL) : 5;
        const char *b = lr_yang_leaf(co, LR_YANG_LRCFG, "plan-timeout");
        c->coord_budget = b ? strtod(b, NULL) : 300;
    }

    const struct lyd_node *emu = lr_yang_child(top, LR_YANG_LRCFG,
                                               "emulation");
    const char *v;
    c->emulation = emu && lr_yang_config_bool(emu, "enabled");
    snprintf(c->emu_prefix, sizeof c->emu_prefix, "lr");
    c->emu_scale = 1;
    c->telemetry_ms = 1000;
    if (emu) {
        lr_yang_config_str(emu, "prefix", c->emu_prefix,
                           sizeof c->emu_prefix);
        if (!c->emu_prefix[0])
            snprintf(c->emu_prefix, sizeof c->emu_prefix, "lr");
        if ((v = lr_yang_leaf(emu, LR_YANG_LRCFG, "scale-mbps-per-gbps")))
            c->emu_scale = strtod(v, NULL);
        if ((v = lr_yang_leaf(emu, LR_YANG_LRCFG, "telemetry-interval-ms")))
            c->telemetry_ms = atoi(v);
    }

    log = lr_yang_leaf(top, LR_YANG_LRCFG, "log");
    c->log = log && !strcmp(log, "syslog") ? LR_CONFIG_LOG_SYSLOG
                                           : LR_CONFIG_LOG_STDERR;
    return 0;
}

/* libyang's messages quote the value they refuse ("Invalid
 * non-string-encoded string value \"1234...\""): for a token's secret
 * that is the secret, in the log of a daemon that does not start.  The
 * schema's error-message covers a wrong length; this, any other
 * refusal of a secret. */
static void
lr_yang_config_hide_secret(char *err, size_t errlen)
{
    static const char tail[] = "/secret: ";
    char *at = strstr(err, tail);
    if (!at || strstr(err, "(the value is not shown"))
        return;
    at += sizeof tail - 1;
    snprintf(at, errlen - (size_t) (at - err), "want a string of 16 to 255 "
             "characters (the value is not shown: it is a secret)");
}

int
lr_yang_load_config(struct ly_ctx *ctx, const char *path,
                    struct lr_config *out, char *err, size_t errlen)
{
    struct lyd_node *tree = NULL;
    const struct lyd_node *top;
    char *dir = NULL;

    memset(out, 0, sizeof *out);
    int ret = lr_yang_load_top(ctx, path, LR_YANG_LRCFG, "lightraild",
                               "a configuration file", &tree, &top, &dir,
                               err, errlen);
    if (!ret)
        ret = lr_yang_config_fill(top, dir, path, out, err, errlen);
    lyd_free_all(tree);
    free(dir);
    if (ret) {
        memset(out, 0, sizeof *out);
        lr_yang_config_hide_secret(err, errlen);
    }
    return ret;
}
