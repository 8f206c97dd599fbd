/* lr_jenv: see lr_jenv.h for the model. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_bitset.h"
#include "planner/lr_candmask.h"
#include "planner/lr_cdynp.h"
#include "planner/lr_jenv.h"
#include "planner/lr_ksp.h"
#include "planner/lr_modulation.h"
#include "planner/lr_rate.h"
#include "planner/lr_spectrum.h"
#include "planner/lr_util.h"

const int lr_jenv_tier_gbps[LR_JENV_N_TIERS] = { 100, 200, 400 };

/* A route of an ordered DC pair, both directions. */
struct route {
    const struct lr_path *fwd, *rev;   /* NULL when the pair lacks it */
    int slots[LR_JENV_N_TIERS];        /* per direction, guard included;
                                        * 0 = out of every format's reach */
    /* Cached with the spectrum version it was computed for. */
    int ff_fwd[LR_JENV_N_TIERS], ff_rev[LR_JENV_N_TIERS];
    float free_share, max_block;
    /* The spectrum of a link of fwd or rev changed since the fields above
     * were computed (refresh_routes). */
    bool dirty;
    /* The first fits are fresh but free_share and max_block are not: a
     * lazy mask refreshed this route for its first fits alone. */
    bool obs_stale;
    /* Bit t: tier t has a first fit each way, set with them (the eager
     * mask's sets read it, lr_candmask_eval). */
    uint8_t fit;
};

static void sort_by_time(struct lr_jenv *e, int cls);

struct active {
    double dep;
    double mean_hold;             /* the mean its holding was drawn with */
    int cand;
    int g[LR_JENV_MAX_CHAIN];
    /* Per hop: the first slot of each direction (0: along the chain) and
     * the slots of each; -1 / 0 for a hop the candidate lacks. */
    int first[LR_JENV_MAX_CHAIN - 1][2], slots[LR_JENV_MAX_CHAIN - 1];
    int resv;                     /* >= 0: a running job set by
                                   * lr_jenv_set_running (its index in the
                                   * prototype's resv[]), cand unused */
};

/* A running job of lr_jenv_set_running, as the prototype keeps it. */
struct resv {
    int gpus[LR_JENV_MAX_DCS];
    int first_block, n_blocks;    /* in resv_blocks[] */
};

struct lr_jenv {
    /* Non-NULL for a clone (lr_jenv_clone): ksp, cands, T, tref,
     * by_time, need, cm, ratio, dist, link_off and link_routes are the
     * prototype's, borrowed. */
    const struct lr_jenv *proto;
    const struct lr_topo *topo;
    const struct lr_cluster *cl;
    struct lr_jenv_config cfg;
    int n_dcs, k, n_classes, n_cands, max_slots;
    /* The shares ({1/2} when the config gives none), and per demand and
     * share the GPUs in the pair's first DC, -1 where the share is never
     * feasible for that demand (0 GPUs on a side, or the same count as an
     * earlier share). */
    int n_splits;
    struct lr_jenv_split splits[LR_JENV_MAX_SPLITS];
    int split_ga[LR_JENV_MAX_DEMANDS][LR_JENV_MAX_SPLITS];
    int dc_node[LR_JENV_MAX_DCS], dc_gpus[LR_JENV_MAX_DCS];
    int used[LR_JENV_MAX_DCS];
    int total_gpus;
    struct lr_ksp *ksp;
    struct lr_modtable mods;
    struct lr_spectrum *sp;
    long sp_slots;
    struct lr_jenv_cand *cands;
    struct route *routes;         /* [pair * k + r] */
    double *T;                    /* [class * n_cands + c] */
    double *tref;                 /* [class] */
    int *by_time;                 /* [class * n_cands + i]: candidates by
                                   * (T, slots, index) (lr_jenv_by_time) */
    /* cand_split's GPUs in each DC of candidate c's chain for demand
     * index di, at [di * n_cands + c]: the lazy mask's test reads them
     * at every arrival of every future, so they are tabulated once. */
    struct need { int g[LR_JENV_MAX_CHAIN]; } *need;
    /* The eager mask's sets (lr_candmask.h), built from T, need and the
     * candidates' hops. */
    struct lr_candmask *cm;
    /* (float) (tref / T) per class and candidate, 0 where T is infinite:
     * the observation's per-candidate feature when feasible, tabulated
     * so that a step divides nothing (the same float as the division). */
    float *ratio;                 /* [class * n_cands + c] */
    double *dist;                 /* [node * n_dcs + dc] km */
    /* The routes whose fwd or rev path crosses link l: link_routes[
     * link_off[l] .. link_off[l + 1] - 1] (route indices, CSR). */
    int *link_off, *link_routes;
    /* State. */
    struct lr_rng rng;
    double now;
    long n_arr, warmup, trace_pos, limit;
    bool done, counting;
    int job_model, job_demand, job_origin;
    double job_hold;
    struct lr_rate arrivals;      /* the load estimate's count */
    unsigned sp_version, routes_version;
    uint8_t *mask;                /* n_cands + 1, then compute_mask's
                                   * scratch (mask_alloc) */
    /* lr_jenv_set_lazy_mask: the mask is computed when first read
     * (mask_ok false until then), and first_ok holds the first feasible
     * candidate in by_time's order (-1: none), which the arrival's test
     * found; -2 when it was not looked for (an eager mask). */
    bool lazy, mask_ok;
    int first_ok;
    struct active *act;           /* binary min-heap by dep */
    int n_act, cap_act;
    /* Running jobs given by lr_jenv_set_running: owned by a prototype,
     * read by its clones through proto. */
    struct resv *resv;
    struct lr_jenv_block *resv_blocks;
    long slots_used;
    /* Metrics. */
    double t0;
    long m_arrivals, m_blocked, m_admitted, m_refused;
    double sum_T, sum_slow, area_gpu, area_var, area_spec;
};

static int
job_class(const struct lr_jenv *e)
{
    return e->job_model * e->cfg.n_demands + e->job_demand;
}

/* The GPUs candidate 'cd' takes in each DC of its chain for demand
 * index 'di' (0 past n_dcs); false when it is never feasible for that
 * demand. */
static inline bool
cand_split(const struct lr_jenv *e, const struct lr_jenv_cand *cd, int di,
           int gs[LR_JENV_MAX_CHAIN])
{
    int g = e->cfg.demands[di];
    for (int i = 1; i < LR_JENV_MAX_CHAIN; i++)
        gs[i] = 0;
    if (cd->n_dcs == 1) {
        gs[0] = g;
        return true;
    }
    if (cd->n_dcs == 4) {
        for (int i = 0; i < 4; i++)
            gs[i] = g / 4 + (i >= 4 - g % 4);
        return gs[0] > 0;
    }
    if (cd->n_dcs == 3) {
        gs[0] = gs[1] = (g + 1) / 3;
        gs[2] = g - 2 * gs[0];
        return gs[0] > 0 && gs[2] > 0;
    }
    gs[0] = e->split_ga[di][cd->split];
    gs[1] = g - gs[0];
    return gs[0] > 0;
}

/* The route of hop 'h' of candidate 'cd' (0 to n_dcs - 2); writable,
 * as the routes are the environment's caches. */
static inline struct route *
hop_route(const struct lr_jenv *e, const struct lr_jenv_cand *cd, int h)
{
    return &e->routes[cd->pair[h] * e->k + cd->route];
}

/* True when paths p and q share a directed link. */
static bool
paths_share_link(const struct lr_path *p, const struct lr_path *q)
{
    for (int x = 0; x < p->n_links; x++)
        for (int y = 0; y < q->n_links; y++)
            if (p->links[x] == q->links[y])
                return true;
    return false;
}

/* True when hops 'h' and 'g' of 'cd' share a directed link (either
 * direction of one against either of the other). */
static bool
two_hops_share_link(const struct lr_jenv *e, const struct lr_jenv_cand *cd,
                    int h, int g)
{
    const struct route *h0 = hop_route(e, cd, h), *h1 = hop_route(e, cd, g);
    const struct lr_path *p0[2] = { h0->fwd, h0->rev },
                         *p1[2] = { h1->fwd, h1->rev };
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            if (paths_share_link(p0[i], p1[j]))
                return true;
    return false;
}

/* True when two hops of chain 'cd' (a triple or a quadruple) share a
 * directed link: their first fits, computed each on its own, could then
 * overlap, so such a chain is never feasible (lr_jenv.h). */
static bool
hops_share_link(const struct lr_jenv *e, const struct lr_jenv_cand *cd)
{
    for (int h = 0; h + 1 < cd->n_dcs; h++)
        for (int g = h + 1; g + 1 < cd->n_dcs; g++)
            if (two_hops_share_link(e, cd, h, g))
                return true;
    return false;
}

/* Fills e->dist, every node's distance (km) to each DC's ROADM along its
 * shortest path: the first of the K paths lr_ksp_compute() would give the
 * pair, from a table of one path from every node to the DC ROADMs ('ends'),
 * so |V| x |DCs| Dijkstra searches rather than Yen over |V|^2 pairs.
 * Returns 0 or ENOMEM. */
static int
fill_dist(struct lr_jenv *e, const unsigned char *ends)
{
    const struct lr_topo *topo = e->topo;
    struct lr_ksp *first;
    int rc = lr_ksp_compute_pairs(topo, 1, LR_KSP_KM, NULL, ends, &first);
    if (rc)
        return rc;
    e->dist = malloc((size_t) topo->n_nodes * e->n_dcs * sizeof *e->dist);
    if (!e->dist) {
        lr_ksp_free(first);
        return ENOMEM;
    }
    for (int v = 0; v < topo->n_nodes; v++)
        for (int d = 0; d < e->n_dcs; d++) {
            int np;
            const struct lr_path *p = lr_ksp_paths(first, v, e->dc_node[d],
                                                   &np);
            e->dist[v * e->n_dcs + d] = v == e->dc_node[d] ? 0
                : np ? p[0].length_km : INFINITY;
        }
    lr_ksp_free(first);
    return 0;
}

