/*
 * lr_cdynp_local: what one data center runs in CDynP.  The only file that
 * sees a DC's devices (see the privacy note in lr_cdynp.h).
 *
 * Local DP.  For a range starting at layer a, let E_a(i, j) be the least
 * cost (bottleneck B, sum U, sync Y; compared as lr_cdynp.h says) for
 * layers a..i on at most j of the DC's devices, cut into any number of
 * stages, each with its own device count g:
 *     E_a(i, j) = min over h in {a-1} U [a, i-1], g in 1..j of
 *        (t, t, s)                                      if h = a - 1
 *        (max(B, x_h, t), U + 2 c_h + t, max(Y, s))
 *                            with (B, U, Y) = E_a(h, j - g) otherwise
 * where t = t(h+1..i, g) and s = S(h+1..i, g) are the stage's time and
 * gradient sync, x_h and c_h the intra-DC
 * boundary after layer h (lr_timemodel.h), and the stage must fit device
 * memory for the assumed number of stages.  Cost(a, b) = E_a(b, N).
 * Rows are computed lazily, only as far as the chain asks: for R = b - a
 * + 1 layers, O(R^2 N^2) time and O(R N) space per start a.  Pruning
 * (ours, exact: the cells are bit for bit those of the plain recurrence,
 * test_cdynp.c): E_a(i, j) only gets better as j grows, so for each
 * (h, g) a binary search finds the first j where the row's best is
 * already below what any candidate of that stage can cost, and the
 * loop over j stops there; and it starts where the earlier stages have
 * room.  1.6-1.8x fewer cycles on LLaMA-2 70B over 16 DCs of 64.  The
 * loop over j, the DP's innermost, offers one stage to a run of cells
 * that do not depend on each other: the cells are kept as columns and
 * the loop is lr_cdynp_relax(), which gcc vectorises (2-3.5x on DCs
 * of 256-1,024 devices, the same cells).
 *
 * Assumed stage counts share rows (ours, exact): the assumed count p
 * reaches the cells only through the memory check, which cuts each last
 * stage (h, i) at the fewest devices that fit.  A row of E_a whose cuts,
 * and whose earlier rows' cuts, are the same under two counts is the
 * same row, so a handle copies it from its kin (the party's first
 * handle under the same objective) instead of computing it again.
 * Checking a row costs O(R log N) memory checks.  Where memory never
 * binds, every count a chain assumes shares one DP (3 DCs of 256
 * devices on GPT-1.9B: 2,266 rows computed where 5,775 were).
 *
 * Device step (ours, a deviation above LR_CDYNP_AUTO_CELLS devices): the
 * recurrence above with j and g multiples of a step S (j in {0, S, ...,
 * floor(N/S) S}), the stage's figures for g devices as before; so
 * O(R^2 (N/S)^2).  S = 1 is the recurrence itself and the automatic step
 * up to LR_CDYNP_AUTO_CELLS devices; above, the least S keeping N/S
 * within it.  Up to S - 1 devices of a DC go unused, and plans whose
 * stages need other counts are not searched; as the DP's choices are not
 * optimal at any step (the objectives hold max terms), a coarser step
 * also finds better plans at times (docs/cdynp.md, "Cost").
 *
 * Several grids (ours, LR_CDYNP_STEP_BEST in lr_cdynp.h): the handle
 * keeps handles over other (step, cells) and answers Cost(a, b) as the
 * least of their E_a(b, cells) under the objective's order, its stages
 * from the grid that gave it (ties: the first).  The sum of their costs;
 * each range no worse than the automatic grid's; the chain's T usually
 * better (docs/benchmarks.md, "The best of the grids, in each DC").
 *
 * One stage (objectives LR_CDYNP_LEX_ONE, LR_CDYNP_TIME_ONE, the
 * coordinator's last try): Cost(a, b) = min over g in 1..N of (t, t, s)
 * for the stage a..b on g devices, O(N) per range, nothing cached.
 *
 * Counted stages (objectives LR_CDYNP_LEX_BOUND, LR_CDYNP_TIME_BOUND, the
 * coordinator's count-bounded runs B(q), q the assumed count): the
 * recurrence above with the number of stages s as an index,
 *     C_a(i, s, j) = min over h, g of
 *        (t, t, s)                                   if h = a - 1, s = 1
 *        (max(B, x_h, t), U + 2 c_h + t, max(Y, s))
 *                        with (B, U, Y) = C_a(h, s - 1, j - g), s > 1
 * for s in 1..q, and Cost_s(a, b) = C_a(b, s, N): O(q R^2 N^2) time and
 * O(q R N) space per start, computed plainly (no pruning, no vectors, no
 * kin: it runs only when a chain's assumptions missed, docs/cdynp.md).
 *
 * Chain step.  With the predecessor's summary {(a, F(a))}:
 *     F_k(b) = min over a < b of
 *        (max(F(a).B, x_a, Cost.B), F(a).U + 2 c_a + Cost.U,
 *         max(F(a).Y, Cost.Y))          with Cost = Cost(a+1, b)
 * where x_a, c_a are the inter-DC boundary after layer a over the link
 * from the predecessor.  The DC keeps its argmin per b for backtracking.
 * Cost: O(|window_in| |window_out|) cost look-ups.  Counted, the
 * summary's entries are (a, c') and F_k(b, c) takes Cost_{c - c'}(a+1, b)
 * over the entries with c' < c, for each c in 1..q: the chain's count
 * crosses DCs, and the tail's entries for the last layer have at most
 * q stages in all.
 *
 * Source: the CDynP scheme of ../shared/reference/training.md (local DP
 * per DC exported as a cost function, chain DP over state summaries,
 * backtracking from the tail).  Deviations: the objectives (lr_cdynp.h)
 * and the assumed stage count for memory.
 *
 * Also here, as it reads the DCs' figures: the pool of handles shared
 * across plans (lr_cdynp_pool in lr_cdynp.h), for many plans over DCs
 * that all run in this process.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "planner/lr_cdynp.h"
#include "planner/lr_cdynp_relax.h"

/* fmax() is a libm call at -O2; costs are never NaN here. */
static inline double
max2(double a, double b)
{
    return a > b ? a : b;
}

/* A start's cells, [row][0..N] in each column (lr_cdynp_relax.h): the
 * best cost with at most j devices, the previous stage's last layer (a-1
 * = none) and the last stage's devices (0 = infeasible).  Columns, not
 * an array of structs, so that the innermost loop vectorises. */
struct start {
    int rows;                 /* rows computed: layers a .. a + rows - 1 */
    int cap;
    struct lr_cdynp_cols col; /* one allocation, col.B owns it */
    /* The kin's rows (see struct lr_cdynp_dc): how many leading rows are
     * known to be the same as the kin's, and whether row kin_rows is
     * known to differ (then no later row can be the same). */
    int kin_rows;
    bool kin_split;
    /* The counted cells (the _BOUND objectives), [row][s - 1][0..N] in
     * each column, for s in 1..cq: 'crows' rows computed; one
     * allocation, cc.B owns it. */
    int crows, ccap, cq;
    struct lr_cdynp_cols cc;
};

