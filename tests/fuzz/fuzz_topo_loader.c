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

#define LR_FUZZ_NAME "fuzz_topo_loader"
#define LR_FUZZ_YANG 1
#include "tests/fuzz/lr_fuzz.h"

static void
round_trip(const struct lr_topo *t)
{
    char *text = NULL, err[1024];
    struct lr_topo *u = NULL;

    int rc = lr_yang_topo_to_json(ctx, t, &text, err, sizeof err);
    if (rc)
        fprintf(stderr, "%s\n", err);
    check(rc == 0, "round trip: a loaded topology does not print");
    rc = lr_yang_load_topo_mem(ctx, text, strlen(text), "printed", &u, err,
                               sizeof err);
    if (rc)
        fprintf(stderr, "%s\n", err);
    check(rc == 0, "round trip: a printed topology does not load");
    check(!strcmp(t->name, u->name), "round trip: network-id");
    check(t->n_nodes == u->n_nodes, "round trip: node count");
    check(t->n_links == u->n_links, "round trip: link count");
    check(t->n_attach == u->n_attach, "round trip: attachment count");
    for (int i = 0; i < t->n_nodes; i++)
        check(!strcmp(t->nodes[i].name, u->nodes[i].name), "round trip: node name");
    for (int i = 0; i < t->n_links; i++) {
        const struct lr_link *a = &t->links[i], *b = &u->links[i];
        check(!strcmp(a->name, b->name), "round trip: link name");
        check(a->src == b->src && a->dst == b->dst, "round trip: link ends");
        check(fabs(a->length_km - b->length_km) <= 5e-4 * fmax(1, a->length_km),
              "round trip: link length");
        check(a->n_slots == b->n_slots, "round trip: slots");
        check(a->first_slot_n == b->first_slot_n, "round trip: first-slot-n");
    }
    for (int i = 0; i < t->n_attach; i++)
        check(!strcmp(t->attach[i].dc, u->attach[i].dc)
              && t->attach[i].node == u->attach[i].node, "round trip: attachment");
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