/* Fills e->splits and e->split_ga from the config (validated). */
static void
build_splits(struct lr_jenv *e)
{
    if (e->cfg.n_splits == 0) {
        e->n_splits = 1;
        e->splits[0] = (struct lr_jenv_split) { 1, 2 };
    } else {
        e->n_splits = e->cfg.n_splits;
        memcpy(e->splits, e->cfg.splits, sizeof e->splits);
    }
    for (int di = 0; di < e->cfg.n_demands; di++) {
        int g = e->cfg.demands[di];
        for (int s = 0; s < e->n_splits; s++) {
            /* floor(g num / den): for 1/2 the g / 2 of old. */
            long ga = (long) g * e->splits[s].num / e->splits[s].den;
            bool ok = ga >= 1 && g - ga >= 1;
            for (int t = 0; t < s && ok; t++)
                ok = e->split_ga[di][t] != ga;
            e->split_ga[di][s] = ok ? (int) ga : -1;
        }
    }
}

static int
gcd(int a, int b)
{
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* 0, or EINVAL with err[]: shares out of (0, 1), too many, or equal. */
static int
check_splits(const struct lr_jenv_split *sp, int n, char *err, size_t errlen)
{
    if (n < 0 || n > LR_JENV_MAX_SPLITS) {
        lr_set_err(err, errlen, "%d GPU shares; give 1 to %d", n,
                   LR_JENV_MAX_SPLITS);
        return EINVAL;
    }
    for (int i = 0; i < n; i++) {
        if (sp[i].den < 2 || sp[i].den > 64 || sp[i].num < 1
            || sp[i].num >= sp[i].den) {
            lr_set_err(err, errlen, "GPU share %d/%d: give num/den with "
                       "0 < num < den <= 64, e.g. 1/4", sp[i].num, sp[i].den);
            return EINVAL;
        }
        for (int j = 0; j < i; j++)
            if ((long) sp[i].num * sp[j].den == (long) sp[j].num * sp[i].den) {
                lr_set_err(err, errlen, "GPU share %d/%d equals %d/%d: give "
                           "each share once", sp[i].num, sp[i].den, sp[j].num,
                           sp[j].den);
                return EINVAL;
            }
    }
    return 0;
}

int
lr_jenv_splits_parse(const char *s, struct lr_jenv_split *out, char *err,
                     size_t errlen)
{
    int n = 0;
    const char *p = s;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t) (end - p) : strlen(p);
        char tok[32];
        long num, den = 0;
        char *q;
        if (len == 0 || len >= sizeof tok) {
            lr_set_err(err, errlen, "'%s': give shares num/den separated by "
                       "commas, e.g. 1/4,1/2", s);
            return -1;
        }
        memcpy(tok, p, len);
        tok[len] = '\0';
        num = strtol(tok, &q, 10);
        bool ok = q != tok && *q == '/' && tok[0] >= '0' && tok[0] <= '9';
        if (ok) {
            const char *d = q + 1;
            den = strtol(d, &q, 10);
            ok = q != d && !*q && *d >= '0' && *d <= '9';
        }
        if (!ok || num < 1 || den < 2 || den > 64 || num >= den) {
            lr_set_err(err, errlen, "'%s' is no share of the GPUs in the "
                       "first DC: give num/den with 0 < num < den <= 64, "
                       "e.g. 1/4,1/2", tok);
            return -1;
        }
        if (n == LR_JENV_MAX_SPLITS) {
            lr_set_err(err, errlen, "'%s': at most %d shares", s,
                       LR_JENV_MAX_SPLITS);
            return -1;
        }
        int gd = gcd((int) num, (int) den);
        struct lr_jenv_split sp = { (int) num / gd, (int) den / gd };
        for (int i = 0; i < n; i++)
            if (out[i].num == sp.num && out[i].den == sp.den) {
                lr_set_err(err, errlen, "'%s' equals %d/%d given before: give "
                           "each share once", tok, sp.num, sp.den);
                return -1;
            }
        out[n++] = sp;
        if (!end)
            break;
        p = end + 1;
    }
    return n;
}

void
lr_jenv_splits_format(const struct lr_jenv_split *sp, int n, char *buf,
                      size_t len)
{
    if (!len)
        return;
    buf[0] = '\0';
    if (n == 0) {
        snprintf(buf, len, "1/2");
        return;
    }
    for (int i = 0; i < n; i++) {
        size_t l = strlen(buf);
        snprintf(buf + l, len - l, "%s%d/%d", i ? "," : "", sp[i].num,
                 sp[i].den);
    }
}

bool
lr_jenv_splits_default(const struct lr_jenv_split *sp, int n)
{
    return n == 0 || (n == 1 && sp[0].num * 2 == sp[0].den);
}

/* Fills the T table of model 'mi' with CDynP over each candidate's DCs.
 * The plans share a pool of DC handles (lr_cdynp_plan_pool): a DC's
 * local DP depends on the DC, its GPU count, the model and the batch
 * shape, not on the candidate's route, tier or partner, so the 3 K
 * candidates (routes x tiers) of a pair and share, and every pair a DC
 * is in with the same GPU count, reuse its computed rows; T is that of
 * lr_cdynp_plan(), bit for bit (tests/unit/test_jenv_table.c checks).
 * One time model serves every plan: per candidate only its DCs, their
 * GPU counts and the link between them change. */
static int
tabulate(struct lr_jenv *e, int mi, char *err, size_t errlen)
{
    struct lr_tm *base = NULL, *tm = NULL;
    struct lr_plan *plan = malloc(sizeof *plan);
    struct lr_tm_eval *ev = malloc(sizeof *ev);
    struct lr_cdynp_pool *pool = lr_cdynp_pool_new();
    int rc = lr_tm_new(e->cfg.models[mi], e->cl, &e->cfg.train, &base);
    if (rc) {
        lr_set_err(err, errlen, "model '%s': cannot build the time model "
                   "(%s): check the batch and microbatch",
                   e->cfg.models[mi]->name,
                   rc == EINVAL ? "batch, microbatch or cluster invalid"
                                : "out of memory");
        goto cleanup;
    }
    tm = malloc(sizeof *tm);
    if (!plan || !ev || !tm || !pool) {
        rc = ENOMEM;
        lr_set_err(err, errlen, "out of memory");
        goto cleanup;
    }
    memcpy(tm, base, sizeof *tm);
    memset(tm->link, 0, sizeof tm->link);
    for (int di = 0; di < e->cfg.n_demands; di++) {
        int cls = mi * e->cfg.n_demands + di;
        double *T = e->T + (size_t) cls * e->n_cands;
        for (int c = 0; c < e->n_cands; c++) {
            const struct lr_jenv_cand *cd = &e->cands[c];
            T[c] = INFINITY;
            int gs[LR_JENV_MAX_CHAIN];
            if (!cand_split(e, cd, di, gs))
                continue;
            bool fits = true;
            for (int i = 0; i < cd->n_dcs; i++)
                fits = fits && gs[i] <= e->dc_gpus[cd->dc[i]];
            /* A route whose two paths share a directed link (K > 1 can
             * give route r of a to b and route r of b to a through one
             * fibre the same way) is left out for the reason a chain's
             * hops on one link are: each path's first fit is computed on
             * its own, and both could be given the same slots. */
            for (int h = 0; h + 1 < cd->n_dcs; h++) {
                const struct route *rt = hop_route(e, cd, h);
                fits = fits && rt->fwd && rt->rev && rt->slots[cd->tier]
                       && !paths_share_link(rt->fwd, rt->rev);
            }
            if (!fits || (cd->n_dcs >= 3 && hops_share_link(e, cd)))
                continue;
            /* The time model of this candidate: 'base' with the
             * candidate's DCs in front, no link but theirs. */
            tm->n_dcs = cd->n_dcs;
            for (int i = 0; i < LR_JENV_MAX_CHAIN && i < base->n_dcs; i++)
                tm->dcs[i] = base->dcs[i];
            for (int i = 0; i < cd->n_dcs; i++) {
                tm->dcs[i] = base->dcs[cd->dc[i]];
                tm->dcs[i].n_devices = gs[i];
            }
            for (int h = 0; h + 1 < LR_JENV_MAX_CHAIN; h++)
                lr_tm_set_link(tm, h, h + 1, 0, 0);
            for (int h = 0; h + 1 < cd->n_dcs; h++)
                lr_tm_set_link(tm, h, h + 1,
                               lr_jenv_tier_gbps[cd->tier] * 1e9 / 8,
                               5e-6 * hop_route(e, cd, h)->fwd->length_km);
            int order[LR_JENV_MAX_CHAIN] = { 0, 1, 2, 3 };
            struct lr_cdynp_options opt = {
                .window = LR_CDYNP_DEFAULT_WINDOW, .order = order,
                .n_order = cd->n_dcs,
            };
            enum lr_tm_why why = lr_cdynp_plan_pool(pool, tm, &opt, plan,
                                                    ev);
            if (why == LR_TM_NOMEM) {
                /* Not a candidate without a plan: the table is unknown. */
                rc = ENOMEM;
                lr_set_err(err, errlen, "out of memory");
                goto cleanup;
            }
            if (why == LR_TM_OK)
                T[c] = ev->T;
        }
    }
cleanup:
    lr_cdynp_pool_free(pool);
    free(tm);
    free(plan);
    free(ev);
    lr_tm_free(base);
    return rc;
}

