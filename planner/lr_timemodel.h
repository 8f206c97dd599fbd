/*
 * lr_timemodel: the iteration-time model v1 of pipeline-parallel training
 * across data centers (../shared/reference/training.md is the
 * specification; every formula below is from there).
 *
 * Inputs: layers l with F_l, W_l, A_l (lr_model); element size e bytes;
 * global batch B, microbatch b, m = B / b microbatches.  DC k: devices of
 * peak P_k, efficiency eta_k, memory M_k; N_k of them; intra-DC bandwidth
 * beta_k (bytes/s) and latency alpha_k (s).  Between DCs k, k': capacity
 * C (bytes/s) and latency delta (s), "fixed" (from the cluster) or
 * "optical" (from lightpaths, delta = 5 us per km; lr_tm_set_link()).
 *
 * A plan is an ordered list of stages sigma = (layers i..j, DC k, g
 * devices); layers are contiguous from the first to the last; the stages
 * of one DC are consecutive; sum of g over a DC's stages <= N_k.
 *
 *   t_sigma = 3 b sum_{l=i..j} F_l / (g P eta)                  stage time
 *   S_sigma = 2 (g-1)/g e sum W_l / beta_k + 2 (g-1) alpha_k    grad sync
 *             (0 when g = 1)
 *   mem     = 16 sum W_l + min(m, p) (b/g) e sum A_l <= M       p = stages
 *   boundary after layer j, X = b A_j e bytes per microbatch:
 *     same DC:  c = alpha_k + X / beta_k,   x = X / beta_k
 *     k -> k':  c = delta + X / C,          x = X / C
 *   T = sum t_sigma + sum_boundaries 2c
 *       + (m - 1) max(max_sigma t_sigma, max_boundaries x) + max S_sigma
 *
 * Ownership: lr_tm_new() copies what it needs from the cluster and keeps
 * a pointer to the model, which must outlive it; free with lr_tm_free().
 * Layer indices are 0-based here; the CLI prints them 1-based.
 */
#ifndef LR_TIMEMODEL_H
#define LR_TIMEMODEL_H 1

#include <stdbool.h>
#include <stddef.h>

#include "planner/lr_cluster.h"
#include "planner/lr_model.h"

#define LR_PLAN_MAX_STAGES 512
#define LR_TM_MAX_DCS 64

struct lr_train {
    double batch;             /* B, samples per iteration */
    double micro;             /* b, samples per microbatch */
    double elem_bytes;        /* e, bytes per element (2: fp16/bf16) */
};

/* One DC as the time model sees it. */
struct lr_tm_dc {
    char name[LR_NAME_MAX];
    double peak;              /* P, FLOP/s per device */
    double eff;               /* eta */
    double mem;               /* M, bytes per device */
    int n_devices;            /* N */
    double beta;              /* bytes/s inside the DC */
    double alpha;             /* s */
};

struct lr_tm_link {
    double bw;                /* bytes/s; 0 = no link */
    double lat;               /* s */
};

struct lr_tm {
    const struct lr_model *model;
    struct lr_train train;
    int m;                    /* microbatches */
    int n_dcs;
    struct lr_tm_dc dcs[LR_TM_MAX_DCS];
    struct lr_tm_link link[LR_TM_MAX_DCS][LR_TM_MAX_DCS];
};

struct lr_stage {
    int first, last;          /* layers, 0-based, inclusive */
    int dc;
    int g;                    /* devices (data-parallel replicas) */
};

struct lr_plan {
    int n_stages;
    struct lr_stage stages[LR_PLAN_MAX_STAGES];
};

