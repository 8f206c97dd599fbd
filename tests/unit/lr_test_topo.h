/*
 * Small topologies built in code for the planner tests (the planner cannot
 * read files, and these tests must not depend on the YANG loader).
 */
#ifndef LR_TEST_TOPO_H
#define LR_TEST_TOPO_H 1

#include <stdio.h>

#include "planner/lr_rng.h"
#include "planner/lr_topo.h"

/* Adds both directions of a fibre a-b. */
static inline void
lr_test_fibre(struct lr_topo *t, int a, int b, double km, int slots)
{
    char name[LR_NAME_MAX];
    snprintf(name, sizeof name, "%d-%d", a, b);
    lr_topo_add_link(t, name, a, b, km, slots, 0);
    snprintf(name, sizeof name, "%d-%d", b, a);
    lr_topo_add_link(t, name, b, a, km, slots, 0);
}

/* n nodes; each node pair gets a fibre with probability p, plus a ring so
 * that every pair is connected; lengths uniform integers in 50..3000 km. */
static inline struct lr_topo *
lr_test_random_topo(struct lr_rng *r, int n, double p, int slots)
{
    struct lr_topo *t = lr_topo_new("random");
    char name[LR_NAME_MAX];
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "n%d", i);
        lr_topo_add_node(t, name);
    }
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (b == a + 1 || (a == 0 && b == n - 1)
                || lr_rng_uniform(r) < p)
                lr_test_fibre(t, a, b, 50 + lr_rng_below(r, 2951), slots);
    return t;
}

#endif