struct lr_cdynp_dc {
    /* Private: this DC's devices and network. */
    struct lr_tm_dc dc;
    /* Public inputs: the model and the training shape. */
    const struct lr_model *model;
    struct lr_train train;
    int m;
    int n_stages;
    enum lr_cdynp_objective obj;
    struct start *starts;     /* [n_layers], lazily filled */
    /* The chain step's memory: for b in [lo, hi], the predecessor's last
     * layer chosen (-2 = infeasible). */
    int lo, hi;
    int *back;
    /* The same under a _BOUND objective, for (b, c) with c in 1..q: the
     * predecessor's (last layer, stages) at [2 ((b - lo) q + c - 1)]. */
    int *cback;
    size_t cback_cap;
    /* A row could not be allocated since the last step began: the step
     * fails with ENOMEM, not ENOENT ("nothing fits"). */
    bool nomem;
    /* Kin: a handle of the same DC and objective under another assumed
     * stage count (borrowed, or NULL; lr_cdynp_dc_set_kin()).  The
     * assumption reaches the cells only through the memory check, which
     * cuts each (h, i) at the fewest devices that fit; a row whose cuts,
     * and whose earlier rows' cuts, are those of the kin is the kin's row,
     * bit for bit.  So such rows are copied from the kin (computed there
     * first when it lacks them), not computed twice: where memory never
     * binds, every assumption of a DC shares one DP. */
    struct lr_cdynp_dc *kin;
    /* The kin's assumed stage count when the starts' kin_rows and
     * kin_split were found: a kin reset to another count since has
     * other cuts, and they are found again. */
    int kin_stages;
    /* The device step (lr_cdynp_dc_set_step()): stages get multiples of
     * 'step' devices, and the DP's columns are the 'cells' + 1 counts
     * 0, step, 2 step, ..., cells step <= N. */
    int step, cells;
    /* Other grids of the same DC (LR_CDYNP_STEP_BEST): handles over other
     * (step, cells), owned; a range's cost is the least over this
     * handle's grid and the first 'n_alt' of theirs, its stages the
     * winner's ('best': made so; n_alt is 0 otherwise).  The 'n_made'
     * made live as long as the handle, whatever its step since: other
     * handles' grids may have them as kin (lr_cdynp_dc_set_kin()), and
     * a DC's grids are always the same ones. */
    bool best;
    int n_alt, n_made;
    struct lr_cdynp_dc *alt[LR_CDYNP_MAX_ALT];
    /* A one-DC time model over 'dc', last: its link table (64 KB, most of
     * the handle) is left unset, as nothing reads it (lr_tm_boundary
     * reads links only between two DCs), so that a handle touches a few
     * KB, not 72 (CDynP in the joint environment makes thousands). */
    struct lr_tm tm1;
};

static int step_for(int n_devices, int step);

/* 'd' with its (empty) starts and chain-step memory allocated, one per
 * layer; NULL, 'd' freed, when out of memory. */
static struct lr_cdynp_dc *
with_rows(struct lr_cdynp_dc *d)
{
    d->starts = calloc((size_t) d->model->n_layers, sizeof *d->starts);
    d->back = calloc((size_t) d->model->n_layers, sizeof *d->back);
    if (!d->starts || !d->back) {
        lr_cdynp_dc_free(d);
        return NULL;
    }
    return d;
}

struct lr_cdynp_dc *
lr_cdynp_dc_new(const struct lr_tm *tm, int k, int n_stages)
{
    struct lr_cdynp_dc *d = malloc(sizeof *d);
    if (!d)
        return NULL;
    /* Zero everything but tm1's link table. */
    memset(d, 0, offsetof(struct lr_cdynp_dc, tm1)
                 + offsetof(struct lr_tm, link));
    d->dc = tm->dcs[k];
    d->step = step_for(d->dc.n_devices, 0);
    d->cells = d->dc.n_devices / d->step;
    d->model = tm->model;
    d->train = tm->train;
    d->m = tm->m;
    d->n_stages = n_stages;
    /* A time model that knows only this DC, so that the shared formulas
     * (lr_tm_stage_time ...) serve without seeing any other DC. */
    d->tm1.model = tm->model;
    d->tm1.train = tm->train;
    d->tm1.m = tm->m;
    d->tm1.n_dcs = 1;
    d->tm1.dcs[0] = tm->dcs[k];
    return with_rows(d);
}

void
lr_cdynp_dc_free(struct lr_cdynp_dc *d)
{
    if (!d)
        return;
    for (int i = 0; i < d->n_made; i++)
        lr_cdynp_dc_free(d->alt[i]);
    for (int a = 0; d->starts && a < d->model->n_layers; a++) {
        free(d->starts[a].col.B);
        free(d->starts[a].cc.B);
    }
    free(d->starts);
    free(d->back);
    free(d->cback);
    free(d);
}

void
lr_cdynp_dc_reset(struct lr_cdynp_dc *d, int n_stages,
                  enum lr_cdynp_objective objective)
{
    for (int a = 0; a < d->model->n_layers; a++) {
        struct start *s = &d->starts[a];
        s->rows = 0;
        s->kin_rows = 0;
        s->kin_split = false;
        /* The counted cells' layout depends on the count. */
        free(s->cc.B);
        s->cc = (struct lr_cdynp_cols) { 0 };
        s->crows = s->ccap = s->cq = 0;
    }
    d->n_stages = n_stages;
    d->obj = objective;
    for (int i = 0; i < d->n_made; i++)
        lr_cdynp_dc_reset(d->alt[i], n_stages, objective);
}

int
lr_cdynp_auto_step(int n_devices)
{
    return n_devices <= LR_CDYNP_AUTO_CELLS
           ? 1 : (n_devices + LR_CDYNP_AUTO_CELLS - 1) / LR_CDYNP_AUTO_CELLS;
}

/* The step a DC of 'n_devices' gets when 'step' is asked (lr_cdynp.h):
 * <= 0 automatic, above the DC's devices all of them (at least 1).  One
 * rule for handles and parties, so that a pool lends a party only
 * handles of its step. */
static int
step_for(int n_devices, int step)
{
    int n = n_devices > 0 ? n_devices : 1;
    if (step <= 0)
        step = lr_cdynp_auto_step(n);
    return step < n ? step : n;
}

/* Frees every start's cells of 'd' itself. */
static void
forget_rows(struct lr_cdynp_dc *d)
{
    for (int a = 0; a < d->model->n_layers; a++) {
        free(d->starts[a].col.B);
        free(d->starts[a].cc.B);
        memset(&d->starts[a], 0, sizeof d->starts[a]);
    }
}

/* Sets the grid of 'd' itself: 'cells' + 1 counts, multiples of 'step'
 * (cells * step <= N); its rows go when the grid changes. */
static void
set_grid(struct lr_cdynp_dc *d, int step, int cells)
{
    if (step == d->step && cells == d->cells)
        return;
    /* The columns change size: every start's cells go. */
    forget_rows(d);
    d->step = step;
    d->cells = cells;
}

/* A handle of the same DC, objective and assumption as 'd' over the grid
 * (step, cells), with no rows, kin or grids of its own; NULL when out of
 * memory. */
static struct lr_cdynp_dc *
grid_new(const struct lr_cdynp_dc *d, int step, int cells)
{
    struct lr_cdynp_dc *g = malloc(sizeof *g);
    if (!g)
        return NULL;
    memcpy(g, d, offsetof(struct lr_cdynp_dc, tm1)
                 + offsetof(struct lr_tm, link));
    g->kin = NULL;
    g->kin_stages = 0;
    g->cback = NULL;
    g->cback_cap = 0;
    g->best = false;
    g->n_alt = g->n_made = 0;
    g->nomem = false;
    g->step = step;
    g->cells = cells;
    return with_rows(g);
}

/* The grids of LR_CDYNP_STEP_BEST after the automatic one (S over N):
 * S 2^k over N for k = 1..3 while a step of devices fits, and for
 * N > LR_CDYNP_AUTO_CELLS the grids of 2^k < S over the first
 * LR_CDYNP_AUTO_CELLS 2^k devices (what a DC of that size would plan).
 * Writes up to LR_CDYNP_MAX_ALT (step, cells) pairs; returns how many. */
static int
best_grids(int n, int S, int *step, int *cells)
{
    int k = 0;
    for (int f = 2; f <= 8 && S * f <= n && k < LR_CDYNP_MAX_ALT; f *= 2) {
        step[k] = S * f;
        cells[k++] = n / (S * f);
    }
    for (int t = 1; t < S && k < LR_CDYNP_MAX_ALT; t *= 2) {
        step[k] = t;
        cells[k++] = LR_CDYNP_AUTO_CELLS;
    }
    return k;
}

