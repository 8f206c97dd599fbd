/* lr_rsa: the engine behind every RMSA policy; see lr_rsa.h. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "planner/lr_rsa.h"

const struct lr_rsa_policy *const lr_rsa_policies[] = {
    &lr_rsa_ksp_ff, &lr_rsa_ff_ksp, &lr_rsa_ksp_bf, &lr_rsa_ksp_ef,
    &lr_rsa_ksp_lf, &lr_rsa_mscl, &lr_rsa_mscl_link, NULL,
};

const struct lr_rsa_policy *
lr_rsa_policy_find(const char *name)
{
    for (int i = 0; lr_rsa_policies[i]; i++)
        if (!strcasecmp(lr_rsa_policies[i]->name, name))
            return lr_rsa_policies[i];
    return NULL;
}

const char *
lr_rsa_block_reason(enum lr_rsa_block b)
{
    switch (b) {
    case LR_RSA_OK:
        return "ok";
    case LR_RSA_NO_PATH:
        return "no path between the nodes";
    case LR_RSA_NO_REACH:
        return "no candidate path within the reach of any modulation format";
    case LR_RSA_NO_SPECTRUM:
        return "no contiguous free block common to the links of any candidate path";
    }
    return "unknown";
}

/* The longest run of set bits (free slots) in 'free' (nw words). */
static int
longest_free(const uint64_t *free, int nw)
{
    int best = 0;
    for (int p = lr_bits_next_set(free, nw, 0); p >= 0;) {
        int q = lr_bits_next_clear(free, nw, p);
        if (q - p > best)
            best = q - p;
        p = q < nw * 64 ? lr_bits_next_set(free, nw, q) : -1;
    }
    return best;
}

/* The K shortest paths of a request, none (*n = 0) when its nodes are
 * out of range or the same. */
static const struct lr_path *
request_paths(const struct lr_rsa *rsa, const struct lr_rsa_request *req,
              int *n)
{
    *n = 0;
    if (req->src < 0 || req->src >= rsa->topo->n_nodes || req->dst < 0
        || req->dst >= rsa->topo->n_nodes || req->src == req->dst)
        return NULL;
    return lr_ksp_paths(rsa->ksp, req->src, req->dst, n);
}

/* Candidate i of the paths 'p' of a request: its modulation (the most
 * efficient within reach of its length) and its slot count at the
 * request's rate. False when no format reaches that far. */
static bool
request_cand(const struct lr_rsa *rsa, const struct lr_rsa_request *req,
             const struct lr_path *p, int i, struct lr_rsa_cand *c)
{
    int path = (int) (p - rsa->ksp->paths) + i;
    int mod = rsa->path_mod ? rsa->path_mod[path]
              : lr_mod_choose(&rsa->mods, p[i].length_km);
    if (mod < 0)
        return false;
    c->path = path;
    c->p = &p[i];
    c->mod = mod;
    c->m = lr_mod_slots(&rsa->mods.f[mod], req->rate_gbps, rsa->cfg.guard);
    return true;
}

void
lr_rsa_explain(const struct lr_rsa *rsa, const struct lr_rsa_request *req,
               enum lr_rsa_block b, char *buf, size_t len)
{
    int n = 0, k = 0, lo = INT_MAX, hi = 0, longest = 0;
    const struct lr_path *p = b == LR_RSA_NO_SPECTRUM
                              ? request_paths(rsa, req, &n) : NULL;
    /* The candidates lr_rsa_decide() offered its policy. */
    for (int i = 0; i < n; i++) {
        struct lr_rsa_cand c;
        if (!request_cand(rsa, req, p, i, &c))
            continue;
        uint64_t free[LR_BITS_MAX_WORDS];
        lr_rsa_path_free(rsa, c.p, free);
        int run = longest_free(free, rsa->sp->nw);
        k++;
        lo = c.m < lo ? c.m : lo;
        hi = c.m > hi ? c.m : hi;
        longest = run > longest ? run : longest;
    }
    if (!k) {
        snprintf(buf, len, "%s", lr_rsa_block_reason(b));
        return;
    }
    char need[64], had[64];
    if (lo == hi)
        snprintf(need, sizeof need, "%d", lo);
    else
        snprintf(need, sizeof need, "%d to %d", lo, hi);
    if (longest)
        snprintf(had, sizeof had, "the longest: %d slot%s", longest,
                 longest == 1 ? "" : "s");
    else
        snprintf(had, sizeof had, "none free");
    snprintf(buf, len, "no block of %s contiguous slots free on every link "
             "of any of its %d candidate path%s (%s)", need, k,
             k == 1 ? "" : "s", had);
}

