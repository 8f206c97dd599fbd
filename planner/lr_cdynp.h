/*
 * lr_cdynp: chain-based distributed dynamic programming (CDynP) for
 * pipeline plans across data centers.
 *
 * Three parties, three files:
 *   lr_cdynp_local.c    what runs inside one DC: the local DP over its own
 *                       devices, exported only as costs of layer ranges;
 *                       the DC's step of the chain; its backtracking (and
 *                       a pool of such handles shared across plans).
 *   lr_cdynp_chain.c    the coordinator: DC order, pre-partition windows,
 *                       passing summaries down the chain, backtracking.
 *   lr_cdynp_summary.c  the state summary on the wire (encode/decode).
 *
 * Privacy is in the types: struct lr_cdynp_dc is opaque outside
 * lr_cdynp_local.c, so the coordinator and the other DCs can hold a handle
 * and call the functions below but cannot read a DC's devices, counts,
 * types or internal bandwidth.  What a DC reveals: its aggregate compute
 * N P eta (one number, for the pre-partition), and its state summary
 * {(layer index, bottleneck time, time sum, sync time)}; over the agent
 * protocol also its stage counts and whether a window is feasible
 * (docs/privacy.md says what each of these tells, the sync time about
 * the DC's internal bandwidth included).  The links between DCs are the
 * network operator's own knowledge.
 *
 * Objective.  Every partial plan (a DC's range, a chain prefix) carries
 * the three parts of T (lr_timemodel.h): bottleneck B = max of t and x,
 * sum = sum of t and 2c, sync = max of S.  The paper's CDynP minimises
 * the bottleneck alone (LR_CDYNP_LEX, with the sum and the sync breaking
 * its many ties: our addition).  Minimising T's own expression
 * sum + (m-1) B + sync at every step (LR_CDYNP_TIME) is exact for a whole
 * chain but only a heuristic inside the DP, where a max term may later be
 * dominated; each ordering wins where the other loses, so the coordinator
 * runs both and keeps the better plan (our deviation; docs/cdynp.md has
 * the gaps to the exact optimum).
 */
#ifndef LR_CDYNP_H
#define LR_CDYNP_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "planner/lr_timemodel.h"

#define LR_CDYNP_VERSION 1
/* A summary whose entries carry stage counts (the _BOUND objectives'):
 * its entries are keyed by (layer, stages). */
#define LR_CDYNP_VERSION_COUNTS 2
#define LR_CDYNP_MAX_ENTRIES 1024
#define LR_CDYNP_DEFAULT_WINDOW 4
/* Up to this many DCs, CDynP tries every chain (lr_cdynp_chain.c). */
#define LR_CDYNP_ALL_ORDERS 6
/* Beyond, a beam search over chains keeps this many chains of each
 * length (lr_cdynp_options.beam; lr_cdynp_chain.c), at most
 * LR_CDYNP_MAX_BEAM, and narrower where more than LR_CDYNP_BEAM_CHAINS
 * chains could be run at that width (8 wide up to 8 DCs, 2 at 14-16,
 * 1 from 17). */
#define LR_CDYNP_BEAM 8
#define LR_CDYNP_MAX_BEAM 64
#define LR_CDYNP_BEAM_CHAINS 512
/* Caches the coordinator keeps: per objective and assumed stage count. */
#define LR_CDYNP_MAX_SETS 64

/* A cost of a layer range or a chain prefix: the three parts of T. */
struct lr_cdynp_cost {
    double bottleneck;        /* max of t and x, s */
    double sum;               /* sum of t and 2c, s */
    double sync;              /* max of S, s */
};

