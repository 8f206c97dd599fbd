/*
 * lr_yang_topo: lightrail-topology data <-> struct lr_topo.  See lr_yang.h.
 *
 * Loading: libyang parses and validates against the schema (types,
 * ranges, keys, link ends that exist); this file then walks the one
 * lightrail-optical network and adds what YANG cannot say (the checks
 * listed in lr_yang.h), each reported with the data path of its node.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libyang/libyang.h>

#include "planner/lr_topo.h"
#include "yang/lr_yang.h"
#include "yang/lr_yang_int.h"

/* A name the planner can hold: 1..LR_NAME_MAX-1 characters.  ietf-network
 * identifiers are URIs of any length, so this is ours to check. */
static int
lr_yang_check_name(const char *name, const char *file,
                   const struct lyd_node *node, const char *what,
                   char *err, size_t errlen)
{
    size_t n = strlen(name);
    if (n == 0 || n >= LR_NAME_MAX)
        return lr_yang_node_err(err, errlen, file, node,
                                "%s must be 1 to %d characters long, not %zu",
                                what, LR_NAME_MAX - 1, n);
    return 0;
}

/* Finds the one network whose network-types has lightrail-optical. */
static int
lr_yang_find_network(const struct lyd_node *tree, const char *file,
                     const struct lyd_node **netp, char *err, size_t errlen)
{
    const struct lyd_node *networks = lr_yang_sibling(tree, LR_YANG_NW,
                                                      "networks");
    const struct lyd_node *found = NULL;

    *netp = NULL;
    const struct lyd_node *net = lr_yang_child(networks, LR_YANG_NW,
                                               "network");
    for (; net; net = lr_yang_next_same(net)) {
        const struct lyd_node *types = lr_yang_child(net, LR_YANG_NW,
                                                     "network-types");
        if (!lr_yang_child(types, LR_YANG_LRT, "lightrail-optical"))
            continue;
        if (found)
            return lr_yang_node_err(err, errlen, file, net,
                                    "a second lightrail-optical network; "
                                    "a file holds one (the first is '%s')",
                                    lr_yang_leaf(found, LR_YANG_NW,
                                                 "network-id"));
        found = net;
    }
    if (!found) {
        lr_yang_errf(err, errlen, file, "/ietf-network:networks",
                     "no network has network-types "
                     "lightrail-topology:lightrail-optical");
        return EINVAL;
    }
    *netp = found;
    return 0;
}

static int
lr_yang_topo_nodes(struct lr_topo *t, const struct lyd_node *net,
                   const char *file, char *err, size_t errlen)
{
    const struct lyd_node *node = lr_yang_child(net, LR_YANG_NW, "node");
    for (; node; node = lr_yang_next_same(node)) {
        const char *id = lr_yang_leaf(node, LR_YANG_NW, "node-id");
        int rc = lr_yang_check_name(id, file, node, "node-id", err, errlen);
        if (rc)
            return rc;
        rc = lr_topo_add_node(t, id);
        if (rc)
            return lr_yang_add_err(rc, err, errlen, file, node, "node");
        int idx = t->n_nodes - 1;
        const struct lyd_node *roadm = lr_yang_child(node, LR_YANG_LRT,
                                                     "roadm");
        if (roadm
            && lr_topo_set_roadm(t, idx,
                                 lr_yang_leaf(roadm, LR_YANG_LRT, "name"),
                                 lr_yang_leaf(roadm, LR_YANG_LRT,
                                              "description"))) {
            lr_yang_errf(err, errlen, file, NULL, "out of memory");
            return ENOMEM;
        }

        const struct lyd_node *a = lr_yang_child(node, LR_YANG_LRT,
                                                 "dc-attachment");
        for (; a; a = lr_yang_next_same(a)) {
            const char *dc = lr_yang_leaf(a, LR_YANG_LRT, "dc");
            int other = lr_topo_dc_node(t, dc);
            if (other >= 0)
                return lr_yang_node_err(err, errlen, file, a,
                                        "DC '%s' is already attached to "
                                        "node '%s'; a DC attaches to one "
                                        "node", dc, t->nodes[other].name);
            rc = lr_topo_add_attach(t, dc, idx);
            if (rc)
                return lr_yang_add_err(rc, err, errlen, file, a,
                                            "DC attachment");
        }
    }
    return 0;
}