void
lr_cdynp_dc_set_step(struct lr_cdynp_dc *d, int step)
{
    bool best = step == LR_CDYNP_STEP_BEST;
    step = step_for(d->dc.n_devices, best ? 0 : step);
    set_grid(d, step, d->dc.n_devices / step);
    if (!best) {
        /* The other grids out of use, kept (without rows) for the links
         * to them. */
        if (d->best)
            for (int i = 0; i < d->n_made; i++)
                forget_rows(d->alt[i]);
        d->best = false;
        d->n_alt = 0;
        return;
    }
    /* The same grids every time (S is the automatic step of the same N):
     * those not made yet are added, and the rows of the others kept. */
    int st[LR_CDYNP_MAX_ALT], ce[LR_CDYNP_MAX_ALT];
    int n = best_grids(d->dc.n_devices, step, st, ce);
    for (int i = d->n_made; i < n; i++) {
        struct lr_cdynp_dc *g = grid_new(d, st[i], ce[i]);
        if (!g)
            break;   /* fewer grids: a plan still, as good as auto's */
        d->alt[d->n_made++] = g;
    }
    d->best = true;
    d->n_alt = d->n_made;
}

void
lr_cdynp_dc_set_kin(struct lr_cdynp_dc *d, struct lr_cdynp_dc *kin)
{
    d->kin = kin != d ? kin : NULL;
    d->kin_stages = d->kin ? d->kin->n_stages : 0;
    for (int a = 0; a < d->model->n_layers; a++) {
        d->starts[a].kin_rows = 0;
        d->starts[a].kin_split = false;
    }
    /* Each grid's kin is the kin's grid of the same place: the same
     * step and cells (take_from_kin() checks). */
    for (int i = 0; i < d->n_made; i++)
        lr_cdynp_dc_set_kin(d->alt[i], d->kin && i < d->kin->n_made
                                       ? d->kin->alt[i] : NULL);
}

double
lr_cdynp_dc_compute(const struct lr_cdynp_dc *d)
{
    return d->dc.n_devices * d->dc.peak * d->dc.eff;
}

/* Where cell (row, j) of a start is in each of its columns. */
static inline size_t
at(const struct lr_cdynp_dc *d, int row, int j)
{
    return (size_t) row * (d->cells + 1) + j;
}

/* The columns of one row, from cell j on. */
static inline struct lr_cdynp_cols
row_cols(const struct lr_cdynp_dc *d, const struct start *s, int row, int j)
{
    size_t k = at(d, row, j);
    return (struct lr_cdynp_cols) {
        s->col.B + k, s->col.U + k, s->col.Y + k, s->col.h + k, s->col.g + k,
    };
}

static inline struct lr_cdynp_cost
cost_at(const struct lr_cdynp_dc *d, const struct start *s, int row, int j)
{
    size_t k = at(d, row, j);
    return (struct lr_cdynp_cost) { s->col.B[k], s->col.U[k], s->col.Y[k] };
}

/* What the objective compares first: B (lex), or T's expression. */
static inline double
first_key(const struct lr_cdynp_dc *d, const struct lr_cdynp_cost *c)
{
    return lr_cdynp_obj_base(d->obj) == LR_CDYNP_TIME
           ? c->sum + (d->m - 1) * c->bottleneck + c->sync : c->bottleneck;
}

/* The first j in [from, N] whose best cell in 'row' is feasible with a
 * first key below 'below' (below = +inf: feasible at all), N + 1 when
 * none.  A row's best cells only get better as j grows (at most j
 * devices: more never hurt), so a binary search finds it. */
static inline int
first_below(const struct lr_cdynp_dc *d, const struct start *s, int row,
            int from, double below)
{
    int l = from, r = d->cells + 1;   /* the answer is in [l, r] */
    while (l < r) {
        int j = l + (r - l) / 2;
        struct lr_cdynp_cost c = cost_at(d, s, row, j);
        if (s->col.g[at(d, row, j)] != 0 && first_key(d, &c) < below)
            r = j;
        else
            l = j + 1;
    }
    return l;
}

/* The fewest steps of devices from which the stage first..last fits on
 * every count up to N, under d's assumed stage count; cells + 1 when none
 * fits.
 * This is where extend()'s loop over g, from N down, stops.  Memory
 * only shrinks as g grows (lr_tm_stage_mem: the activations' share
 * micro/g is a correctly rounded division, non-increasing in g, times
 * positive factors), so a binary search finds it. */
static int
cut(const struct lr_cdynp_dc *d, int first, int last)
{
    int l = 1, r = d->cells + 1;   /* the answer is in [l, r] */
    while (l < r) {
        int g = l + (r - l) / 2;
        if (lr_tm_stage_fits(&d->tm1, 0, first, last, g * d->step,
                             d->n_stages))
            r = g;
        else
            l = g + 1;
    }
    return l;
}

/* True when row 'row' of start 'a' and every row before it are the
 * kin's: the same cut for every last stage h+1..i (whatever the kin has
 * computed so far: cuts depend only on the assumptions). */
static bool
same_as_kin(struct lr_cdynp_dc *d, int a, int row)
{
    struct start *s = &d->starts[a];
    /* The handle with more microbatches in flight needs more memory: a
     * stage that fits there on one device fits on any number under
     * both (cut 1), the usual case, told by one check. */
    const struct lr_cdynp_dc *more = d->kin->n_stages > d->n_stages
                                     ? d->kin : d;
    while (!s->kin_split && s->kin_rows <= row) {
        int i = a + s->kin_rows;
        for (int h = a - 1; h < i && !s->kin_split; h++)
            s->kin_split = !lr_tm_stage_fits(&more->tm1, 0, h + 1, i, 1,
                                             more->n_stages)
                           && cut(d, h + 1, i) != cut(d->kin, h + 1, i);
        if (!s->kin_split)
            s->kin_rows++;
    }
    return !s->kin_split;
}

static bool extend(struct lr_cdynp_dc *d, int a, int b);

/* Row 'row' of start 'a' copied from the kin when it is the kin's
 * (computed there first if need be); false when there is no such kin
 * row, and the caller computes it.  The kin's own out-of-memory flag is
 * left as it was: its next step has not asked for anything. */
static bool
take_from_kin(struct lr_cdynp_dc *d, int a, int row)
{
    struct lr_cdynp_dc *kin = d->kin;
    if (!kin || kin->obj != d->obj || kin->step != d->step
        || kin->cells != d->cells)
        return false;
    if (kin->n_stages != d->kin_stages)
        lr_cdynp_dc_set_kin(d, kin);   /* reset since: cuts found again */
    if (!same_as_kin(d, a, row))
        return false;
    bool nomem = kin->nomem;
    bool ok = extend(kin, a, a + row);
    kin->nomem = nomem;
    if (!ok)
        return false;
    size_t k = at(d, row, 0), n = (size_t) d->cells + 1;
    const struct lr_cdynp_cols *from = &kin->starts[a].col;
    const struct lr_cdynp_cols *to = &d->starts[a].col;
    memcpy(to->B + k, from->B + k, n * sizeof *to->B);
    memcpy(to->U + k, from->U + k, n * sizeof *to->U);
    memcpy(to->Y + k, from->Y + k, n * sizeof *to->Y);
    memcpy(to->h + k, from->h + k, n * sizeof *to->h);
    memcpy(to->g + k, from->g + k, n * sizeof *to->g);
    return true;
}

/* Columns of n cells each in one block: the three double columns
 * (B, U, Y), then the two int ones (h, g); c->B owns the block.  False,
 * with d->nomem set, when out of memory. */
static bool
cols_alloc(struct lr_cdynp_dc *d, struct lr_cdynp_cols *c, size_t n)
{
    double *block = malloc(n * (3 * sizeof(double) + 2 * sizeof(int32_t)));
    if (!block) {
        d->nomem = true;
        return false;
    }
    *c = (struct lr_cdynp_cols) {
        block, block + n, block + 2 * n, (int32_t *) (block + 3 * n),
        (int32_t *) (block + 3 * n) + n,
    };
    return true;
}

/* Room in columns '*c' (of '*cap' rows of 'row' cells each, the first
 * 'used' cells of each column written) for 'need' rows, of at most
 * 'max' (the start's layers): twice the rows there were, or 'need' if
 * more, the written cells copied over.  Not room for every row a start
 * may get at once, as until 2026-12-06: a window's few rows reserved
 * the start's thousands, never written (so not resident, but counted
 * by nothing, and a server's bound on its caches, which counted rows
 * computed, let one request reserve thousands of times the bound).
 * The copies cost at most what the rows' computation writes.  False,
 * with d->nomem set and '*c' as it was, when out of memory. */