/* How costs are compared (see the objective note above). */
enum lr_cdynp_objective {
    LR_CDYNP_LEX,             /* bottleneck, then sum, then sync */
    LR_CDYNP_TIME,            /* sum + (m-1) bottleneck + sync, then
                               * bottleneck */
    /* The same two with each DC's range laid out as one stage (on as
     * many of its devices as is best): the coordinator's last try for a
     * chain whose assumed stage counts found no plan that holds
     * (lr_cdynp_chain.c).  Agents before 2026-12-04 refuse them. */
    LR_CDYNP_LEX_ONE,
    LR_CDYNP_TIME_ONE,
    /* The same two with at most 'assumed' stages in the whole chain,
     * each fitting memory for that many: the coordinator's count-bounded
     * runs B(q) (lr_cdynp_chain.c).  A DC's local DP then counts its
     * stages, and the summaries carry the chain's count so far
     * (LR_CDYNP_VERSION_COUNTS).  Agents before 2026-12-05 refuse them. */
    LR_CDYNP_LEX_BOUND,
    LR_CDYNP_TIME_BOUND,
};

/* LR_CDYNP_LEX or LR_CDYNP_TIME: how 'o' compares costs. */
static inline enum lr_cdynp_objective
lr_cdynp_obj_base(enum lr_cdynp_objective o)
{
    return o == LR_CDYNP_LEX_ONE || o == LR_CDYNP_LEX_BOUND ? LR_CDYNP_LEX
           : o == LR_CDYNP_TIME_ONE || o == LR_CDYNP_TIME_BOUND
           ? LR_CDYNP_TIME : o;
}

/* True when 'o' lays a DC's range out as one stage. */
static inline bool
lr_cdynp_obj_one(enum lr_cdynp_objective o)
{
    return o == LR_CDYNP_LEX_ONE || o == LR_CDYNP_TIME_ONE;
}

/* True when 'o' bounds the chain's stage count (the summaries carry
 * counts). */
static inline bool
lr_cdynp_obj_bound(enum lr_cdynp_objective o)
{
    return o == LR_CDYNP_LEX_BOUND || o == LR_CDYNP_TIME_BOUND;
}

/* What DC k tells DC k+1: for each layer a where DC k may end, the best
 * cost of layers 0..a over the chain so far; under a _BOUND objective
 * (version LR_CDYNP_VERSION_COUNTS) for each (a, c), the best with
 * exactly c stages in layers 0..a.  Self-contained (no pointers):
 * lr_cdynp_summary_encode() puts it on the wire. */
struct lr_cdynp_summary {
    uint16_t version;         /* LR_CDYNP_VERSION, or _COUNTS */
    uint16_t from;            /* chain position of the sender */
    uint16_t n;               /* entries used */
    /* Whether each entry's prev_last is set: an agent's STEP_OK of
     * protocol revision 2 (lr_cdynp_wire.h), version LR_CDYNP_VERSION
     * only.  Not part of the summary's own encoding: whoever makes a
     * summary sets it (0 from lr_cdynp_dc_step() and
     * lr_cdynp_summary_decode(); the memo clears it before it asks its
     * inner party, so a party that knows nothing of it leaves 0). */
    uint16_t has_prev;
    struct lr_cdynp_entry {
        uint32_t layer;       /* 0-based last layer of the prefix */
        uint16_t stages;      /* version _COUNTS: the prefix's stages
                               * (>= 1); 0 otherwise */
        /* When has_prev: the predecessor's last layer of this entry's
         * best prefix (-1 at the head), what lr_cdynp_dc_backtrack()
         * would answer for it.  16 bits hold every layer
         * (LR_MODEL_MAX_LAYERS) and keep an entry at 32 bytes. */
        int16_t prev_last;
        struct lr_cdynp_cost cost;   /* its three times, s */
    } e[LR_CDYNP_MAX_ENTRIES];
};

/* ---- inside one DC (lr_cdynp_local.c) ---- */

struct lr_cdynp_dc;

/* A DC's private planner for DC 'k' of 'tm' (its devices are copied; the
 * model is borrowed and must outlive the handle).  'n_stages' is the
 * number of pipeline stages assumed for the memory check (min(m, p) in
 * lr_timemodel.h).  Returns NULL when out of memory; free with
 * lr_cdynp_dc_free(). */