static int
lr_yang_topo_links(struct lr_topo *t, const struct lyd_node *net,
                   const char *file, char *err, size_t errlen)
{
    const struct lyd_node *link = lr_yang_child(net, LR_YANG_NT, "link");
    for (; link; link = lr_yang_next_same(link)) {
        const char *id = lr_yang_leaf(link, LR_YANG_NT, "link-id");
        int rc = lr_yang_check_name(id, file, link, "link-id", err, errlen);
        if (rc)
            return rc;

        /* The schema makes both ends mandatory references to existing
         * nodes, so the lookups cannot fail on validated data. */
        const char *src = lr_yang_leaf(lr_yang_child(link, LR_YANG_NT,
                                                     "source"),
                                       LR_YANG_NT, "source-node");
        const char *dst = lr_yang_leaf(lr_yang_child(link, LR_YANG_NT,
                                                     "destination"),
                                       LR_YANG_NT, "dest-node");
        int s = src ? lr_topo_find_node(t, src) : -1;
        int d = dst ? lr_topo_find_node(t, dst) : -1;
        if (s < 0 || d < 0)
            return lr_yang_node_err(err, errlen, file, link,
                                    "link does not join two nodes of the "
                                    "network");
        if (s == d)
            return lr_yang_node_err(err, errlen, file, link,
                                    "link joins node '%s' to itself", src);

        const char *v = lr_yang_leaf(link, LR_YANG_LRT, "length-km");
        double km = v ? strtod(v, NULL) : 0;
        v = lr_yang_leaf(link, LR_YANG_LRT, "slots");
        long slots = v ? strtol(v, NULL, 10) : 0;
        v = lr_yang_leaf(link, LR_YANG_LRT, "first-slot-n");
        long n0 = v ? strtol(v, NULL, 10) : LR_YANG_FIRST_SLOT_N_DEFAULT;

        /* The n of the last slot's centre is n0 + 2 (slots - 1); keep every
         * slot above 0 Hz and every n the planner computes inside int. */
        long long last = (long long) n0 + 2LL * (slots - 1);
        if (n0 < LR_YANG_N_MIN || last > LR_YANG_N_MAX)
            return lr_yang_node_err(err, errlen, file, link,
                                    "%ld slots from first-slot-n %ld leave "
                                    "the flexgrid (n from %d to %d)",
                                    slots, n0, LR_YANG_N_MIN, LR_YANG_N_MAX);

        rc = lr_topo_add_link(t, id, s, d, km, (int) slots, (int) n0);
        if (rc)
            return lr_yang_add_err(rc, err, errlen, file, link, "link");
    }
    return 0;
}

int
lr_yang_load_topo_mem(struct ly_ctx *ctx, const char *data, size_t len,
                      const char *name, struct lr_topo **out,
                      char *err, size_t errlen)
{
    struct lyd_node *tree = NULL;
    const struct lyd_node *net = NULL;
    struct lr_topo *t = NULL;
    int ret;

    *out = NULL;
    ret = lr_yang_parse(ctx, data, len, name, LR_YANG_NW, "networks",
                        "a topology", &tree, err, errlen);
    if (ret)
        goto cleanup;
    ret = lr_yang_find_network(tree, name, &net, err, errlen);
    if (ret)
        goto cleanup;

    const char *id = lr_yang_leaf(net, LR_YANG_NW, "network-id");
    ret = lr_yang_check_name(id, name, net, "network-id", err, errlen);
    if (ret)
        goto cleanup;
    t = lr_topo_new(id);
    if (!t) {
        lr_yang_errf(err, errlen, name, NULL, "out of memory");
        ret = ENOMEM;
        goto cleanup;
    }
    ret = lr_yang_topo_nodes(t, net, name, err, errlen);
    if (!ret)
        ret = lr_yang_topo_links(t, net, name, err, errlen);

cleanup:
    lyd_free_all(tree);
    if (ret) {
        lr_topo_free(t);
        t = NULL;
    }
    *out = t;
    return ret;
}

int
lr_yang_load_topo(struct ly_ctx *ctx, const char *path, struct lr_topo **out,
                  char *err, size_t errlen)
{
    char *buf = NULL;
    size_t len = 0;

    *out = NULL;
    int ret = lr_yang_read_file(path, &buf, &len, err, errlen);
    if (!ret)
        ret = lr_yang_load_topo_mem(ctx, buf, len, path, out, err, errlen);
    free(buf);
    return ret;
}

/*
 * Printing.  The tree is built with lyd_new_list()/lyd_new_term() rather
 * than lyd_new_path(): a path would need the names quoted inside key
 * predicates, and a node-id may contain either quote.
 */