static int
build_candidates(struct lr_jenv *e)
{
    int n = e->n_dcs, k = e->k;
    int max = n + n * (n - 1) * e->n_splits * k * LR_JENV_N_TIERS
              + (e->cfg.triples ? n * (n - 1) * (n - 2) : 0) * k
                * LR_JENV_N_TIERS
              + (e->cfg.quads ? n * (n - 1) * (n - 2) * (n - 3) : 0) * k
                * LR_JENV_N_TIERS;
    e->cands = calloc((size_t) max, sizeof *e->cands);
    if (!e->cands)
        return ENOMEM;
    int c = 0;
    for (int d = 0; d < n; d++)
        e->cands[c++] = (struct lr_jenv_cand) {
            .n_dcs = 1, .dc = { d, -1, -1, -1 }, .route = -1, .tier = -1,
            .pair = { -1, -1, -1 }, .split = -1,
        };
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            if (a == b || e->dc_node[a] == e->dc_node[b])
                continue;
            for (int s = 0; s < e->n_splits; s++)
                for (int r = 0; r < k; r++)
                    for (int t = 0; t < LR_JENV_N_TIERS; t++)
                        e->cands[c++] = (struct lr_jenv_cand) {
                            .n_dcs = 2, .dc = { a, b, -1, -1 },
                            .route = r, .tier = t,
                            .pair = { a * n + b, -1, -1 }, .split = s,
                        };
        }
    for (int a = 0; a < n && e->cfg.triples; a++)
        for (int b = 0; b < n; b++)
            for (int d = 0; d < n; d++) {
                int na = e->dc_node[a], nb = e->dc_node[b],
                    nd = e->dc_node[d];
                if (na == nb || nb == nd || na == nd)
                    continue;
                for (int r = 0; r < k; r++)
                    for (int t = 0; t < LR_JENV_N_TIERS; t++)
                        e->cands[c++] = (struct lr_jenv_cand) {
                            .n_dcs = 3, .dc = { a, b, d, -1 },
                            .route = r, .tier = t,
                            .pair = { a * n + b, b * n + d, -1 },
                            .split = -1,
                        };
            }
    for (int a = 0; a < n && e->cfg.quads; a++)
        for (int b = 0; b < n; b++)
            for (int d = 0; d < n; d++)
                for (int f = 0; f < n; f++) {
                    int na = e->dc_node[a], nb = e->dc_node[b],
                        nd = e->dc_node[d], nf = e->dc_node[f];
                    if (na == nb || na == nd || na == nf || nb == nd
                        || nb == nf || nd == nf)
                        continue;
                    for (int r = 0; r < k; r++)
                        for (int t = 0; t < LR_JENV_N_TIERS; t++)
                            e->cands[c++] = (struct lr_jenv_cand) {
                                .n_dcs = 4, .dc = { a, b, d, f },
                                .route = r, .tier = t,
                                .pair = { a * n + b, b * n + d, d * n + f },
                                .split = -1,
                            };
                }
    e->n_cands = c;
    return 0;
}

/* The mask and, after it, compute_mask's scratch: the candidate set's
 * words.  One buffer, so that clones and forks, which keep their own
 * mask, keep their own scratch too. */
static size_t
mask_bytes(const struct lr_jenv *e)
{
    /* One more for the refusal action (used only with cfg.refuse);
     * rounded up for the words after it. */
    return ((size_t) e->n_cands + 1 + 7) / 8 * 8;
}

/* After the sets (e->cm, the prototype's in a clone): their words. */
static uint8_t *
mask_alloc(const struct lr_jenv *e)
{
    size_t words = (size_t) lr_candmask_words(e->cm);
    return calloc(mask_bytes(e) + words * sizeof(uint64_t), 1);
}

static uint64_t *
mask_bits(const struct lr_jenv *e)
{
    return (uint64_t *) (void *) (e->mask + mask_bytes(e));
}

static int
build_routes(struct lr_jenv *e)
{
    int n = e->n_dcs, k = e->k;
    e->routes = calloc((size_t) n * n * k, sizeof *e->routes);
    if (!e->routes)
        return ENOMEM;
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            if (e->dc_node[a] == e->dc_node[b])
                continue;
            int nf, nr;
            const struct lr_path *pf = lr_ksp_paths(e->ksp, e->dc_node[a],
                                                    e->dc_node[b], &nf);
            const struct lr_path *pr = lr_ksp_paths(e->ksp, e->dc_node[b],
                                                    e->dc_node[a], &nr);
            for (int r = 0; r < k && r < nf && r < nr; r++) {
                struct route *rt = &e->routes[(a * n + b) * k + r];
                rt->fwd = &pf[r];
                rt->rev = &pr[r];
                double km = fmax(pf[r].length_km, pr[r].length_km);
                int f = lr_mod_choose(&e->mods, km);
                for (int t = 0; t < LR_JENV_N_TIERS; t++)
                    rt->slots[t] = f < 0 ? 0
                        : lr_mod_slots(&e->mods.f[f], lr_jenv_tier_gbps[t],
                                       e->cfg.guard);
            }
        }
    return 0;
}

/* The link -> routes index: a lightpath booked or released on a path
 * changes the free spectrum of exactly the routes that share one of its
 * links, so only those are recomputed (refresh_routes). */
static int
build_link_routes(struct lr_jenv *e)
{
    int nl = e->topo->n_links, nr = e->n_dcs * e->n_dcs * e->k, n = 0;
    e->link_off = calloc((size_t) nl + 1, sizeof *e->link_off);
    if (!e->link_off)
        return ENOMEM;
    /* Two passes over the same loops: count per link, then fill.  A link
     * on both paths of a route lists the route twice (harmless). */
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < nr; i++) {
            const struct route *rt = &e->routes[i];
            if (!rt->fwd)
                continue;
            const struct lr_path *ps[2] = { rt->fwd, rt->rev };
            for (int d = 0; d < 2; d++)
                for (int j = 0; j < ps[d]->n_links; j++) {
                    int l = ps[d]->links[j];
                    if (pass == 0)
                        e->link_off[l + 1]++;
                    else
                        e->link_routes[e->link_off[l]++] = i;
                }
        }
        if (pass == 0) {
            for (int l = 0; l < nl; l++)
                e->link_off[l + 1] += e->link_off[l];
            n = e->link_off[nl];
            e->link_routes = malloc(((size_t) n + 1) * sizeof *e->link_routes);
            if (!e->link_routes)
                return ENOMEM;
        }
    }
    /* The fill moved each offset to the next link's start: shift back. */
    for (int l = nl; l > 0; l--)
        e->link_off[l] = e->link_off[l - 1];
    e->link_off[0] = 0;
    return 0;
}

static void
mark_path(struct lr_jenv *e, const struct lr_path *p)
{
    for (int j = 0; j < p->n_links; j++) {
        int l = p->links[j];
        for (int i = e->link_off[l]; i < e->link_off[l + 1]; i++)
            e->routes[e->link_routes[i]].dirty = true;
    }
}

static void
mark_all(struct lr_jenv *e)
{
    int nr = e->n_dcs * e->n_dcs * e->k;
    for (int i = 0; i < nr; i++)
        e->routes[i].dirty = true;
}

/* The eager mask's sets from the facts of the model of lr_candmask.h:
 * T finite per class, the GPUs each candidate asks of each DC per
 * demand (need), the route and tier of each hop. */
static int
build_candmask(struct lr_jenv *e)
{
    int n_routes = e->n_dcs * e->n_dcs * e->k;
    int rc = lr_candmask_new(e->n_cands, e->n_classes, e->cfg.n_demands,
                             e->n_dcs, n_routes, LR_JENV_N_TIERS, &e->cm);
    for (int c = 0; c < e->n_cands && !rc; c++) {
        const struct lr_jenv_cand *cd = &e->cands[c];
        for (int k = 0; k < e->n_classes && !rc; k++)
            if (isfinite(e->T[(size_t) k * e->n_cands + c]))
                rc = lr_candmask_finite(e->cm, k, c);
        for (int di = 0; di < e->cfg.n_demands && !rc; di++) {
            const int *g = e->need[(size_t) di * e->n_cands + c].g;
            for (int i = 0; i < cd->n_dcs && !rc; i++)
                if (g[i] > 0)
                    rc = lr_candmask_ask(e->cm, di, cd->dc[i], c, g[i]);
        }
        for (int h = 0; h + 1 < cd->n_dcs && !rc; h++) {
            int r = (int) (hop_route(e, cd, h) - e->routes);
            rc = lr_candmask_use(e->cm, r, cd->tier, c);
        }
    }
    return rc ? rc : lr_candmask_seal(e->cm);
}

