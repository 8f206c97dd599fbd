/*
 * libFuzzer target for the topology loader: any bytes must either load or
 * fail with a one-line message, never crash, leak or trip UBSan.
 *
 * A topology that loads must also survive a round trip: printed with
 * lr_yang_topo_to_json() and loaded again, it has the same nodes, links
 * and attachments.  A difference is a bug in the loader or the printer,
 * and aborts so that libFuzzer keeps the input.
 *
 * Build and run with `make fuzz` (tests/yang.am).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_topo.h"
#include "yang/lr_yang.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Built once: creating a context compiles every module, which would
 * otherwise dominate each run. */
static struct ly_ctx *ctx;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char err[512];
    if (lr_yang_ctx_new(&ctx, err, sizeof err)) {
        fprintf(stderr, "fuzz_topo_loader: %s\n", err);
        abort();
    }
    return 0;
}

static void
check(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "fuzz_topo_loader: round trip: %s\n", what);
        abort();
    }
}

static void
round_trip(const struct lr_topo *t)
{
    char *text = NULL, err[1024];
    struct lr_topo *u = NULL;

    int rc = lr_yang_topo_to_json(ctx, t, &text, err, sizeof err);
    if (rc)
        fprintf(stderr, "%s\n", err);
    check(rc == 0, "a loaded topology does not print");
    rc = lr_yang_load_topo_mem(ctx, text, strlen(text), "printed", &u, err,
                               sizeof err);
    if (rc)
        fprintf(stderr, "%s\n", err);
    check(rc == 0, "a printed topology does not load");
    check(!strcmp(t->name, u->name), "network-id");
    check(t->n_nodes == u->n_nodes, "node count");
    check(t->n_links == u->n_links, "link count");
    check(t->n_attach == u->n_attach, "attachment count");
    for (int i = 0; i < t->n_nodes; i++)
        check(!strcmp(t->nodes[i].name, u->nodes[i].name), "node name");
    for (int i = 0; i < t->n_links; i++) {
        const struct lr_link *a = &t->links[i], *b = &u->links[i];
        check(!strcmp(a->name, b->name), "link name");
        check(a->src == b->src && a->dst == b->dst, "link ends");
        check(fabs(a->length_km - b->length_km) <= 5e-4 * fmax(1, a->length_km),
              "link length");
        check(a->n_slots == b->n_slots, "slots");
        check(a->first_slot_n == b->first_slot_n, "first-slot-n");
    }
    for (int i = 0; i < t->n_attach; i++)
        check(!strcmp(t->attach[i].dc, u->attach[i].dc)
              && t->attach[i].node == u->attach[i].node, "attachment");
    free(text);
    lr_topo_free(u);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct lr_topo *t = NULL;
    char err[1024];

    int rc = lr_yang_load_topo_mem(ctx, (const char *) data, size, "fuzz",
                                   &t, err, sizeof err);
    if (rc) {
        check(t == NULL, "a failed load returned a topology");
        check(strchr(err, '\n') == NULL && !strncmp(err, "fuzz: ", 6),
              "an error is not one line starting with the file name");
        return 0;
    }
    round_trip(t);
    lr_topo_free(t);
    return 0;
}
