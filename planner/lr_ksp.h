/*
 * lr_ksp: the K candidate paths of every ordered node pair (or of the
 * pairs between given nodes), computed once per topology.
 *
 * Two orders (see lr_ksp.c for the model):
 *   LR_KSP_KM    the K shortest simple paths by length (Yen);
 *   LR_KSP_HOPS  the K simple paths with the fewest hops, ties broken by
 *                length.
 *
 * Eager or lazy: lr_ksp_compute*() compute every pair they are asked
 * before returning; lr_ksp_lazy_ends() computes none, and a pair's paths
 * on its first lr_ksp_paths() (memoised), the very paths the eager
 * table would hold (the same igraph call on the same graph and weights).
 *
 * Ownership: both return a table the caller frees with lr_ksp_free(); it
 * keeps no pointer to the topology.
 */
#ifndef LR_KSP_H
#define LR_KSP_H 1

#include "planner/lr_topo.h"

enum lr_ksp_order {
    LR_KSP_KM,
    LR_KSP_HOPS,
};

struct lr_path {
    int n_links;
    const int *links;         /* link indices, source to destination */
    double length_km;
};

struct lr_ksp_lazy;           /* lr_ksp.c: what a lazy table computes with */

struct lr_ksp {
    int n_nodes;
    int k;
    enum lr_ksp_order order;
    /* Eager: [n*n + 1], the paths of pair (s, d) are
     * paths[pair_first[s*n+d] .. pair_first[s*n+d+1]), n_paths in all.
     * Lazy: pair_first is NULL, pair (s, d) owns the k slots from
     * paths[(s*n+d) * k], n_paths = n*n*k slots, a slot not (yet)
     * computed has no links; read pairs only through lr_ksp_paths(). */
    int *pair_first;
    struct lr_path *paths;
    int n_paths;
    int *link_pool;           /* eager: storage behind every lr_path.links */
    struct lr_ksp_lazy *lazy; /* NULL = eager */
};

/* Computes up to k paths for every ordered pair of distinct nodes.
 * Returns 0 or EINVAL (k < 1, empty topology) or ENOMEM; '*out' is set
 * only on success.  A pair with no path simply has none. */
int lr_ksp_compute(const struct lr_topo *, int k, enum lr_ksp_order,
                   struct lr_ksp **out);
/* The same, for the pairs of two nodes v with ends[v] != 0 (ends has
 * topo->n_nodes entries; NULL = every node): every other pair has no
 * path.  A computed pair's paths are those lr_ksp_compute() gives it.
 * 'ends' is read only during the call. */
int lr_ksp_compute_ends(const struct lr_topo *, int k, enum lr_ksp_order,
                        const unsigned char *ends, struct lr_ksp **out);
/* The same, for the pairs (s, d) with from[s] != 0 and to[d] != 0 (either
 * NULL = every node).  Yen's first path does not depend on k, so k = 1
 * gives the first path of every pair as k > 1 would. */
int lr_ksp_compute_pairs(const struct lr_topo *, int k, enum lr_ksp_order,
                         const unsigned char *from, const unsigned char *to,
                         struct lr_ksp **out);
/* A lazy table for the pairs lr_ksp_compute_ends() would compute (ends
 * as there, read only during the call): builds the graph (O(|E|)) and
 * computes no pair; lr_ksp_paths() computes a pair on its first call.
 * Returns 0 or EINVAL (k < 1, empty topology) or ENOMEM. */
int lr_ksp_lazy_ends(const struct lr_topo *, int k, enum lr_ksp_order,
                     const unsigned char *ends, struct lr_ksp **out);
void lr_ksp_free(struct lr_ksp *);

/* The paths of pair (src, dst) in order; '*n' gets how many (0..k).
 * The pointer and the paths stay valid and unchanged until
 * lr_ksp_free().  On a lazy table the first call for a pair runs Yen
 * under lr_ksp.c's one igraph mutex and any thread may call it; a pair whose
 * computation failed (out of memory) reads as having no path this time
 * and is computed again on the next call. */
const struct lr_path *lr_ksp_paths(const struct lr_ksp *, int src, int dst,
                                   int *n);

/* Parses "km" or "hops"; returns 0 or EINVAL. */
int lr_ksp_order_parse(const char *, enum lr_ksp_order *);
const char *lr_ksp_order_name(enum lr_ksp_order);

#endif