int
lr_jenv_new(const struct lr_topo *topo, const struct lr_cluster *cl,
            const struct lr_jenv_config *cfg, struct lr_jenv **out,
            char *err, size_t errlen)
{
    *out = NULL;
    if (cl->n_dcs < 1 || cl->n_dcs > LR_JENV_MAX_DCS) {
        lr_set_err(err, errlen, "the cluster has %d DCs; the environment "
                   "takes 1 to %d", cl->n_dcs, LR_JENV_MAX_DCS);
        return EINVAL;
    }
    if (cfg->n_models < 1 || cfg->n_models > LR_JENV_MAX_MODELS
        || cfg->n_demands < 1 || cfg->n_demands > LR_JENV_MAX_DEMANDS) {
        lr_set_err(err, errlen, "give 1 to %d models and 1 to %d GPU demands",
                   LR_JENV_MAX_MODELS, LR_JENV_MAX_DEMANDS);
        return EINVAL;
    }
    if (!(cfg->load > 0) || !isfinite(cfg->load) || !(cfg->holding > 0)
        || !isfinite(cfg->holding) || cfg->k < 1 || cfg->guard < 0
        || !(cfg->block_penalty >= 0) || !isfinite(cfg->block_penalty)
        || (cfg->holding_mode != LR_JENV_HOLD_EXP
            && cfg->holding_mode != LR_JENV_HOLD_WORK)) {
        lr_set_err(err, errlen, "load, holding time and K must be positive "
                   "and finite, guard and block penalty not negative (the "
                   "penalty finite), holding mode exp or work");
        return EINVAL;
    }
    if (check_splits(cfg->splits, cfg->n_splits, err, errlen))
        return EINVAL;
    if (cfg->held_work && !cfg->known_work) {
        lr_set_err(err, errlen, "held work (the GPU-time running jobs still "
                   "hold) is observable only with known work");
        return EINVAL;
    }
    for (int i = 0; i < cfg->n_demands; i++)
        if (cfg->demands[i] < 1) {
            lr_set_err(err, errlen, "GPU demand %d: must be at least 1",
                       cfg->demands[i]);
            return EINVAL;
        }
    struct lr_jenv *e = calloc(1, sizeof *e);
    if (!e) {
        lr_set_err(err, errlen, "out of memory");
        return ENOMEM;
    }
    int rc = 0;
    e->topo = topo;
    e->cl = cl;
    e->cfg = *cfg;
    e->n_dcs = cl->n_dcs;
    e->k = cfg->k;
    e->n_classes = cfg->n_models * cfg->n_demands;
    build_splits(e);
    for (int d = 0; d < e->n_dcs; d++) {
        /* Either file may say where a DC attaches (the topology's
         * dc-attachment, the inventory's attachment-node), as for
         * lightraild. */
        e->dc_node[d] = lr_topo_attach_node(topo, cl->dcs[d].name,
                                            cl->dcs[d].attach_node);
        if (e->dc_node[d] < 0) {
            if (cl->dcs[d].attach_node[0])
                lr_set_err(err, errlen, "DC '%s': its attachment-node '%s' is "
                           "not a node of topology '%s'; attach every DC to a "
                           "ROADM", cl->dcs[d].name, cl->dcs[d].attach_node,
                           topo->name);
            else
                lr_set_err(err, errlen, "DC '%s' attaches to no ROADM: give "
                           "it a dc-attachment in topology '%s' or an "
                           "attachment-node in the inventory", cl->dcs[d].name,
                           topo->name);
            rc = EINVAL;
            goto fail;
        }
        e->dc_gpus[d] = cl->dcs[d].n_devices;
        e->total_gpus += e->dc_gpus[d];
    }
    lr_modtable_default(&e->mods);
    if (topo->n_links < 1) {
        lr_set_err(err, errlen, "topology '%s' has no links", topo->name);
        rc = EINVAL;
        goto fail;
    }
    /* Lightpaths join DC ROADMs only: their K paths are all the table
     * needs (the whole |V|^2 table cost |V|^4 over a ring). */
    unsigned char *ends = calloc((size_t) topo->n_nodes, 1);
    if (!ends) {
        lr_set_err(err, errlen, "out of memory");
        rc = ENOMEM;
        goto fail;
    }
    for (int d = 0; d < e->n_dcs; d++)
        ends[e->dc_node[d]] = 1;
    rc = lr_ksp_compute_ends(topo, e->k, LR_KSP_KM, ends, &e->ksp);
    if (!rc)
        rc = fill_dist(e, ends);
    free(ends);
    if (rc) {
        lr_set_err(err, errlen, "cannot compute the K shortest paths: %s",
                   strerror(rc));
        goto fail;
    }
    e->max_slots = lr_topo_max_slots(topo);
    if (e->max_slots > LR_BITS_MAX_WORDS * 64) {
        lr_set_err(err, errlen, "topology '%s' has a link of %d slots: at "
                   "most %d", topo->name, e->max_slots,
                   LR_BITS_MAX_WORDS * 64);
        rc = EINVAL;
        goto fail;
    }
    e->sp = lr_spectrum_new(topo);
    if (!e->sp) {
        lr_set_err(err, errlen, "out of memory");
        rc = ENOMEM;
        goto fail;
    }
    for (int l = 0; l < topo->n_links; l++)
        e->sp_slots += topo->links[l].n_slots;
    if ((rc = build_routes(e)) || (rc = build_candidates(e))
        || (rc = build_link_routes(e))) {
        lr_set_err(err, errlen, "out of memory");
        goto fail;
    }
    e->T = malloc((size_t) e->n_classes * e->n_cands * sizeof *e->T);
    e->tref = malloc((size_t) e->n_classes * sizeof *e->tref);
    e->by_time = malloc((size_t) e->n_classes * e->n_cands
                        * sizeof *e->by_time);
    e->ratio = malloc((size_t) e->n_classes * e->n_cands * sizeof *e->ratio);
    e->need = malloc((size_t) cfg->n_demands * e->n_cands * sizeof *e->need);
    e->mask_ok = true;
    e->first_ok = -2;
    e->cap_act = e->total_gpus + 1;
    e->act = malloc((size_t) e->cap_act * sizeof *e->act);
    if (!e->T || !e->tref || !e->by_time || !e->ratio || !e->need
        || !e->act) {
        lr_set_err(err, errlen, "out of memory");
        rc = ENOMEM;
        goto fail;
    }
    for (int di = 0; di < cfg->n_demands; di++)
        for (int c = 0; c < e->n_cands; c++) {
            int gs[LR_JENV_MAX_CHAIN];
            cand_split(e, &e->cands[c], di, gs);
            for (int i = 0; i < LR_JENV_MAX_CHAIN; i++)
                e->need[(size_t) di * e->n_cands + c].g[i] = gs[i];
        }
    for (int mi = 0; mi < cfg->n_models; mi++)
        if ((rc = tabulate(e, mi, err, errlen)))
            goto fail;
    for (int cls = 0; cls < e->n_classes; cls++) {
        double best = INFINITY;
        for (int c = 0; c < e->n_cands; c++)
            best = fmin(best, e->T[(size_t) cls * e->n_cands + c]);
        if (!isfinite(best)) {
            lr_set_err(err, errlen, "model '%s' on %d GPUs fits no DC and no "
                       "pair of DCs even on an empty network (memory or GPU "
                       "count); drop it from the job mix",
                       cfg->models[cls / cfg->n_demands]->name,
                       cfg->demands[cls % cfg->n_demands]);
            rc = EINVAL;
            goto fail;
        }
        e->tref[cls] = best;
        for (int c = 0; c < e->n_cands; c++) {
            size_t i = (size_t) cls * e->n_cands + c;
            e->ratio[i] = (float) (best / e->T[i]);
        }
        sort_by_time(e, cls);
    }
    if (!(rc = build_candmask(e)) && !(e->mask = mask_alloc(e)))
        rc = ENOMEM;
    if (rc) {
        lr_set_err(err, errlen, "out of memory");
        goto fail;
    }
    lr_jenv_reset(e, 1, 0);
    *out = e;
    return 0;
fail:
    lr_jenv_free(e);
    return rc;
}

int
lr_jenv_clone(const struct lr_jenv *e, struct lr_jenv **out)
{
    *out = NULL;
    struct lr_jenv *c = malloc(sizeof *c);
    if (!c)
        return ENOMEM;
    *c = *e;
    c->proto = e->proto ? e->proto : e;
    size_t n_routes = (size_t) e->n_dcs * e->n_dcs * e->k;
    c->sp = lr_spectrum_new(e->topo);
    c->routes = malloc(n_routes * sizeof *c->routes);
    c->mask = mask_alloc(e);
    c->act = malloc((size_t) e->cap_act * sizeof *c->act);
    if (!c->sp || !c->routes || !c->mask || !c->act) {
        lr_spectrum_free(c->sp);
        free(c->routes);
        free(c->mask);
        free(c->act);
        free(c);
        return ENOMEM;
    }
    memcpy(c->sp->occ, e->sp->occ,
           (size_t) e->sp->n_links * e->sp->nw * sizeof *c->sp->occ);
    memcpy(c->routes, e->routes, n_routes * sizeof *c->routes);
    memcpy(c->mask, e->mask, (size_t) e->n_cands + 1);
    memcpy(c->act, e->act, (size_t) e->n_act * sizeof *c->act);
    *out = c;
    return 0;
}

void
lr_jenv_free(struct lr_jenv *e)
{
    if (!e)
        return;
    if (!e->proto) {
        lr_ksp_free(e->ksp);
        free(e->cands);
        free(e->T);
        free(e->by_time);
        free(e->tref);
        free(e->ratio);
        free(e->need);
        lr_candmask_free(e->cm);
        free(e->dist);
        free(e->link_off);
        free(e->link_routes);
        free(e->resv);
        free(e->resv_blocks);
    }
    lr_spectrum_free(e->sp);
    free(e->routes);
    free(e->mask);
    free(e->act);
    free(e);
}

/* ---- the departure heap ---- */

static void
heap_push(struct lr_jenv *e, const struct active *a)
{
    int i = e->n_act++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (e->act[p].dep <= a->dep)
            break;
        e->act[i] = e->act[p];
        i = p;
    }
    e->act[i] = *a;
}

static void
heap_pop(struct lr_jenv *e, struct active *out)
{
    *out = e->act[0];
    struct active last = e->act[--e->n_act];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= e->n_act)
            break;
        if (c + 1 < e->n_act && e->act[c + 1].dep < e->act[c].dep)
            c++;
        if (last.dep <= e->act[c].dep)
            break;
        e->act[i] = e->act[c];
        i = c;
    }
    if (e->n_act > 0)
        e->act[i] = last;
}

/* ---- forks (lr_jenv_fork) ---- */