struct lr_cdynp_dc *lr_cdynp_dc_new(const struct lr_tm *tm, int k,
                                    int n_stages);
void lr_cdynp_dc_free(struct lr_cdynp_dc *);

/* Forgets every cached cost; assumes 'n_stages' and compares costs by
 * 'objective' from now on. */
void lr_cdynp_dc_reset(struct lr_cdynp_dc *, int n_stages,
                       enum lr_cdynp_objective objective);

/* The device step: a DC's local DP gives its stages multiples of 'step'
 * devices, and its columns are the counts 0, step, ..., so a DP over N
 * devices costs what one over N / step would (O(R^2 (N/step)^2)).  Step
 * 1 is the exact recurrence over every count.  The automatic step
 * (lr_cdynp_auto_step()) is 1 up to LR_CDYNP_AUTO_CELLS devices, so the
 * example clusters and the figures in docs/ of DCs up to that size are
 * planned as before, and above that the least step that keeps the
 * columns within it (DCs of thousands of devices: docs/cdynp.md, "Cost",
 * whose figures for 4,096 and 1,000,000 devices are at step 1).  A
 * plan's T may then come out higher or lower, as the DP's choices are
 * not optimal at any step; higher by far where a DC has many more
 * devices than its stages need, as each stage gets at least one step
 * (docs/cdynp.md).  A handle starts with the automatic step; setting another
 * forgets its rows.  'step' <= 0: automatic (LR_CDYNP_STEP_BEST: see
 * below); above N: N. */
#define LR_CDYNP_AUTO_CELLS 1024
/* 'step' LR_CDYNP_STEP_BEST: several grids, each range's cost the least
 * of theirs and its stages the winner's: the automatic step S over the
 * DC's N devices, steps 2S, 4S and 8S over N, and for N above
 * LR_CDYNP_AUTO_CELLS the steps t = 1, 2, 4, ... below S over the first
 * LR_CDYNP_AUTO_CELLS t devices (a smaller DC's grid, where a stage
 * may have fewer than S devices).  Never a worse cost for any range than
 * the automatic step alone; the plan's T is not always better (the
 * chain's choices are not optimal either), though it was never worse in
 * 24 cases of docs/benchmarks.md ("The best of the grids") and far
 * better on huge DCs.  Costs the sum of its grids: 1.1-1.7x the
 * automatic step's time up to LR_CDYNP_AUTO_CELLS devices, 2.3-3x at
 * twice that, 25x at a million (14 grids).  At most LR_CDYNP_MAX_ALT
 * grids beside the first; fewer when memory runs out. */
#define LR_CDYNP_STEP_BEST (-1)
#define LR_CDYNP_MAX_ALT 16
int lr_cdynp_auto_step(int n_devices);
void lr_cdynp_dc_set_step(struct lr_cdynp_dc *d, int step);

/* Lets 'd' copy the rows of its local DP that 'kin' computes the same:
 * 'kin' (borrowed, must outlive the link; NULL unlinks) is a handle of
 * the same DC (the same figures and model) under another assumed stage
 * count.  Only rows whose memory cut-offs match are taken, so the costs
 * are bit for bit those 'd' would compute; where memory never binds,
 * every assumption shares one DP.  No cycles: a kin must not have 'd'
 * among its own kin. */
void lr_cdynp_dc_set_kin(struct lr_cdynp_dc *d, struct lr_cdynp_dc *kin);

/* The only number a DC reveals up front: N P eta, FLOP/s. */
double lr_cdynp_dc_compute(const struct lr_cdynp_dc *);

/* Least cost of running layers a..b (0-based, inclusive) in this DC,
 * split into any number of stages with any device counts.  False when no
 * split fits (memory, devices). */
bool lr_cdynp_dc_cost(struct lr_cdynp_dc *, int a, int b,
                      struct lr_cdynp_cost *out);