static bool
cols_room(struct lr_cdynp_dc *d, struct lr_cdynp_cols *c, int *cap,
          int need, int max, size_t row, size_t used)
{
    if (need <= *cap && c->B)
        return true;
    int want = *cap > max / 2 ? max : 2 * *cap;
    if (want < need)
        want = need;
    struct lr_cdynp_cols n;
    if (!cols_alloc(d, &n, (size_t) want * row))
        return false;
    if (c->B && used) {
        memcpy(n.B, c->B, used * sizeof *n.B);
        memcpy(n.U, c->U, used * sizeof *n.U);
        memcpy(n.Y, c->Y, used * sizeof *n.Y);
        memcpy(n.h, c->h, used * sizeof *n.h);
        memcpy(n.g, c->g, used * sizeof *n.g);
    }
    free(c->B);
    *c = n;
    *cap = want;
    return true;
}

/* Computes rows of start 'a' up to layer 'b'; false when out of memory. */
static bool
extend(struct lr_cdynp_dc *d, int a, int b)
{
    struct start *s = &d->starts[a];
    /* N: the columns' last count, in steps of U devices. */
    const int N = d->cells, U = d->step, need = b - a + 1;
    if (need <= s->rows)
        return true;
    if (need > d->model->n_layers - a)
        return false;   /* b beyond the last layer: callers check first */
    /* The double columns first, then the ints (cols_alloc()). */
    if (!cols_room(d, &s->col, &s->cap, need, d->model->n_layers - a,
                   (size_t) N + 1, (size_t) s->rows * (N + 1)))
        return false;
    for (int i = a + s->rows; i <= b; i++) {
        int row = i - a;
        if (take_from_kin(d, a, row)) {
            s->rows++;
            continue;
        }
        /* Every cell read in full by lr_cdynp_relax: all set. */
        size_t r0 = at(d, row, 0);
        for (int j = 0; j <= N; j++) {
            s->col.B[r0 + j] = s->col.U[r0 + j] = s->col.Y[r0 + j] = 0;
            s->col.h[r0 + j] = s->col.g[r0 + j] = 0;
        }
        /* The last stage is h+1..i on g devices; its time, sync and
         * memory do not depend on how many devices the earlier stages
         * hold, so they are computed once per (h, g), not per j. */
        for (int h = a - 1; h < i; h++) {
            double c = 0, x = 0;
            /* Earlier stages on fewer than 'lo_prev' devices: none fit. */
            int lo_prev = 0;
            if (h >= a) {
                lr_tm_boundary(&d->tm1, h, 0, 0, &c, &x);
                lo_prev = first_below(d, s, h - a, 0, INFINITY);
            }
            for (int g = N; g >= 1; g--) {
                if (!lr_tm_stage_fits(&d->tm1, 0, h + 1, i, g * U,
                                      d->n_stages))
                    break;   /* fewer devices need more memory each */
                if (g + lo_prev > N)
                    continue;   /* no room for the earlier stages */
                double t = lr_tm_stage_time(&d->tm1, 0, h + 1, i, g * U);
                double sy = lr_tm_stage_sync(&d->tm1, 0, h + 1, i, g * U);
                /* Pruning, exact: every candidate this stage makes costs
                 * at least 'lo' in the first key, and the row's best
                 * cells only get better with j and as the DP goes on;
                 * from the first j whose best is below lo, with a margin
                 * far above the comparison's 1e-9 ties, no j can win.
                 * lo: the stage's own parts (an earlier part only adds
                 * to each), and the earlier part's first key at its best
                 * (on N - g devices) plus what the stage adds to it (the
                 * sum's t + 2c under TIME; B only grows under LEX).  It
                 * skips most of the small g, whose stages are slow; the
                 * cells are the same as without it. */
                const struct lr_cdynp_cost own = {
                    h >= a ? max2(x, t) : t, h >= a ? t + 2 * c : t, sy,
                };
                double lo = first_key(d, &own);
                if (h >= a) {
                    struct lr_cdynp_cost pb = cost_at(d, s, h - a, N - g);
                    lo = max2(lo, first_key(d, &pb)
                                  + (lr_cdynp_obj_base(d->obj)
                                     == LR_CDYNP_TIME ? t + 2 * c : 0));
                }
                int end = first_below(d, s, row, g, lo * (1 - 1e-5));
                int j0 = g + lo_prev;
                if (j0 >= end)
                    continue;
                const struct lr_cdynp_stage st = {
                    .t = t, .sy = sy, .x = x, .two_c = 2 * c, .h = h,
                    .g = g,
                    .time = lr_cdynp_obj_base(d->obj) == LR_CDYNP_TIME,
                    .m1 = d->m - 1,
                };
                struct lr_cdynp_cols best = row_cols(d, s, row, j0);
                struct lr_cdynp_cols prev;
                if (h >= a)
                    prev = row_cols(d, s, h - a, j0 - g);
                if (end - j0 >= LR_CDYNP_RELAX_SHORT)
                    lr_cdynp_relax(&st, end - j0, h >= a ? &prev : NULL,
                                   &best);
                else
                    lr_cdynp_relax_inline(&st, end - j0,
                                          h >= a ? &prev : NULL, &best);
            }
        }
        s->rows++;
    }
    return true;
}

/* Layers a..b as one stage (the _ONE objectives): the best device count
 * g (a multiple of the step) into '*g_out', false when no count fits.
 * O(N / step), nothing cached. */
static bool
one_stage(const struct lr_cdynp_dc *d, int a, int b,
          struct lr_cdynp_cost *out, int *g_out)
{
    bool found = false;
    for (int g = d->cells * d->step; g >= 1; g -= d->step) {
        if (!lr_tm_stage_fits(&d->tm1, 0, a, b, g, d->n_stages))
            break;   /* fewer devices need more memory each */
        double t = lr_tm_stage_time(&d->tm1, 0, a, b, g);
        struct lr_cdynp_cost cand = {
            t, t, lr_tm_stage_sync(&d->tm1, 0, a, b, g),
        };
        if (!found || lr_cdynp_cost_cmp(&cand, out, d->obj, d->m) < 0) {
            *out = cand;
            *g_out = g;
            found = true;
        }
    }
    return found;
}

/* Where counted cell (row, s, j) of start 's' is in each of its
 * columns. */
static inline size_t
cat(const struct lr_cdynp_dc *d, const struct start *s, int row, int st,
    int j)
{
    return ((size_t) row * s->cq + (size_t) (st - 1)) * (d->cells + 1) + j;
}

/* Computes the counted rows of start 'a' up to layer 'b' (the _BOUND
 * objectives: C_a above, s in 1..the assumed count); false when out of
 * memory. */