int
lr_jenv_fork(struct lr_jenv *dst, const struct lr_jenv *src, uint64_t seed,
             long horizon, enum lr_jenv_fork_mode mode)
{
    const struct lr_jenv *ps = src->proto ? src->proto : src;
    if (dst == src || dst->proto != ps || horizon < 1
        || (mode != LR_JENV_FORK_OBSERVABLE
            && mode != LR_JENV_FORK_KNOWN_WORK))
        return EINVAL;
    /* src's room is enough for its future (lr_jenv_set_running), and
     * so for any future of it. */
    if (src->cap_act > dst->cap_act) {
        struct active *a = realloc(dst->act,
                                   (size_t) src->cap_act * sizeof *a);
        if (!a)
            return ENOMEM;
        dst->act = a;
        dst->cap_act = src->cap_act;
    }
    /* Everything but dst's own buffers, then their contents. */
    struct lr_spectrum *sp = dst->sp;
    struct route *routes = dst->routes;
    uint8_t *mask = dst->mask;
    struct active *act = dst->act;
    int cap_act = dst->cap_act;
    bool lazy = dst->lazy;
    *dst = *src;
    dst->lazy = lazy;
    dst->proto = ps;
    dst->sp = sp;
    dst->routes = routes;
    dst->mask = mask;
    dst->act = act;
    dst->cap_act = cap_act;
    size_t n_routes = (size_t) src->n_dcs * src->n_dcs * src->k;
    memcpy(dst->sp->occ, src->sp->occ,
           (size_t) src->sp->n_links * src->sp->nw * sizeof *dst->sp->occ);
    memcpy(dst->routes, src->routes, n_routes * sizeof *dst->routes);
    memcpy(dst->mask, src->mask, (size_t) src->n_cands + 1);
    memcpy(dst->act, src->act, (size_t) src->n_act * sizeof *dst->act);
    /* Arrivals after the pending one come from 'seed'; metrics count from
     * now on, whatever the warm-up. */
    lr_rng_seed(&dst->rng, seed);
    if (mode == LR_JENV_FORK_OBSERVABLE) {
        /* Exponential holdings are memoryless: what is left of a running
         * job's is a fresh draw of the same mean.  Rebuilt into a heap by
         * pushing in place (a push writes only at indices <= i). */
        dst->job_hold = lr_rng_exp(&dst->rng, dst->cfg.holding);
        int n = dst->n_act;
        dst->n_act = 0;
        for (int i = 0; i < n; i++) {
            struct active a = dst->act[i];
            a.dep = dst->now + lr_rng_exp(&dst->rng, a.mean_hold);
            heap_push(dst, &a);
        }
    }
    dst->cfg.trace = NULL;
    dst->cfg.n_trace = 0;
    dst->limit = src->n_arr + horizon;
    dst->warmup = -1;
    dst->counting = true;
    dst->t0 = dst->now;
    dst->m_arrivals = dst->m_blocked = dst->m_admitted = dst->m_refused = 0;
    dst->sum_T = dst->sum_slow = 0;
    dst->area_gpu = dst->area_var = dst->area_spec = 0;
    return 0;
}

/* ---- time and metrics ---- */

static double
load_variance(const struct lr_jenv *e)
{
    double s = 0, s2 = 0;
    for (int d = 0; d < e->n_dcs; d++) {
        double u = (double) e->used[d] / e->dc_gpus[d];
        s += u;
        s2 += u * u;
    }
    double m = s / e->n_dcs;
    return fmax(0, s2 / e->n_dcs - m * m);
}

/* Moves the clock to 't', integrating the time averages. */
static void
advance_to(struct lr_jenv *e, double t)
{
    if (e->counting && t > e->now) {
        double dt = t - e->now;
        int used = 0;
        for (int d = 0; d < e->n_dcs; d++)
            used += e->used[d];
        e->area_gpu += dt * used / e->total_gpus;
        e->area_var += dt * load_variance(e);
        e->area_spec += dt * (double) e->slots_used / e->sp_slots;
    }
    if (t > e->now)
        e->now = t;
}

/* Frees running job 'r' of lr_jenv_set_running. */
static void
release_resv(struct lr_jenv *e, const struct resv *r,
             const struct lr_jenv_block *blocks)
{
    for (int d = 0; d < e->n_dcs; d++)
        e->used[d] -= r->gpus[d];
    for (int i = 0; i < r->n_blocks; i++) {
        const struct lr_jenv_block *b = &blocks[r->first_block + i];
        lr_spectrum_release(e->sp, &b->link, 1, b->first, b->m);
        e->slots_used -= b->m;
        for (int j = e->link_off[b->link]; j < e->link_off[b->link + 1]; j++)
            e->routes[e->link_routes[j]].dirty = true;
    }
    if (r->n_blocks)
        e->sp_version++;
}

static void
release(struct lr_jenv *e, const struct active *a)
{
    if (a->resv >= 0) {
        const struct lr_jenv *o = e->proto ? e->proto : e;
        release_resv(e, &o->resv[a->resv], o->resv_blocks);
        return;
    }
    const struct lr_jenv_cand *cd = &e->cands[a->cand];
    for (int i = 0; i < cd->n_dcs; i++)
        e->used[cd->dc[i]] -= a->g[i];
    for (int h = 0; h + 1 < cd->n_dcs; h++) {
        const struct route *rt = hop_route(e, cd, h);
        lr_spectrum_release(e->sp, rt->fwd->links, rt->fwd->n_links,
                            a->first[h][0], a->slots[h]);
        lr_spectrum_release(e->sp, rt->rev->links, rt->rev->n_links,
                            a->first[h][1], a->slots[h]);
        e->slots_used -= (long) a->slots[h]
                         * (rt->fwd->n_links + rt->rev->n_links);
        mark_path(e, rt->fwd);
        mark_path(e, rt->rev);
    }
    if (cd->n_dcs > 1)
        e->sp_version++;
}

/* ---- feasibility ----
 *
 * First fit of m slots on a path is the lowest p with slots p..p+m-1 all
 * free.  That p is always the start of a maximal free run: if p - 1 were
 * free too, p - 1 would start a block of m as well (the run holding p
 * reaches p + m - 1).  So the first fit of every tier is the start of the
 * first run at least that tier's width, and one walk over the runs (ctz
 * on free and ~free, lr_bitset.h) gives all three tiers, the largest
 * block and the free count: the same numbers as lr_bits_fit_starts per
 * tier, for one pass instead of three shift-and-AND folds. */

/* Walks the runs of 'free' (nw words) and sets ff[t] to the start of the
 * first run of at least m[t] slots for every t with want[t] (-1 when none;
 * m[t] > 0).  With 'count' it walks every run, returns the longest and
 * sets *count to the free slots (the runs' lengths added); without, it
 * stops as soon as every wanted tier has its start. */
static int
runs_first_fit(const uint64_t *free, int nw, const int *m, const bool *want,
               int *ff, int *count)
{
    int pending = 0, best = 0, total = 0;
    for (int t = 0; t < LR_JENV_N_TIERS; t++) {
        ff[t] = -1;
        pending += want[t];
    }
    for (int s = lr_bits_next_set(free, nw, 0); s >= 0;) {
        int end = lr_bits_next_clear(free, nw, s), len = end - s;
        if (len > best)
            best = len;
        total += len;
        for (int t = 0; t < LR_JENV_N_TIERS; t++)
            if (want[t] && ff[t] < 0 && len >= m[t]) {
                ff[t] = s;
                pending--;
            }
        if (!pending && !count)
            break;
        s = end >= nw * 64 ? -1 : lr_bits_next_set(free, nw, end);
    }
    if (count)
        *count = total;
    return best;
}

/* Recomputes route rt's cached first fits from the spectrum, and no
 * more: its free share and largest block, which only the observation
 * shows, stay stale until refresh_routes (the lazy mask's refresh of one
 * route).  rev is walked only for the tiers fwd has. */
static void
refresh_one(struct lr_jenv *e, struct route *rt)
{
    int nw = e->sp->nw;
    uint64_t ff[LR_BITS_MAX_WORDS], fr[LR_BITS_MAX_WORDS];
    rt->dirty = false;
    rt->obs_stale = true;
    rt->fit = 0;
    lr_spectrum_path_free(e->sp, rt->fwd->links, rt->fwd->n_links, ff);
    bool want[LR_JENV_N_TIERS], any = false;
    for (int t = 0; t < LR_JENV_N_TIERS; t++)
        want[t] = rt->slots[t] > 0;
    runs_first_fit(ff, nw, rt->slots, want, rt->ff_fwd, NULL);
    for (int t = 0; t < LR_JENV_N_TIERS; t++)
        any |= want[t] = rt->ff_fwd[t] >= 0;
    if (!any) {
        for (int t = 0; t < LR_JENV_N_TIERS; t++)
            rt->ff_rev[t] = -1;
        return;
    }
    lr_spectrum_path_free(e->sp, rt->rev->links, rt->rev->n_links, fr);
    runs_first_fit(fr, nw, rt->slots, want, rt->ff_rev, NULL);
    for (int t = 0; t < LR_JENV_N_TIERS; t++)
        rt->fit |= (uint8_t) ((rt->ff_fwd[t] >= 0 && rt->ff_rev[t] >= 0)
                              << t);
}

/* Sets route rt's caches from the full walks of its two paths: fwd's
 * first fits, longest run and free count, rev's first fits.  rev's first
 * fits are kept only for the tiers fwd has, as refresh_one's early-
 * stopping walk of rev leaves them. */
static void
set_from_walks(struct lr_jenv *e, struct route *rt, const int *fit_fwd,
               const int *fit_rev, int longest, int count)
{
    rt->dirty = false;
    rt->obs_stale = false;
    rt->fit = 0;
    rt->free_share = (float) count / e->max_slots;
    rt->max_block = (float) longest / e->max_slots;
    for (int t = 0; t < LR_JENV_N_TIERS; t++) {
        rt->ff_fwd[t] = fit_fwd[t];
        rt->ff_rev[t] = fit_fwd[t] >= 0 ? fit_rev[t] : -1;
        rt->fit |= (uint8_t) ((rt->ff_fwd[t] >= 0 && rt->ff_rev[t] >= 0)
                              << t);
    }
}

/* Route (a, b, r) and its twin (b, a, r) use the same two paths, each
 * the other's fwd (build_routes), and the same slots per tier: one full
 * walk of each path gives both routes' caches, the observation's fields
 * included, the numbers a refresh of each on its own would give (it
 * walked each path twice over the two routes, and built each path's
 * free spectrum twice). */
static void
refresh_twins(struct lr_jenv *e, struct route *ab, struct route *ba)
{
    int nw = e->sp->nw;
    uint64_t f_ab[LR_BITS_MAX_WORDS], f_ba[LR_BITS_MAX_WORDS];
    int fit_ab[LR_JENV_N_TIERS], fit_ba[LR_JENV_N_TIERS];
    bool want[LR_JENV_N_TIERS];
    for (int t = 0; t < LR_JENV_N_TIERS; t++)
        want[t] = ab->slots[t] > 0;
    lr_spectrum_path_free(e->sp, ab->fwd->links, ab->fwd->n_links, f_ab);
    lr_spectrum_path_free(e->sp, ba->fwd->links, ba->fwd->n_links, f_ba);
    int n_ab, n_ba;
    int long_ab = runs_first_fit(f_ab, nw, ab->slots, want, fit_ab, &n_ab);
    int long_ba = runs_first_fit(f_ba, nw, ba->slots, want, fit_ba, &n_ba);
    set_from_walks(e, ab, fit_ab, fit_ba, long_ab, n_ab);
    set_from_walks(e, ba, fit_ba, fit_ab, long_ba, n_ba);
}

