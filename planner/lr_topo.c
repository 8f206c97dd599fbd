/* lr_topo: see lr_topo.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_util.h"
#include "planner/lr_topo.h"

struct lr_topo *
lr_topo_new(const char *name)
{
    struct lr_topo *t = calloc(1, sizeof *t);
    if (t && name && lr_copy_name(t->name, LR_NAME_MAX, name)) {
        free(t);
        return NULL;
    }
    return t;
}

void
lr_topo_free(struct lr_topo *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->n_nodes; i++) {
        free(t->nodes[i].roadm_name);
        free(t->nodes[i].roadm_description);
    }
    free(t->nodes);
    free(t->links);
    free(t->attach);
    free(t);
}

int
lr_topo_find_node(const struct lr_topo *t, const char *name)
{
    for (int i = 0; i < t->n_nodes; i++)
        if (!strcmp(t->nodes[i].name, name))
            return i;
    return -1;
}

int
lr_topo_find_link(const struct lr_topo *t, const char *name)
{
    for (int i = 0; i < t->n_links; i++)
        if (!strcmp(t->links[i].name, name))
            return i;
    return -1;
}

int
lr_topo_link_between(const struct lr_topo *t, int src, int dst)
{
    for (int i = 0; i < t->n_links; i++)
        if (t->links[i].src == src && t->links[i].dst == dst)
            return i;
    return -1;
}

int
lr_topo_dc_node(const struct lr_topo *t, const char *dc)
{
    for (int i = 0; i < t->n_attach; i++)
        if (!strcmp(t->attach[i].dc, dc))
            return t->attach[i].node;
    return -1;
}

int
lr_topo_attach_node(const struct lr_topo *t, const char *dc,
                    const char *attach_node)
{
    int node = lr_topo_dc_node(t, dc);
    if (node < 0 && attach_node && attach_node[0])
        node = lr_topo_find_node(t, attach_node);
    return node;
}

int
lr_topo_add_node(struct lr_topo *t, const char *name)
{
    struct lr_node n = { .roadm_name = NULL };
    int err = lr_copy_name(n.name, LR_NAME_MAX, name);
    if (err)
        return err;
    if (lr_topo_find_node(t, name) >= 0)
        return EEXIST;
    err = lr_grow((void **) &t->nodes, &t->cap_nodes, t->n_nodes + 1, sizeof n);
    if (err)
        return err;
    t->nodes[t->n_nodes++] = n;
    return 0;
}

int
lr_topo_set_roadm(struct lr_topo *t, int node, const char *name,
                  const char *description)
{
    if (node < 0 || node >= t->n_nodes)
        return EINVAL;
    char *n = name ? strdup(name) : NULL;
    char *d = description ? strdup(description) : NULL;
    if ((name && !n) || (description && !d)) {
        free(n);
        free(d);
        return ENOMEM;
    }
    free(t->nodes[node].roadm_name);
    free(t->nodes[node].roadm_description);
    t->nodes[node].roadm_name = n;
    t->nodes[node].roadm_description = d;
    return 0;
}

int
lr_topo_add_link(struct lr_topo *t, const char *name, int src, int dst,
                 double length_km, int n_slots, int first_slot_n)
{
    struct lr_link l = {
        .src = src, .dst = dst, .length_km = length_km,
        .n_slots = n_slots, .first_slot_n = first_slot_n,
    };
    int err = lr_copy_name(l.name, LR_NAME_MAX, name);
    if (err)
        return err;
    if (src < 0 || src >= t->n_nodes || dst < 0 || dst >= t->n_nodes
        || src == dst || !(length_km > 0) || n_slots < 1)
        return EINVAL;
    if (lr_topo_find_link(t, name) >= 0)
        return EEXIST;
    err = lr_grow((void **) &t->links, &t->cap_links, t->n_links + 1, sizeof l);
    if (err)
        return err;
    t->links[t->n_links++] = l;
    return 0;
}

int
lr_topo_add_attach(struct lr_topo *t, const char *dc, int node)
{
    struct lr_attach a = { .node = node };
    int err = lr_copy_name(a.dc, LR_NAME_MAX, dc);
    if (err)
        return err;
    if (node < 0 || node >= t->n_nodes)
        return EINVAL;
    if (lr_topo_dc_node(t, dc) >= 0)
        return EEXIST;
    err = lr_grow((void **) &t->attach, &t->cap_attach, t->n_attach + 1,
               sizeof a);
    if (err)
        return err;
    t->attach[t->n_attach++] = a;
    return 0;
}

int
lr_topo_max_slots(const struct lr_topo *t)
{
    int m = 0;
    for (int i = 0; i < t->n_links; i++)
        if (t->links[i].n_slots > m)
            m = t->links[i].n_slots;
    return m;
}

struct lr_topo *
lr_topo_clone(const struct lr_topo *t)
{
    struct lr_topo *c = lr_topo_new(t->name[0] ? t->name : NULL);
    if (!c)
        return NULL;
    for (int i = 0; i < t->n_nodes; i++)
        if (lr_topo_add_node(c, t->nodes[i].name)
            || lr_topo_set_roadm(c, i, t->nodes[i].roadm_name,
                                 t->nodes[i].roadm_description))
            goto fail;
    for (int i = 0; i < t->n_links; i++) {
        const struct lr_link *l = &t->links[i];
        if (lr_topo_add_link(c, l->name, l->src, l->dst, l->length_km,
                             l->n_slots, l->first_slot_n))
            goto fail;
    }
    for (int i = 0; i < t->n_attach; i++)
        if (lr_topo_add_attach(c, t->attach[i].dc, t->attach[i].node))
            goto fail;
    return c;

fail:
    lr_topo_free(c);
    return NULL;
}