/* The DC's step of the chain: for each last layer b in [lo, hi], the best
 * cost of layers 0..b given the predecessor's summary 'in' (NULL at the
 * head, which starts at layer 0) across the link 'in_link' (bytes/s, s).
 * Under a _BOUND objective, for each (b, c) with c in 1..the assumed
 * count, the best with exactly c stages in layers 0..b: 'in' and 'out'
 * are then of version LR_CDYNP_VERSION_COUNTS, and (hi - lo + 1) times
 * the assumed count must be within LR_CDYNP_MAX_ENTRIES.
 * Remembers its choices for lr_cdynp_dc_backtrack().  Returns 0, or
 * ENOENT when no b is feasible, ENOMEM when the DP's rows could not be
 * allocated, EINVAL for a malformed summary or window. */
int lr_cdynp_dc_step(struct lr_cdynp_dc *, const struct lr_cdynp_summary *in,
                     const struct lr_tm_link *in_link, uint16_t position,
                     int lo, int hi, struct lr_cdynp_summary *out);

/* Backtracking: told its last layer, the DC answers the predecessor's
 * last layer (-1 at the head).  Under a _BOUND objective it is also
 * told the chain's stages up to 'last' and answers those up to
 * '*prev_last' (0 at the head); otherwise 'stages' is ignored and
 * '*prev_stages' gets 0.  EINVAL if ('last', 'stages') was not in its
 * window's summary. */
int lr_cdynp_dc_backtrack(const struct lr_cdynp_dc *, int last, int stages,
                          int *prev_last, int *prev_stages);

/* Its own stages for layers a..b, appended to 'plan' with DC index
 * 'dc_index': under a _BOUND objective exactly 'stages' of them (the
 * counts backtracking gave, less the predecessor's), otherwise as many
 * as is best ('stages' ignored).  EOVERFLOW when they would take the
 * plan past LR_PLAN_MAX_STAGES (not ENOSPC, which from an agent means
 * its devices were taken), ENOENT if a..b is infeasible (in 'stages'),
 * EINVAL for a count out of range. */
int lr_cdynp_dc_stages(struct lr_cdynp_dc *, int a, int b, int stages,
                       int dc_index, struct lr_plan *plan);

/* ---- the summary on the wire (lr_cdynp_summary.c) ---- */

/* Bytes lr_cdynp_summary_encode() writes for 'n' entries of a summary of
 * version LR_CDYNP_VERSION, and of version 'version'. */
size_t lr_cdynp_summary_size(int n);
size_t lr_cdynp_summary_size_v(int version, int n);
/* Writes 's' into buf[len] (big-endian, IEEE doubles); returns the bytes
 * written or 0 when 'len' is too small or 's' is malformed. */
size_t lr_cdynp_summary_encode(const struct lr_cdynp_summary *s, uint8_t *buf,
                               size_t len);
/* Reads exactly 'len' bytes (either version); EPROTO for a wrong magic
 * or version, EINVAL for a length that does not match, too many entries,
 * entries out of order, a count of 0 in a version _COUNTS summary, or
 * costs that are negative or not finite. */
int lr_cdynp_summary_decode(const uint8_t *buf, size_t len,
                            struct lr_cdynp_summary *out);

/* ---- a DC as the coordinator sees it: a party ---- */

/* The coordinator drives every DC through this vtable, whether the DC is
 * a handle in this process (lr_cdynp_local_party_new()) or an agent
 * across the network (controller/lr_agent_party.c).  A party keeps its
 * caches per (objective, assumed stage count) itself.  Functions return
 * 0 or a positive errno value (ENOENT: no feasible layer in the window;
 * ENOTSUP to a _ONE or _BOUND objective: the party does not know it, an
 * agent from before it, and the coordinator asks it no objective that
 * new for the rest of the plan, planning without those runs;
 * ETIMEDOUT, ECONNREFUSED...: the party is unreachable). */
struct lr_cdynp_party;