/* Every route's caches fresh, the observation's fields included: a route
 * and its twin together (refresh_twins) when either needs it. */
static void
refresh_routes(struct lr_jenv *e)
{
    if (e->routes_version == e->sp_version)
        return;
    int n = e->n_dcs, k = e->k;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            for (int r = 0; r < k; r++) {
                struct route *ab = &e->routes[(a * n + b) * k + r];
                struct route *ba = &e->routes[(b * n + a) * k + r];
                if (ab->fwd && (ab->dirty || ab->obs_stale || ba->dirty
                                || ba->obs_stale))
                    refresh_twins(e, ab, ba);
            }
    e->routes_version = e->sp_version;
}

/* True when candidate a comes before b for class cls: (T, slots, index)
 * in lexicographic order, the order of greedy's choice. */
static bool
faster(const struct lr_jenv *e, int cls, int a, int b)
{
    const double *T = e->T + (size_t) cls * e->n_cands;
    if (T[a] != T[b])
        return T[a] < T[b];
    int sa = lr_jenv_cand_slots(e, a), sb = lr_jenv_cand_slots(e, b);
    return sa != sb ? sa < sb : a < b;
}

/* by_time of class cls: an insertion sort (n_cands is a few hundred; once
 * per class when the environment is built). */
static void
sort_by_time(struct lr_jenv *e, int cls)
{
    int *o = e->by_time + (size_t) cls * e->n_cands;
    for (int c = 0; c < e->n_cands; c++) {
        int i = c;
        while (i > 0 && faster(e, cls, c, o[i - 1])) {
            o[i] = o[i - 1];
            i--;
        }
        o[i] = c;
    }
}

/* Whether candidate c's DCs have the GPUs it takes of the pending
 * job's demand. */
static inline bool
cand_gpus_ok(const struct lr_jenv *e, int c)
{
    const struct lr_jenv_cand *cd = &e->cands[c];
    const int *g = e->need[(size_t) e->job_demand * e->n_cands + c].g;
    for (int i = 0; i < cd->n_dcs; i++)
        if (e->used[cd->dc[i]] + g[i] > e->dc_gpus[cd->dc[i]])
            return false;
    return true;
}

/* Whether hop h of candidate cd has a lightpath of its tier each way
 * (the route's first fits fresh). */
static inline bool
hop_fits(const struct lr_jenv *e, const struct lr_jenv_cand *cd, int h)
{
    const struct route *rt = hop_route(e, cd, h);
    return rt->ff_fwd[cd->tier] >= 0 && rt->ff_rev[cd->tier] >= 0;
}

/* Whether candidate c is feasible for the pending job, T the job's
 * class's row: T finite (for a pair, the share gives GPUs on both
 * sides: tabulate; a chain's hops share no link), the GPUs, a
 * lightpath on every hop, a hop's route refreshed first when dirty (its
 * first fits only, refresh_one).  The lazy mask's test of one candidate;
 * compute_mask tests them all at once, as sets. */
static inline bool
cand_ok(struct lr_jenv *e, int c, const double *T)
{
    const struct lr_jenv_cand *cd = &e->cands[c];
    if (!isfinite(T[c]) || !cand_gpus_ok(e, c))
        return false;
    for (int h = 0; h + 1 < cd->n_dcs; h++) {
        struct route *rt = hop_route(e, cd, h);
        if (rt->dirty)
            refresh_one(e, rt);
        if (!hop_fits(e, cd, h))
            return false;
    }
    return true;
}

/* Fills the mask of the pending job; returns how many are feasible.
 * cand_ok's test of every candidate, as sets a word at a time
 * (lr_candmask.h): the rooms of the DCs, and the routes' fits. */
static int
compute_mask(struct lr_jenv *e)
{
    refresh_routes(e);
    int room[LR_JENV_MAX_DCS];
    for (int d = 0; d < e->n_dcs; d++)
        room[d] = e->dc_gpus[d] - e->used[d];
    int n = lr_candmask_eval(e->cm, job_class(e), e->job_demand, room,
                             &e->routes[0].fit, sizeof(struct route),
                             mask_bits(e), e->mask);
    /* Refusing is offered only when there is something to refuse. */
    e->mask[e->n_cands] = e->cfg.refuse && n > 0;
    e->mask_ok = true;
    return n;
}

/* The lazy mask's test at an arrival: the first feasible candidate in
 * by_time's order (-1: none), refreshing only the routes it reads, and
 * for their first fits only; the rest of the mask and of the caches is
 * left for when the mask is read. */
static int
first_feasible(struct lr_jenv *e)
{
    const double *T = e->T + (size_t) job_class(e) * e->n_cands;
    const int *o = e->by_time + (size_t) job_class(e) * e->n_cands;
    e->mask_ok = false;
    for (int i = 0; i < e->n_cands; i++)
        if (cand_ok(e, o[i], T))
            return o[i];
    return -1;
}

const char *
lr_jenv_holding_name(enum lr_jenv_holding m)
{
    return m == LR_JENV_HOLD_WORK ? "work" : "exp";
}

int
lr_jenv_holding_parse(const char *s, enum lr_jenv_holding *m)
{
    if (!strcmp(s, "exp"))
        *m = LR_JENV_HOLD_EXP;
    else if (!strcmp(s, "work"))
        *m = LR_JENV_HOLD_WORK;
    else
        return EINVAL;
    return 0;
}

/* ---- arrivals ---- */

/* Draws the next arrival into the pending job; false when the trace is
 * exhausted. */
static bool
next_arrival(struct lr_jenv *e, double *t)
{
    if (e->cfg.trace) {
        if (e->trace_pos >= e->cfg.n_trace)
            return false;
        const struct lr_jenv_arrival *a = &e->cfg.trace[e->trace_pos++];
        *t = a->t;
        e->job_hold = a->holding;
        e->job_model = a->model;
        e->job_demand = a->demand;
        e->job_origin = a->origin;
        return true;
    }
    *t = e->now + lr_rng_exp(&e->rng, e->cfg.holding / e->cfg.load);
    e->job_model = (int) lr_rng_below(&e->rng, (uint32_t) e->cfg.n_models);
    e->job_demand = (int) lr_rng_below(&e->rng, (uint32_t) e->cfg.n_demands);
    e->job_origin = (int) lr_rng_below(&e->rng, (uint32_t) e->topo->n_nodes);
    e->job_hold = lr_rng_exp(&e->rng, e->cfg.holding);
    return true;
}

/* Advances to the next job with a feasible candidate; returns the
 * penalty of the jobs blocked on the way. */
static double
advance(struct lr_jenv *e)
{
    double penalty = 0;
    for (;;) {
        double t;
        if ((e->limit && e->n_arr >= e->limit) || !next_arrival(e, &t)) {
            e->done = true;
            memset(e->mask, 0, (size_t) e->n_cands + 1);
            e->mask_ok = true;
            e->first_ok = -1;
            return penalty;
        }
        while (e->n_act > 0 && e->act[0].dep <= t) {
            struct active a;
            advance_to(e, e->act[0].dep);
            heap_pop(e, &a);
            release(e, &a);
        }
        advance_to(e, t);
        lr_rate_add(&e->arrivals, t);
        if (e->n_arr++ == e->warmup) {
            e->counting = true;
            e->t0 = e->now;
        }
        if (e->lazy) {
            e->first_ok = first_feasible(e);
            if (e->first_ok >= 0)
                return penalty;
        } else {
            e->first_ok = -2;
            if (compute_mask(e) > 0)
                return penalty;
        }
        if (e->counting) {
            e->m_arrivals++;
            e->m_blocked++;
        }
        penalty += e->cfg.block_penalty;
    }
}

void
lr_jenv_reset_limit(struct lr_jenv *e, uint64_t seed, long warmup, long limit)
{
    lr_rng_seed(&e->rng, seed);
    lr_spectrum_reset(e->sp);
    memset(e->used, 0, sizeof e->used);
    e->now = 0;
    e->n_arr = 0;
    lr_rate_reset(&e->arrivals, 0, LR_JENV_LOAD_TAU * e->cfg.holding,
                  LR_JENV_LOAD_WARM * e->cfg.holding);
    e->warmup = warmup < 0 ? 0 : warmup;
    e->trace_pos = 0;
    e->limit = limit;
    e->done = false;
    e->counting = false;
    e->n_act = 0;
    e->slots_used = 0;
    mark_all(e);
    e->sp_version++;
    e->t0 = 0;
    e->m_arrivals = e->m_blocked = e->m_admitted = e->m_refused = 0;
    e->sum_T = e->sum_slow = e->area_gpu = e->area_var = e->area_spec = 0;
    advance(e);
}

void
lr_jenv_reset(struct lr_jenv *e, uint64_t seed, long warmup)
{
    lr_jenv_reset_limit(e, seed, warmup, 0);
}