void
lr_rsa_free(struct lr_rsa *rsa)
{
    if (!rsa)
        return;
    lr_ksp_free(rsa->ksp);
    lr_spectrum_free(rsa->sp);
    free(rsa->path_mod);
    free(rsa->run_capacity);
    free(rsa->cands);
    free(rsa->link_path_first);
    free(rsa->link_paths);
    free(rsa->path_stamp);
    free(rsa->path_seen);
    free(rsa->path_free);
    free(rsa->touched);
    free(rsa);
}

/* Builds the link -> paths index and the route-level scratch. */
static int
index_links(struct lr_rsa *rsa)
{
    const struct lr_ksp *k = rsa->ksp;
    int n_links = rsa->topo->n_links, total = 0;
    rsa->link_path_first = calloc((size_t) n_links + 1, sizeof(int));
    for (int p = 0; p < k->n_paths; p++)
        total += k->paths[p].n_links;
    rsa->link_paths = malloc(((size_t) total + 1) * sizeof(int));
    rsa->path_stamp = calloc((size_t) k->n_paths + 1, sizeof(unsigned));
    rsa->path_seen = calloc((size_t) k->n_paths + 1, sizeof(unsigned));
    rsa->path_free = malloc(((size_t) k->n_paths + 1) * rsa->sp->nw
                            * sizeof(uint64_t));
    int n_touch = k->n_paths > n_links ? k->n_paths : n_links;
    rsa->touched = malloc(((size_t) n_touch + 1) * sizeof(int));
    if (!rsa->link_path_first || !rsa->link_paths || !rsa->path_stamp
        || !rsa->path_seen || !rsa->path_free || !rsa->touched)
        return ENOMEM;
    /* Counting sort by link: counts, prefix sums, then fill. */
    for (int p = 0; p < k->n_paths; p++)
        for (int i = 0; i < k->paths[p].n_links; i++)
            rsa->link_path_first[k->paths[p].links[i] + 1]++;
    for (int l = 0; l < n_links; l++)
        rsa->link_path_first[l + 1] += rsa->link_path_first[l];
    int *fill = rsa->touched;   /* borrowed as a cursor per link */
    for (int l = 0; l < n_links; l++)
        fill[l] = rsa->link_path_first[l];
    for (int p = 0; p < k->n_paths; p++)
        for (int i = 0; i < k->paths[p].n_links; i++)
            rsa->link_paths[fill[k->paths[p].links[i]]++] = p;
    return 0;
}

int
lr_rsa_new(const struct lr_topo *topo, const struct lr_rsa_config *cfg,
           const struct lr_modtable *mods, const struct lr_rsa_policy *policy,
           struct lr_rsa **out)
{
    if (!policy || cfg->k < 1 || cfg->guard < 0 || mods->n < 1)
        return EINVAL;
    struct lr_rsa *rsa = calloc(1, sizeof *rsa);
    if (!rsa)
        return ENOMEM;
    rsa->topo = topo;
    rsa->mods = *mods;
    rsa->policy = policy;
    rsa->cfg = *cfg;
    rsa->cfg.ends = NULL;       /* borrowed: not kept past this call */