/* Why a plan or a request cannot run. */
enum lr_tm_why {
    LR_TM_OK = 0,
    LR_TM_MEMORY,             /* a stage does not fit device memory */
    LR_TM_DEVICES,            /* a DC's stages use more devices than it has */
    LR_TM_NO_LINK,            /* consecutive DCs without an inter-DC link */
    LR_TM_SHAPE,              /* layers not contiguous, a DC visited twice */
    LR_TM_NOMEM,              /* the planner itself ran out of memory: no
                               * verdict on the request */
    LR_TM_STAGES,             /* the best cut has more stages than a plan
                               * holds (LR_PLAN_MAX_STAGES) */
    LR_TM_WORK,               /* the search would take longer than its
                               * bound (pipedream's,
                               * LR_BASELINE_PIPEDREAM_MAX_STEPS) */
};

/* The terms of T for one plan, and each stage and boundary. */
struct lr_tm_eval {
    enum lr_tm_why why;
    int bad_stage;            /* the stage that failed, or -1 */
    double T;
    double compute_sum;       /* sum t */
    double comm_sum;          /* sum 2c */
    double bottleneck;        /* max(max t, max x) */
    double sync_max;          /* max S */
    double t[LR_PLAN_MAX_STAGES];
    double sync[LR_PLAN_MAX_STAGES];
    double mem[LR_PLAN_MAX_STAGES];
    /* boundary s sits after stage s (s = 0 .. n_stages - 2) */
    double bytes[LR_PLAN_MAX_STAGES];
    double c[LR_PLAN_MAX_STAGES];
    double x[LR_PLAN_MAX_STAGES];
};

/* Microbatches per iteration, m = B / b, at most: far beyond any
 * training (the intent's YANG bounds B), and so that m and m - 1 stay
 * ints. */
#define LR_TM_MAX_MICROBATCHES 1000000

/* Builds the model's view of 'cluster' for 'model' and 'train'.  EINVAL
 * when B or b is not positive and finite, b does not divide B, B / b is
 * above LR_TM_MAX_MICROBATCHES, e is not positive, or the cluster has no
 * DC or more than LR_TM_MAX_DCS; ENOMEM. */
int lr_tm_new(const struct lr_model *model, const struct lr_cluster *cluster,
              const struct lr_train *train, struct lr_tm **out);
void lr_tm_free(struct lr_tm *);

/* Sets the link between DCs a and b (both directions): capacity in
 * bytes/s (0 removes it) and latency in s. */
void lr_tm_set_link(struct lr_tm *, int a, int b, double bw, double lat);

/* The per-stage and per-boundary terms (layers 0-based, inclusive). */
double lr_tm_stage_time(const struct lr_tm *, int dc, int first, int last,
                        int g);
double lr_tm_stage_sync(const struct lr_tm *, int dc, int first, int last,
                        int g);
double lr_tm_stage_mem(const struct lr_tm *, int first, int last, int g,
                       int n_stages);
static inline bool
lr_tm_stage_fits(const struct lr_tm *tm, int dc, int first, int last, int g,
                 int n_stages)
{
    return lr_tm_stage_mem(tm, first, last, g, n_stages) <= tm->dcs[dc].mem;
}
/* Bytes crossing the boundary after layer 'layer', per microbatch. */
double lr_tm_boundary_bytes(const struct lr_tm *, int layer);
/* c and x of the boundary after 'layer' from DC 'from' to DC 'to';
 * false when the DCs differ and have no link. */
bool lr_tm_boundary(const struct lr_tm *, int layer, int from, int to,
                    double *c, double *x);

/* Evaluates T for 'plan'.  Returns the verdict (also in out->why); the
 * terms are filled as far as the plan could be read. */
enum lr_tm_why lr_tm_evaluate(const struct lr_tm *, const struct lr_plan *,
                              struct lr_tm_eval *out);

const char *lr_tm_why_str(enum lr_tm_why);

/* A reason a user can act on, for 'why' on 'tm' (for memory: the largest
 * single layer's need against the largest device of the DCs given
 * devices in 'tm'), into buf[len]. */
void lr_tm_explain(const struct lr_tm *, enum lr_tm_why, char *buf,
                   size_t len);

#endif