double
lr_jenv_step(struct lr_jenv *e, int action)
{
    if (e->done)
        return 0;
    double r;
    if (e->counting)
        e->m_arrivals++;
    bool feasible = action >= 0 && action < e->n_cands
        && (e->mask_ok ? e->mask[action]
            : action == e->first_ok
              || cand_ok(e, action,
                         e->T + (size_t) job_class(e) * e->n_cands));
    if (!feasible) {
        /* A refusal (-1, the refusal action, or an infeasible one):
         * nothing is booked. */
        if (e->counting) {
            e->m_blocked++;
            e->m_refused++;
        }
        r = -e->cfg.block_penalty;
    } else {
        const struct lr_jenv_cand *cd = &e->cands[action];
        double T = e->T[(size_t) job_class(e) * e->n_cands + action];
        double hold = e->job_hold;
        if (e->cfg.holding_mode == LR_JENV_HOLD_WORK)
            hold *= T / e->tref[job_class(e)];
        double mean_hold = e->cfg.holding;
        if (e->cfg.holding_mode == LR_JENV_HOLD_WORK)
            mean_hold *= T / e->tref[job_class(e)];
        struct active a = {
            .dep = e->now + hold, .mean_hold = mean_hold, .cand = action,
            .first = { { -1, -1 }, { -1, -1 }, { -1, -1 } }, .resv = -1,
        };
        cand_split(e, cd, e->job_demand, a.g);
        for (int i = 0; i < cd->n_dcs; i++)
            e->used[cd->dc[i]] += a.g[i];
        /* The mask was computed on this very spectrum, and a chain's
         * hops share no link: these cannot fail.  Booking a hop marks
         * routes dirty and leaves their cached first fits as the mask
         * read them, so the next hop's are still those. */
        for (int h = 0; h + 1 < cd->n_dcs; h++) {
            const struct route *rt = hop_route(e, cd, h);
            a.slots[h] = rt->slots[cd->tier];
            a.first[h][0] = rt->ff_fwd[cd->tier];
            a.first[h][1] = rt->ff_rev[cd->tier];
            lr_spectrum_alloc(e->sp, rt->fwd->links, rt->fwd->n_links,
                              a.first[h][0], a.slots[h]);
            lr_spectrum_alloc(e->sp, rt->rev->links, rt->rev->n_links,
                              a.first[h][1], a.slots[h]);
            e->slots_used += (long) a.slots[h]
                             * (rt->fwd->n_links + rt->rev->n_links);
            mark_path(e, rt->fwd);
            mark_path(e, rt->rev);
        }
        if (cd->n_dcs > 1)
            e->sp_version++;
        heap_push(e, &a);
        if (e->counting) {
            e->m_admitted++;
            e->sum_T += T;
            e->sum_slow += T / e->tref[job_class(e)];
        }
        r = e->cfg.reward_blocking_only ? 0 : -T / e->tref[job_class(e)];
    }
    return r - advance(e);
}

/* ---- the mirror of a live network ---- */

int
lr_jenv_set_state(struct lr_jenv *e, const int *used, const uint64_t *occ,
                  int nw, char *err, size_t errlen)
{
    if (nw != e->sp->nw) {
        lr_set_err(err, errlen, "spectrum of %d words per link, the "
                   "environment has %d: build it on the same topology", nw,
                   e->sp->nw);
        return EINVAL;
    }
    for (int d = 0; d < e->n_dcs; d++)
        if (used[d] < 0 || used[d] > e->dc_gpus[d]) {
            lr_set_err(err, errlen, "DC '%s': %d GPUs used of %d",
                       e->cl->dcs[d].name, used[d], e->dc_gpus[d]);
            return EINVAL;
        }
    memcpy(e->used, used, (size_t) e->n_dcs * sizeof *used);
    size_t words = (size_t) e->sp->n_links * (size_t) nw;
    memcpy(e->sp->occ, occ, words * sizeof *occ);
    long total;
    lr_spectrum_usage(e->sp, &e->slots_used, &total);
    mark_all(e);
    e->sp_version++;
    return 0;
}

/* err[] for job i of lr_jenv_set_running; EINVAL. */
static int
running_err(char *err, size_t errlen, int i, const char *fmt, ...)
{
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    lr_set_err(err, errlen, "running job %d: %s", i, what);
    return EINVAL;
}

int
lr_jenv_set_running(struct lr_jenv *e, const struct lr_jenv_running *jobs,
                    int n, char *err, size_t errlen)
{
    if (e->proto) {
        lr_set_err(err, errlen, "set the running jobs on the environment, "
                   "not on a clone");
        return EINVAL;
    }
    if (n < 0 || (n > 0 && !jobs)) {
        lr_set_err(err, errlen, "%d running jobs", n);
        return EINVAL;
    }
    /* Check everything against a scratch copy of the occupancy: each
     * block's slots must be booked there, and are cleared as taken, so
     * that a slot two jobs claim is found. */
    size_t words = (size_t) e->sp->n_links * (size_t) e->sp->nw;
    uint64_t *scratch = malloc(words * sizeof *scratch);
    if (!scratch)
        return ENOMEM;
    memcpy(scratch, e->sp->occ, words * sizeof *scratch);
    int sum[LR_JENV_MAX_DCS] = { 0 };
    long n_blocks = 0;
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        const struct lr_jenv_running *j = &jobs[i];
        if (!(j->remaining > 0) || !isfinite(j->remaining))
            rc = running_err(err, errlen, i, "remaining time %g: give a "
                             "positive one", j->remaining);
        for (int d = 0; d < e->n_dcs && !rc; d++) {
            if (j->gpus[d] < 0 || j->gpus[d] > e->dc_gpus[d])
                rc = running_err(err, errlen, i, "%d GPUs in DC '%s' of "
                                 "%d", j->gpus[d], e->cl->dcs[d].name,
                                 e->dc_gpus[d]);
            else if ((sum[d] += j->gpus[d]) > e->used[d])
                rc = running_err(err, errlen, i, "the running jobs hold "
                                 "%d GPUs in DC '%s', the state says %d "
                                 "are used: set the state first", sum[d],
                                 e->cl->dcs[d].name, e->used[d]);
        }
        if (!rc && (j->n_blocks < 0 || (j->n_blocks > 0 && !j->blocks)))
            rc = running_err(err, errlen, i, "%d blocks", j->n_blocks);
        for (int b = 0; b < j->n_blocks && !rc; b++) {
            const struct lr_jenv_block *k = &j->blocks[b];
            if (k->link < 0 || k->link >= e->sp->n_links || k->first < 0
                || k->m < 1 || k->first > e->sp->n_slots[k->link] - k->m) {
                rc = running_err(err, errlen, i, "block %d (link %d, "
                                 "slots %d+%d) is not on the topology", b,
                                 k->link, k->first, k->m);
                break;
            }
            uint64_t *w = scratch + (size_t) k->link * e->sp->nw;
            for (int s = k->first; s < k->first + k->m; s++) {
                uint64_t bit = UINT64_C(1) << (s % 64);
                if (!(w[s / 64] & bit)) {
                    rc = running_err(err, errlen, i, "slot %d of link %d is "
                                     "not booked in the state, or another "
                                     "running job holds it", s, k->link);
                    break;
                }
                w[s / 64] &= ~bit;
            }
        }
        n_blocks += j->n_blocks;
    }
    free(scratch);
    if (rc)
        return rc;
    /* The heap's room: every job admitted later holds a GPU, the
     * running jobs given here may hold none (spectrum only), so at most
     * n + all GPUs run at once. */
    int cap = n + e->total_gpus + 1;
    struct resv *r = calloc((size_t) n + 1, sizeof *r);
    struct lr_jenv_block *bl = malloc(((size_t) n_blocks + 1) * sizeof *bl);
    struct active *act = e->act;
    if (r && bl && cap > e->cap_act) {
        act = realloc(e->act, (size_t) cap * sizeof *act);
        if (act) {
            e->act = act;
            e->cap_act = cap;
        }
    }
    if (!r || !bl || !act) {
        free(r);
        free(bl);
        return ENOMEM;
    }
    free(e->resv);
    free(e->resv_blocks);
    e->resv = r;
    e->resv_blocks = bl;
    e->n_act = 0;
    int nb = 0;
    for (int i = 0; i < n; i++) {
        memcpy(r[i].gpus, jobs[i].gpus, sizeof r[i].gpus);
        r[i].first_block = nb;
        r[i].n_blocks = jobs[i].n_blocks;
        for (int b = 0; b < jobs[i].n_blocks; b++)
            bl[nb++] = jobs[i].blocks[b];
        struct active a = {
            .dep = e->now + jobs[i].remaining,
            .mean_hold = jobs[i].remaining, .cand = -1,
            .first = { { -1, -1 }, { -1, -1 } }, .resv = i,
        };
        heap_push(e, &a);
    }
    return 0;
}

int
lr_jenv_n_running(const struct lr_jenv *e)
{
    return e->n_act;
}

const uint64_t *
lr_jenv_occupancy(const struct lr_jenv *e, int *nw)
{
    *nw = e->sp->nw;
    return e->sp->occ;
}

double
lr_jenv_job_work(const struct lr_jenv *e)
{
    return e->cfg.known_work ? e->job_hold / e->cfg.holding : -1;
}

int
lr_jenv_set_job_work(struct lr_jenv *e, double x)
{
    if (!e->cfg.known_work || !(x > 0) || !isfinite(x))
        return -1;
    e->job_hold = x * e->cfg.holding;
    return 0;
}

int
lr_jenv_present(struct lr_jenv *e, int model, int demand)
{
    if (model < 0 || model >= e->cfg.n_models || demand < 0
        || demand >= e->cfg.n_demands)
        return -1;
    e->job_model = model;
    e->job_demand = demand;
    e->job_origin = 0;
    e->job_hold = e->cfg.holding;
    e->done = false;
    e->first_ok = -2;
    return compute_mask(e);
}

const struct lr_path *
lr_jenv_cand_hop_path(const struct lr_jenv *e, int a, int hop, int dir)
{
    const struct lr_jenv_cand *cd = &e->cands[a];
    if (hop < 0 || hop + 1 >= cd->n_dcs)
        return NULL;
    const struct route *rt = hop_route(e, cd, hop);
    return dir ? rt->rev : rt->fwd;
}

int
lr_jenv_cand_hop_first(const struct lr_jenv *e, int a, int hop, int dir)
{
    (void) lr_jenv_mask(e);     /* a lazy mask's caches made whole */
    const struct lr_jenv_cand *cd = &e->cands[a];
    if (hop < 0 || hop + 1 >= cd->n_dcs)
        return -1;
    const struct route *rt = hop_route(e, cd, hop);
    return dir ? rt->ff_rev[cd->tier] : rt->ff_fwd[cd->tier];
}