static bool
extend_counted(struct lr_cdynp_dc *d, int a, int b)
{
    struct start *s = &d->starts[a];
    const int N = d->cells, U = d->step, need = b - a + 1;
    const int Q = d->n_stages;
    if (need <= s->crows)
        return true;
    if (need > d->model->n_layers - a)
        return false;
    /* A reset frees the counted cells (their layout is the count's). */
    if (!s->cc.B)
        s->ccap = 0;
    if (!cols_room(d, &s->cc, &s->ccap, need, d->model->n_layers - a,
                   (size_t) Q * (N + 1), (size_t) s->crows * Q * (N + 1)))
        return false;
    s->cq = Q;
    const struct lr_cdynp_cols *c = &s->cc;
    for (int i = a + s->crows; i <= b; i++) {
        int row = i - a;
        for (int st = 1; st <= Q; st++)
            for (int j = 0; j <= N; j++) {
                size_t k = cat(d, s, row, st, j);
                c->B[k] = c->U[k] = c->Y[k] = 0;
                c->h[k] = c->g[k] = 0;
            }
        for (int h = a - 1; h < i; h++) {
            double cb = 0, x = 0;
            if (h >= a)
                lr_tm_boundary(&d->tm1, h, 0, 0, &cb, &x);
            /* Stages before this one: h - a + 1 layers hold at most as
             * many, and each needs a step of devices. */
            int top = h - a + 2 < Q ? h - a + 2 : Q;
            for (int g = N; g >= 1; g--) {
                if (!lr_tm_stage_fits(&d->tm1, 0, h + 1, i, g * U, Q))
                    break;   /* fewer devices need more memory each */
                double t = lr_tm_stage_time(&d->tm1, 0, h + 1, i, g * U);
                double sy = lr_tm_stage_sync(&d->tm1, 0, h + 1, i, g * U);
                for (int st = h < a ? 1 : 2; st <= (h < a ? 1 : top); st++)
                    for (int j = g; j <= N; j++) {
                        struct lr_cdynp_cost cand = { t, t, sy };
                        if (h >= a) {
                            size_t p = cat(d, s, h - a, st - 1, j - g);
                            if (!c->g[p])
                                continue;
                            cand = (struct lr_cdynp_cost) {
                                max2(max2(c->B[p], x), t),
                                c->U[p] + 2 * cb + t, max2(c->Y[p], sy),
                            };
                        }
                        size_t k = cat(d, s, row, st, j);
                        struct lr_cdynp_cost cur = { c->B[k], c->U[k],
                                                     c->Y[k] };
                        if (c->g[k]
                            && lr_cdynp_cost_cmp(&cand, &cur, d->obj, d->m)
                               >= 0)
                            continue;
                        c->B[k] = cand.bottleneck;
                        c->U[k] = cand.sum;
                        c->Y[k] = cand.sync;
                        c->h[k] = h;
                        c->g[k] = g;
                    }
            }
        }
        s->crows++;
    }
    return true;
}

/* lr_cdynp_dc_cost() over the grid of 'd' alone, in exactly 'st' stages
 * under a _BOUND objective ('st' ignored otherwise). */
static bool
grid_cost(struct lr_cdynp_dc *d, int a, int b, int st,
          struct lr_cdynp_cost *out)
{
    int g;
    if (lr_cdynp_obj_one(d->obj))
        return one_stage(d, a, b, out, &g);
    if (lr_cdynp_obj_bound(d->obj)) {
        if (st < 1 || st > d->n_stages || st > b - a + 1
            || !extend_counted(d, a, b))
            return false;
        const struct start *s = &d->starts[a];
        size_t k = cat(d, s, b - a, st, d->cells);
        if (!s->cc.g[k])
            return false;
        *out = (struct lr_cdynp_cost) { s->cc.B[k], s->cc.U[k], s->cc.Y[k] };
        return true;
    }
    if (!extend(d, a, b))
        return false;
    const struct start *s = &d->starts[a];
    if (s->col.g[at(d, b - a, d->cells)] == 0)
        return false;
    *out = cost_at(d, s, b - a, d->cells);
    return true;
}

/* The grid of least cost for layers a..b among d's own and its other
 * grids (ties: the first, d's own), with that cost in '*out'; NULL when
 * no grid has a split that fits.  A grid out of memory marks 'd'. */
static struct lr_cdynp_dc *
best_grid(struct lr_cdynp_dc *d, int a, int b, int st,
          struct lr_cdynp_cost *out)
{
    struct lr_cdynp_dc *win = NULL;
    if (a < 0 || b < a || b >= d->model->n_layers)
        return NULL;
    if (grid_cost(d, a, b, st, out))
        win = d;
    for (int i = 0; i < d->n_alt; i++) {
        struct lr_cdynp_dc *g = d->alt[i];
        struct lr_cdynp_cost c;
        g->nomem = false;
        bool ok = grid_cost(g, a, b, st, &c);
        d->nomem |= g->nomem;
        if (ok && (!win || lr_cdynp_cost_cmp(&c, out, d->obj, d->m) < 0)) {
            *out = c;
            win = g;
        }
    }
    return win;
}

bool
lr_cdynp_dc_cost(struct lr_cdynp_dc *d, int a, int b,
                 struct lr_cdynp_cost *out)
{
    if (!lr_cdynp_obj_bound(d->obj))
        return best_grid(d, a, b, 0, out) != NULL;
    /* Counted: the least over the counts the assumption allows. */
    bool found = false;
    for (int st = 1; st <= d->n_stages; st++) {
        struct lr_cdynp_cost c;
        if (best_grid(d, a, b, st, &c)
            && (!found || lr_cdynp_cost_cmp(&c, out, d->obj, d->m) < 0)) {
            *out = c;
            found = true;
        }
    }
    return found;
}

/* lr_cdynp_dc_step() under a _BOUND objective (lr_cdynp.h): the
 * entries are (b, c), c in 1..q, in that order. */
static int
step_counted(struct lr_cdynp_dc *d, const struct lr_cdynp_summary *in,
             const struct lr_tm_link *in_link, int lo, int hi,
             struct lr_cdynp_summary *out)
{
    const int Q = d->n_stages, W = hi - lo + 1;
    if (Q < 1 || (size_t) W * (size_t) Q > LR_CDYNP_MAX_ENTRIES
        || (in && in->version != LR_CDYNP_VERSION_COUNTS))
        return EINVAL;
    size_t need = 2 * (size_t) W * (size_t) Q;
    if (need > d->cback_cap) {
        int *cb = realloc(d->cback, need * sizeof *cb);
        if (!cb)
            return ENOMEM;
        d->cback = cb;
        d->cback_cap = need;
    }
    out->version = LR_CDYNP_VERSION_COUNTS;
    for (int b = lo; b <= hi; b++)
        for (int c = 1; c <= Q; c++) {
            struct lr_cdynp_cost best = { 0, 0, 0 }, cost;
            int arg = -2, argc = 0;
            if (!in) {
                if (best_grid(d, 0, b, c, &cost)) {
                    best = cost;
                    arg = -1;
                }
            } else {
                for (int e = 0; e < in->n; e++) {
                    int a = (int) in->e[e].layer, ca = in->e[e].stages;
                    if (a >= b || a < 0 || ca < 1 || ca >= c
                        || !in_link || !(in_link->bw > 0)
                        || !best_grid(d, a + 1, b, c - ca, &cost))
                        continue;
                    double X = lr_tm_boundary_bytes(&d->tm1, a);
                    double x = X / in_link->bw, cl = in_link->lat + x;
                    struct lr_cdynp_cost cand = {
                        max2(max2(in->e[e].cost.bottleneck, x),
                             cost.bottleneck),
                        in->e[e].cost.sum + 2 * cl + cost.sum,
                        max2(in->e[e].cost.sync, cost.sync),
                    };
                    if (arg == -2
                        || lr_cdynp_cost_cmp(&cand, &best, d->obj, d->m) < 0) {
                        best = cand;
                        arg = a;
                        argc = ca;
                    }
                }
            }
            /* As in lr_cdynp_dc_step(): no cost a summary may not carry. */
            if (arg != -2 && !(isfinite(best.bottleneck)
                               && isfinite(best.sum) && isfinite(best.sync)))
                arg = -2;
            size_t k = 2 * ((size_t) (b - lo) * Q + (size_t) (c - 1));
            d->cback[k] = arg;
            d->cback[k + 1] = argc;
            if (arg != -2) {
                out->e[out->n].layer = (uint32_t) b;
                out->e[out->n].stages = (uint16_t) c;
                out->e[out->n].cost = best;
                out->n++;
            }
        }
    if (d->nomem)
        return ENOMEM;
    return out->n ? 0 : ENOENT;
}