struct lr_cdynp_party_class {
    /* N P eta, the one figure a DC reveals up front. */
    int (*compute)(struct lr_cdynp_party *, double *flops);
    /* lr_cdynp_dc_step() under 'obj', assuming 'assumed' stages. */
    int (*step)(struct lr_cdynp_party *, enum lr_cdynp_objective obj,
                int assumed, const struct lr_cdynp_summary *in,
                const struct lr_tm_link *in_link, uint16_t position, int lo,
                int hi, struct lr_cdynp_summary *out);
    /* lr_cdynp_dc_backtrack() of the last step under (obj, assumed). */
    int (*backtrack)(struct lr_cdynp_party *, enum lr_cdynp_objective obj,
                     int assumed, int last, int stages, int *prev_last,
                     int *prev_stages);
    /* The DC's final range: it lays out its own stages (under a _BOUND
     * objective exactly 'stages' of them, lr_cdynp_dc_stages()).
     * '*n_stages' gets how many; a party in this process also appends
     * them to 'plan' (with DC index 'dc_index') when 'plan' is not NULL;
     * a remote one keeps them to itself. */
    int (*finish)(struct lr_cdynp_party *, enum lr_cdynp_objective obj,
                  int assumed, int first, int last, int stages,
                  int dc_index, struct lr_plan *plan, int *n_stages);
    void (*free)(struct lr_cdynp_party *);
};

struct lr_cdynp_party {
    const struct lr_cdynp_party_class *cls;
};

/* DC 'k' of 'tm' as a party in this process (lr_cdynp_local.c).  NULL
 * when out of memory; free with party->cls->free(). */
struct lr_cdynp_party *lr_cdynp_local_party_new(const struct lr_tm *tm,
                                                int k);

/* The device step of the handles local party 'p' (from
 * lr_cdynp_local_party_new() or lr_cdynp_pool_party_new()) will make
 * (lr_cdynp_dc_set_step(); <= 0: automatic, the default).  0, or EBUSY
 * once the party has made a handle. */
int lr_cdynp_local_party_set_step(struct lr_cdynp_party *p, int step);

/* ---- DC handles shared across plans: a pool (lr_cdynp_local.c) ----
 * Many plans over the same DCs (the joint environment's T table: one
 * plan per job class and candidate, lr_jenv.c) redo the same local DP:
 * a DC's cost of a layer range depends on its own figures, the model,
 * the training shape, the objective and the assumed stage count, never
 * on the chain, the links or the other DCs.  A pool keeps the handles
 * (with the rows their DP has computed) of every such combination met,
 * and lends them to the parties made from it; a handle is lent to one
 * party at a time (a second DC of the same plan with the same figures
 * gets a handle of its own, freed with its party).  Plans made over a
 * pool are bit for bit those made without (lr_cdynp_plan): the DP is
 * deterministic and its rows do not depend on the order they are asked
 * for.  The pool reads the DCs' figures: it belongs with DCs that all run
 * in this process (a simulation), never across parties that keep their
 * devices private.  It never forgets a handle: free it when the plans are
 * done.  It tells models apart by address: every model planned over a
 * pool must outlive the pool.  Ownership: the pool owns its handles;
 * parties borrow them and must be freed before the pool;
 * lr_cdynp_pool_free(NULL) does nothing. */
struct lr_cdynp_pool;

/* An empty pool, or NULL when out of memory. */
struct lr_cdynp_pool *lr_cdynp_pool_new(void);
void lr_cdynp_pool_free(struct lr_cdynp_pool *);

/* lr_cdynp_local_party_new() whose handles come from 'pool' (borrowed:
 * must outlive the party).  NULL when out of memory. */
struct lr_cdynp_party *lr_cdynp_pool_party_new(struct lr_cdynp_pool *pool,
                                               const struct lr_tm *tm, int k);