const struct lr_path *
lr_jenv_cand_path(const struct lr_jenv *e, int a, int dir)
{
    return lr_jenv_cand_hop_path(e, a, 0, dir);
}

int
lr_jenv_cand_first(const struct lr_jenv *e, int a, int dir)
{
    return lr_jenv_cand_hop_first(e, a, 0, dir);
}

int
lr_jenv_set_load(struct lr_jenv *e, double load)
{
    if (!(load > 0) || !isfinite(load))
        return EINVAL;
    e->cfg.load = load;
    return 0;
}

bool
lr_jenv_done(const struct lr_jenv *e)
{
    return e->done;
}

int
lr_jenv_n_actions(const struct lr_jenv *e)
{
    return e->n_cands + (e->cfg.refuse ? 1 : 0);
}

int
lr_jenv_n_cands(const struct lr_jenv *e)
{
    return e->n_cands;
}

int
lr_jenv_refuse_action(const struct lr_jenv *e)
{
    return e->cfg.refuse ? e->n_cands : -1;
}

const struct lr_jenv_cand *
lr_jenv_cand(const struct lr_jenv *e, int a)
{
    return &e->cands[a];
}

const uint8_t *
lr_jenv_mask(const struct lr_jenv *e)
{
    /* A lazy mask is computed on its first read: the environment's own
     * memory (lr_jenv_new allocates it), changed behind const as a cache
     * is; nothing observable changes. */
    if (!e->mask_ok)
        compute_mask((struct lr_jenv *) e);
    return e->mask;
}

void
lr_jenv_set_lazy_mask(struct lr_jenv *e, bool on)
{
    e->lazy = on;
}

int
lr_jenv_first_in_mask(const struct lr_jenv *e, const uint8_t *mask)
{
    const int *o = lr_jenv_by_time(e);
    for (int i = 0; i < e->n_cands; i++)
        if (mask[o[i]])
            return o[i];
    return -1;
}

int
lr_jenv_first_feasible(const struct lr_jenv *e)
{
    return e->first_ok != -2 ? e->first_ok
                             : lr_jenv_first_in_mask(e, lr_jenv_mask(e));
}

double
lr_jenv_load_estimate(const struct lr_jenv *e)
{
    return lr_rate_get(&e->arrivals, e->now) * e->cfg.holding;
}

int
lr_jenv_set_load_estimate(struct lr_jenv *e, double load)
{
    if (!(load >= 0) || !isfinite(load))
        return EINVAL;
    lr_rate_set(&e->arrivals, e->now, load / e->cfg.holding);
    return 0;
}

int
lr_jenv_obs_size(const struct lr_jenv *e)
{
    return e->n_dcs + e->cfg.n_models + e->cfg.n_demands
           + e->n_dcs * e->n_dcs * e->k * 2 + e->n_cands
           + (e->cfg.refuse ? 1 : 0) + (e->cfg.known_work ? 1 : 0)
           + (e->cfg.held_work ? e->n_dcs : 0)
           + (e->cfg.observe_load ? 1 : 0);
}

void
lr_jenv_observe(const struct lr_jenv *e, float *o)
{
    /* First: with a lazy mask, reading it makes the routes' caches whole
     * (their free shares and largest blocks below). */
    const uint8_t *mask = lr_jenv_mask(e);
    for (int d = 0; d < e->n_dcs; d++)
        *o++ = (float) (e->dc_gpus[d] - e->used[d]) / e->dc_gpus[d];
    for (int i = 0; i < e->cfg.n_models; i++)
        *o++ = i == e->job_model;
    for (int i = 0; i < e->cfg.n_demands; i++)
        *o++ = i == e->job_demand;
    int nr = e->n_dcs * e->n_dcs * e->k;
    for (int i = 0; i < nr; i++) {
        const struct route *rt = &e->routes[i];
        *o++ = rt->fwd ? rt->free_share : 0;
        *o++ = rt->fwd ? rt->max_block : 0;
    }
    const float *ratio = e->ratio + (size_t) job_class(e) * e->n_cands;
    float best = 0;
    for (int c = 0; c < e->n_cands; c++) {
        float v = mask[c] ? ratio[c] : 0.0f;
        best = v > best ? v : best;
        *o++ = v;
    }
    if (e->cfg.refuse)
        *o++ = best;
    if (e->cfg.known_work)
        *o++ = (float) log1p(e->job_hold / e->cfg.holding);
    if (e->cfg.held_work) {
        double held[LR_JENV_MAX_DCS] = { 0 };
        const struct lr_jenv *pr = e->proto ? e->proto : e;
        for (int i = 0; i < e->n_act; i++) {
            const struct active *a = &e->act[i];
            double left = a->dep > e->now ? a->dep - e->now : 0;
            if (a->resv >= 0) {
                for (int d = 0; d < e->n_dcs; d++)
                    held[d] += pr->resv[a->resv].gpus[d] * left;
            } else {
                const struct lr_jenv_cand *cd = &e->cands[a->cand];
                for (int k = 0; k < cd->n_dcs; k++)
                    held[cd->dc[k]] += a->g[k] * left;
            }
        }
        for (int d = 0; d < e->n_dcs; d++)
            *o++ = (float) log1p(held[d] / (e->dc_gpus[d] * e->cfg.holding));
    }
    if (e->cfg.observe_load)
        *o++ = (float) log1p(lr_jenv_load_estimate(e));
}

int
lr_jenv_job_model(const struct lr_jenv *e)
{
    return e->job_model;
}

double
lr_jenv_now(const struct lr_jenv *e)
{
    return e->now;
}

long
lr_jenv_job_index(const struct lr_jenv *e)
{
    return e->n_arr;
}

int
lr_jenv_job_gpus(const struct lr_jenv *e)
{
    return e->cfg.demands[e->job_demand];
}

int
lr_jenv_job_origin(const struct lr_jenv *e)
{
    return e->job_origin;
}

double
lr_jenv_cand_time(const struct lr_jenv *e, int a)
{
    return e->T[(size_t) job_class(e) * e->n_cands + a];
}

const int *
lr_jenv_by_time(const struct lr_jenv *e)
{
    return e->by_time + (size_t) job_class(e) * e->n_cands;
}

double
lr_jenv_job_tref(const struct lr_jenv *e)
{
    return e->tref[job_class(e)];
}

int
lr_jenv_cand_gpus(const struct lr_jenv *e, int a, int i)
{
    int gs[LR_JENV_MAX_CHAIN];
    if (i < 0 || i >= LR_JENV_MAX_CHAIN
        || !cand_split(e, &e->cands[a], e->job_demand, gs))
        return 0;
    return gs[i];
}

int
lr_jenv_dc_free(const struct lr_jenv *e, int dc)
{
    return e->dc_gpus[dc] - e->used[dc];
}

int
lr_jenv_dc_gpus(const struct lr_jenv *e, int dc)
{
    return e->dc_gpus[dc];
}

int
lr_jenv_n_dcs(const struct lr_jenv *e)
{
    return e->n_dcs;
}

int
lr_jenv_cand_hop_slots(const struct lr_jenv *e, int a, int hop)
{
    const struct lr_jenv_cand *cd = &e->cands[a];
    if (hop < 0 || hop + 1 >= cd->n_dcs)
        return 0;
    return hop_route(e, cd, hop)->slots[cd->tier];
}

int
lr_jenv_cand_slots(const struct lr_jenv *e, int a)
{
    int m = 0;
    for (int h = 0; h + 1 < e->cands[a].n_dcs; h++)
        m += lr_jenv_cand_hop_slots(e, a, h);
    return m;
}

double
lr_jenv_cand_km(const struct lr_jenv *e, int a)
{
    const struct lr_jenv_cand *cd = &e->cands[a];
    double km = 0;
    for (int h = 0; h + 1 < cd->n_dcs; h++) {
        const struct route *rt = hop_route(e, cd, h);
        km += rt->fwd ? rt->fwd->length_km : INFINITY;
    }
    return km;
}

double
lr_jenv_dc_distance(const struct lr_jenv *e, int node, int dc)
{
    return e->dist[node * e->n_dcs + dc];
}

double
lr_jenv_cand_free_share(const struct lr_jenv *e, int a)
{
    (void) lr_jenv_mask(e);     /* a lazy mask's caches made whole */
    const struct lr_jenv_cand *cd = &e->cands[a];
    double share = 1;
    for (int h = 0; h + 1 < cd->n_dcs; h++)
        share = fmin(share, hop_route(e, cd, h)->free_share);
    return share;
}

void
lr_jenv_metrics(const struct lr_jenv *e, struct lr_jenv_metrics *out)
{
    memset(out, 0, sizeof *out);
    out->arrivals = e->m_arrivals;
    out->blocked = e->m_blocked;
    out->blocking = e->m_arrivals ? (double) e->m_blocked / e->m_arrivals : 0;
    out->refused = e->m_refused;
    out->refusing = e->m_arrivals ? (double) e->m_refused / e->m_arrivals : 0;
    out->admitted = e->m_admitted;
    out->mean_iteration_s = e->m_admitted ? e->sum_T / e->m_admitted : 0;
    out->mean_slowdown = e->m_admitted ? e->sum_slow / e->m_admitted : 0;
    out->elapsed = e->counting ? e->now - e->t0 : 0;
    if (out->elapsed > 0) {
        out->gpu_utilisation = e->area_gpu / out->elapsed;
        out->dc_load_variance = e->area_var / out->elapsed;
        out->spectrum_utilisation = e->area_spec / out->elapsed;
    }
}

void
lr_jenv_run(struct lr_jenv *e, const struct lr_jenv_policy *p, void *arg,
            uint64_t seed, long arrivals, long warmup,
            struct lr_jenv_metrics *out)
{
    struct lr_rng rng;
    lr_rng_seed(&rng, seed + 1000003);
    lr_jenv_reset_limit(e, seed, warmup, arrivals);
    while (!e->done)
        lr_jenv_step(e, p->choose(arg, e, lr_jenv_mask(e), &rng));
    lr_jenv_metrics(e, out);
}
