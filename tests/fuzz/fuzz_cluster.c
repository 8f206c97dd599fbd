/*
 * libFuzzer target for the cluster loader, lr_yang_load_cluster_mem()
 * (lightrail-compute files: the DCs, their devices, the inter-DC links,
 * which lightraild, `lightrail plan`, `sim` and `train` all read).  Any
 * bytes must either load or fail with one line starting with the file's
 * name, never crash, leak or trip UBSan.
 *
 * A cluster that loads keeps what the loader promises (every DC's device
 * type exists, counts and rates are positive, a link joins two different
 * DCs) and survives printing: lr_yang_cluster_to_json() rounds numbers to
 * the module's three fraction digits, so the first reload may differ in
 * those digits, but printing and loading it again must give it back
 * exactly.  A printing error (a number the schema refuses once rounded)
 * is one line too.  A broken promise aborts, so that libFuzzer keeps the
 * input.
 *
 * Build and run with `make fuzz` (tests/yang.am); seeded with
 * examples/clusters/.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_cluster.h"
#include "yang/lr_yang_job.h"

#define LR_FUZZ_NAME "fuzz_cluster"
#define LR_FUZZ_YANG 1
#include "tests/fuzz/lr_fuzz.h"

static void
sane(const struct lr_cluster *c)
{
    for (int i = 0; i < c->n_types; i++)
        check(c->types[i].peak_flops > 0 && c->types[i].memory_bytes > 0
              && c->types[i].efficiency > 0, "a device type not positive");
    for (int i = 0; i < c->n_dcs; i++) {
        const struct lr_dc *d = &c->dcs[i];
        check(d->device_type >= 0 && d->device_type < c->n_types,
              "a DC whose device type does not exist");
        check(d->n_devices > 0 && d->intra_bw > 0 && d->intra_latency >= 0,
              "a DC count or rate not positive");
        check(strnlen(d->name, sizeof d->name) < sizeof d->name,
              "a DC name without its end");
    }
    for (int i = 0; i < c->n_links; i++) {
        const struct lr_dc_link *l = &c->links[i];
        check(l->a >= 0 && l->a < c->n_dcs && l->b >= 0 && l->b < c->n_dcs
              && l->a != l->b, "a link not between two different DCs");
        check(l->bw > 0 && l->latency >= 0, "a link rate not positive");
    }
}

/* 'c' printed and loaded again into '*out'; 0, or 1 for a printing
 * error (checked to be one line). */
static int
reprint(const struct lr_cluster *c, struct lr_cluster **out)
{
    char *text = NULL, err[1024] = "";
    *out = NULL;
    if (lr_yang_cluster_to_json(ctx, c, &text, err, sizeof err)) {
        check(err[0] && !strchr(err, '\n'), "a printing error not one line");
        free(text);
        return 1;
    }
    int rc = lr_yang_load_cluster_mem(ctx, text, strlen(text), "printed",
                                      out, err, sizeof err);
    if (rc)
        fprintf(stderr, "%s\n%s\n", err, text);
    check(rc == 0, "a printed cluster does not load");
    free(text);
    return 0;
}

static void
same(const struct lr_cluster *a, const struct lr_cluster *b)
{
    check(a->n_types == b->n_types && a->n_dcs == b->n_dcs
          && a->n_links == b->n_links, "counts differ after printing");
    for (int i = 0; i < a->n_types; i++)
        check(!strcmp(a->types[i].name, b->types[i].name)
              && a->types[i].peak_flops == b->types[i].peak_flops
              && a->types[i].efficiency == b->types[i].efficiency
              && a->types[i].memory_bytes == b->types[i].memory_bytes,
              "a device type differs after printing twice");
    for (int i = 0; i < a->n_dcs; i++) {
        const struct lr_dc *x = &a->dcs[i], *y = &b->dcs[i];
        check(!strcmp(x->name, y->name) && x->device_type == y->device_type
              && x->n_devices == y->n_devices && x->intra_bw == y->intra_bw
              && x->intra_latency == y->intra_latency
              && !strcmp(x->attach_node, y->attach_node)
              && !strcmp(x->remote_address, y->remote_address)
              && x->remote_port == y->remote_port
              && !strcmp(x->remote_name, y->remote_name),
              "a DC differs after printing twice");
    }
    for (int i = 0; i < a->n_links; i++)
        check(a->links[i].a == b->links[i].a && a->links[i].b == b->links[i].b
              && a->links[i].bw == b->links[i].bw
              && a->links[i].latency == b->links[i].latency,
              "a link differs after printing twice");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct lr_cluster *c = NULL, *once = NULL, *twice = NULL;
    char err[1024] = "";

    int rc = lr_yang_load_cluster_mem(ctx, (const char *) data, size, "fuzz",
                                      &c, err, sizeof err);
    if (rc) {
        check(c == NULL, "a failed load returned a cluster");
        check(!strchr(err, '\n') && !strncmp(err, "fuzz: ", 6),
              "an error is not one line starting with the file name");
        return 0;
    }
    sane(c);
    if (!reprint(c, &once)) {
        sane(once);
        check(once->n_dcs == c->n_dcs && once->n_links == c->n_links
              && once->n_types == c->n_types, "counts differ after printing");
        if (!reprint(once, &twice))
            same(once, twice);
    }
    lr_cluster_free(twice);
    lr_cluster_free(once);
    lr_cluster_free(c);
    return 0;
}