/* The local DP's work that a step (first == -1: 'in', lo and hi as for
 * lr_cdynp_dc_step(); 'in' NULL at the head) or a final range (first..hi,
 * as for the party's finish()) would do on local party 'p' under (obj,
 * assumed): DP cells updated, an upper bound counting every device count
 * (a stage that does not fit memory ends its count early), 0 for rows
 * already computed.  1.5-2.4 ns a cell here (docs/agent-protocol.md).
 * For a server (lightrail agent) that must not let one request hold it:
 * ask first, refuse above a budget.  Out-of-range layers count 0 (the
 * step refuses them).  Asking takes nothing: a pair the party has no
 * handle for is counted on a handle made and freed here, so a request
 * refused for its work leaves the party as it was (so does one a step
 * or finish refuses: the handle made for it is given back).
 * 'p' must come from lr_cdynp_local_party_new() or
 * lr_cdynp_pool_party_new(). */
double lr_cdynp_local_party_work(struct lr_cdynp_party *p,
                                 enum lr_cdynp_objective obj, int assumed,
                                 const struct lr_cdynp_summary *in,
                                 int first, int lo, int hi);

/* The bytes local party 'p' holds for its caches: its handles (one per
 * (objective, assumed) pair asked) with the rows of local DP they have
 * reserved, 32 bytes a cell, kept until the party is freed: the memory
 * asked of the allocator, at most twice the rows computed (a start's
 * room doubles as it grows).  Each
 * request adds rows, bounded by lr_cdynp_local_party_work(), but their
 * total is not: a server (lightrail agent) asks this before each request
 * and refuses above a bound.  The rows of a handle borrowed from a pool
 * count as the party's while it holds it.  A sum over the party's
 * handles and their starts, O(sets x layers); 'p' as for
 * lr_cdynp_local_party_work(). */
double lr_cdynp_local_party_bytes(const struct lr_cdynp_party *p);

/* ---- a party's answers kept by the coordinator (lr_cdynp_memo.c) ----
 * A party around 'inner' (borrowed: it must outlive the memo party,
 * which never frees it) that answers a STEP, BACKTRACK or FINISH it was
 * asked before from what 'inner' answered then, without asking again:
 * the beam search over agents asks many requests twice.  The plan is
 * the same, bit for bit: a DC's answers depend on the request alone.
 * 'inner' must keep its stages to itself at finish (an agent): a
 * finish answered from the memo appends nothing to the plan.  Holds at
 * most LR_CDYNP_MEMO_BYTES (past it, a request is sent and not kept);
 * one memo party per plan (free it with its cls->free() when the plan
 * is done).  'm', the model's microbatches, as 'inner' takes an assumed
 * stage count past it for m (0: it takes each as given).  NULL when out
 * of memory. */
#define LR_CDYNP_MEMO_BYTES ((size_t) 16 << 20)
struct lr_cdynp_party *lr_cdynp_memo_party_new(struct lr_cdynp_party *inner,
                                               int m);
bool lr_cdynp_memo_party_is(const struct lr_cdynp_party *p);
/* The bytes memo party 'p' keeps at most, LR_CDYNP_MEMO_BYTES unless
 * set (tests set it low to reach the bound). */
void lr_cdynp_memo_party_set_bound(struct lr_cdynp_party *p, size_t bytes);

/* The requests memo party 'p' sent its inner party and those it
 * answered itself; a replay is a STEP sent again so that the inner
 * party backtracks it (a BACKTRACK reads the last STEP); 'bytes' what
 * its records hold (counted against LR_CDYNP_MEMO_BYTES).  'p' must come
 * from lr_cdynp_memo_party_new() (lr_cdynp_memo_party_is()), as for
 * lr_cdynp_memo_party_set_bound(). */
struct lr_cdynp_memo_counts {
    long steps, step_hits, backtracks, backtrack_hits, finishes,
         finish_hits, replays;
    /* BACKTRACKs answered from the predecessors the STEP's answer
     * carried (lr_cdynp_summary.has_prev): never sent, and no STEP sent
     * again for them. */
    long backtrack_preds;
    double bytes;
};
struct lr_cdynp_memo_counts
lr_cdynp_memo_party_counts(const struct lr_cdynp_party *p);

