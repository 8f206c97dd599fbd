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
 * that only ever asks the pairs between some nodes (the joint
 * environment, and an MSCL engine of lr_rsa_new(): the DC-attached
 * ROADMs) names them with lr_ksp_compute_ends() and pays for those
 * pairs alone; their paths are the same either way.  One that
 * needs only every node's shortest path to a few nodes (the joint
 * environment's distances to the DCs) asks lr_ksp_compute_pairs() for
 * K = 1 from every node to those: Yen's first path is one Dijkstra, the
 * same path whatever K, so |V| x |DCs| searches in all.
 *
 * Lazy table.  lightraild on a ring whose 64 ROADMs all carry a DC paid
 * for all 4,032 pairs before it listened (6.2 s at -O2, 26 s under ASan),
 * though a plan asks a few.  lr_ksp_lazy_ends() builds the same igraph
 * graph and weights as the eager table and runs Yen for a pair on its
 * first lr_ksp_paths(), with the same call, so its paths are the eager
 * ones whatever the ties.  A pair owns k fixed slots, so a path's index
 * and pointer never move.  The table may be read from several threads
 * (lightraild reads its engine on its event loop alone today, admit()
 * and lr_rsa_explain(); a library caller may share one table).
 * Debian's igraph is built without thread safety (IGRAPH_THREAD_SAFE 0:
 * its error handlers and its cleanup stack are process-wide), so every
 * igraph call of this file, eager or lazy, runs under one process-wide
 * mutex, igraph_lock; a lazy pair is computed under it and published by
 * a release store of its 'done' byte, so a computed pair costs a reader
 * one acquire load.  A per-pair pthread_once could neither serialise
 * igraph nor report a failed computation and retry it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <igraph.h>

#include "planner/lr_ksp.h"

/* Held around every use of igraph (see the model above). */
static pthread_mutex_t igraph_lock = PTHREAD_MUTEX_INITIALIZER;

/* igraph's default error handler aborts the process and its warning
 * handler prints; a pure library must do neither, so while we run,
 * errors come back as return codes and warnings (an unreachable
 * destination) are silent.  igraph_enter() takes igraph_lock and sets
 * the quiet handlers; igraph_leave() puts the caller's back and unlocks. */
struct igraph_quiet {
    igraph_error_handler_t *err;
    igraph_warning_handler_t *warn;
};

static void
igraph_enter(struct igraph_quiet *q)
{
    pthread_mutex_lock(&igraph_lock);
    q->err = igraph_set_error_handler(igraph_error_handler_ignore);
    q->warn = igraph_set_warning_handler(igraph_warning_handler_ignore);
}

static void
igraph_leave(const struct igraph_quiet *q)
{
    igraph_set_error_handler(q->err);
    igraph_set_warning_handler(q->warn);
    pthread_mutex_unlock(&igraph_lock);
}

struct lr_ksp_lazy {
    igraph_t g;
    igraph_vector_t w;
    igraph_vector_int_list_t epaths;
    double *km;               /* length per link */
    atomic_uchar *done;       /* per pair: 1 once n[] and its slots hold */
    int *n;                   /* per pair: its paths, valid once done */
    int **links;              /* per pair: the block behind its slots */
    bool graph;               /* g, w and epaths built (to destroy) */
};

static void
lazy_free(struct lr_ksp_lazy *z, int n_pairs)
{
    if (!z)
        return;
    if (z->links)
        for (int p = 0; p < n_pairs; p++)
            free(z->links[p]);
    free(z->links);
    free(z->n);
    free(z->done);
    free(z->km);
    if (z->graph) {
        pthread_mutex_lock(&igraph_lock);
        igraph_vector_int_list_destroy(&z->epaths);
        igraph_vector_destroy(&z->w);
        igraph_destroy(&z->g);
        pthread_mutex_unlock(&igraph_lock);
    }
    free(z);
}

