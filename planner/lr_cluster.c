/* lr_cluster: see lr_cluster.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_util.h"
#include "planner/lr_cluster.h"

struct lr_cluster *
lr_cluster_new(void)
{
    return calloc(1, sizeof(struct lr_cluster));
}

void
lr_cluster_free(struct lr_cluster *c)
{
    if (!c)
        return;
    free(c->types);
    free(c->dcs);
    free(c->links);
    free(c);
}

int
lr_cluster_find_type(const struct lr_cluster *c, const char *name)
{
    for (int i = 0; i < c->n_types; i++)
        if (!strcmp(c->types[i].name, name))
            return i;
    return -1;
}

int
lr_cluster_find_dc(const struct lr_cluster *c, const char *name)
{
    for (int i = 0; i < c->n_dcs; i++)
        if (!strcmp(c->dcs[i].name, name))
            return i;
    return -1;
}

int
lr_cluster_link_between(const struct lr_cluster *c, int a, int b)
{
    for (int i = 0; i < c->n_links; i++)
        if ((c->links[i].a == a && c->links[i].b == b)
            || (c->links[i].a == b && c->links[i].b == a))
            return i;
    return -1;
}

int
lr_cluster_add_type(struct lr_cluster *c, const char *name, double peak_flops,
                    double efficiency, double memory_bytes)
{
    struct lr_device_type t = {
        .peak_flops = peak_flops, .efficiency = efficiency,
        .memory_bytes = memory_bytes,
    };
    int err = lr_copy_name(t.name, LR_NAME_MAX, name);
    if (err)
        return err;
    if (!(peak_flops > 0) || !(efficiency > 0) || efficiency > 1
        || !(memory_bytes > 0))
        return EINVAL;
    if (lr_cluster_find_type(c, name) >= 0)
        return EEXIST;
    err = lr_grow((void **) &c->types, &c->cap_types, c->n_types + 1, sizeof t);
    if (err)
        return err;
    c->types[c->n_types++] = t;
    return 0;
}

int
lr_cluster_add_dc(struct lr_cluster *c, const char *name, const char *type,
                  int n_devices, double intra_bw, double intra_latency,
                  const char *attach_node)
{
    struct lr_dc d = {
        .n_devices = n_devices, .intra_bw = intra_bw,
        .intra_latency = intra_latency,
    };
    int err = lr_copy_name(d.name, LR_NAME_MAX, name);
    if (err)
        return err;
    d.device_type = lr_cluster_find_type(c, type);
    if (d.device_type < 0 || n_devices < 1 || !(intra_bw > 0)
        || !(intra_latency >= 0))
        return EINVAL;
    if (attach_node && *attach_node && lr_copy_name(d.attach_node, LR_NAME_MAX, attach_node))
        return EINVAL;
    if (lr_cluster_find_dc(c, name) >= 0)
        return EEXIST;
    err = lr_grow((void **) &c->dcs, &c->cap_dcs, c->n_dcs + 1, sizeof d);
    if (err)
        return err;
    c->dcs[c->n_dcs++] = d;
    return 0;
}

int
lr_cluster_add_link(struct lr_cluster *c, const char *dc_a, const char *dc_b,
                    double bw, double latency)
{
    struct lr_dc_link l = {
        .a = lr_cluster_find_dc(c, dc_a), .b = lr_cluster_find_dc(c, dc_b),
        .bw = bw, .latency = latency,
    };
    if (l.a < 0 || l.b < 0 || l.a == l.b || !(bw > 0) || !(latency >= 0))
        return EINVAL;
    if (lr_cluster_link_between(c, l.a, l.b) >= 0)
        return EEXIST;
    int err = lr_grow((void **) &c->links, &c->cap_links, c->n_links + 1,
                   sizeof l);
    if (err)
        return err;
    c->links[c->n_links++] = l;
    return 0;
}

struct lr_cluster *
lr_cluster_clone(const struct lr_cluster *c)
{
    struct lr_cluster *n = lr_cluster_new();
    if (!n)
        return NULL;
    for (int i = 0; i < c->n_types; i++) {
        const struct lr_device_type *t = &c->types[i];
        if (lr_cluster_add_type(n, t->name, t->peak_flops, t->efficiency,
                                t->memory_bytes))
            goto fail;
    }
    for (int i = 0; i < c->n_dcs; i++) {
        const struct lr_dc *d = &c->dcs[i];
        if (lr_cluster_add_dc(n, d->name, c->types[d->device_type].name,
                              d->n_devices, d->intra_bw, d->intra_latency,
                              d->attach_node))
            goto fail;
        /* What add_dc does not take: where a remote DC's agent is. */
        struct lr_dc *copy = &n->dcs[n->n_dcs - 1];
        memcpy(copy->remote_address, d->remote_address,
               sizeof copy->remote_address);
        copy->remote_port = d->remote_port;
        memcpy(copy->remote_name, d->remote_name, sizeof copy->remote_name);
    }
    for (int i = 0; i < c->n_links; i++) {
        const struct lr_dc_link *l = &c->links[i];
        if (lr_cluster_add_link(n, c->dcs[l->a].name, c->dcs[l->b].name,
                                l->bw, l->latency))
            goto fail;
    }
    return n;

fail:
    lr_cluster_free(n);
    return NULL;
}