/* Whether memo party 'p' (as for lr_cdynp_memo_party_set_bound()) had
 * its inner party answer a STEP sent again (a replay) otherwise than the
 * first time, and so failed a BACKTRACK with EPROTO: the inner party is
 * at fault, and the EPROTO alone does not say which party raised it.
 * When so, the first such STEP's objective and window in '*obj', '*lo',
 * '*hi'. */
bool lr_cdynp_memo_party_differed(const struct lr_cdynp_party *p,
                                  enum lr_cdynp_objective *obj, int *lo,
                                  int *hi);

/* ---- the coordinator (lr_cdynp_chain.c) ---- */

struct lr_cdynp_options {
    int window;               /* +-w layers around each pre-partition
                               * boundary; < 0 = the whole range, cut
                               * like any window to its first
                               * LR_CDYNP_MAX_ENTRIES boundaries (a
                               * summary's most): "whole" only up to
                               * 1,024 layers a DC */
    const int *order;         /* DC indices in chain order, or NULL for
                               * the rule of lr_cdynp_order() */
    int n_order;
    int device_step;          /* of every DC planned in this process
                               * (lr_cdynp_dc_set_step()); <= 0, as a
                               * zeroed struct has it: automatic */
    int beam;                 /* beyond LR_CDYNP_ALL_ORDERS DCs without
                               * an order: the chains kept at each
                               * length (lr_cdynp_chain.c); 0, as a
                               * zeroed struct has it: LR_CDYNP_BEAM;
                               * above LR_CDYNP_MAX_BEAM: that; < 0: no
                               * beam, the greedy chain's prefixes only
                               * (the search before 2026-12-06) */
};

/* lr_cdynp_options.beam for a beam width as users give it (lightrail
 * plan --beam, lightraild's cdynp-beam): 0 there is the greedy chain's
 * prefixes only, which the options, zeroed by default, spell -1. */
int lr_cdynp_beam_option(int width);

/* The default chain order: start at the DC with the most compute, then
 * repeatedly append the unvisited DC with the fastest link from the tail
 * (ties: more compute, then lower index).  DCs that cannot be reached are
 * left out, and so are DCs without compute (no devices, as lightraild
 * leaves a DC whose devices other jobs hold): no stage can run there, and
 * the pipeline cannot pass through a DC without a stage.  The head is
 * always there, so at least one index is written even when no DC has
 * devices.  Writes up to tm->n_dcs indices to 'order'; returns how many. */
int lr_cdynp_order(const struct lr_tm *, int *order);

/* Plans with CDynP on 'tm' and keeps the chain of least T: the given
 * order, else every ordered subset of linked DCs when there are at most
 * LR_CDYNP_ALL_ORDERS, else the prefixes of lr_cdynp_order() and the
 * chains of a beam search (lr_cdynp_options.beam).  Returns
 * LR_TM_OK with 'plan' and 'eval' filled, or why no plan exists. */
enum lr_tm_why lr_cdynp_plan(const struct lr_tm *,
                             const struct lr_cdynp_options *,
                             struct lr_plan *plan, struct lr_tm_eval *eval);

/* lr_cdynp_plan() with the DCs' handles from 'pool' (see above): the same
 * plan and evaluation, bit for bit, without redoing the local DP of a DC
 * the pool has met under the same figures.  Not thread-safe for one
 * pool. */
enum lr_tm_why lr_cdynp_plan_pool(struct lr_cdynp_pool *pool,
                                  const struct lr_tm *,
                                  const struct lr_cdynp_options *,
                                  struct lr_plan *plan,
                                  struct lr_tm_eval *eval);

/* What the coordinator knows: the model and the training shape (public),
 * the links between DCs (the network operator's), and nothing of any DC's
 * devices.  lr_cdynp_plan_parties() takes only this, so the chain cannot
 * read a DC's inventory even by mistake. */
