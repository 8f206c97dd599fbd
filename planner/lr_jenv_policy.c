/*
 * lr_jenv_policy: the baselines of the joint environment (lr_jenv.h).
 * Every one picks among the same candidates, under the same mask, as PPO.
 *
 *   static    the first feasible candidate in list order: DC 0, 1, ...
 *             alone, then pairs in index order, route 0 first, tier
 *             100 G first (a fixed preference, blind to the state).
 *   nearest   the candidate whose farthest DC is nearest (km) to the
 *             job's origin ROADM; ties: one DC, lower tier, lower route.
 *   resource  the candidate that leaves the most free GPUs (as a share)
 *             in the fullest of its DCs: most available resources first
 *             (the PPO paper's resource-aware scheduler).
 *   greedy    the least predicted iteration time now; ties: fewer slots.
 *   zone      the zone/network-aware scheduler of the Kubernetes study:
 *             as few DCs (zones) as possible, then the best score of
 *             measured throughput (tier), delay (route km) and loss
 *             (here: how full the route's spectrum is, the telemetry a
 *             controller has).
 *   cdynp     CDynP per job: the DC chain of least T as CDynP plans it on
 *             the lowest tier and the shortest route (what it assumes of
 *             a network it does not plan), then KSP-FF: the first of the
 *             K routes with a free block at that tier.
 *   random    uniform among the feasible (a sanity floor).
 *
 * One more, beyond the list (docs/ppo.md, "Deliberate refusals
 * (work mode)"): an admission-control heuristic to set PPO's learnt
 * refusals against.
 *   greedy-cap  greedy's candidate, unless its slowdown T / T_ref (the
 *             least of the pending job's feasible candidates) exceeds a
 *             threshold theta: then the job is refused (action -1).  In
 *             the work holding mode such a job would hold its GPUs theta
 *             times as long as on an empty network (the hypothesis: room
 *             for several later jobs).  theta = inf is greedy.
 *
 * With triples or quadruples (lr_jenv_config.triples, .quads) each
 * reads a chain of three or four DCs as it reads a pair: nearest its
 * farthest DC, resource its fullest DC, zone its hops' total km and
 * least free share (and fewest DCs first), cdynp the chain's T at the
 * lowest tier and the first route index with a free block on every
 * hop; static reaches triples after every pair, quadruples last.
 *
 * And one written after an agent (docs/ppo.md, "Six equal DCs: the agent
 * pairs them"), to tell what it learnt from what it gains:
 *   pair      fixed pairs of DCs, matched nearest first (greedily: the
 *             two closest unmatched DCs, by the shortest of their
 *             candidates' routes in km, then the next two ...); a job
 *             goes to the first pair in that order on which an even
 *             split is feasible, on its least-T candidate there; when
 *             none is, greedy's choice.  On six DCs of 12 GPUs the pairs
 *             act as three DCs of 24.  The matching is redone per job
 *             (the policy keeps no state): O(C + D^3) for C candidates
 *             and D DCs.
 *
 * The baselines choose among the candidates only (lr_jenv_n_cands()):
 * the refusal action of an environment built for PPO with it is never
 * theirs; greedy-cap refuses through -1, as lr_jenv_step() allows in any
 * environment.
 */
#include <math.h>
#include <strings.h>

#include "planner/lr_jenv.h"

static int
static_choose(void *arg, const struct lr_jenv *e, const uint8_t *mask,
              struct lr_rng *rng)
{
    (void) arg;
    (void) rng;
    int n = lr_jenv_n_cands(e);
    for (int a = 0; a < n; a++)
        if (mask[a])
            return a;
    return -1;
}

/* Index of the feasible candidate of least key (lexicographic over
 * three doubles), or -1. */
#define PICK_MIN(KEY0, KEY1, KEY2)                                          \
    int best = -1;                                                          \
    double b0 = 0, b1 = 0, b2 = 0;                                          \
    for (int a = 0; a < lr_jenv_n_cands(e); a++) {                        \
        if (!mask[a])                                                       \
            continue;                                                       \
        const struct lr_jenv_cand *c = lr_jenv_cand(e, a);                  \
        (void) c;                                                           \
        double k0 = (KEY0), k1 = (KEY1), k2 = (KEY2);                       \
        if (best < 0 || k0 < b0 || (k0 == b0 && (k1 < b1                    \
                                   || (k1 == b1 && k2 < b2)))) {            \
            best = a;                                                       \
            b0 = k0;                                                        \
            b1 = k1;                                                        \
            b2 = k2;                                                        \
        }                                                                   \
    }                                                                       \
    return best

static double
far_km(const struct lr_jenv *e, const struct lr_jenv_cand *c)
{
    int o = lr_jenv_job_origin(e);
    double d = 0;
    for (int i = 0; i < c->n_dcs; i++)
        d = fmax(d, lr_jenv_dc_distance(e, o, c->dc[i]));
    return d;
}

static int
nearest_choose(void *arg, const struct lr_jenv *e, const uint8_t *mask,
               struct lr_rng *rng)
{
    (void) arg;
    (void) rng;
    PICK_MIN(far_km(e, c), c->n_dcs, c->tier * 16 + c->route);
}

