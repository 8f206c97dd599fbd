/*
 * lr_yang_agent: lightrail-agent data -> struct lr_agent_config.  See
 * lr_yang_agent.h.
 *
 * libyang checks the schema (types, ranges, mandatory leaves, one to
 * eight peer names); this file converts units to SI, as
 * lr_yang_cluster.c does for lightrail-compute, resolves the TLS paths
 * against the file's own directory and refuses data of other modules in
 * the file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libyang/libyang.h>

#include "yang/lr_yang.h"
#include "yang/lr_yang_agent.h"
#include "yang/lr_yang_int.h"

#define LR_TERA 1e12
#define LR_GIGA 1e9
#define LR_MICRO 1e-6

/* A decimal64 leaf as a double; 0 when absent (every leaf read here is
 * mandatory, so absent means a schema change we missed). */
static double
lr_yang_agent_dec(const struct lyd_node *parent, const char *name)
{
    const char *v = lr_yang_leaf(parent, LR_YANG_LRA, name);
    return v ? strtod(v, NULL) : 0;
}

/* Leaf 'name' of 'tls' resolved against 'dir' ("" for the working
 * directory) into dst[LR_AGENT_PATH_MAX]. */
static int
lr_yang_agent_path(const struct lyd_node *tls, const char *name,
                   const char *dir, char *dst, const char *file, char *err,
                   size_t errlen)
{
    const struct lyd_node *n = lr_yang_child(tls, LR_YANG_LRA, name);
    return lr_yang_resolve(dir, n ? lyd_get_value(n) : "", dst,
                           LR_AGENT_PATH_MAX, file, n, err, errlen);
}

static int
lr_yang_agent_fill(const struct lyd_node *top, const char *dir,
                   const char *file, struct lr_agent_config *c, char *err,
                   size_t errlen)
{
    const struct lyd_node *type = lr_yang_child(top, LR_YANG_LRA,
                                                "device-type");
    const struct lyd_node *tls = lr_yang_child(top, LR_YANG_LRA, "tls");
    const char *v;
    int ret;

    /* The schema's name type keeps the DC name within LR_NAME_MAX. */
    v = lr_yang_leaf(top, LR_YANG_LRA, "dc");
    snprintf(c->dc, sizeof c->dc, "%s", v ? v : "");
    c->peak_flops = lr_yang_agent_dec(type, "peak-tflops") * LR_TERA;
    c->efficiency = lr_yang_agent_dec(type, "efficiency");
    c->memory_bytes = lr_yang_agent_dec(type, "memory-gb") * LR_GIGA;
    v = lr_yang_leaf(top, LR_YANG_LRA, "device-count");
    c->n_devices = v ? (int) strtol(v, NULL, 10) : 0;
    c->intra_bw = lr_yang_agent_dec(top, "intra-dc-bandwidth-gbytes-per-s")
                  * LR_GIGA;
    c->intra_latency = lr_yang_agent_dec(top, "intra-dc-latency-us")
                       * LR_MICRO;
    /* The schema's default gives the leaf a value when the file omits
     * it; absent here (a tree validated without defaults) reads as the
     * default too. */
    v = lr_yang_leaf(top, LR_YANG_LRA, "predecessors");
    c->predecessors = !v || !strcmp(v, "true");
    if ((ret = lr_yang_agent_path(tls, "certificate", dir, c->cert, file,
                                  err, errlen))
        || (ret = lr_yang_agent_path(tls, "key", dir, c->key, file, err,
                                     errlen))
        || (ret = lr_yang_agent_path(tls, "ca", dir, c->ca, file, err,
                                     errlen)))
        return ret;
    /* Optional: absent, it stays "" (resolving would make it the
     * file's directory). */
    if (lr_yang_child(tls, LR_YANG_LRA, "crl")
        && (ret = lr_yang_agent_path(tls, "crl", dir, c->crl, file, err,
                                     errlen)))
        return ret;
    /* max-elements keeps the count within the array. */
    const struct lyd_node *n = lr_yang_child(tls, LR_YANG_LRA, "peer-name");
    for (; n && c->n_peers < LR_AGENT_MAX_PEERS; n = lr_yang_next_same(n))
        snprintf(c->peer_names[c->n_peers++], LR_NAME_MAX, "%s",
                 lyd_get_value(n));
    return 0;
}

int
lr_yang_load_agent(struct ly_ctx *ctx, const char *path,
                   struct lr_agent_config *out, char *err, size_t errlen)
{
    struct lyd_node *tree = NULL;
    const struct lyd_node *top;
    char *dir = NULL;