int
lr_cdynp_dc_step(struct lr_cdynp_dc *d, const struct lr_cdynp_summary *in,
                 const struct lr_tm_link *in_link, uint16_t position, int lo,
                 int hi, struct lr_cdynp_summary *out)
{
    const int L = d->model->n_layers;
    const bool counted = lr_cdynp_obj_bound(d->obj);
    if (lo < 0 || hi < lo || hi >= L || hi - lo + 1 > LR_CDYNP_MAX_ENTRIES
        || (in && ((!counted && in->version != LR_CDYNP_VERSION)
                   || in->n > LR_CDYNP_MAX_ENTRIES)))
        return EINVAL;
    d->lo = lo;
    d->hi = hi;
    d->nomem = false;
    out->version = LR_CDYNP_VERSION;
    out->from = position;
    out->n = 0;
    out->has_prev = 0;
    if (counted) {
        int err = step_counted(d, in, in_link, lo, hi, out);
        if (err == EINVAL || err == ENOMEM)
            d->hi = lo - 1;   /* nothing to backtrack */
        return err;
    }
    for (int b = lo; b <= hi; b++) {
        struct lr_cdynp_cost best = { 0, 0, 0 }, cost;
        int arg = -2;
        if (!in) {
            if (lr_cdynp_dc_cost(d, 0, b, &cost)) {
                best = cost;
                arg = -1;
            }
        } else {
            for (int e = 0; e < in->n; e++) {
                int a = (int) in->e[e].layer;
                if (a >= b || a < 0 || !lr_cdynp_dc_cost(d, a + 1, b, &cost))
                    continue;
                if (!in_link || !(in_link->bw > 0))
                    continue;
                double X = lr_tm_boundary_bytes(&d->tm1, a);
                double x = X / in_link->bw, c = in_link->lat + x;
                struct lr_cdynp_cost cand = {
                    max2(max2(in->e[e].cost.bottleneck, x), cost.bottleneck),
                    in->e[e].cost.sum + 2 * c + cost.sum,
                    max2(in->e[e].cost.sync, cost.sync),
                };
                if (arg == -2
                    || lr_cdynp_cost_cmp(&cand, &best, d->obj, d->m) < 0) {
                    best = cand;
                    arg = a;
                }
            }
        }
        /* A cost no summary may carry (layers whose figures overflow to
         * infinity) is no way to end at b: the decoder refuses it. */
        if (arg != -2 && !(isfinite(best.bottleneck) && isfinite(best.sum)
                           && isfinite(best.sync)))
            arg = -2;
        d->back[b - lo] = arg;
        if (arg != -2) {
            out->e[out->n].layer = (uint32_t) b;
            out->e[out->n].stages = 0;
            out->e[out->n].cost = best;
            out->n++;
        }
    }
    if (d->nomem)
        return ENOMEM;
    return out->n ? 0 : ENOENT;
}

int
lr_cdynp_dc_backtrack(const struct lr_cdynp_dc *d, int last, int stages,
                      int *prev_last, int *prev_stages)
{
    if (last < d->lo || last > d->hi)
        return EINVAL;
    if (lr_cdynp_obj_bound(d->obj)) {
        if (stages < 1 || stages > d->n_stages || !d->cback)
            return EINVAL;
        size_t k = 2 * ((size_t) (last - d->lo) * d->n_stages
                        + (size_t) (stages - 1));
        if (d->cback[k] == -2)
            return EINVAL;
        *prev_last = d->cback[k];
        *prev_stages = d->cback[k + 1];
        return 0;
    }
    if (d->back[last - d->lo] == -2)
        return EINVAL;
    *prev_last = d->back[last - d->lo];
    *prev_stages = 0;
    return 0;
}

int
lr_cdynp_dc_stages(struct lr_cdynp_dc *dc, int a, int b, int stages,
                   int dc_index, struct lr_plan *plan)
{
    struct lr_cdynp_cost cost;
    const bool counted = lr_cdynp_obj_bound(dc->obj);
    if (counted && (stages < 1 || stages > dc->n_stages))
        return EINVAL;
    const struct lr_cdynp_dc *d = best_grid(dc, a, b, stages, &cost);
    if (!d)
        return ENOENT;
    if (lr_cdynp_obj_one(d->obj)) {
        int g;
        one_stage(d, a, b, &cost, &g);
        if (plan->n_stages + 1 > LR_PLAN_MAX_STAGES)
            return EOVERFLOW;
        plan->stages[plan->n_stages++] = (struct lr_stage) {
            a, b, dc_index, g,
        };
        return 0;
    }
    /* Walk back from (b, N), then append the stages in layer order. */
    struct lr_stage tmp[LR_PLAN_MAX_STAGES];
    int n = 0, i = b, j = d->cells;
    const struct start *s = &d->starts[a];
    const struct lr_cdynp_cols *col = counted ? &s->cc : &s->col;
    while (i >= a) {
        /* Counted: the cell of the stages left ('stages' less those
         * walked), which best_grid() found feasible. */
        if (counted && stages - n < 1)
            return ENOENT;   /* not reached: the cells add up */
        size_t k = counted ? cat(d, s, i - a, stages - n, j)
                           : at(d, i - a, j);
        if (n == LR_PLAN_MAX_STAGES)
            return EOVERFLOW;
        tmp[n++] = (struct lr_stage) { col->h[k] + 1, i, dc_index,
                                       col->g[k] * d->step };
        j -= col->g[k];
        i = col->h[k];
    }
    if (plan->n_stages + n > LR_PLAN_MAX_STAGES)
        return EOVERFLOW;
    while (n > 0)
        plan->stages[plan->n_stages++] = tmp[--n];
    return 0;
}

/* ---- the DC as a party in this process ---- */

/* Its handles, one per (objective, assumed stage count) met so far: a
 * DC's costs depend on both, never on the chain, so each handle's cache
 * serves every chain that asks under the same pair.  A party made from a
 * pool (lr_cdynp_pool_party_new) borrows its handles from the pool where
 * it can (pooled >= 0: the pool's entry) and owns the others. */
struct local_party {
    struct lr_cdynp_party base;
    const struct lr_tm *tm;   /* borrowed: must outlive the party */
    int k;
    struct lr_cdynp_pool *pool;   /* borrowed, or NULL */
    int step;                 /* its handles' device step (resolved), or
                               * LR_CDYNP_STEP_BEST */
    int n_sets;
    struct {
        enum lr_cdynp_objective obj;
        int assumed;
        struct lr_cdynp_dc *dc;
        int pooled;           /* the pool entry lent, or -1: owned */
    } sets[LR_CDYNP_MAX_SETS];
};

/* ---- handles shared across plans: the pool ----
 * An entry is a handle with what its costs depend on: the DC's figures
 * (name included), the model, the training shape, m, the objective and
 * the assumed stage count.  Two DCs equal in all of these have the same
 * cost of every layer range (the local DP reads nothing else), so a
 * handle made for one serves the other, with the rows it has already
 * computed.  A handle also keeps its last chain step (for the
 * backtracking), so it is lent to one party at a time ('owner'). */
struct pool_entry {
    struct lr_tm_dc dc;
    const struct lr_model *model;
    struct lr_train train;
    int m;
    enum lr_cdynp_objective obj;
    int assumed;
    int step;                 /* the handle's device step */
    struct lr_cdynp_dc *handle;
    const struct local_party *owner;   /* NULL when free to lend */
};

struct lr_cdynp_pool {
    int n, cap;
    struct pool_entry *e;
};