/* The least free share, after placing candidate 'a', among its DCs. */
static double
free_after(const struct lr_jenv *e, int a)
{
    const struct lr_jenv_cand *c = lr_jenv_cand(e, a);
    double worst = 1;
    for (int i = 0; i < c->n_dcs; i++) {
        int d = c->dc[i];
        worst = fmin(worst, (double) (lr_jenv_dc_free(e, d)
                                      - lr_jenv_cand_gpus(e, a, i))
                            / lr_jenv_dc_gpus(e, d));
    }
    return worst;
}

static int
resource_choose(void *arg, const struct lr_jenv *e, const uint8_t *mask,
                struct lr_rng *rng)
{
    (void) arg;
    (void) rng;
    PICK_MIN(-free_after(e, a), c->n_dcs, c->tier * 16 + c->route);
}

static int
greedy_choose(void *arg, const struct lr_jenv *e, const uint8_t *mask,
              struct lr_rng *rng)
{
    (void) arg;
    (void) rng;
    /* The least (T, slots, index) among the feasible: the first feasible
     * one in lr_jenv_by_time's order. */
    return mask ? lr_jenv_first_in_mask(e, mask)
                : lr_jenv_first_feasible(e);
}

/* Higher is better: throughput, delay and spectrum headroom in [0, 1]
 * each, weighted 0.4 / 0.3 / 0.3; for one DC its free share after. */
static double
zone_score(const struct lr_jenv *e, int a)
{
    const struct lr_jenv_cand *c = lr_jenv_cand(e, a);
    if (c->n_dcs == 1)
        return free_after(e, a);
    double thr = lr_jenv_tier_gbps[c->tier] / 400.0;
    double delay = 1 / (1 + lr_jenv_cand_km(e, a) / 1000);
    return 0.4 * thr + 0.3 * delay + 0.3 * lr_jenv_cand_free_share(e, a);
}

static int
greedy_cap_choose(void *arg, const struct lr_jenv *e, const uint8_t *mask,
                  struct lr_rng *rng)
{
    double theta = arg ? *(const double *) arg : LR_JENV_CAP_DEFAULT;
    int a = greedy_choose(NULL, e, mask, rng);
    if (a >= 0 && lr_jenv_cand_time(e, a) > theta * lr_jenv_job_tref(e))
        return -1;
    return a;
}

/* Greedy's choice a, refused when the job would take more than theta of
 * the cluster's GPU-time over a mean holding: g X T(a) / T_ref over the
 * cluster's GPUs (the job's GPUs times its holding in units of h).
 * Needs known work (lr_jenv_job_work() < 0 otherwise: it is greedy). */
static int
greedy_work_choose(void *arg, const struct lr_jenv *e, const uint8_t *mask,
                   struct lr_rng *rng)
{
    double theta = arg ? *(const double *) arg : LR_JENV_WORK_CAP_DEFAULT;
    int a = greedy_choose(NULL, e, mask, rng);
    double x = lr_jenv_job_work(e);
    if (a < 0 || x < 0)
        return a;
    int all = 0;
    for (int d = 0; d < lr_jenv_n_dcs(e); d++)
        all += lr_jenv_dc_gpus(e, d);
    double take = lr_jenv_job_gpus(e) * x * lr_jenv_cand_time(e, a)
                  / lr_jenv_job_tref(e);
    return take > theta * all ? -1 : a;
}

static int
zone_choose(void *arg, const struct lr_jenv *e, const uint8_t *mask,
            struct lr_rng *rng)
{
    (void) arg;
    (void) rng;
    PICK_MIN(c->n_dcs, -zone_score(e, a), a);
}

/* The candidate CDynP plans for 'c''s DCs: same DCs, route 0, tier 0. */
static int
cdynp_view(const struct lr_jenv *e, int a)
{
    const struct lr_jenv_cand *c = lr_jenv_cand(e, a);
    return c->n_dcs == 1 ? a : a - c->route * LR_JENV_N_TIERS - c->tier;
}

static int
cdynp_choose(void *arg, const struct lr_jenv *e, const uint8_t *mask,
             struct lr_rng *rng)
{
    (void) arg;
    (void) rng;
    /* Candidates of one DC chain are consecutive, route-major then tier:
     * the first feasible at tier 0 in list order is KSP-FF's route. */
    PICK_MIN(c->n_dcs >= 2 && c->tier != 0 ? INFINITY
             : lr_jenv_cand_time(e, cdynp_view(e, a)),
             c->route, a);
}

/* pair: the DCs matched two by two, nearest first.  rank[d] is the
 * order in which d's pair was matched (0: the closest two), mate[d] its
 * partner; -1 for a DC left alone (an odd count). */