    memset(out, 0, sizeof *out);
    int ret = lr_yang_load_top(ctx, path, LR_YANG_LRA, "agent",
                               "an agent's file", &tree, &top, &dir, err,
                               errlen);
    if (!ret)
        ret = lr_yang_agent_fill(top, dir, path, out, err, errlen);
    lyd_free_all(tree);
    free(dir);
    if (ret)
        memset(out, 0, sizeof *out);
    return ret;
}

/* ---- reservations ---- */

#define LR_YANG_RES_DOC "reservations"

int
lr_yang_reservations_print(struct ly_ctx *ctx,
                           const struct lr_agent_reservation *r, int n,
                           char **out, char *err, size_t errlen)
{
    const struct lys_module *mod;
    struct lyd_node *root = NULL, *e, *back = NULL;
    LY_ERR rc = LY_SUCCESS;
    int ret = 0;

    *out = NULL;
    if (!(mod = lr_yang_module(ctx, LR_YANG_LRA, LR_YANG_RES_DOC, err,
                               errlen)))
        return EINVAL;
    ly_err_clean(ctx, NULL);
    if ((rc = lyd_new_inner(NULL, mod, "reservations", 0, &root)))
        goto cleanup;
    for (int i = 0; i < n && !rc; i++)
        if (!(rc = lyd_new_list(root, mod, "reservation", 0, &e, r[i].owner,
                                r[i].tag)))
            rc = lr_yang_termf(e, mod, "devices", "%d", r[i].devices);
    if (!rc)
        rc = lyd_validate_all(&root, ctx, LYD_VALIDATE_PRESENT, NULL);
    if (!rc)
        rc = lyd_print_mem(out, root, LYD_JSON, LYD_PRINT_WITHSIBLINGS
                                                | LYD_PRINT_KEEPEMPTYCONT);
    /* Read back as the agent will at its next start: libyang prints a
     * string its parser refuses (U+FFFE, U+FFFF), and a file it cannot
     * read stops the agent. */
    if (!rc)
        rc = lyd_parse_data_mem(ctx, *out, LYD_JSON, LYD_PARSE_STRICT,
                                LYD_VALIDATE_PRESENT, &back);

cleanup:
    if (rc)
        ret = lr_yang_ly_err(ctx, rc, LR_YANG_RES_DOC, err, errlen);
    lyd_free_all(root);
    lyd_free_all(back);
    if (ret) {
        free(*out);
        *out = NULL;
    }
    return ret;
}

int
lr_yang_load_reservations(struct ly_ctx *ctx, const char *path,
                          struct lr_agent_reservation **out, int *n,
                          char *err, size_t errlen)
{
    struct lyd_node *tree = NULL;
    const struct lyd_node *top;
    char *dir = NULL;

    *out = NULL;
    *n = 0;
    int ret = lr_yang_load_top(ctx, path, LR_YANG_LRA, "reservations",
                               "an agent's reservations file", &tree, &top,
                               &dir, err, errlen);
    int count = 0;
    for (const struct lyd_node *e = ret ? NULL
             : lr_yang_child(top, LR_YANG_LRA, "reservation");
         e; e = lr_yang_next_same(e))
        count++;
    struct lr_agent_reservation *r = count ? calloc((size_t) count,
                                                    sizeof *r) : NULL;
    if (count && !r)
        ret = ENOMEM;
    int k = 0;
    for (const struct lyd_node *e = ret || !count ? NULL
             : lr_yang_child(top, LR_YANG_LRA, "reservation");
         e && k < count; e = lr_yang_next_same(e), k++) {
        /* The schema counts characters, the buffers bytes. */
        const char *o = lr_yang_leaf(e, LR_YANG_LRA, "owner");
        const char *t = lr_yang_leaf(e, LR_YANG_LRA, "tag");
        if (!o || !t || strlen(o) >= sizeof r[k].owner
            || strlen(t) >= sizeof r[k].tag) {
            ret = lr_yang_node_err(err, errlen, path, e, "an owner or tag "
                                   "longer than %zu bytes",
                                   sizeof r[k].tag - 1);
            break;
        }
        snprintf(r[k].owner, sizeof r[k].owner, "%s", o);
        snprintf(r[k].tag, sizeof r[k].tag, "%s", t);
        const char *v;
        v = lr_yang_leaf(e, LR_YANG_LRA, "devices");
        r[k].devices = v ? (int) strtol(v, NULL, 10) : 0;
    }
    lyd_free_all(tree);
    free(dir);
    if (ret) {
        free(r);
        return ret;
    }
    *out = r;
    *n = k;
    return 0;
}