/* Bit for bit: the cost of a range must come out the same. */
static bool
same_double(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static bool
pool_match(const struct pool_entry *pe, const struct lr_tm *tm, int k,
           enum lr_cdynp_objective obj, int assumed, int step)
{
    const struct lr_tm_dc *d = &tm->dcs[k];
    return pe->model == tm->model && pe->m == tm->m && pe->obj == obj
        && pe->assumed == assumed && pe->step == step
        && pe->dc.n_devices == d->n_devices
        && same_double(pe->dc.peak, d->peak) && same_double(pe->dc.eff, d->eff)
        && same_double(pe->dc.mem, d->mem)
        && same_double(pe->dc.beta, d->beta)
        && same_double(pe->dc.alpha, d->alpha)
        && same_double(pe->train.batch, tm->train.batch)
        && same_double(pe->train.micro, tm->train.micro)
        && same_double(pe->train.elem_bytes, tm->train.elem_bytes)
        && strncmp(pe->dc.name, d->name, sizeof d->name) == 0;
}

struct lr_cdynp_pool *
lr_cdynp_pool_new(void)
{
    return calloc(1, sizeof(struct lr_cdynp_pool));
}

void
lr_cdynp_pool_free(struct lr_cdynp_pool *pool)
{
    if (!pool)
        return;
    for (int i = 0; i < pool->n; i++)
        lr_cdynp_dc_free(pool->e[i].handle);
    free(pool->e);
    free(pool);
}

/* A free handle of the pool for DC 'lp->k' under (obj, assumed), made and
 * added when there is none; lent to 'lp'.  Returns the entry, -1 when
 * the one there is lent to another party, -2 when out of memory. */
static int
pool_lend(struct lr_cdynp_pool *pool, struct local_party *lp,
          enum lr_cdynp_objective obj, int assumed)
{
    for (int i = 0; i < pool->n; i++)
        if (pool_match(&pool->e[i], lp->tm, lp->k, obj, assumed, lp->step)) {
            if (pool->e[i].owner)
                return -1;
            pool->e[i].owner = lp;
            return i;
        }
    if (pool->n == pool->cap) {
        int cap = pool->cap ? pool->cap * 2 : 16;
        struct pool_entry *e = realloc(pool->e, (size_t) cap * sizeof *e);
        if (!e)
            return -2;
        pool->e = e;
        pool->cap = cap;
    }
    struct lr_cdynp_dc *dc = lr_cdynp_dc_new(lp->tm, lp->k, assumed);
    if (!dc)
        return -2;
    lr_cdynp_dc_reset(dc, assumed, obj);
    lr_cdynp_dc_set_step(dc, lp->step);
    pool->e[pool->n] = (struct pool_entry) {
        .dc = lp->tm->dcs[lp->k], .model = lp->tm->model,
        .train = lp->tm->train, .m = lp->tm->m, .obj = obj,
        .assumed = assumed, .step = lp->step, .handle = dc, .owner = lp,
    };
    return pool->n++;
}

/* The party's handle under (obj, assumed), or NULL when it has none:
 * looks, makes nothing. */
static struct lr_cdynp_dc *
local_find(const struct local_party *lp, enum lr_cdynp_objective obj,
           int assumed)
{
    if (assumed > lp->tm->m)
        assumed = lp->tm->m;   /* only min(m, p) matters */
    for (int i = 0; i < lp->n_sets; i++)
        if (lp->sets[i].obj == obj && lp->sets[i].assumed == assumed)
            return lp->sets[i].dc;
    return NULL;
}

/* A new handle of DC 'lp->k' under (obj, assumed), at the party's step,
 * owned by the caller (lr_cdynp_dc_free()); NULL when out of memory. */
static struct lr_cdynp_dc *
handle_new(const struct local_party *lp, enum lr_cdynp_objective obj,
           int assumed)
{
    struct lr_cdynp_dc *dc = lr_cdynp_dc_new(lp->tm, lp->k, assumed);
    if (!dc)
        return NULL;
    lr_cdynp_dc_reset(dc, assumed, obj);
    lr_cdynp_dc_set_step(dc, lp->step);
    return dc;
}

/* The party's handle under (obj, assumed), made (or borrowed from the
 * pool) when it has none, '*made' then true; NULL when out of memory or
 * when the party holds LR_CDYNP_MAX_SETS already.  A request that fails
 * on a handle made for it gives it back (local_forget()), so that
 * refused requests cannot fill the party's sets. */
static struct lr_cdynp_dc *
local_handle(struct local_party *lp, enum lr_cdynp_objective obj,
             int assumed, bool *made)
{
    *made = false;
    if (assumed > lp->tm->m)
        assumed = lp->tm->m;
    struct lr_cdynp_dc *dc = local_find(lp, obj, assumed);
    if (dc)
        return dc;
    if (lp->n_sets == LR_CDYNP_MAX_SETS)
        return NULL;
    int pooled = -1;
    if (lp->pool) {
        pooled = pool_lend(lp->pool, lp, obj, assumed);
        if (pooled == -2)
            return NULL;
        if (pooled >= 0)
            dc = lp->pool->e[pooled].handle;
    }
    /* No pool, or its handle is lent to another DC of this plan with the
     * same figures: one of the party's own. */
    if (!dc && !(dc = handle_new(lp, obj, assumed)))
        return NULL;
    /* Kin: the party's first handle under the same objective (the one
     * most chains have asked), so that every assumption shares its rows
     * where memory does not tell them apart. */
    struct lr_cdynp_dc *kin = NULL;
    for (int i = 0; i < lp->n_sets && !kin; i++)
        if (lp->sets[i].obj == obj)
            kin = lp->sets[i].dc;
    lr_cdynp_dc_set_kin(dc, lr_cdynp_obj_one(obj) || lr_cdynp_obj_bound(obj)
                            ? NULL : kin);
    lp->sets[lp->n_sets].obj = obj;
    lp->sets[lp->n_sets].assumed = assumed;
    lp->sets[lp->n_sets].dc = dc;
    lp->sets[lp->n_sets].pooled = pooled;
    lp->n_sets++;
    *made = true;
    return dc;
}

/* Gives back set 'i': to the pool, with no link to this party's other
 * handles, or freed. */
static void
set_drop(struct local_party *lp, int i)
{
    if (lp->sets[i].pooled >= 0) {
        lr_cdynp_dc_set_kin(lp->sets[i].dc, NULL);
        lp->pool->e[lp->sets[i].pooled].owner = NULL;
    } else {
        lr_cdynp_dc_free(lp->sets[i].dc);
    }
}

/* Undoes local_handle()'s last making ('made'), when the request it was
 * made for failed ('err'): a request refused (layers out of range, out
 * of memory) must take nothing, or a peer could fill the party's
 * LR_CDYNP_MAX_SETS with refusals and be refused its own job.  The
 * newest set is nobody's kin (the kin is the first of its objective),
 * so dropping it leaves the others' links valid. */
static void
local_forget(struct local_party *lp, bool made, int err)
{
    if (!made || !err)
        return;
    set_drop(lp, --lp->n_sets);
}

static int
local_compute(struct lr_cdynp_party *p, double *flops)
{
    const struct local_party *lp = (const struct local_party *) p;
    const struct lr_tm_dc *d = &lp->tm->dcs[lp->k];
    *flops = d->n_devices * d->peak * d->eff;
    return 0;
}

static int
local_step(struct lr_cdynp_party *p, enum lr_cdynp_objective obj,
           int assumed, const struct lr_cdynp_summary *in,
           const struct lr_tm_link *in_link, uint16_t position, int lo,
           int hi, struct lr_cdynp_summary *out)
{
    struct local_party *lp = (struct local_party *) p;
    bool made;
    struct lr_cdynp_dc *dc = local_handle(lp, obj, assumed, &made);
    int err = dc ? lr_cdynp_dc_step(dc, in, in_link, position, lo, hi, out)
                 : ENOMEM;
    local_forget(lp, made, err);
    return err;
}

static int
local_backtrack(struct lr_cdynp_party *p, enum lr_cdynp_objective obj,
                int assumed, int last, int stages, int *prev_last,
                int *prev_stages)
{
    /* Only after a step under the same pair: nothing to make. */
    const struct lr_cdynp_dc *dc = local_find((struct local_party *) p, obj,
                                              assumed);
    return dc ? lr_cdynp_dc_backtrack(dc, last, stages, prev_last,
                                      prev_stages)
              : EINVAL;
}

static int
local_finish(struct lr_cdynp_party *p, enum lr_cdynp_objective obj,
             int assumed, int first, int last, int stages, int dc_index,
             struct lr_plan *plan, int *n_stages)
{
    struct local_party *lp = (struct local_party *) p;
    struct lr_plan *own = plan ? plan : malloc(sizeof *own);
    bool made = false;
    struct lr_cdynp_dc *dc = own ? local_handle(lp, obj, assumed, &made)
                                 : NULL;
    int err = ENOMEM;
    *n_stages = 0;
    if (dc) {
        if (!plan)
            own->n_stages = 0;
        int before = own->n_stages;
        err = lr_cdynp_dc_stages(dc, first, last, stages, dc_index, own);
        *n_stages = own->n_stages - before;
    }
    local_forget(lp, made, err);
    if (!plan)
        free(own);
    return err;
}

static void
local_free(struct lr_cdynp_party *p)
{
    struct local_party *lp = (struct local_party *) p;
    if (!lp)
        return;
    for (int i = 0; i < lp->n_sets; i++)
        set_drop(lp, i);
    free(lp);
}

static const struct lr_cdynp_party_class local_class = {
    .compute = local_compute,
    .step = local_step,
    .backtrack = local_backtrack,
    .finish = local_finish,
    .free = local_free,
};

struct lr_cdynp_party *
lr_cdynp_local_party_new(const struct lr_tm *tm, int k)
{
    struct local_party *lp = calloc(1, sizeof *lp);
    if (!lp || k < 0 || k >= tm->n_dcs) {
        free(lp);
        return NULL;
    }
    lp->base.cls = &local_class;
    lp->tm = tm;
    lp->k = k;
    lp->step = step_for(tm->dcs[k].n_devices, 0);
    return &lp->base;
}

int
lr_cdynp_local_party_set_step(struct lr_cdynp_party *p, int step)
{
    struct local_party *lp = (struct local_party *) p;
    if (lp->n_sets)
        return EBUSY;   /* its handles have rows of the old step */
    lp->step = step == LR_CDYNP_STEP_BEST
               ? step : step_for(lp->tm->dcs[lp->k].n_devices, step);
    return 0;
}

struct lr_cdynp_party *
lr_cdynp_pool_party_new(struct lr_cdynp_pool *pool, const struct lr_tm *tm,
                        int k)
{
    struct lr_cdynp_party *p = lr_cdynp_local_party_new(tm, k);
    if (p)
        ((struct local_party *) p)->pool = pool;
    return p;
}

/* Cells extend() updates to bring start 'a' up to layer 'b': for each
 * row i - a not yet computed, every h in [a-1, i-1] and g in 1..N walks
 * j from g to N: (i - a + 1) N (N + 1) / 2 cells.  A row taken from the
 * kin is computed there first, with every earlier row the kin lacks
 * (take_from_kin()), and each row is computed in one handle only: so
 * the rows count from the fewest any kin it may still take from has (a
 * pooled handle lent with rows to a party whose kin is new has more
 * than its kin). */
static double
extend_work(const struct lr_cdynp_dc *d, int a, int b)
{
    if (a < 0 || b < a || b >= d->model->n_layers)
        return 0;
    const double N = d->cells;
    const double r1 = b - a + 1;
    double r0 = d->starts[a].rows;
    for (const struct lr_cdynp_dc *k = d;
         k->kin && k->kin->obj == k->obj && k->kin->step == k->step
         && k->kin->cells == k->cells
         && (!k->starts[a].kin_split || k->kin->n_stages != k->kin_stages);
         k = k->kin)
        if (k->kin->starts[a].rows < r0)
            r0 = k->kin->starts[a].rows;
    if (r1 <= r0)
        return 0;
    /* sum of (row + 1) over rows r0 .. r1 - 1 */
    double rows = (r1 * (r1 + 1) - r0 * (r0 + 1)) / 2;
    return rows * N * (N + 1) / 2;
}

/* Cells extend_counted() updates to bring start 'a' up to layer 'b':
 * extend_work()'s count for its rows, times the assumed stage count (no
 * kin: every counted row is computed). */
static double
counted_work(const struct lr_cdynp_dc *d, int a, int b)
{
    if (a < 0 || b < a || b >= d->model->n_layers)
        return 0;
    const double N = d->cells, r1 = b - a + 1, r0 = d->starts[a].crows;
    if (r1 <= r0)
        return 0;
    double rows = (r1 * (r1 + 1) - r0 * (r0 + 1)) / 2;
    return rows * N * (N + 1) / 2 * d->n_stages;
}

/* extend_work() (counted_work() under a _BOUND objective) over every
 * grid of 'd'. */
static double
grids_work(const struct lr_cdynp_dc *d, int a, int b)
{
    double (*work)(const struct lr_cdynp_dc *, int, int)
        = lr_cdynp_obj_bound(d->obj) ? counted_work : extend_work;
    double w = work(d, a, b);
    for (int i = 0; i < d->n_alt; i++)
        w += work(d->alt[i], a, b);
    return w;
}

/* lr_cdynp_local_party_work() on handle 'd'. */
static double
party_work(const struct lr_cdynp_dc *d, enum lr_cdynp_objective obj,
           const struct lr_cdynp_summary *in, int first, int lo, int hi)
{
    if (lr_cdynp_obj_one(obj)) {
        /* N cells per range asked: one per (entry, b), or the one. */
        double ranges = first >= 0 ? 1
                        : (double) (in && in->n ? in->n : 1) * (hi - lo + 1);
        double cells = d->cells;
        for (int i = 0; i < d->n_alt; i++)
            cells += d->alt[i]->cells;
        return ranges > 0 ? ranges * cells : 0;
    }
    if (first >= 0)
        return grids_work(d, first, hi);
    if (!in)
        return grids_work(d, 0, hi);
    double w = 0;
    for (int e = 0; e < in->n && e < LR_CDYNP_MAX_ENTRIES; e++) {
        int a = (int) in->e[e].layer;
        /* A counted summary has a layer once per count: one start. */
        if (e > 0 && in->e[e - 1].layer == in->e[e].layer)
            continue;
        if (a >= 0 && a < hi)
            w += grids_work(d, a + 1, hi);
    }
    return w;
}

double
lr_cdynp_local_party_work(struct lr_cdynp_party *p,
                          enum lr_cdynp_objective obj, int assumed,
                          const struct lr_cdynp_summary *in, int first,
                          int lo, int hi)
{
    /* Layers out of range count 0, checked before any counting: the
     * ranges of a window past the model (a peer's STEP to 2^31 - 1) are
     * none, and their count overflowed an int. */
    const int L = ((const struct local_party *) p)->tm->model->n_layers;
    if (first >= 0 ? hi < first || hi >= L : lo < 0 || hi < lo || hi >= L)
        return 0;
    const struct local_party *lp = (const struct local_party *) p;
    /* A pair the party has no handle for yet is counted on a handle of
     * our own, freed after, never on one of the party's: a request
     * refused for its work must take nothing (it filled the party's
     * LR_CDYNP_MAX_SETS, and the peer's own job was refused ENOMEM).
     * A new handle has no rows, so the count from its kin's fewest
     * (extend_work()) is the count from none, as here. */
    const struct lr_cdynp_dc *d = local_find(lp, obj, assumed);
    struct lr_cdynp_dc *tmp = NULL;
    if (!d && !(d = tmp = handle_new(lp, obj, assumed > lp->tm->m
                                                ? lp->tm->m : assumed)))
        return 0;   /* the step itself will say out of memory */
    double w = party_work(d, obj, in, first, lo, hi);
    lr_cdynp_dc_free(tmp);
    return w;
}

/* What handle 'd' and its grids hold that a request made grow: the
 * handle itself without the link table it leaves untouched, its starts
 * and chain-step memory (one each per layer), and 32 bytes (3 doubles,
 * 2 ints) per cell of every row reserved: at most twice the rows
 * computed (cols_room()), and rows a reset emptied stay reserved.
 * Reserved, not computed: what a bound on this must hold is memory
 * asked of the system (overcommit, RLIMIT_AS, a heap reused). */
static double
handle_bytes(const struct lr_cdynp_dc *d)
{
    const double cell = 3 * sizeof(double) + 2 * sizeof(int32_t);
    const int L = d->model->n_layers;
    double b = offsetof(struct lr_cdynp_dc, tm1) + offsetof(struct lr_tm, link)
               + (double) L * (sizeof *d->starts + sizeof *d->back)
               + (double) d->cback_cap * sizeof *d->cback;
    for (int a = 0; a < L; a++) {
        const struct start *s = &d->starts[a];
        b += cell * (d->cells + 1)
             * ((s->col.B ? (double) s->cap : 0)
                + (s->cc.B ? (double) s->ccap * s->cq : 0));
    }
    for (int i = 0; i < d->n_made; i++)
        b += handle_bytes(d->alt[i]);
    return b;
}

double
lr_cdynp_local_party_bytes(const struct lr_cdynp_party *p)
{
    const struct local_party *lp = (const struct local_party *) p;
    double b = sizeof *lp;
    for (int i = 0; i < lp->n_sets; i++)
        b += handle_bytes(lp->sets[i].dc);
    return b;
}
