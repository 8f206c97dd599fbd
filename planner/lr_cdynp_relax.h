/*
 * lr_cdynp_relax: the innermost loop of CDynP's local DP
 * (lr_cdynp_local.c), over one row of cells stored as columns.
 *
 * For one last stage (layers h+1..i on g devices: time t, sync sy, and,
 * when an earlier stage exists, the boundary's x and 2c), every cell j in
 * [0, n) of the row takes the candidate
 *     (t, t, sy)                                   no earlier stage
 *     (max(max(B', x), t), (U' + 2c) + t, max(Y', sy))   otherwise,
 * (B', U', Y') the earlier stages' best at cell j of 'prev' (the caller
 * offsets prev by g), when that earlier cell is feasible (g' != 0) and
 * the candidate beats the cell's best (or the cell has none, g = 0),
 * compared as lr_cdynp_cost_cmp() does, with the same 1e-9 ties.
 *
 * Why a file of its own: the cells of one call are independent of each
 * other, so the loop vectorises (with a blend, not a branch, per cell),
 * and liblrsimd builds lr_cdynp_relax.c with the flags and clones that
 * let gcc do it (planner/lr_simd.h says why they do not change what is
 * computed: each cell goes through the same IEEE operations in the same
 * order as lr_cdynp_cost_cmp, no contraction).  The loops are here, as
 * static inline functions, so that a caller can also run them compiled
 * in place where a call would cost more than the vectors save (short
 * runs: LR_CDYNP_RELAX_SHORT); the same source, the same bits.
 * test_cdynp.c checks the cells bit for bit against the plain
 * recurrence.
 *
 * Every array of one call is distinct; the best arrays are read in
 * full, so their cells must be initialised (the caller sets a new row's
 * cells to 0, g = 0 among them).
 */
#ifndef LR_CDYNP_RELAX_H
#define LR_CDYNP_RELAX_H 1

#include <stdbool.h>
#include <stdint.h>

/* A row of cells as columns: the best cost (bottleneck, sum, sync) with
 * at most j devices, the previous stage's last layer, and this stage's
 * devices (0 = infeasible). */
struct lr_cdynp_cols {
    double *B, *U, *Y;
    int32_t *h, *g;
};

/* The stage whose candidates one call offers. */
struct lr_cdynp_stage {
    double t, sy;             /* its time and gradient sync */
    double x, two_c;          /* the boundary before it (when prev) */
    int32_t h, g;             /* what the cells it wins record */
    int time;                 /* 1: compare by T first (LR_CDYNP_TIME) */
    double m1;                /* m - 1, T's multiplier of B */
};

/* Offers 'st' to cells best[0..n) (columns starting at the first cell),
 * with the earlier stages' cells at prev[0..n) (NULL: none, the stage is
 * the range's first): the vectorised build, in liblrsimd. */
void lr_cdynp_relax(const struct lr_cdynp_stage *st, int n,
                    const struct lr_cdynp_cols *prev,
                    const struct lr_cdynp_cols *best);

/* Runs shorter than this go to lr_cdynp_relax_inline() (DCs of a few
 * devices: 192 layers over 2 DCs of 8 took 15% longer through the
 * call). */
#define LR_CDYNP_RELAX_SHORT 8

/* The loops vectorise only with every helper inlined into them (a call
 * is control flow); gcc's size limits would otherwise stop it. */
#if defined(__GNUC__)
#define LR_CDYNP_RELAX_INLINE inline __attribute__((always_inline))
#else
#define LR_CDYNP_RELAX_INLINE inline
#endif

static LR_CDYNP_RELAX_INLINE double
lr_cdynp_relax_max(double a, double b)
{
    return a > b ? a : b;
}

/* lr_cdynp_key_cmp(x, y) < 0 and > 0, the same operations. */
static LR_CDYNP_RELAX_INLINE bool
lr_cdynp_relax_lt(double x, double y)
{
    double tol = 1e-9 * (x > y ? x : y);
    return x < y - tol;
}

static LR_CDYNP_RELAX_INLINE bool
lr_cdynp_relax_gt(double x, double y)
{
    double tol = 1e-9 * (x > y ? x : y);
    return x > y + tol;
}

