/*
 * lr_yang_cluster: lightrail-compute data -> struct lr_cluster, in SI
 * units.  See lr_yang.h.
 *
 * The schema's units are the ones datasheets and papers quote (TFLOP/s,
 * GB, GB/s, us, Gb/s, ms); the planner computes in FLOP/s, bytes,
 * bytes/s and s.  This file is the one place that converts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libyang/libyang.h>

#include "planner/lr_cluster.h"
#include "yang/lr_yang.h"
#include "yang/lr_yang_int.h"

#define LR_TERA 1e12
#define LR_GIGA 1e9
#define LR_MICRO 1e-6
#define LR_MILLI 1e-3
#define LR_BITS_PER_BYTE 8.0

/* A decimal64 leaf as a double; 0 when absent (the schema makes every leaf
 * read here mandatory, so absent means a schema change we missed). */
static double
lr_yang_dec(const struct lyd_node *parent, const char *name)
{
    const char *v = lr_yang_leaf(parent, LR_YANG_LRC, name);
    return v ? strtod(v, NULL) : 0;
}

/* The DC's 'remote' container, if any, into d->remote_*.  inet:host
 * bounds a domain name at 253 characters, which the struct's field does
 * not hold: the one length checked here.  The certificate name defaults
 * to the DC's name (YANG cannot default one leaf to another's value). */
static int
lr_yang_cluster_remote(struct lr_dc *d, const struct lyd_node *dc,
                       const char *file, char *err, size_t errlen)
{
    const struct lyd_node *r = lr_yang_child(dc, LR_YANG_LRC, "remote");
    if (!r)
        return 0;
    const struct lyd_node *addr = lr_yang_child(r, LR_YANG_LRC, "address");
    const char *port = lr_yang_leaf(r, LR_YANG_LRC, "port");
    const char *cn = lr_yang_leaf(r, LR_YANG_LRC, "certificate-name");
    if (!addr || !port)
        return lr_yang_node_err(err, errlen, file, r,
                                "a remote DC needs an address and a port");
    if (strlen(lyd_get_value(addr)) >= sizeof d->remote_address)
        return lr_yang_node_err(err, errlen, file, addr,
                                "longer than %zu characters",
                                sizeof d->remote_address - 1);
    snprintf(d->remote_address, sizeof d->remote_address, "%s",
             lyd_get_value(addr));
    d->remote_port = (int) strtol(port, NULL, 10);
    /* The schema's name type keeps either within 63 characters. */
    snprintf(d->remote_name, sizeof d->remote_name, "%s", cn ? cn : d->name);
    return 0;
}

static int
lr_yang_cluster_fill(struct lr_cluster *c, const struct lyd_node *compute,
                     const char *file, char *err, size_t errlen)
{
    const struct lyd_node *n;
    int rc;

    n = lr_yang_child(compute, LR_YANG_LRC, "device-type");
    for (; n; n = lr_yang_next_same(n)) {
        rc = lr_cluster_add_type(c, lr_yang_leaf(n, LR_YANG_LRC, "name"),
                                 lr_yang_dec(n, "peak-tflops") * LR_TERA,
                                 lr_yang_dec(n, "efficiency"),
                                 lr_yang_dec(n, "memory-gb") * LR_GIGA);
        if (rc)
            return lr_yang_add_err(rc, err, errlen, file, n,
                                           "device type");
    }

    n = lr_yang_child(compute, LR_YANG_LRC, "dc");
    for (; n; n = lr_yang_next_same(n)) {
        const char *count = lr_yang_leaf(n, LR_YANG_LRC, "device-count");
        rc = lr_cluster_add_dc(
            c, lr_yang_leaf(n, LR_YANG_LRC, "name"),
            lr_yang_leaf(n, LR_YANG_LRC, "device-type"),
            count ? (int) strtol(count, NULL, 10) : 0,
            lr_yang_dec(n, "intra-dc-bandwidth-gbytes-per-s") * LR_GIGA,
            lr_yang_dec(n, "intra-dc-latency-us") * LR_MICRO,
            lr_yang_leaf(n, LR_YANG_LRC, "attachment-node"));
        if (rc)
            return lr_yang_add_err(rc, err, errlen, file, n, "DC");
        if ((rc = lr_yang_cluster_remote(&c->dcs[c->n_dcs - 1], n, file, err,
                                         errlen)))
            return rc;
    }

    n = lr_yang_child(compute, LR_YANG_LRC, "inter-dc-link");
    for (; n; n = lr_yang_next_same(n)) {
        const char *from = lr_yang_leaf(n, LR_YANG_LRC, "from");
        const char *to = lr_yang_leaf(n, LR_YANG_LRC, "to");
        int a = lr_cluster_find_dc(c, from), b = lr_cluster_find_dc(c, to);
        /* The list key is the ordered pair; the planner's link is not. */
        if (a >= 0 && b >= 0 && lr_cluster_link_between(c, a, b) >= 0)
            return lr_yang_node_err(err, errlen, file, n,
                                    "DCs '%s' and '%s' are already linked; "
                                    "one link serves both directions",
                                    from, to);
        rc = lr_cluster_add_link(c, from, to,
                                 lr_yang_dec(n, "bandwidth-gbps") * LR_GIGA
                                     / LR_BITS_PER_BYTE,
                                 lr_yang_dec(n, "latency-ms") * LR_MILLI);
        if (rc)
            return lr_yang_add_err(rc, err, errlen, file, n,
                                           "inter-DC link");
    }
    return 0;
}

int
lr_yang_load_cluster_mem(struct ly_ctx *ctx, const char *data, size_t len,
                         const char *name, struct lr_cluster **out,
                         char *err, size_t errlen)
{
    struct lyd_node *tree = NULL;
    struct lr_cluster *c = NULL;
    int ret;

    *out = NULL;
    ret = lr_yang_parse(ctx, data, len, name, LR_YANG_LRC, "compute",
                        "an inventory", &tree, err, errlen);
    if (ret)
        goto cleanup;
    const struct lyd_node *compute = lr_yang_sibling(tree, LR_YANG_LRC,
                                                     "compute");
    if (!compute) {
        lr_yang_errf(err, errlen, name, "/lightrail-compute:compute",
                     "missing: not a lightrail-compute file");
        ret = EINVAL;
        goto cleanup;
    }
    c = lr_cluster_new();
    if (!c) {
        lr_yang_errf(err, errlen, name, NULL, "out of memory");
        ret = ENOMEM;
        goto cleanup;
    }
    ret = lr_yang_cluster_fill(c, compute, name, err, errlen);

cleanup:
    lyd_free_all(tree);
    if (ret) {
        lr_cluster_free(c);
        c = NULL;
    }
    *out = c;
    return ret;
}

int
lr_yang_load_cluster(struct ly_ctx *ctx, const char *path,
                     struct lr_cluster **out, char *err, size_t errlen)
{
    char *buf = NULL;
    size_t len = 0;

    *out = NULL;
    int ret = lr_yang_read_file(path, &buf, &len, err, errlen);
    if (!ret)
        ret = lr_yang_load_cluster_mem(ctx, buf, len, path, out, err,
                                       errlen);
    free(buf);
    return ret;
}