void
lr_ksp_free(struct lr_ksp *t)
{
    if (!t)
        return;
    lazy_free(t->lazy, t->n_nodes * t->n_nodes);
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

/* The graph and weights Yen runs on, the same for the eager and the lazy
 * table: link e is igraph edge e.  Returns 0 or ENOMEM, with *g and *w
 * initialised only on success.  Call with igraph's error handler off. */
static int
build_graph(const struct lr_topo *topo, enum lr_ksp_order order, igraph_t *g,
            igraph_vector_t *w)
{
    igraph_vector_int_t edges;
    if (igraph_vector_int_init(&edges, 2 * topo->n_links))
        return ENOMEM;
    if (igraph_vector_init(w, topo->n_links)) {
        igraph_vector_int_destroy(&edges);
        return ENOMEM;
    }
    double big = 1;
    for (int e = 0; e < topo->n_links; e++)
        big += topo->links[e].length_km;
    for (int e = 0; e < topo->n_links; e++) {
        VECTOR(edges)[2 * e] = topo->links[e].src;
        VECTOR(edges)[2 * e + 1] = topo->links[e].dst;
        VECTOR(*w)[e] = topo->links[e].length_km
                        + (order == LR_KSP_HOPS ? big : 0);
    }
    int err = igraph_create(g, &edges, topo->n_nodes, IGRAPH_DIRECTED)
              ? ENOMEM : 0;
    igraph_vector_int_destroy(&edges);
    if (err)
        igraph_vector_destroy(w);
    return err;
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

    struct igraph_quiet q;
    igraph_enter(&q);

    igraph_t g;
    igraph_vector_t w;
    igraph_vector_int_list_t epaths;
    int have_g = 0, have_paths = 0;
    int pool_len = 0, pool_cap = 0;
    int *offsets = NULL;   /* pool offset per path, resolved at the end */

    have_g = !build_graph(topo, order, &g, &w);
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
    if (have_g) {
        igraph_destroy(&g);
        igraph_vector_destroy(&w);
    }
    igraph_leave(&q);
    if (err) {
        lr_ksp_free(t);
        return err;
    }
    *out = t;
    return 0;
}

int
lr_ksp_lazy_ends(const struct lr_topo *topo, int k, enum lr_ksp_order order,
                 const unsigned char *ends, struct lr_ksp **out)
{
    int n = topo->n_nodes, err = 0;
    if (k < 1 || n < 1)
        return EINVAL;
    struct lr_ksp *t = calloc(1, sizeof *t);
    struct lr_ksp_lazy *z = calloc(1, sizeof *z);
    if (!t || !z) {
        free(t);
        free(z);
        return ENOMEM;
    }
    t->n_nodes = n;
    t->k = k;
    t->order = order;
    t->n_paths = n * n * k;
    t->paths = calloc((size_t) n * n * k + 1, sizeof *t->paths);
    z->km = malloc(((size_t) topo->n_links + 1) * sizeof *z->km);
    z->done = calloc((size_t) n * n, sizeof *z->done);
    z->n = calloc((size_t) n * n, sizeof *z->n);
    z->links = calloc((size_t) n * n, sizeof *z->links);
    if (t->paths && z->km && z->done && z->n && z->links) {
        struct igraph_quiet q;
        igraph_enter(&q);
        err = build_graph(topo, order, &z->g, &z->w);
        if (!err && igraph_vector_int_list_init(&z->epaths, 0)) {
            igraph_destroy(&z->g);
            igraph_vector_destroy(&z->w);
            err = ENOMEM;
        }
        z->graph = !err;
        igraph_leave(&q);
    } else {
        err = ENOMEM;
    }
    if (err) {
        lazy_free(z, n * n);      /* not yet t's: lr_ksp_free skips it */
        lr_ksp_free(t);
        return err;
    }
    for (int e = 0; e < topo->n_links; e++)
        z->km[e] = topo->links[e].length_km;
    /* The pairs lr_ksp_compute_ends() would skip are done with none. */
    for (int s = 0; s < n; s++)
        for (int d = 0; d < n; d++)
            if (s == d || (ends && (!ends[s] || !ends[d])))
                atomic_init(&z->done[s * n + d], 1);
    t->lazy = z;
    *out = t;
    return 0;
}

/* Runs Yen for pair p = (s, d) of a lazy table, inside igraph_enter(),
 * and fills its slots.  Returns its number of paths, or -1 (out of memory)
 * with the slots untouched. */
static int
lazy_compute(struct lr_ksp *t, int s, int d)
{
    struct lr_ksp_lazy *z = t->lazy;
    int p = s * t->n_nodes + d;
    if (igraph_get_k_shortest_paths(&z->g, &z->w, NULL, &z->epaths, t->k,
                                    s, d, IGRAPH_OUT))
        return -1;
    igraph_integer_t np = igraph_vector_int_list_size(&z->epaths);
    if (np > t->k)
        np = t->k;
    size_t total = 0;
    for (igraph_integer_t i = 0; i < np; i++)
        total += (size_t) igraph_vector_int_size(
            igraph_vector_int_list_get_ptr(&z->epaths, i));
    int *block = malloc((total + 1) * sizeof *block);
    if (!block)
        return -1;
    struct lr_path *slot = t->paths + (size_t) p * t->k;
    int at = 0;
    for (igraph_integer_t i = 0; i < np; i++) {
        igraph_vector_int_t *ep = igraph_vector_int_list_get_ptr(
            &z->epaths, i);
        slot[i].n_links = (int) igraph_vector_int_size(ep);
        slot[i].links = block + at;
        slot[i].length_km = 0;
        for (int j = 0; j < slot[i].n_links; j++) {
            block[at + j] = (int) VECTOR(*ep)[j];
            slot[i].length_km += z->km[VECTOR(*ep)[j]];
        }
        at += slot[i].n_links;
    }
    z->links[p] = block;
    return (int) np;
}

const struct lr_path *
lr_ksp_paths(const struct lr_ksp *t, int src, int dst, int *n)
{
    int p = src * t->n_nodes + dst;
    struct lr_ksp_lazy *z = t->lazy;
    if (!z) {
        *n = t->pair_first[p + 1] - t->pair_first[p];
        return t->paths + t->pair_first[p];
    }
    if (!atomic_load_explicit(&z->done[p], memory_order_acquire)) {
        struct igraph_quiet q;
        igraph_enter(&q);
        if (!atomic_load_explicit(&z->done[p], memory_order_relaxed)) {
            /* The table is logically const: computing a pair only
             * reveals what it always held. */
            int np = lazy_compute((struct lr_ksp *) t, src, dst);
            if (np >= 0) {
                z->n[p] = np;
                atomic_store_explicit(&z->done[p], 1, memory_order_release);
            }
        }
        igraph_leave(&q);
        if (!atomic_load_explicit(&z->done[p], memory_order_acquire)) {
            *n = 0;
            return t->paths + (size_t) p * t->k;
        }
    }
    *n = z->n[p];
    return t->paths + (size_t) p * t->k;
}