/* lr_cdynp_cost_cmp(a, b) < 0: under LEX (B, U, Y); under TIME
 * (U + m1 B + Y, B, U).  Bitwise, not short-circuit: no branch. */
static LR_CDYNP_RELAX_INLINE bool
lr_cdynp_relax_better(int time, double m1, double aB, double aU, double aY,
                      double bB, double bU, double bY)
{
    double a1 = time ? aU + m1 * aB + aY : aB;
    double b1 = time ? bU + m1 * bB + bY : bB;
    double a2 = time ? aB : aU, b2 = time ? bB : bU;
    double a3 = time ? aU : aY, b3 = time ? bU : bY;
    return lr_cdynp_relax_lt(a1, b1)
           | ((!lr_cdynp_relax_gt(a1, b1))
              & (lr_cdynp_relax_lt(a2, b2)
                 | ((!lr_cdynp_relax_gt(a2, b2))
                    & lr_cdynp_relax_lt(a3, b3))));
}

/* The two loops.  The columns are restrict parameters and the loops say
 * ivdep: gcc then needs no run-time alias checks.  'time' is a constant
 * at each call, so each loop is compiled with the comparison it needs. */
static LR_CDYNP_RELAX_INLINE void
lr_cdynp_relax_first(int time, double m1, double t, double sy, int32_t h,
                     int32_t g, int n, double *restrict B,
                     double *restrict U, double *restrict Y,
                     int32_t *restrict H, int32_t *restrict G)
{
#pragma GCC ivdep
    for (int j = 0; j < n; j++) {
        bool win = (G[j] == 0)
                   | lr_cdynp_relax_better(time, m1, t, t, sy, B[j], U[j],
                                           Y[j]);
        B[j] = win ? t : B[j];
        U[j] = win ? t : U[j];
        Y[j] = win ? sy : Y[j];
        H[j] = win ? h : H[j];
        G[j] = win ? g : G[j];
    }
}

static LR_CDYNP_RELAX_INLINE void
lr_cdynp_relax_later(int time, double m1, double t, double sy, double x,
                     double two_c, int32_t h, int32_t g, int n,
                     const double *restrict PB, const double *restrict PU,
                     const double *restrict PY, const int32_t *restrict PG,
                     double *restrict B, double *restrict U,
                     double *restrict Y, int32_t *restrict H,
                     int32_t *restrict G)
{
#pragma GCC ivdep
    for (int j = 0; j < n; j++) {
        double cB = lr_cdynp_relax_max(lr_cdynp_relax_max(PB[j], x), t);
        double cU = PU[j] + two_c + t;
        double cY = lr_cdynp_relax_max(PY[j], sy);
        bool win = (PG[j] != 0)
                   & ((G[j] == 0)
                      | lr_cdynp_relax_better(time, m1, cB, cU, cY, B[j],
                                              U[j], Y[j]));
        B[j] = win ? cB : B[j];
        U[j] = win ? cU : U[j];
        Y[j] = win ? cY : Y[j];
        H[j] = win ? h : H[j];
        G[j] = win ? g : G[j];
    }
}

/* lr_cdynp_relax(), compiled where it is called. */
static LR_CDYNP_RELAX_INLINE void
lr_cdynp_relax_inline(const struct lr_cdynp_stage *st, int n,
                      const struct lr_cdynp_cols *prev,
                      const struct lr_cdynp_cols *best)
{
    const struct lr_cdynp_cols *b = best;
    if (!prev) {
        if (st->time)
            lr_cdynp_relax_first(1, st->m1, st->t, st->sy, st->h, st->g, n,
                                 b->B, b->U, b->Y, b->h, b->g);
        else
            lr_cdynp_relax_first(0, st->m1, st->t, st->sy, st->h, st->g, n,
                                 b->B, b->U, b->Y, b->h, b->g);
    } else if (st->time) {
        lr_cdynp_relax_later(1, st->m1, st->t, st->sy, st->x, st->two_c,
                             st->h, st->g, n, prev->B, prev->U, prev->Y,
                             prev->g, b->B, b->U, b->Y, b->h, b->g);
    } else {
        lr_cdynp_relax_later(0, st->m1, st->t, st->sy, st->x, st->two_c,
                             st->h, st->g, n, prev->B, prev->U, prev->Y,
                             prev->g, b->B, b->U, b->Y, b->h, b->g);
    }
}

#endif
