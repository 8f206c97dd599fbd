/*
 * lr_ksp: the K candidate paths of every ordered node pair (or of the
 * pairs between given nodes), computed once per topology.
 *
 * Two orders (see lr_ksp.c for the model):
 *   LR_KSP_KM    the K shortest simple paths by length (Yen);
 *   LR_KSP_HOPS  the K simple paths with the fewest hops, ties broken by
 *                length.
 *
 * Ownership: lr_ksp_compute() returns a table the caller frees with
 * lr_ksp_free(); it keeps no pointer to the topology.
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

struct lr_ksp {
    int n_nodes;
    int k;
    enum lr_ksp_order order;
    int *pair_first;          /* [n*n + 1]: paths of pair (s, d) are
                               * paths[pair_first[s*n+d] .. pair_first[s*n+d+1]) */
    struct lr_path *paths;
    int n_paths;
    int *link_pool;           /* storage behind every lr_path.links */
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
void lr_ksp_free(struct lr_ksp *);

/* The paths of pair (src, dst) in order; '*n' gets how many (0..k). */
static inline const struct lr_path *
lr_ksp_paths(const struct lr_ksp *t, int src, int dst, int *n)
{
    int p = src * t->n_nodes + dst;
    *n = t->pair_first[p + 1] - t->pair_first[p];
    return t->paths + t->pair_first[p];
}

/* Parses "km" or "hops"; returns 0 or EINVAL. */
int lr_ksp_order_parse(const char *, enum lr_ksp_order *);
const char *lr_ksp_order_name(enum lr_ksp_order);

#endif