struct lr_cdynp_view {
    const struct lr_model *model;
    int m;                    /* microbatches */
    int n_dcs;
    const struct lr_tm_link (*link)[LR_TM_MAX_DCS];   /* [n_dcs][n_dcs] */
    double micro;             /* b, samples per microbatch; 0 when not
                               * known, which only keeps the beam search
                               * from skipping chains (lr_cdynp_chain.c) */
};

/* The coordinator's view of 'tm' (borrows tm's model and links). */
static inline struct lr_cdynp_view
lr_cdynp_view_of(const struct lr_tm *tm)
{
    struct lr_cdynp_view v = { tm->model, tm->m, tm->n_dcs, tm->link,
                               tm->train.micro };
    return v;
}

/* What the coordinator learns of a plan made over parties, some of which
 * may keep their stages private. */
struct lr_cdynp_result {
    double T;                         /* sum + (m-1) bottleneck + sync */
    struct lr_cdynp_cost cost;        /* of the whole chain */
    int n_dcs;                        /* in the chain */
    int dc[LR_TM_MAX_DCS];            /* DC indices in chain order */
    int first[LR_TM_MAX_DCS], last[LR_TM_MAX_DCS];   /* their layers */
    int n_stages[LR_TM_MAX_DCS];
    /* The run that gave this chain, as FINISH named it: a party asked
     * to reserve the winner (the agent's COMMIT) is asked with these
     * (and, under a _BOUND objective, with its n_stages). */
    enum lr_cdynp_objective objective;
    int assumed;
};

/* CDynP over 'parties' (one per DC of the view, by DC index).  'plan' (may be
 * NULL) gets the stages of the parties that share them.  Returns LR_TM_OK
 * with 'res' filled; LR_TM_NO_LINK..., or LR_TM_MEMORY when no chain
 * works; LR_TM_NOMEM when this process or a party ran out of memory;
 * LR_TM_STAGES when a party's stages overflowed the plan (EOVERFLOW);
 * '*party_err' (may be NULL) gets the first error a party
 * returned (a timeout, a refused connection), 0 if none; a party's
 * ENOTSUP to a newer objective is none (the vtable, below). */
enum lr_tm_why lr_cdynp_plan_parties(const struct lr_cdynp_view *,
                                     struct lr_cdynp_party *const *parties,
                                     const struct lr_cdynp_options *,
                                     struct lr_cdynp_result *res,
                                     struct lr_plan *plan, int *party_err);

/* Compares two costs under 'obj' with m microbatches: < 0 when a is
 * better.  Values within a relative 1e-9 are ties: they come from the
 * same terms added in different orders.  On the DP's hot path. */
static inline int
lr_cdynp_key_cmp(double x, double y)
{
    double tol = 1e-9 * (x > y ? x : y);
    return x < y - tol ? -1 : x > y + tol ? 1 : 0;
}

static inline int
lr_cdynp_cost_cmp(const struct lr_cdynp_cost *a, const struct lr_cdynp_cost *b,
                  enum lr_cdynp_objective obj, int m)
{
    int r;
    if (lr_cdynp_obj_base(obj) == LR_CDYNP_TIME) {
        r = lr_cdynp_key_cmp(a->sum + (m - 1) * a->bottleneck + a->sync,
                             b->sum + (m - 1) * b->bottleneck + b->sync);
        if (!r)
            r = lr_cdynp_key_cmp(a->bottleneck, b->bottleneck);
        if (!r)
            r = lr_cdynp_key_cmp(a->sum, b->sum);
    } else {
        r = lr_cdynp_key_cmp(a->bottleneck, b->bottleneck);
        if (!r)
            r = lr_cdynp_key_cmp(a->sum, b->sum);
        if (!r)
            r = lr_cdynp_key_cmp(a->sync, b->sync);
    }
    return r;
}

#endif
