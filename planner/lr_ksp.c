/*
 * lr_ksp: K shortest simple paths for every ordered node pair.
 *
 * Model.  For a directed graph G = (V, E) with link weights w(e) > 0, the K
 * shortest simple paths from s to d are found by Yen's algorithm (J. Y.
 * Yen, "Finding the K shortest loopless paths in a network", Management
 * Science 17(11), 1971): each next path deviates from a previous one at a
 * spur node, with the root's links and nodes removed, and the cheapest
 * candidate is taken.  Complexity per pair O(K |V| (|E| + |V| log |V|)).
 * We do not write Yen again: igraph_get_k_shortest_paths() implements it
 * (igraph 0.10; ../shared/reference/libraries.md).
 *
 * Orders.  "km" uses w(e) = length(e).  "hops" must rank paths by
 * (hops, km) lexicographically; we get that from the same algorithm with
 *     w(e) = M + length(e),  M = 1 + sum_e length(e),
 * since a path of h hops then weighs h M + km(path) with km(path) < M, so
 * fewer hops always wins and equal hops compare by length.
 *
 * The table is computed once per topology: |V|^2 pairs, at most K paths
 * each, links stored in one pool.  Over a ring Yen costs about |V|^2
 * per pair, so |V|^4 in all: 200 ROADMs took 201 s at -O2.  A caller
 * that only ever asks the pairs between some nodes (the controller: the
 * DC-attached ROADMs) names them with lr_ksp_compute_ends() and pays
 * for those pairs alone; their paths are the same either way.  One that
 * needs only every node's shortest path to a few nodes (the joint
 * environment's distances to the DCs) asks lr_ksp_compute_pairs() for
 * K = 1 from every node to those: Yen's first path is one Dijkstra, the
 * same path whatever K, so |V| x |DCs| searches in all.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <igraph.h>

#include "planner/lr_ksp.h"

void
lr_ksp_free(struct lr_ksp *t)
{
    if (!t)
        return;
    free(t->pair_first);
    free(t->paths);
    free(t->link_pool);
    free(t);
}

int
lr_ksp_order_parse(const char *s, enum lr_ksp_order *o)
{
    if (!strcmp(s, "km"))
        *o = LR_KSP_KM;
    else if (!strcmp(s, "hops"))
        *o = LR_KSP_HOPS;
    else
        return EINVAL;
    return 0;
}

const char *
lr_ksp_order_name(enum lr_ksp_order o)
{
    return o == LR_KSP_HOPS ? "hops" : "km";
}

/* Appends 'n' ints to the growing pool. */
static int
pool_append(int **pool, int *len, int *cap, const igraph_vector_int_t *v)
{
    int n = (int) igraph_vector_int_size(v);
    if (*len + n > *cap) {
        int ncap = *cap ? *cap : 1024;
        while (ncap < *len + n)
            ncap *= 2;
        int *p = realloc(*pool, (size_t) ncap * sizeof *p);
        if (!p)
            return ENOMEM;
        *pool = p;
        *cap = ncap;
    }
    for (int i = 0; i < n; i++)
        (*pool)[*len + i] = (int) VECTOR(*v)[i];
    *len += n;
    return 0;
}

int
lr_ksp_compute(const struct lr_topo *topo, int k, enum lr_ksp_order order,
               struct lr_ksp **out)
{
    return lr_ksp_compute_ends(topo, k, order, NULL, out);
}

int
lr_ksp_compute_ends(const struct lr_topo *topo, int k,
                    enum lr_ksp_order order, const unsigned char *ends,
                    struct lr_ksp **out)
{
    return lr_ksp_compute_pairs(topo, k, order, ends, ends, out);
}