    /* Route-level policies (MSCL) weigh every path through a link, so
     * they need every path up front; the others read a pair's paths
     * when a request asks it, from a lazy table (lr_ksp.c) that gives
     * the same paths in the same order and costs nothing at start. */
    bool route_level = policy == &lr_rsa_mscl || policy == &lr_rsa_mscl_link;
    int err = route_level
              ? lr_ksp_compute_ends(topo, cfg->k, cfg->order, cfg->ends,
                                    &rsa->ksp)
              : lr_ksp_lazy_ends(topo, cfg->k, cfg->order, cfg->ends,
                                 &rsa->ksp);
    if (err)
        goto fail;
    rsa->sp = lr_spectrum_new(topo);
    if (route_level)
        rsa->path_mod = malloc(((size_t) rsa->ksp->n_paths + 1)
                               * sizeof *rsa->path_mod);
    rsa->cands = malloc((size_t) cfg->k * sizeof *rsa->cands);
    int width = rsa->sp ? rsa->sp->nw * 64 : 0;
    rsa->run_capacity = malloc(((size_t) width + 1)
                               * sizeof *rsa->run_capacity);
    if (!rsa->sp || (route_level && !rsa->path_mod) || !rsa->cands
        || !rsa->run_capacity) {
        err = rsa->sp ? ENOMEM : EINVAL;
        goto fail;
    }
    if (route_level) {
        for (int i = 0; i < rsa->ksp->n_paths; i++)
            rsa->path_mod[i] = lr_mod_choose(&rsa->mods,
                                             rsa->ksp->paths[i].length_km);
        err = index_links(rsa);
        if (err)
            goto fail;
    }
    /* F(L) = sum_{s in S, s <= L} (L - s + 1), so F(L) - F(L - 1) is
     * the number of sizes of S up to L. */
    bool any = false;
    for (int w = 0; w < LR_RSA_DEMAND_WORDS; w++)
        any = any || rsa->cfg.demand_sizes[w];
    int sizes = 0;
    rsa->run_capacity[0] = 0;
    for (int len = 1; len <= width; len++) {
        if (!any || (len <= LR_RSA_MAX_DEMAND_SIZE
                     && lr_bits_any(rsa->cfg.demand_sizes, len, 1)))
            sizes++;
        rsa->run_capacity[len] = rsa->run_capacity[len - 1] + sizes;
    }
    *out = rsa;
    return 0;

fail:
    lr_rsa_free(rsa);
    return err;
}

enum lr_rsa_block
lr_rsa_decide(struct lr_rsa *rsa, const struct lr_rsa_request *req,
              struct lr_rsa_choice *out)
{
    int n, nc = 0;
    const struct lr_path *p = request_paths(rsa, req, &n);
    if (n == 0)
        return LR_RSA_NO_PATH;
    for (int i = 0; i < n; i++)
        nc += request_cand(rsa, req, p, i, &rsa->cands[nc]);
    if (nc == 0)
        return LR_RSA_NO_REACH;
    return rsa->policy->choose(rsa, rsa->cands, nc, out)
           ? LR_RSA_OK : LR_RSA_NO_SPECTRUM;
}

int
lr_rsa_commit(struct lr_rsa *rsa, const struct lr_rsa_choice *c)
{
    const struct lr_path *p = &rsa->ksp->paths[c->path];
    return lr_spectrum_alloc(rsa->sp, p->links, p->n_links, c->first, c->m);
}

int
lr_rsa_release(struct lr_rsa *rsa, const struct lr_rsa_choice *c)
{
    const struct lr_path *p = &rsa->ksp->paths[c->path];
    return lr_spectrum_release(rsa->sp, p->links, p->n_links, c->first,
                               c->m);
}

bool
lr_rsa_ksp_fit(struct lr_rsa *rsa, const struct lr_rsa_cand *cands,
               int n_cands, int (*pick)(uint64_t *free, int nw, int m),
               struct lr_rsa_choice *out)
{
    uint64_t free[LR_BITS_MAX_WORDS];
    for (int i = 0; i < n_cands; i++) {
        lr_rsa_path_free(rsa, cands[i].p, free);
        int first = pick(free, rsa->sp->nw, cands[i].m);
        if (first >= 0) {
            *out = (struct lr_rsa_choice) {
                .path = cands[i].path, .mod = cands[i].mod,
                .first = first, .m = cands[i].m,
            };
            return true;
        }
    }
    return false;
}