static void
pair_match(const struct lr_jenv *e, int *mate, int *rank)
{
    int n = lr_jenv_n_dcs(e);
    double km[LR_JENV_MAX_DCS][LR_JENV_MAX_DCS];
    for (int i = 0; i < n; i++) {
        mate[i] = rank[i] = -1;
        for (int j = 0; j < n; j++)
            km[i][j] = INFINITY;
    }
    for (int a = 0; a < lr_jenv_n_cands(e); a++) {
        const struct lr_jenv_cand *c = lr_jenv_cand(e, a);
        if (c->n_dcs != 2)
            continue;
        int i = c->dc[0], j = c->dc[1];
        double d = lr_jenv_cand_km(e, a);
        if (d < km[i][j])
            km[i][j] = km[j][i] = d;
    }
    /* n / 2 rounds of the closest unmatched two (ties: the lower
     * indices); with n <= LR_JENV_MAX_DCS, O(n^3) is no worse than
     * sorting the n^2 / 2 distances. */
    for (int r = 0; r < n / 2; r++) {
        int bi = -1, bj = -1;
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++)
                if (mate[i] < 0 && mate[j] < 0 && isfinite(km[i][j])
                    && (bi < 0 || km[i][j] < km[bi][bj])) {
                    bi = i;
                    bj = j;
                }
        if (bi < 0)
            break;
        mate[bi] = bj;
        mate[bj] = bi;
        rank[bi] = rank[bj] = r;
    }
}

static int
pair_choose(void *arg, const struct lr_jenv *e, const uint8_t *mask,
            struct lr_rng *rng)
{
    (void) arg;
    (void) rng;
    int mate[LR_JENV_MAX_DCS], rank[LR_JENV_MAX_DCS];
    pair_match(e, mate, rank);
    const int *order = lr_jenv_by_time(e);
    int best = -1, best_rank = 0;
    for (int k = 0; k < lr_jenv_n_cands(e); k++) {
        int a = order[k];
        const struct lr_jenv_cand *c = lr_jenv_cand(e, a);
        if (!mask[a] || c->n_dcs != 2 || mate[c->dc[0]] != c->dc[1]
            || lr_jenv_cand_gpus(e, a, 0) != lr_jenv_cand_gpus(e, a, 1))
            continue;
        if (best < 0 || rank[c->dc[0]] < best_rank) {
            best = a;
            best_rank = rank[c->dc[0]];
        }
    }
    return best >= 0 ? best : lr_jenv_first_in_mask(e, mask);
}

static int
random_choose(void *arg, const struct lr_jenv *e, const uint8_t *mask,
              struct lr_rng *rng)
{
    (void) arg;
    int n = lr_jenv_n_cands(e), nf = 0;
    for (int a = 0; a < n; a++)
        nf += mask[a];
    if (!nf)
        return -1;
    int pick = (int) lr_rng_below(rng, (uint32_t) nf);
    for (int a = 0; a < n; a++)
        if (mask[a] && pick-- == 0)
            return a;
    return -1;
}

const struct lr_jenv_policy lr_jenv_static = {
    "static", "first feasible in a fixed order (DC 0 first)",
    static_choose, NULL, false,
};
const struct lr_jenv_policy lr_jenv_nearest = {
    "nearest", "DCs nearest the job's origin ROADM", nearest_choose, NULL,
    false,
};
const struct lr_jenv_policy lr_jenv_resource = {
    "resource", "most free GPUs left in the fullest chosen DC",
    resource_choose, NULL, false,
};
const struct lr_jenv_policy lr_jenv_greedy = {
    "greedy", "least predicted iteration time now", greedy_choose, NULL,
    true,
};
const struct lr_jenv_policy lr_jenv_zone = {
    "zone", "fewest DCs, then throughput, delay and spectrum telemetry",
    zone_choose, NULL, false,
};
const struct lr_jenv_policy lr_jenv_cdynp = {
    "cdynp", "CDynP's DC chain at 100G, then KSP-FF", cdynp_choose, NULL,
    false,
};
const struct lr_jenv_policy lr_jenv_random = {
    "random", "uniform among the feasible", random_choose, NULL, false,
};

const struct lr_jenv_policy lr_jenv_pair = {
    "pair", "even splits over fixed pairs of nearest DCs, first fit",
    pair_choose, NULL, false,
};

const struct lr_jenv_policy lr_jenv_greedy_cap = {
    "greedy-cap", "greedy, but refuses a job slowed more than theta "
    "(--cap)", greedy_cap_choose, NULL, true,
};

const struct lr_jenv_policy lr_jenv_greedy_work = {
    "greedy-work", "greedy, but refuses a job that would take more than "
    "theta of the cluster's GPU-time (--work-cap; needs --known-work)",
    greedy_work_choose, NULL, true,
};

const struct lr_jenv_policy *const lr_jenv_policies[] = {
    &lr_jenv_static, &lr_jenv_nearest, &lr_jenv_resource, &lr_jenv_greedy,
    &lr_jenv_zone, &lr_jenv_cdynp, &lr_jenv_random, &lr_jenv_pair,
    &lr_jenv_greedy_cap, &lr_jenv_greedy_work, NULL,
};

const struct lr_jenv_policy *
lr_jenv_policy_find(const char *name)
{
    for (int i = 0; lr_jenv_policies[i]; i++)
        if (!strcasecmp(lr_jenv_policies[i]->name, name))
            return lr_jenv_policies[i];
    return NULL;
}