int
lr_ksp_compute_pairs(const struct lr_topo *topo, int k,
                     enum lr_ksp_order order, const unsigned char *from,
                     const unsigned char *to, struct lr_ksp **out)
{
    int n = topo->n_nodes, err = 0;
    if (k < 1 || n < 1)
        return EINVAL;

    struct lr_ksp *t = calloc(1, sizeof *t);
    if (!t)
        return ENOMEM;
    t->n_nodes = n;
    t->k = k;
    t->order = order;
    t->pair_first = calloc((size_t) n * n + 1, sizeof *t->pair_first);
    t->paths = calloc((size_t) n * n * k + 1, sizeof *t->paths);
    if (!t->pair_first || !t->paths) {
        lr_ksp_free(t);
        return ENOMEM;
    }

    /* igraph's default error handler aborts the process and its warning
     * handler prints; a pure library must do neither, so while we run,
     * errors come back as return codes and warnings (an unreachable
     * destination) are silent. */
    igraph_error_handler_t *old = igraph_set_error_handler(
        igraph_error_handler_ignore);
    igraph_warning_handler_t *old_warn = igraph_set_warning_handler(
        igraph_warning_handler_ignore);

    igraph_t g;
    igraph_vector_int_t edges;
    igraph_vector_t w;
    igraph_vector_int_list_t epaths;
    int have_edges = 0, have_w = 0, have_g = 0, have_paths = 0;
    int pool_len = 0, pool_cap = 0;
    int *offsets = NULL;   /* pool offset per path, resolved at the end */

    have_edges = !igraph_vector_int_init(&edges, 2 * topo->n_links);
    have_w = have_edges && !igraph_vector_init(&w, topo->n_links);
    if (!have_w) {
        err = ENOMEM;
        goto cleanup;
    }
    double big = 1;
    for (int e = 0; e < topo->n_links; e++)
        big += topo->links[e].length_km;
    for (int e = 0; e < topo->n_links; e++) {
        VECTOR(edges)[2 * e] = topo->links[e].src;
        VECTOR(edges)[2 * e + 1] = topo->links[e].dst;
        VECTOR(w)[e] = topo->links[e].length_km
                       + (order == LR_KSP_HOPS ? big : 0);
    }
    have_g = !igraph_create(&g, &edges, n, IGRAPH_DIRECTED);
    have_paths = have_g && !igraph_vector_int_list_init(&epaths, 0);
    offsets = malloc(((size_t) n * n * k + 1) * sizeof *offsets);
    if (!have_paths || !offsets) {
        err = ENOMEM;
        goto cleanup;
    }

    for (int s = 0; s < n; s++) {
        for (int d = 0; d < n; d++) {
            t->pair_first[s * n + d] = t->n_paths;
            if (s == d || (from && !from[s]) || (to && !to[d]))
                continue;
            if (igraph_get_k_shortest_paths(&g, &w, NULL, &epaths, k, s, d,
                                            IGRAPH_OUT)) {
                err = ENOMEM;
                goto cleanup;
            }
            igraph_integer_t np = igraph_vector_int_list_size(&epaths);
            for (igraph_integer_t i = 0; i < np && i < k; i++) {
                igraph_vector_int_t *ep = igraph_vector_int_list_get_ptr(
                    &epaths, i);
                struct lr_path *p = &t->paths[t->n_paths];
                p->n_links = (int) igraph_vector_int_size(ep);
                p->length_km = 0;
                for (int j = 0; j < p->n_links; j++)
                    p->length_km += topo->links[VECTOR(*ep)[j]].length_km;
                offsets[t->n_paths++] = pool_len;
                if (pool_append(&t->link_pool, &pool_len, &pool_cap, ep)) {
                    err = ENOMEM;
                    goto cleanup;
                }
            }
        }
    }
    t->pair_first[n * n] = t->n_paths;
    /* The pool may have moved while growing: point the paths into it only
     * now that it is final. */
    for (int i = 0; i < t->n_paths; i++)
        t->paths[i].links = t->link_pool + offsets[i];

cleanup:
    free(offsets);
    if (have_paths)
        igraph_vector_int_list_destroy(&epaths);
    if (have_g)
        igraph_destroy(&g);
    if (have_w)
        igraph_vector_destroy(&w);
    if (have_edges)
        igraph_vector_int_destroy(&edges);
    igraph_set_error_handler(old);
    igraph_set_warning_handler(old_warn);
    if (err) {
        lr_ksp_free(t);
        return err;
    }
    *out = t;
    return 0;
}