static int
lr_yang_topo_build(struct ly_ctx *ctx, const struct lr_topo *t,
                   struct lyd_node **rootp)
{
    const struct lys_module *nw = ly_ctx_get_module_implemented(ctx,
                                                                LR_YANG_NW);
    const struct lys_module *nt = ly_ctx_get_module_implemented(ctx,
                                                                LR_YANG_NT);
    const struct lys_module *lrt = ly_ctx_get_module_implemented(ctx,
                                                                 LR_YANG_LRT);
    struct lyd_node *root = NULL, *net = NULL, *types = NULL;
    struct lyd_node **nodes = NULL;
    LY_ERR rc;
    char buf[64];

    if (!nw || !nt || !lrt) {
        rc = LY_ENOTFOUND;
        goto cleanup;
    }
    nodes = calloc(t->n_nodes ? t->n_nodes : 1, sizeof *nodes);
    if (!nodes) {
        rc = LY_EMEM;
        goto cleanup;
    }
    if ((rc = lyd_new_inner(NULL, nw, "networks", 0, &root))
        || (rc = lyd_new_list(root, nw, "network", 0, &net, t->name))
        || (rc = lyd_new_inner(net, nw, "network-types", 0, &types))
        || (rc = lyd_new_inner(types, lrt, "lightrail-optical", 0, NULL)))
        goto cleanup;
    for (int i = 0; i < t->n_nodes; i++) {
        const struct lr_node *n = &t->nodes[i];
        struct lyd_node *roadm = NULL;
        if ((rc = lyd_new_list(net, nw, "node", 0, &nodes[i], n->name)))
            goto cleanup;
        if ((n->roadm_name || n->roadm_description)
            && (rc = lyd_new_inner(nodes[i], lrt, "roadm", 0, &roadm)))
            goto cleanup;
        if ((n->roadm_name
             && (rc = lyd_new_term(roadm, lrt, "name", n->roadm_name, 0,
                                   NULL)))
            || (n->roadm_description
                && (rc = lyd_new_term(roadm, lrt, "description",
                                      n->roadm_description, 0, NULL))))
            goto cleanup;
    }
    for (int i = 0; i < t->n_attach; i++) {
        const struct lr_attach *a = &t->attach[i];
        if (a->node < 0 || a->node >= t->n_nodes) {
            rc = LY_EINVAL;
            goto cleanup;
        }
        if ((rc = lyd_new_list(nodes[a->node], lrt, "dc-attachment", 0, NULL,
                               a->dc)))
            goto cleanup;
    }
    for (int i = 0; i < t->n_links; i++) {
        const struct lr_link *l = &t->links[i];
        struct lyd_node *link, *end;
        if (l->src < 0 || l->src >= t->n_nodes || l->dst < 0
            || l->dst >= t->n_nodes) {
            rc = LY_EINVAL;
            goto cleanup;
        }
        if ((rc = lyd_new_list(net, nt, "link", 0, &link, l->name))
            || (rc = lyd_new_inner(link, nt, "source", 0, &end))
            || (rc = lyd_new_term(end, nt, "source-node",
                                  t->nodes[l->src].name, 0, NULL))
            || (rc = lyd_new_inner(link, nt, "destination", 0, &end))
            || (rc = lyd_new_term(end, nt, "dest-node",
                                  t->nodes[l->dst].name, 0, NULL)))
            goto cleanup;
        /* length-km has three fraction digits: metres. */
        snprintf(buf, sizeof buf, "%.3f", l->length_km);
        if ((rc = lyd_new_term(link, lrt, "length-km", buf, 0, NULL)))
            goto cleanup;
        snprintf(buf, sizeof buf, "%d", l->n_slots);
        if ((rc = lyd_new_term(link, lrt, "slots", buf, 0, NULL)))
            goto cleanup;
        snprintf(buf, sizeof buf, "%d", l->first_slot_n);
        if ((rc = lyd_new_term(link, lrt, "first-slot-n", buf, 0, NULL)))
            goto cleanup;
    }

cleanup:
    free(nodes);
    if (rc) {
        lyd_free_all(root);
        root = NULL;
    }
    *rootp = root;
    return rc;
}

int
lr_yang_topo_to_json(struct ly_ctx *ctx, const struct lr_topo *t,
                     char **out, char *err, size_t errlen)
{
    struct lyd_node *root = NULL;
    const char *name = t->name[0] ? t->name : "topology";

    *out = NULL;
    ly_err_clean(ctx, NULL);
    LY_ERR rc = lr_yang_topo_build(ctx, t, &root);
    return lr_yang_print_doc(ctx, rc, root, name, "a link or attachment "
                             "names a node index out of range", out, err,
                             errlen);
}
